# add_lesson(): everything a lesson folder needs, in one call.
#
#   add_lesson(01_vector_exp
#     SOURCES        vector_exp_cpu.cpp vector_exp_simd.cpp # the lesson's code, shared by main and tests
#     TESTS          test_vector_exp.cpp                    # GoogleTest; suites named Gpu* need a GPU
#     SMOKE_ARGS     --length 1000 --reps 2                 # a small run of the binary
#     SANITIZER_ARGS --length 1000 --reps 1 --warmup 0      # a tiny run under compute-sanitizer
#     LIBRARIES      CUDA::cufft                            # anything beyond course::common
#     REQUIRES       OpenBLAS                               # optional libraries (OpenBLAS, FFTW): missing -> lesson left out
#     PROGRAMS       first_contact.cu                       # stand-alone programs, no course helpers
#     TOOLS          matmul_tune.cu                         # programs built on <name>_lib (the target is the
#                                                           #   file's stem); run by hand, not by a test
#     FILE_OPTIONS   "saxpy_cpu.cpp=-ffp-contract=off"      # "<files>=<options>": compile options of single
#                                                           #   files (sources, tests, kernels), each list
#                                                           #   space-separated
#     TEST_DEFINITIONS FIXTURES="${dir}/tests"              # compile definitions of <name>_tests
#     EMBED_TEXT     "KERNEL_TEXT=saxpy_kernel.cuh"         # "<VARIABLE>=<file>": the file's text, for
#                                                           #   CONFIGURED_SOURCES; editing it reconfigures
#     CONFIGURED_SOURCES saxpy_source.cpp.in                # configure_file(@ONLY) into the build folder
#                                                           #   (without .in), compiled into <name>_lib
#     OUTPUT_CHECKS  "runs:0:my_saxpy=--kernel-file k.cu"   # "<test>:<exit>:<stdout regex>=<arguments>": the
#                                                           #   binary's exit code and stdout (test <name>.<test>)
#     SCRIPT_TESTS   check_plot.cmake)                      # cmake -P scripts run as cpu tests (<name>.plot for
#                                                           #   check_plot.cmake), given LESSON, PYTHON (with
#                                                           #   matplotlib, or empty), SOURCE_DIR, BINARY_DIR (a
#                                                           #   folder of its own), PROJECT_DIR
#
# Found by the helper, so adding a kernel, an exercise or a bad-argument case needs no edit here:
#   kernels/*.cu, kernels/*.cpp      the lesson's kernel progression (one kernel per file), in <name>_lib
#   exercises/kernels/*.cu           "make it fast" starters and solutions: registry kernels (listed in
#                                    exercises/registry.inc, run only when --kernel names them), in <name>_lib
#   exercises/*.cu, exercises/*.cpp  exercise starters and solutions, built into <name>_tests (the
#                                    tests check each solution; a starter must at least compile)
#   tests/bad_args.tsv               the bad command lines (exit 2) and runtime failures (exit 3),
#                                    one case a line: exit code, stderr regex, arguments (required;
#                                    format in scripts/check_bad_args.py); test <name>.bad_args
#
# It creates:
#   <name>_lib    a static library of SOURCES (what the tests exercise)
#   <name>        the lesson binary, from main.cpp, in build/<preset>/bin
#   <name>_tests  the GoogleTest binary
# and registers CTest tests with the labels the course uses. Tests that need the GPU to
# themselves hold the CTest resource lock "gpu", so `ctest -j` never runs two of them at once;
# every other GPU test shares the GPU (the kernels of different processes take turns, and
# there is memory for all of them). The rule:
#   holds the lock   the smoke runs, the stand-alone programs, the output checks and the
#                    endless-kernel watchdog run (they time or occupy the GPU), and GoogleTest
#                    suites named GpuExclusive*: anything that measures or compares times or
#                    bandwidths, fills the GPU's memory or reads how much is free, occupies SMs
#                    on purpose, runs an endless kernel, or resets or limits the whole device
#   shares the GPU   every other suite named Gpu*: tests of correctness only (a time checked
#                    only to be positive is correctness)
# A new test that times, fills or holds the GPU goes in a GpuExclusive* suite; nothing else
# changes here.
#   cpu        unit tests that run anywhere, the bad-input checks, and runs with every GPU
#              hidden (CUDA_VISIBLE_DEVICES=-1): the no-GPU path is tested on GPU machines too
#   gpu        unit tests in suites named Gpu*: they skip without a GPU, and fail instead of
#              skipping when COURSE_REQUIRE_GPU=1
#   smoke      the binary at a small size, then its JSON read back by course_summary
#   sanitizer  the binary under compute-sanitizer memcheck, initcheck, racecheck and synccheck
set(COURSE_SANITIZER_TOOLS memcheck initcheck racecheck synccheck)
# Python 3 runs each lesson's bad-argument table (scripts/check_bad_args.py, standard library only).
find_package(Python3 COMPONENTS Interpreter REQUIRED)

function(add_lesson name)
  cmake_parse_arguments(PARSE_ARGV 1 LESSON ""
    "" "SOURCES;TESTS;SMOKE_ARGS;SANITIZER_ARGS;LIBRARIES;REQUIRES;PROGRAMS;TOOLS;FILE_OPTIONS;TEST_DEFINITIONS;EMBED_TEXT;CONFIGURED_SOURCES;OUTPUT_CHECKS;SCRIPT_TESTS")
  if(NOT LESSON_SOURCES OR NOT LESSON_TESTS)
    message(FATAL_ERROR "add_lesson(${name}): SOURCES and TESTS are required")
  endif()
  # An optional library that is missing leaves this one lesson out (the rest of the course builds).
  # The names are those of cmake/CourseDependencies.cmake (OpenBLAS, FFTW, ...); the line it
  # records is printed by scripts/test_course.sh after the tests.
  foreach(requirement IN LISTS LESSON_REQUIRES)
    if(NOT DEFINED COURSE_HAVE_${requirement})
      message(FATAL_ERROR "add_lesson(${name}): REQUIRES ${requirement} is not an optional dependency "
                          "known to cmake/CourseDependencies.cmake")
    endif()
    if(NOT COURSE_HAVE_${requirement})
      course_left_out("Lesson ${name}" ${requirement})
      return()
    endif()
    list(APPEND LESSON_LIBRARIES course::${requirement})
  endforeach()

  file(GLOB kernel_sources CONFIGURE_DEPENDS
       ${CMAKE_CURRENT_SOURCE_DIR}/kernels/*.cu ${CMAKE_CURRENT_SOURCE_DIR}/kernels/*.cpp
       ${CMAKE_CURRENT_SOURCE_DIR}/exercises/kernels/*.cu)
  file(GLOB exercise_sources CONFIGURE_DEPENDS
       ${CMAKE_CURRENT_SOURCE_DIR}/exercises/*.cu ${CMAKE_CURRENT_SOURCE_DIR}/exercises/*.cpp)

  course_lesson_file_steps(${name})  # EMBED_TEXT, CONFIGURED_SOURCES, FILE_OPTIONS: adds to LESSON_SOURCES
  add_library(${name}_lib STATIC ${LESSON_SOURCES} ${kernel_sources})
  target_include_directories(${name}_lib PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name}_lib PUBLIC course::common OpenMP::OpenMP_CXX ${LESSON_LIBRARIES})
  course_target_warnings(${name}_lib)

  add_executable(${name} main.cpp)
  target_link_libraries(${name} PRIVATE ${name}_lib)
  course_target_warnings(${name})

  add_executable(${name}_tests ${LESSON_TESTS} ${exercise_sources})
  target_link_libraries(${name}_tests PRIVATE ${name}_lib course::test_support)
  course_target_warnings(${name}_tests)
  if(LESSON_TEST_DEFINITIONS)
    target_compile_definitions(${name}_tests PRIVATE ${LESSON_TEST_DEFINITIONS})
  endif()
  course_register_gtests(${name}_tests ${name})
  # The lesson's sanitizer and GPU-probe tests ask course_device_info whether a GPU is usable:
  # building one lesson (its program or its tests) builds that probe too, so ctest -R <lesson>
  # after a single lesson's build runs them instead of failing on a missing program.
  add_dependencies(${name} course_device_info)
  add_dependencies(${name}_tests course_device_info)

  # Tools: programs on the lesson's library and the course's helpers (a tuning benchmark).
  foreach(tool_source IN LISTS LESSON_TOOLS)
    get_filename_component(tool ${tool_source} NAME_WE)
    add_executable(${tool} ${tool_source})
    target_link_libraries(${tool} PRIVATE ${name}_lib)
    course_target_warnings(${tool})
  endforeach()

  # Stand-alone programs: plain CUDA, no course library. Each is run by a gpu-labelled test that
  # must print "matches"; without a GPU it reports SKIPPED with the program's own error line.
  foreach(program_source IN LISTS LESSON_PROGRAMS)
    get_filename_component(program_stem ${program_source} NAME_WE)
    set(program ${name}_${program_stem})
    add_executable(${program} ${program_source})
    course_target_warnings(${program})
    add_test(NAME ${program}.run
             COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${program}>
               -P ${PROJECT_SOURCE_DIR}/cmake/RunGpuProgram.cmake)
    set_tests_properties(${program}.run PROPERTIES LABELS "gpu;smoke" TIMEOUT 120 RESOURCE_LOCK gpu
                         SKIP_REGULAR_EXPRESSION "SKIPPED:")
  endforeach()

  # Argument lists travel to the -P scripts joined by '|': add_test would split them at ';'.
  string(REPLACE ";" "|" smoke_args "${LESSON_SMOKE_ARGS}")
  add_test(NAME ${name}.smoke
           COMMAND ${CMAKE_COMMAND}
             -DLESSON=$<TARGET_FILE:${name}> -DSUMMARY=$<TARGET_FILE:course_summary>
             -DJSON=${CMAKE_CURRENT_BINARY_DIR}/${name}.smoke.json "-DARGS=${smoke_args}"
             -P ${PROJECT_SOURCE_DIR}/cmake/RunSmoke.cmake)
  set_tests_properties(${name}.smoke PROPERTIES LABELS smoke TIMEOUT 600 RESOURCE_LOCK gpu)

  # No GPU, even on a GPU machine (CUDA_VISIBLE_DEVICES=-1 hides them all): the CPU part runs
  # and the GPU rows say why they were skipped (exit 0); with the GPU required, exit 3.
  add_test(NAME ${name}.no_gpu
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:${name}> "-DARGS=${smoke_args}"
             -DEXPECTED_EXIT=0 "-DEXPECTED_STDOUT=skipped: no CUDA-capable GPU|skipped: no NVIDIA driver"
             -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  add_test(NAME ${name}.no_gpu_required
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:${name}> "-DARGS=${smoke_args}"
             -DEXPECTED_EXIT=3 "-DEXPECTED_STDERR=a GPU is required"
             -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  # --skip-cpu asks for the GPU part only: without a GPU that is an error, not an empty success.
  add_test(NAME ${name}.no_gpu_skip_cpu
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:${name}> "-DARGS=${smoke_args}|--skip-cpu"
             -DEXPECTED_EXIT=3 "-DEXPECTED_STDERR=a GPU is required by --skip-cpu"
             -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set_tests_properties(${name}.no_gpu_skip_cpu PROPERTIES LABELS cpu TIMEOUT 300
                       ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1;COURSE_REQUIRE_GPU=0")
  set_tests_properties(${name}.no_gpu PROPERTIES LABELS cpu TIMEOUT 300
                       ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1;COURSE_REQUIRE_GPU=0")
  set_tests_properties(${name}.no_gpu_required PROPERTIES LABELS cpu TIMEOUT 300
                       ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1;COURSE_REQUIRE_GPU=1")

  course_add_valgrind_test(${name} ${LESSON_SMOKE_ARGS})  # cmake/Valgrind.cmake
  course_register_bad_args(${name})
  course_register_output_checks(${name} ${LESSON_OUTPUT_CHECKS})
  course_register_script_tests(${name} ${LESSON_SCRIPT_TESTS})

  course_add_sanitizer_tests(${name} "" ${LESSON_SANITIZER_ARGS})
  course_add_planted_bug_tests(${name})
endfunction()

# The find-the-bug exercises on a GPU (the rows of scripts/exercises.txt with a compute-sanitizer
# tool): each starter as shipped, under its tool, must be caught: <name>.sanitizer.<exercise>_starter
# runs the test <Suite>.<...>StarterAsShippedRuns (the check's test name with DISABLED_ dropped and
# MatchesTheReference read as AsShippedRuns: it runs the starter once, results unchecked, and skips
# once the starter is edited) and expects exit 99 with the tool's kind of report.
function(course_add_planted_bug_tests name)
  if(NOT (COURSE_COMPUTE_SANITIZER OR COURSE_GPU_AT_CONFIGURE))
    return()
  endif()
  set(expected_memcheck "Invalid __global__")
  set(expected_racecheck "Race reported")
  set(expected_synccheck "Barrier error")
  set(expected_initcheck "Uninitialized __global__")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/scripts/exercises.txt)
  file(STRINGS ${PROJECT_SOURCE_DIR}/scripts/exercises.txt rows REGEX "^${name} ")
  foreach(row IN LISTS rows)
    string(REGEX REPLACE " +" ";" fields "${row}")
    list(LENGTH fields count)
    list(GET fields 2 kind)
    if(NOT kind STREQUAL "bug" OR count LESS 9)
      continue()
    endif()
    list(GET fields 1 exercise)
    list(GET fields 5 check)
    list(GET fields 8 tool)
    string(REPLACE "DISABLED_" "" as_shipped "${check}")
    string(REPLACE "MatchesTheReference" "AsShippedRuns" as_shipped "${as_shipped}")
    add_test(NAME ${name}.sanitizer.${exercise}_starter
             COMMAND ${CMAKE_COMMAND}
               -DSANITIZER=${COURSE_COMPUTE_SANITIZER} -DTOOL=${tool}
               -DPROBE=$<TARGET_FILE:course_device_info> -DLESSON=$<TARGET_FILE:${name}_tests>
               "-DARGS=--gtest_filter=${as_shipped}" "-DEXPECT=${expected_${tool}}"
               -P ${PROJECT_SOURCE_DIR}/cmake/RunSanitizer.cmake)
    set_tests_properties(${name}.sanitizer.${exercise}_starter PROPERTIES
      LABELS sanitizer TIMEOUT 900 SKIP_REGULAR_EXPRESSION "SKIPPED:")
  endforeach()
endfunction()

# The lesson binary under each compute-sanitizer tool, with the given arguments: add_lesson
# registers <name>.sanitizer.<tool>; a lesson with a second mode (01's --op) calls this after
# add_lesson with a suffix, for <name>.sanitizer.<suffix>.<tool>.
function(course_add_sanitizer_tests name suffix)
  if(NOT (COURSE_COMPUTE_SANITIZER OR COURSE_GPU_AT_CONFIGURE))
    return()
  endif()
  string(REPLACE ";" "|" sanitizer_args "${ARGN}")
  set(test_prefix ${name}.sanitizer)
  if(suffix)
    string(APPEND test_prefix .${suffix})
  endif()
  foreach(tool IN LISTS COURSE_SANITIZER_TOOLS)
    add_test(NAME ${test_prefix}.${tool}
             COMMAND ${CMAKE_COMMAND}
               -DSANITIZER=${COURSE_COMPUTE_SANITIZER} -DTOOL=${tool}
               -DPROBE=$<TARGET_FILE:course_device_info> -DLESSON=$<TARGET_FILE:${name}>
               "-DARGS=${sanitizer_args}"
               -P ${PROJECT_SOURCE_DIR}/cmake/RunSanitizer.cmake)
    # No "gpu" lock: these runs are small and time nothing, so they may share the GPU with
    # each other and with other tests (ctest -j runs them side by side).
    set_tests_properties(${test_prefix}.${tool} PROPERTIES
      LABELS sanitizer TIMEOUT 900 SKIP_REGULAR_EXPRESSION "SKIPPED:")
  endforeach()
endfunction()

# Registers one GoogleTest binary three times: suites named Gpu* (also as the suite of a
# parameterized test, Prefix/GpuSuite.Test) under the label gpu, the rest under cpu; of the Gpu*
# suites, only those named GpuExclusive* hold the resource lock "gpu" (the rule above).
# Discovery runs when ctest starts, on the machine that runs the tests.
function(course_register_gtests target prefix)
  gtest_discover_tests(${target} TEST_PREFIX "${prefix}." TEST_FILTER "-Gpu*:*/Gpu*"
                       DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60 NO_PRETTY_VALUES
                       PROPERTIES LABELS cpu TIMEOUT 300)
  gtest_discover_tests(${target} TEST_PREFIX "${prefix}." TEST_FILTER "Gpu*:*/Gpu*-GpuExclusive*:*/GpuExclusive*"
                       DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60 NO_PRETTY_VALUES
                       PROPERTIES LABELS gpu TIMEOUT 600)
  gtest_discover_tests(${target} TEST_PREFIX "${prefix}." TEST_FILTER "GpuExclusive*:*/GpuExclusive*"
                       DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60 NO_PRETTY_VALUES
                       PROPERTIES LABELS gpu TIMEOUT 600 RESOURCE_LOCK gpu)
endfunction()

# Splits "<left>=<right>" at its first "=" into the variables named left_var and right_var;
# anything else stops the configure with `message_text`.
function(course_split_at_equals item message_text left_var right_var)
  if(NOT item MATCHES "^([^=]+)=(.*)$")
    message(FATAL_ERROR "${message_text}")
  endif()
  set(${left_var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  set(${right_var} "${CMAKE_MATCH_2}" PARENT_SCOPE)
endfunction()

# The lesson's table of bad command lines and runtime failures (tests/bad_args.tsv), every case
# run by one cpu test, <name>.bad_args (scripts/check_bad_args.py names each failing case). The
# test inherits the environment: with COURSE_REQUIRE_GPU=1 and no GPU, an exit-3 case that needs
# one expects "a GPU is required" (the probe, course_device_info, tells).
function(course_register_bad_args name)
  set(table ${CMAKE_CURRENT_SOURCE_DIR}/tests/bad_args.tsv)
  if(NOT EXISTS ${table})
    message(FATAL_ERROR "add_lesson(${name}): ${table} is missing: every lesson checks its bad "
                        "command lines (format in scripts/check_bad_args.py)")
  endif()
  add_test(NAME ${name}.bad_args
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check_bad_args.py
             $<TARGET_FILE:${name}> ${table} --lesson-dir ${CMAKE_CURRENT_SOURCE_DIR}
             --probe $<TARGET_FILE:course_device_info>)
  # COST: started among the first (it runs the lesson a hundred-odd times), so that on a fresh
  # build folder, where ctest has no timings yet, it does not end the run alone.
  set_tests_properties(${name}.bad_args PROPERTIES LABELS cpu TIMEOUT 300 COST 50)
endfunction()

# add_lesson's steps on single files, in the caller's scope (LESSON_* variables): a file's text in
# a variable (EMBED_TEXT), templates configured into the build folder and compiled
# (CONFIGURED_SOURCES), and compile options of single files (FILE_OPTIONS). A macro, so that the
# sources it adds reach add_lesson and the file properties are set in the lesson's folder.
macro(course_lesson_file_steps name)
  foreach(item IN LISTS LESSON_EMBED_TEXT)
    course_split_at_equals("${item}" "add_lesson(${name}): EMBED_TEXT '${item}' is not <VARIABLE>=<file>"
                           embed_variable embed_file)
    file(READ ${CMAKE_CURRENT_SOURCE_DIR}/${embed_file} ${embed_variable})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${embed_file})
  endforeach()
  foreach(template IN LISTS LESSON_CONFIGURED_SOURCES)
    string(REGEX REPLACE "\\.in$" "" configured "${template}")
    configure_file(${template} ${CMAKE_CURRENT_BINARY_DIR}/${configured} @ONLY)
    list(APPEND LESSON_SOURCES ${CMAKE_CURRENT_BINARY_DIR}/${configured})
  endforeach()
  foreach(item IN LISTS LESSON_FILE_OPTIONS)
    course_split_at_equals("${item}" "add_lesson(${name}): FILE_OPTIONS '${item}' is not <files>=<options>"
                           option_files file_options)
    separate_arguments(option_files UNIX_COMMAND "${option_files}")
    separate_arguments(file_options UNIX_COMMAND "${file_options}")
    set_property(SOURCE ${option_files} APPEND PROPERTY COMPILE_OPTIONS ${file_options})
  endforeach()
endmacro()

# Each item is "<test>:<exit code>:<stdout regex>=<arguments>": the binary, run with those
# arguments, must exit with that code and print what the regex matches on stdout (a failure's
# one-line error on stderr as well). A run that should succeed may use the GPU: it takes the
# "gpu" lock and is a smoke test too.
function(course_register_output_checks name)
  foreach(item IN LISTS ARGN)
    if(NOT item MATCHES "^([A-Za-z0-9_]+):([0-9]+):([^=]+)=(.*)$")
      message(FATAL_ERROR "add_lesson(${name}): OUTPUT_CHECKS '${item}' is not <test>:<exit>:<stdout regex>=<arguments>")
    endif()
    set(test ${CMAKE_MATCH_1})
    set(code ${CMAKE_MATCH_2})
    set(pattern "${CMAKE_MATCH_3}")
    separate_arguments(arguments UNIX_COMMAND "${CMAKE_MATCH_4}")
    string(REPLACE ";" "|" arguments "${arguments}")
    set(one_line_error "")
    set(labels cpu)
    if(code EQUAL 0)
      set(labels "cpu;smoke")
    else()
      set(one_line_error ".")
    endif()
    add_test(NAME ${name}.${test}
             COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:${name}> "-DARGS=${arguments}"
               -DEXPECTED_EXIT=${code} "-DEXPECTED_STDOUT=${pattern}" "-DEXPECTED_STDERR=${one_line_error}"
               -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
    set_tests_properties(${name}.${test} PROPERTIES LABELS "${labels}" TIMEOUT 300 RESOURCE_LOCK gpu)
  endforeach()
endfunction()

# Each item is a cmake -P script of the lesson folder, run as a cpu test named after the file
# (check_plot.cmake: <name>.plot) in a build folder of its own.
function(course_register_script_tests name)
  foreach(script IN LISTS ARGN)
    get_filename_component(test ${script} NAME_WE)
    string(REGEX REPLACE "^check_" "" test "${test}")
    add_test(NAME ${name}.${test}
             COMMAND ${CMAKE_COMMAND} -DLESSON=$<TARGET_FILE:${name}> "-DPYTHON=${COURSE_PLOT_PYTHON}"
               -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR} -DBINARY_DIR=${CMAKE_CURRENT_BINARY_DIR}/${test}_test
               -DPROJECT_DIR=${PROJECT_SOURCE_DIR}
               -P ${CMAKE_CURRENT_SOURCE_DIR}/${script})
    set_tests_properties(${name}.${test} PROPERTIES LABELS cpu TIMEOUT 300)
  endforeach()
endfunction()
