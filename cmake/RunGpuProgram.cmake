# Runs a stand-alone GPU program (cmake -P): it must exit 0 and print "matches". Without a GPU it
# fails with its own one-line error; that is reported as SKIPPED (with the line) unless
# COURSE_REQUIRE_GPU is set, where it fails like any other error.
execute_process(COMMAND "${PROGRAM}" RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 100)
string(STRIP "${err}" err)
message("${out}")
if(result EQUAL 0)
  if(NOT out MATCHES "matches")
    message(FATAL_ERROR "exit 0 but no 'matches' in the output")
  endif()
  return()
endif()
set(required "$ENV{COURSE_REQUIRE_GPU}")
if(err MATCHES "no CUDA-capable device|CUDA driver|cudaErrorNoDevice|cudaErrorInsufficientDriver"
   AND (required STREQUAL "" OR required STREQUAL "0"))
  message("SKIPPED: no usable GPU: ${err}")
  return()
endif()
message(FATAL_ERROR "exit ${result}: ${err}")
