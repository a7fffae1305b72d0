# Finds every dependency of the course. A missing one does not stop at the first failure:
# all are collected, each named with the Debian package that provides it, written to
# ${CMAKE_BINARY_DIR}/missing-debian-packages.txt (the setup scripts install from that list),
# and configuration then stops with one message.
set(_course_missing_packages "")
set(_course_missing_lines "")

macro(_course_require found what package)
  if(NOT ${found})
    list(APPEND _course_missing_packages ${package})
    string(APPEND _course_missing_lines "\n  - ${what}: apt-get install ${package}")
  endif()
endmacro()

# CUDA Toolkit: runtime, driver API, NVRTC, cuFFT, cuBLAS. It is not a Debian package here:
# the course expects NVIDIA's toolkit in /usr/local/cuda.
find_package(CUDAToolkit 12.0)
if(NOT CUDAToolkit_FOUND)
  message(FATAL_ERROR "The CUDA Toolkit was not found. Install NVIDIA's CUDA Toolkit (12.x or 13.x) "
                      "into /usr/local/cuda, or point CUDAToolkit_ROOT at it.")
endif()

find_package(OpenMP COMPONENTS CXX)
_course_require(OpenMP_CXX_FOUND "OpenMP for the multi-core CPU baselines" libgomp1)
find_package(GTest CONFIG QUIET)
if(NOT GTest_FOUND)
  find_package(GTest QUIET)
endif()
_course_require(GTest_FOUND "GoogleTest for the tests" libgtest-dev)
find_package(CLI11 CONFIG QUIET)
_course_require(CLI11_FOUND "CLI11 for command lines" libcli11-dev)
find_package(nlohmann_json 3.2 CONFIG QUIET)
_course_require(nlohmann_json_FOUND "nlohmann-json for JSON output" nlohmann-json3-dev)
# libpng: the course library reads and writes images (course/image.hpp) through it, so every
# lesson that writes an image needs it; it is required, not optional.
find_package(PNG QUIET)
_course_require(PNG_FOUND "libpng for reading and writing PNG images" libpng-dev)

# Python with matplotlib draws the plots (and only that). The first python3 on PATH may be a
# private one without matplotlib, so the system interpreter is tried as well.
if(NOT COURSE_PLOT_PYTHON)
  find_program(_course_path_python NAMES python3)
  foreach(candidate IN ITEMS "${_course_path_python}" /usr/bin/python3)
    if(candidate AND EXISTS "${candidate}")
      execute_process(COMMAND "${candidate}" -c "import matplotlib"
                      RESULT_VARIABLE has_matplotlib OUTPUT_QUIET ERROR_QUIET TIMEOUT 60)
      if(has_matplotlib EQUAL 0)
        set(COURSE_PLOT_PYTHON "${candidate}" CACHE FILEPATH "Python interpreter with matplotlib, for the plots")
        break()
      endif()
    endif()
  endforeach()
endif()
_course_require(COURSE_PLOT_PYTHON "Python 3 with matplotlib for the plots" python3-matplotlib)

# Optional dependencies: each serves one lesson (add_lesson(... REQUIRES <name>)), one test label
# or one tool. A missing one leaves only that part out, with a configure message naming the
# Debian package, a line in ${CMAKE_BINARY_DIR}/left-out.txt (scripts/test_course.sh prints it
# after the tests) and its package in missing-optional-debian-packages.txt, which the course's
# scripts install when run as root, so the README's commands build every lesson.
# With CI=true in the environment (or -DCOURSE_REQUIRE_EVERYTHING=ON) a missing optional
# dependency is an error instead: CI can never pass with a lesson or a label left out.
# COURSE_WITHOUT (a cache variable or an environment variable, e.g. "OpenBLAS;FFTW" or
# "valgrind pugixml") treats the named ones as missing even where they are installed: what a
# machine without them gets, tried without removing any package.
option(COURSE_REQUIRE_EVERYTHING "A missing optional dependency is an error (set by CI=true)" OFF)
set(COURSE_WITHOUT "" CACHE STRING "Optional dependencies to treat as missing (testing what a machine without them gets)")
set(_course_without ${COURSE_WITHOUT})
if(DEFINED ENV{COURSE_WITHOUT})
  string(REPLACE " " ";" _course_without "$ENV{COURSE_WITHOUT}")
endif()
if(COURSE_REQUIRE_EVERYTHING OR "$ENV{CI}" STREQUAL "true")
  set(_course_require_everything ON)
else()
  set(_course_require_everything OFF)
endif()
set(_course_missing_optional "")
set_property(GLOBAL PROPERTY COURSE_LEFT_OUT "")
macro(_course_optional name found package purpose)
  set(COURSE_PACKAGE_${name} ${package})
  set(COURSE_PURPOSE_${name} "${purpose}")
  if(${found} AND NOT "${name}" IN_LIST _course_without)
    set(COURSE_HAVE_${name} ON)
  else()
    set(COURSE_HAVE_${name} OFF)
    list(APPEND _course_missing_optional ${package})
    if(_course_require_everything)
      _course_require(COURSE_HAVE_${name} "${purpose} (optional, but CI builds everything)" ${package})
    endif()
  endif()
endmacro()

# course_left_out(<what> <name>): records that <what> (a lesson, a test label, a tool) is not
# built because the optional dependency <name> is missing.
function(course_left_out what name)
  set(line "${what} is left out: it needs ${name}, ${COURSE_PURPOSE_${name}} (Debian: apt-get install ${COURSE_PACKAGE_${name}})")
  message(STATUS "${line}")
  set_property(GLOBAL APPEND PROPERTY COURSE_LEFT_OUT "${line}")
endfunction()

# OpenBLAS: the tuned CPU BLAS that lesson 04's GPU matrix product is compared with. Debian
# keeps each threading flavour in its own folder (openblas-pthread, ...), chosen by alternatives.
# course::OpenBLAS gives its header and the library's path, not a link: lesson 04 loads it at
# run time (04_shared_matmul/openblas.cpp), after choosing the kernels it should use.
find_path(COURSE_OPENBLAS_INCLUDE_DIR cblas.h
          PATH_SUFFIXES x86_64-linux-gnu/openblas-pthread aarch64-linux-gnu/openblas-pthread openblas-pthread openblas)
find_library(COURSE_OPENBLAS_LIBRARY NAMES openblas
             PATH_SUFFIXES x86_64-linux-gnu/openblas-pthread aarch64-linux-gnu/openblas-pthread openblas-pthread)
if(COURSE_OPENBLAS_INCLUDE_DIR AND COURSE_OPENBLAS_LIBRARY)
  add_library(course::OpenBLAS INTERFACE IMPORTED GLOBAL)
  target_include_directories(course::OpenBLAS SYSTEM INTERFACE ${COURSE_OPENBLAS_INCLUDE_DIR})
  target_compile_definitions(course::OpenBLAS INTERFACE COURSE_OPENBLAS_LIBRARY_PATH="${COURSE_OPENBLAS_LIBRARY}")
  target_link_libraries(course::OpenBLAS INTERFACE ${CMAKE_DL_LIBS})
  set(_course_openblas_found ON)
else()
  set(_course_openblas_found OFF)
endif()
_course_optional(OpenBLAS _course_openblas_found libopenblas-dev "the CPU BLAS that lesson 04 is compared with")

# FFTW 3: the CPU FFT library that lesson 06's cuFFT is compared with, in single (fftw3f) and
# double (fftw3) precision, each with its OpenMP-threaded planner (fftw3f_omp, fftw3_omp).
# Found by hand: Debian 12's FFTW3Config.cmake names files the package does not ship.
find_path(COURSE_FFTW_INCLUDE_DIR fftw3.h)
foreach(_course_fftw_lib IN ITEMS fftw3f fftw3 fftw3f_omp fftw3_omp)
  find_library(COURSE_FFTW_${_course_fftw_lib}_LIBRARY NAMES ${_course_fftw_lib})
endforeach()
if(COURSE_FFTW_INCLUDE_DIR AND COURSE_FFTW_fftw3f_LIBRARY AND COURSE_FFTW_fftw3_LIBRARY AND
   COURSE_FFTW_fftw3f_omp_LIBRARY AND COURSE_FFTW_fftw3_omp_LIBRARY)
  add_library(course::FFTW INTERFACE IMPORTED GLOBAL)
  # Debian's fftw3.h is in /usr/include: naming that folder again (-isystem) would reorder the
  # compilers' own search path (nvcc's too), so only another folder is added.
  if(NOT COURSE_FFTW_INCLUDE_DIR STREQUAL "/usr/include")
    target_include_directories(course::FFTW SYSTEM INTERFACE ${COURSE_FFTW_INCLUDE_DIR})
  endif()
  # The threaded libraries come first: they call into the plain ones.
  target_link_libraries(course::FFTW INTERFACE ${COURSE_FFTW_fftw3f_omp_LIBRARY} ${COURSE_FFTW_fftw3_omp_LIBRARY}
                                               ${COURSE_FFTW_fftw3f_LIBRARY} ${COURSE_FFTW_fftw3_LIBRARY})
  set(_course_fftw_found ON)
else()
  set(_course_fftw_found OFF)
endif()
_course_optional(FFTW _course_fftw_found libfftw3-dev "the CPU FFT that lesson 06 is compared with")

# pugixml reads ctest's JUnit file for course_test_summary (the closing lines of
# scripts/test_course.sh). Without it that tool is not built and the script says why.
find_package(pugixml CONFIG QUIET)
if(TARGET pugixml::pugixml)
  add_library(course::pugixml INTERFACE IMPORTED GLOBAL)
  target_link_libraries(course::pugixml INTERFACE pugixml::pugixml)
  set(_course_pugixml_found ON)
else()
  set(_course_pugixml_found OFF)
endif()
_course_optional(pugixml _course_pugixml_found libpugixml-dev "an XML reader for the test summary")

# valgrind checks the lessons' CPU code (test label valgrind, cmake/Valgrind.cmake).
find_program(COURSE_VALGRIND valgrind)
_course_optional(valgrind COURSE_VALGRIND valgrind "the CPU memory checker")
if(NOT COURSE_HAVE_valgrind AND NOT _course_require_everything)  # (with CI=true: an error below)
  course_left_out("The test label valgrind (every lesson's CPU path under memcheck)" valgrind)
endif()

file(REMOVE ${CMAKE_BINARY_DIR}/missing-optional-debian-packages.txt)
if(_course_missing_optional)
  list(REMOVE_DUPLICATES _course_missing_optional)
  list(JOIN _course_missing_optional " " _course_optional_joined)
  file(WRITE ${CMAKE_BINARY_DIR}/missing-optional-debian-packages.txt "${_course_optional_joined}\n")
endif()

file(REMOVE ${CMAKE_BINARY_DIR}/missing-debian-packages.txt)
if(_course_missing_packages)
  list(REMOVE_DUPLICATES _course_missing_packages)
  list(JOIN _course_missing_packages " " _course_missing_joined)
  file(WRITE ${CMAKE_BINARY_DIR}/missing-debian-packages.txt "${_course_missing_joined}\n")
  # One line installs everything, the optional packages too.
  set(_course_all_missing ${_course_missing_packages} ${_course_missing_optional})
  list(REMOVE_DUPLICATES _course_all_missing)
  list(JOIN _course_all_missing " " _course_all_missing_joined)
  message(FATAL_ERROR "Missing dependencies:${_course_missing_lines}\n"
                      "Install them all (with the optional ones) with:\n  sudo apt-get install ${_course_all_missing_joined}")
endif()

# compute-sanitizer is optional: the sanitizer tests need it and a GPU.
find_program(COURSE_COMPUTE_SANITIZER compute-sanitizer
             HINTS ${CUDAToolkit_BIN_DIR} ${CUDAToolkit_BIN_DIR}/../compute-sanitizer
                   /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer)

# Warnings: -Wall -Wextra on all host code, also the host side of .cu files.
function(course_target_warnings target)
  # -Wno-missing-field-initializers: lessons declare variants with C++20 designated initializers
  # that name only the fields they set (the rest keep their defaults); GCC 12 warns on that.
  set(host_warnings -Wall -Wextra -Wshadow -Wno-missing-field-initializers)
  list(JOIN host_warnings "," host_warnings_nvcc)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:${host_warnings}>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${host_warnings_nvcc}>)
  if(COURSE_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
  endif()
endfunction()

# Called last by the top-level CMakeLists.txt: the configuration in a few lines, and
# ${CMAKE_BINARY_DIR}/left-out.txt: one line per part left out (none: the file is absent).
function(course_print_configuration_summary)
  get_property(left_out GLOBAL PROPERTY COURSE_LEFT_OUT)
  file(REMOVE ${CMAKE_BINARY_DIR}/left-out.txt)
  if(left_out)
    list(JOIN left_out "\n" left_out_lines)
    file(WRITE ${CMAKE_BINARY_DIR}/left-out.txt "${left_out_lines}\n")
  endif()
  message(STATUS "CUDA course configuration")
  message(STATUS "  build type:          ${CMAKE_BUILD_TYPE}")
  message(STATUS "  CUDA compiler:       ${CMAKE_CUDA_COMPILER} (${CMAKE_CUDA_COMPILER_VERSION})")
  message(STATUS "  CUDA architectures:  ${CMAKE_CUDA_ARCHITECTURES} (${COURSE_CUDA_ARCHITECTURES_SOURCE})")
  message(STATUS "  GPU at configure:    ${COURSE_GPU_AT_CONFIGURE}")
  message(STATUS "  plot interpreter:    ${COURSE_PLOT_PYTHON}")
  foreach(name IN ITEMS OpenBLAS FFTW pugixml valgrind)
    if(COURSE_HAVE_${name})
      set(state "found")
    else()
      set(state "missing (Debian: ${COURSE_PACKAGE_${name}}): what needs it is left out")
    endif()
    string(SUBSTRING "${name}:                    " 0 21 label)
    message(STATUS "  ${label}${state}")
  endforeach()
  message(STATUS "  libpng:              ${PNG_LIBRARY} (${PNG_VERSION_STRING})")
  if(COURSE_COMPUTE_SANITIZER)
    message(STATUS "  compute-sanitizer:   ${COURSE_COMPUTE_SANITIZER}")
  else()
    message(STATUS "  compute-sanitizer:   not found (sanitizer tests need it and a GPU)")
  endif()
endfunction()
