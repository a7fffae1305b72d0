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
# valgrind checks the lessons' CPU code (test label valgrind, cmake/Valgrind.cmake).
find_program(COURSE_VALGRIND valgrind)
_course_require(COURSE_VALGRIND "valgrind for the CPU memory checks (test label valgrind)" valgrind)

# Optional libraries: a lesson names them in add_lesson(... REQUIRES <name>). A missing one
# leaves only that lesson out, with a message naming the Debian package; its package is still
# listed in missing-optional-debian-packages.txt, which the course's scripts install, so the
# README's commands build every lesson.
set(_course_missing_optional "")
macro(_course_optional name found package)
  set(COURSE_PACKAGE_${name} ${package})
  if(${found})
    set(COURSE_HAVE_${name} ON)
  else()
    set(COURSE_HAVE_${name} OFF)
    list(APPEND _course_missing_optional ${package})
  endif()
endmacro()

# OpenBLAS: the tuned CPU BLAS that lesson 04's GPU matrix product is compared with. Debian
# keeps each threading flavour in its own folder (openblas-pthread, ...), chosen by alternatives.
find_path(COURSE_OPENBLAS_INCLUDE_DIR cblas.h
          PATH_SUFFIXES x86_64-linux-gnu/openblas-pthread aarch64-linux-gnu/openblas-pthread openblas-pthread openblas)
find_library(COURSE_OPENBLAS_LIBRARY NAMES openblas
             PATH_SUFFIXES x86_64-linux-gnu/openblas-pthread aarch64-linux-gnu/openblas-pthread openblas-pthread)
if(COURSE_OPENBLAS_INCLUDE_DIR AND COURSE_OPENBLAS_LIBRARY)
  add_library(course::OpenBLAS INTERFACE IMPORTED GLOBAL)
  target_include_directories(course::OpenBLAS SYSTEM INTERFACE ${COURSE_OPENBLAS_INCLUDE_DIR})
  target_link_libraries(course::OpenBLAS INTERFACE ${COURSE_OPENBLAS_LIBRARY})
  set(_course_openblas_found ON)
else()
  set(_course_openblas_found OFF)
endif()
_course_optional(OpenBLAS _course_openblas_found libopenblas-dev)

# FFTW (single precision, with its OpenMP threads): the CPU FFT that lesson 06's cuFFT path is
# compared with.
find_path(COURSE_FFTW_INCLUDE_DIR fftw3.h)
find_library(COURSE_FFTW_LIBRARY NAMES fftw3f)
find_library(COURSE_FFTW_OMP_LIBRARY NAMES fftw3f_omp)
if(COURSE_FFTW_INCLUDE_DIR AND COURSE_FFTW_LIBRARY AND COURSE_FFTW_OMP_LIBRARY)
  add_library(course::FFTW INTERFACE IMPORTED GLOBAL)
  target_include_directories(course::FFTW SYSTEM INTERFACE ${COURSE_FFTW_INCLUDE_DIR})
  target_link_libraries(course::FFTW INTERFACE ${COURSE_FFTW_OMP_LIBRARY} ${COURSE_FFTW_LIBRARY} OpenMP::OpenMP_CXX)
  set(_course_fftw_found ON)
else()
  set(_course_fftw_found OFF)
endif()
_course_optional(FFTW _course_fftw_found libfftw3-dev)

file(REMOVE ${CMAKE_BINARY_DIR}/missing-optional-debian-packages.txt)
if(_course_missing_optional)
  list(JOIN _course_missing_optional " " _course_optional_joined)
  file(WRITE ${CMAKE_BINARY_DIR}/missing-optional-debian-packages.txt "${_course_optional_joined}\n")
endif()

file(REMOVE ${CMAKE_BINARY_DIR}/missing-debian-packages.txt)
if(_course_missing_packages)
  list(REMOVE_DUPLICATES _course_missing_packages)
  list(JOIN _course_missing_packages " " _course_missing_joined)
  file(WRITE ${CMAKE_BINARY_DIR}/missing-debian-packages.txt "${_course_missing_joined}\n")
  message(FATAL_ERROR "Missing dependencies:${_course_missing_lines}\n"
                      "Install them all with:\n  sudo apt-get install ${_course_missing_joined}")
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

function(course_print_configuration_summary)
  message(STATUS "CUDA course configuration")
  message(STATUS "  build type:          ${CMAKE_BUILD_TYPE}")
  message(STATUS "  CUDA compiler:       ${CMAKE_CUDA_COMPILER} (${CMAKE_CUDA_COMPILER_VERSION})")
  message(STATUS "  CUDA architectures:  ${CMAKE_CUDA_ARCHITECTURES} (${COURSE_CUDA_ARCHITECTURES_SOURCE})")
  message(STATUS "  GPU at configure:    ${COURSE_GPU_AT_CONFIGURE}")
  message(STATUS "  plot interpreter:    ${COURSE_PLOT_PYTHON}")
  message(STATUS "  OpenBLAS:            ${COURSE_OPENBLAS_LIBRARY}")
  message(STATUS "  libpng:              ${PNG_LIBRARY} (${PNG_VERSION_STRING})")
  if(COURSE_COMPUTE_SANITIZER)
    message(STATUS "  compute-sanitizer:   ${COURSE_COMPUTE_SANITIZER}")
  else()
    message(STATUS "  compute-sanitizer:   not found (sanitizer tests need it and a GPU)")
  endif()
endfunction()
