# Smoke test of one lesson binary (cmake -P): run it at a small size with --json, require exit 0,
# then have course_summary read the JSON back, so the file every run writes is checked too.
# Variables: LESSON, SUMMARY, JSON, ARGS ('|'-separated).
string(REPLACE "|" ";" args "${ARGS}")
file(REMOVE "${JSON}")
execute_process(COMMAND "${LESSON}" ${args} --json "${JSON}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${LESSON} ${args} exited with ${result} (expected 0)")
endif()
if(NOT EXISTS "${JSON}")
  message(FATAL_ERROR "${LESSON} exited 0 but wrote no JSON to ${JSON}")
endif()
execute_process(COMMAND "${SUMMARY}" "${JSON}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "course_summary could not read ${JSON} (exit ${result})")
endif()
