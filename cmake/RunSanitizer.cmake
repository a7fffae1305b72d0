# Runs one lesson binary under a compute-sanitizer tool (cmake -P).
# Variables: SANITIZER (path, may be empty), TOOL, PROBE (course_device_info), LESSON, ARGS, and
# EXPECT (optional, below).
# PROBE --has-gpu exits 0 with a usable GPU, 1 without one, anything else when the GPU is broken.
# Without a usable GPU it prints "SKIPPED: <reason>" (the test is then reported as skipped),
# unless COURSE_REQUIRE_GPU=1 says a GPU must be there, when it fails instead.
string(REPLACE "|" ";" args "${ARGS}")
set(required OFF)
if(DEFINED ENV{COURSE_REQUIRE_GPU} AND NOT "$ENV{COURSE_REQUIRE_GPU}" STREQUAL "" AND NOT "$ENV{COURSE_REQUIRE_GPU}" STREQUAL "0")
  set(required ON)
endif()

if(NOT EXISTS "${PROBE}")
  message(FATAL_ERROR "the GPU probe ${PROBE} is not built: cmake --build --preset release --target course_device_info")
endif()
execute_process(COMMAND "${PROBE}" --has-gpu RESULT_VARIABLE has_gpu OUTPUT_VARIABLE reason
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT has_gpu EQUAL 0 AND NOT has_gpu EQUAL 1)
  message(FATAL_ERROR "the GPU probe failed (exit ${has_gpu}): ${reason}")
endif()
if(has_gpu EQUAL 1)
  if(required)
    message(FATAL_ERROR "COURSE_REQUIRE_GPU is set but no GPU is usable: ${reason}")
  endif()
  message("SKIPPED: ${reason}")
  return()
endif()
if(NOT SANITIZER)
  message(FATAL_ERROR "a GPU is present but compute-sanitizer was not found at configure time; "
                      "add the CUDA Toolkit's bin folder to PATH and reconfigure")
endif()

set(tool_args --tool ${TOOL} --error-exitcode 99)
if(TOOL STREQUAL "memcheck")
  list(APPEND tool_args --leak-check full)
endif()
# EXPECT (a regex): a planted bug's run (an exercise's starter as shipped, in its test binary),
# which the tool must catch: exit 99 and its report matching EXPECT. A test that skips (the
# starter edited) is reported as skipped.
if(DEFINED EXPECT AND NOT EXPECT STREQUAL "")
  execute_process(COMMAND "${SANITIZER}" ${tool_args} "${LESSON}" ${args} RESULT_VARIABLE result
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  message("${output}")
  if(output MATCHES "\\[  SKIPPED \\]")
    message("SKIPPED: the test skipped (the starter is edited?)")
    return()
  endif()
  if(NOT result EQUAL 99 OR NOT output MATCHES "${EXPECT}")
    message(FATAL_ERROR "compute-sanitizer --tool ${TOOL} did not report the planted bug (exit ${result}; expected 99 and '${EXPECT}')")
  endif()
  return()
endif()
execute_process(COMMAND "${SANITIZER}" ${tool_args} "${LESSON}" ${args} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "compute-sanitizer --tool ${TOOL} reported errors or the run failed (exit ${result})")
endif()
