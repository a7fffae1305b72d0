# Runs COMMAND with ARGS ('|'-separated) and checks the course's error contract (cmake -P):
# the exit code is EXPECTED_EXIT, and stderr is one line that matches EXPECTED_STDERR.
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND "${COMMAND}" ${args}
                RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 280)
string(STRIP "${err}" err)
message("exit ${result}; stderr: ${err}")
if(NOT "${result}" STREQUAL "${EXPECTED_EXIT}")
  message(FATAL_ERROR "expected exit code ${EXPECTED_EXIT}, got ${result}\nstdout:\n${out}")
endif()
if(err STREQUAL "")
  message(FATAL_ERROR "expected an error message on stderr, got none")
endif()
if(err MATCHES "\n")
  message(FATAL_ERROR "expected a one-line error, got several lines")
endif()
if(NOT err MATCHES "${EXPECTED_STDERR}")
  message(FATAL_ERROR "the error does not match '${EXPECTED_STDERR}'")
endif()
