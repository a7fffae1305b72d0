# Runs COMMAND with ARGS ('|'-separated) and checks the course's exit-code contract (cmake -P):
# the exit code is EXPECTED_EXIT; if EXPECTED_STDERR is given, stderr is one line matching it;
# if EXPECTED_STDOUT is given, stdout matches it.
# With PROBE (course_device_info) given and exit 3 expected: when no GPU is usable and the run needs one
# (COURSE_REQUIRE_GPU, --require-gpu or --skip-cpu), the only right error is the missing GPU,
# so the expected one becomes "a GPU is required" whatever EXPECTED_STDERR said.
cmake_minimum_required(VERSION 3.25)  # a -P script has no policies set otherwise (IN_LIST below)
string(REPLACE "|" ";" args "${ARGS}")
if(DEFINED PROBE AND NOT PROBE STREQUAL "" AND EXPECTED_EXIT EQUAL 3)
  set(needs_gpu OFF)
  if(DEFINED ENV{COURSE_REQUIRE_GPU} AND NOT "$ENV{COURSE_REQUIRE_GPU}" STREQUAL "" AND
     NOT "$ENV{COURSE_REQUIRE_GPU}" STREQUAL "0")
    set(needs_gpu ON)
  endif()
  if("--skip-cpu" IN_LIST args OR "--require-gpu" IN_LIST args)
    set(needs_gpu ON)
  endif()
  if(needs_gpu)
    execute_process(COMMAND "${PROBE}" --has-gpu RESULT_VARIABLE has_gpu OUTPUT_VARIABLE reason
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(has_gpu EQUAL 1)
      message("no usable GPU (${reason}) and this run needs one: expecting 'a GPU is required'")
      set(EXPECTED_STDERR "a GPU is required")
    endif()
  endif()
endif()
execute_process(COMMAND "${COMMAND}" ${args}
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 280)
string(STRIP "${err}" err)
message("exit ${result}; stderr: ${err}")
if(NOT "${result}" STREQUAL "${EXPECTED_EXIT}")
  message(FATAL_ERROR "expected exit code ${EXPECTED_EXIT}, got ${result}\nstdout:\n${out}")
endif()
if(DEFINED EXPECTED_STDERR AND NOT EXPECTED_STDERR STREQUAL "")
  if(err STREQUAL "")
    message(FATAL_ERROR "expected an error message on stderr, got none")
  endif()
  if(err MATCHES "\n")
    message(FATAL_ERROR "expected a one-line error, got several lines")
  endif()
  if(NOT err MATCHES "${EXPECTED_STDERR}")
    message(FATAL_ERROR "the error does not match '${EXPECTED_STDERR}'")
  endif()
endif()
if(DEFINED EXPECTED_STDOUT AND NOT EXPECTED_STDOUT STREQUAL "")
  if(NOT out MATCHES "${EXPECTED_STDOUT}")
    message(FATAL_ERROR "stdout does not match '${EXPECTED_STDOUT}':\n${out}")
  endif()
endif()
