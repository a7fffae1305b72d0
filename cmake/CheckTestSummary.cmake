# course_test_summary, the closing lines of scripts/test_course.sh (cmake -P): each CASE makes its
# input; "fixture" and "entities" compare the whole output, the others go to ExpectExit.cmake for
# the exit code and the one-line error.
# Variables: TOOL (course_test_summary), FIXTURE (scripts/tests/fixtures/ctest-junit.xml), WORK, CASE.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(COMMAND "${TOOL}")
if(CASE STREQUAL "fixture")
  # Passed, skipped grouped by reason (GoogleTest's line after "Skipped", a script's "SKIPPED:"),
  # most common reason first, then each failed test by name.
  set(input "${FIXTURE}")
  set(expected [=[
== 1 passed, 3 skipped, 1 failed (of 5 tests)
   2 skipped because: no usable GPU: no NVIDIA driver is loaded, or it is older than this CUDA runtime needs  (e.g. common.GpuDeviceBuffer.RoundTripAndPoison)
   1 skipped because: no CUDA-capable GPU was found  (e.g. 01_vector_exp.sanitizer.memcheck)
   failed: 01_vector_exp.exit3.1
]=])
elseif(CASE STREQUAL "entities")
  # ctest escapes < > & " in names and output; a reason only ctest recorded; a disabled test.
  set(input "${WORK}/entities.xml")
  file(WRITE "${input}" [=[<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="4">
	<testcase name="a&amp;b.&lt;float&gt;" status="notrun">
		<skipped message="say &quot;no&quot; &apos;here&apos;"/>
	</testcase>
	<testcase name="c" status="notrun">
		<system-out>t.cpp:7: Skipped
needs &lt;sm_90&gt; &amp; more
</system-out>
	</testcase>
	<testcase name="d" status="notrun"><skipped message="say &quot;no&quot; &apos;here&apos;"/></testcase>
	<testcase name="e" status="disabled"/>
</testsuite>
]=])
  set(expected [=[
== 0 passed, 3 skipped, 0 failed, 1 disabled (of 4 tests)
   2 skipped because: say "no" 'here'  (e.g. a&b.<float>)
   1 skipped because: needs <sm_90> & more  (e.g. c)
]=])
elseif(CASE STREQUAL "truncated")
  # A file cut short (ctest stopped while writing it) is an error, not a summary of half the tests.
  file(READ "${FIXTURE}" text)
  string(SUBSTRING "${text}" 0 700 text)
  file(WRITE "${WORK}/truncated.xml" "${text}")
  set(ARGS "${WORK}/truncated.xml")
  set(EXPECTED_EXIT 3)
  set(EXPECTED_STDERR "^course_test_summary: error: cannot read .*truncated.xml: unclosed .* \\(line [0-9]+\\)$")
elseif(CASE STREQUAL "missing")
  set(ARGS "${WORK}/none.xml")
  set(EXPECTED_EXIT 3)
  set(EXPECTED_STDERR "^course_test_summary: error: cannot read .*none.xml")
elseif(CASE STREQUAL "no_file_given")
  set(ARGS "")
  set(EXPECTED_EXIT 2)
  set(EXPECTED_STDERR "^course_test_summary: error: junit is required")
else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()

if(DEFINED expected)
  execute_process(COMMAND "${TOOL}" "${input}" RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("exit ${result}; stdout:\n${out}")
  if(NOT result EQUAL 0 OR NOT err STREQUAL "")
    message(FATAL_ERROR "expected exit 0 and no error, got exit ${result}: ${err}")
  endif()
  if(NOT out STREQUAL expected)
    message(FATAL_ERROR "expected:\n${expected}")
  endif()
else()
  include(${CMAKE_CURRENT_LIST_DIR}/ExpectExit.cmake)
endif()
