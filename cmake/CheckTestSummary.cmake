# course_test_summary, the closing lines of scripts/test_course.sh (cmake -P): each CASE makes its
# input; "fixture" and "entities" compare the whole output, the others go to ExpectExit.cmake for
# the exit code and the one-line error.
# Variables: TOOL (course_test_summary), FIXTURE (scripts/tests/fixtures/ctest-junit.xml), WORK, CASE;
# VALGRIND (optional): run it under valgrind memcheck, where any invalid read or leak is exit 99.
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
  set(EXPECTED_STDERR "^course_test_summary: error: cannot read .*truncated.xml: .* \\(line [0-9]+\\)$")
elseif(CASE STREQUAL "deep")
  # 20,000 elements deep around one test: read without recursion, the test is found.
  string(REPEAT "<a>" 20000 open)
  string(REPEAT "</a>" 20000 close)
  set(input "${WORK}/deep.xml")
  file(WRITE "${input}" "<testsuite>${open}<testcase name=\"deep\" status=\"run\"/>${close}</testsuite>\n")
  set(expected "== 1 passed, 0 skipped, 0 failed (of 1 tests)\n")
elseif(CASE STREQUAL "deep_not_junit")
  string(REPEAT "<a>" 20000 open)
  string(REPEAT "</a>" 20000 close)
  file(WRITE "${WORK}/deep.xml" "${open}${close}")
  set(ARGS "${WORK}/deep.xml")
  set(EXPECTED_EXIT 3)
  set(EXPECTED_STDERR "deep.xml is not ctest's JUnit file: its root element is <a>, not <testsuite>$")
elseif(CASE STREQUAL "long_reason")
  # A skip reason of 50,000 characters: shown shortened, on one line.
  string(REPEAT "why" 16667 reason)
  set(input "${WORK}/long.xml")
  file(WRITE "${input}" "<testsuite><testcase name=\"t\" status=\"notrun\"><system-out>t.cpp:3: Skipped\n${reason}\n</system-out></testcase></testsuite>")
  string(SUBSTRING "${reason}" 0 300 shown)
  set(expected "== 0 passed, 1 skipped, 0 failed (of 1 tests)\n   1 skipped because: ${shown}... (50001 characters)  (e.g. t)\n")
elseif(CASE STREQUAL "huge_entity")
  file(WRITE "${WORK}/entity.xml" "<testsuite><testcase name=\"t\" status=\"notrun\">\n<skipped message=\"&#99999999999999999999;\"/></testcase></testsuite>")
  set(ARGS "${WORK}/entity.xml")
  set(EXPECTED_EXIT 3)
  set(EXPECTED_STDERR "entity.xml: '&#999999999999.*' is not a character reference to a Unicode character \\(line 2\\)$")
elseif(CASE STREQUAL "html")
  # An HTML page is not a summary of "0 of 0 tests".
  file(WRITE "${WORK}/page.html" "<html><head><title>x</title></head><body><p>tests</p></body></html>\n")
  set(ARGS "${WORK}/page.html")
  set(EXPECTED_EXIT 3)
  set(EXPECTED_STDERR "page.html is not ctest's JUnit file: its root element is <html>")
elseif(CASE STREQUAL "dev_zero")
  set(ARGS "/dev/zero")
  set(EXPECTED_EXIT 2)
  set(EXPECTED_STDERR "cannot read /dev/zero: /dev/zero is a character device, not a regular file \\(see --help\\)$")
elseif(CASE STREQUAL "fifo")
  # Reading a FIFO would wait for a writer for ever: refused without a read.
  execute_process(COMMAND mkfifo "${WORK}/pipe.xml" RESULT_VARIABLE made)
  if(NOT made EQUAL 0)
    message(FATAL_ERROR "mkfifo failed")
  endif()
  set(ARGS "${WORK}/pipe.xml")
  set(EXPECTED_EXIT 2)
  set(EXPECTED_STDERR "pipe.xml is a FIFO \\(named pipe\\), not a regular file \\(see --help\\)$")
elseif(CASE STREQUAL "missing")
  set(ARGS "${WORK}/none.xml")
  set(EXPECTED_EXIT 2)
  set(EXPECTED_STDERR "^course_test_summary: error: cannot read .*none.xml")
elseif(CASE STREQUAL "no_file_given")
  set(ARGS "")
  set(EXPECTED_EXIT 2)
  set(EXPECTED_STDERR "^course_test_summary: error: give the JUnit file")
elseif(CASE STREQUAL "bogus_flag")
  set(ARGS "--bogus")
  set(EXPECTED_EXIT 2)
  set(EXPECTED_STDERR "^course_test_summary: error: unknown flag --bogus")
elseif(CASE STREQUAL "two_roots")
  file(WRITE "${WORK}/two.xml" "<testsuite tests=\"1\"><testcase name=\"a\" status=\"run\"/></testsuite><testsuite/>\n")
  set(ARGS "${WORK}/two.xml")
  set(EXPECTED_EXIT 3)
  set(EXPECTED_STDERR "two.xml is not ctest's JUnit file: it has 2 top-level elements")
elseif(CASE STREQUAL "empty_suite")
  file(WRITE "${WORK}/empty.xml" "<testsuite tests=\"0\"></testsuite>\n")
  set(ARGS "${WORK}/empty.xml")
  set(EXPECTED_EXIT 3)
  set(EXPECTED_STDERR "empty.xml lists no test")
elseif(CASE STREQUAL "control_characters")
  # An ANSI escape and a newline in a test's name reach the terminal as '?'.
  string(ASCII 27 escape)
  file(WRITE "${WORK}/names.xml" "<testsuite tests=\"1\"><testcase name=\"a${escape}[31mred&#10;b\" status=\"fail\"/></testsuite>\n")
  set(ARGS "${WORK}/names.xml")
  set(EXPECTED_EXIT 0)
  set(EXPECTED_STDOUT "failed: a\\?\\[31mred\\?b")
else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()

set(wrapper "")
if(VALGRIND)
  set(wrapper "${VALGRIND}" -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,possible)
  set(COMMAND "${VALGRIND}")
  set(ARGS "-q|--error-exitcode=99|--leak-check=full|--errors-for-leak-kinds=definite,possible|${TOOL}|${ARGS}")
endif()
if(DEFINED expected)
  execute_process(COMMAND ${wrapper} "${TOOL}" "${input}" RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
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
