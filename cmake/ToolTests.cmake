# Tests of what a newcomer meets outside the lessons (label cpu): course_summary's answers to
# bad input, course_test_summary's closing lines of test_course.sh, the scripts' errors and
# output, and the commands the docs show, run as written.
# Included by the top-level CMakeLists.txt after the lessons.

# The CPU columns' rows (fastest_cpu_any_method ... json_out): the fastest verified CPU row of any
# method, the fastest one-thread row that is not a teaching row, on the reference run's 05 and 06.
foreach(case IN ITEMS folder missing_file name_too_long not_json missing_without_equals failed_row did_not_finish all_verified groups
                     failed_sweep optional_keys_absent wrong_type wrong_row deep fifo huge_time huge_threads
                     control_characters
                     fastest_cpu_any_method no_plain_one_thread_row teaching_and_unverified rows_without_verification json_out)
  add_test(NAME common.summary.${case}
           COMMAND ${CMAKE_COMMAND} -DSUMMARY=$<TARGET_FILE:course_summary> -DCASE=${case}
             -DFIXTURE=${PROJECT_SOURCE_DIR}/common/tests/fixtures/01_vector_exp_fixture.json
             -DFIXTURE_DIR=${PROJECT_SOURCE_DIR}/common/tests/fixtures
             -DWORK=${CMAKE_BINARY_DIR}/summary_test/${case}
             -P ${PROJECT_SOURCE_DIR}/cmake/CheckSummary.cmake)
  set_tests_properties(common.summary.${case} PROPERTIES LABELS cpu TIMEOUT 60)
endforeach()

# Also what is not a JUnit file, or not a file: deep nesting, a 50,000-character reason, a huge
# character reference, an HTML page, /dev/zero, a FIFO.
foreach(case IN ITEMS fixture entities truncated missing no_file_given bogus_flag two_roots empty_suite control_characters
                     deep deep_not_junit long_reason huge_entity html dev_zero fifo)
  if(NOT TARGET course_test_summary)
    break()  # left out (no pugixml): the configure message and scripts/test_course.sh say so
  endif()
  add_test(NAME common.test_summary.${case}
           COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:course_test_summary> -DCASE=${case}
             -DFIXTURE=${PROJECT_SOURCE_DIR}/scripts/tests/fixtures/ctest-junit.xml
             -DWORK=${CMAKE_BINARY_DIR}/test_summary_test/${case}
             -P ${PROJECT_SOURCE_DIR}/cmake/CheckTestSummary.cmake)
  set_tests_properties(common.test_summary.${case} PROPERTIES LABELS cpu TIMEOUT 60)
endforeach()

# Both summary tools on malformed input under valgrind memcheck (label valgrind): no invalid read,
# no use of uninitialised memory, no leak, whatever the file holds.
foreach(case IN ITEMS not_json optional_keys_absent wrong_type wrong_row deep fifo all_verified fastest_cpu_any_method
                     teaching_and_unverified)
  add_test(NAME common.summary.${case}.valgrind
           COMMAND ${CMAKE_COMMAND} -DSUMMARY=$<TARGET_FILE:course_summary> -DCASE=${case} -DVALGRIND=${COURSE_VALGRIND}
             -DFIXTURE=${PROJECT_SOURCE_DIR}/common/tests/fixtures/01_vector_exp_fixture.json
             -DFIXTURE_DIR=${PROJECT_SOURCE_DIR}/common/tests/fixtures
             -DWORK=${CMAKE_BINARY_DIR}/summary_test/${case}.valgrind
             -P ${PROJECT_SOURCE_DIR}/cmake/CheckSummary.cmake)
  set_tests_properties(common.summary.${case}.valgrind PROPERTIES LABELS valgrind TIMEOUT 300)
endforeach()
if(TARGET course_test_summary)
  foreach(case IN ITEMS entities truncated deep deep_not_junit long_reason huge_entity html dev_zero fifo)
    add_test(NAME common.test_summary.${case}.valgrind
             COMMAND ${CMAKE_COMMAND} -DTOOL=$<TARGET_FILE:course_test_summary> -DCASE=${case} -DVALGRIND=${COURSE_VALGRIND}
               -DFIXTURE=${PROJECT_SOURCE_DIR}/scripts/tests/fixtures/ctest-junit.xml
               -DWORK=${CMAKE_BINARY_DIR}/test_summary_test/${case}.valgrind
               -P ${PROJECT_SOURCE_DIR}/cmake/CheckTestSummary.cmake)
    set_tests_properties(common.test_summary.${case}.valgrind PROPERTIES LABELS valgrind TIMEOUT 300)
  endforeach()
endif()

foreach(case IN ITEMS missing_values plot_errors progress doc_plot_command configure_installs doc_quick)
  add_test(NAME scripts.${case} COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_scripts.sh ${case})
  set_tests_properties(scripts.${case} PROPERTIES LABELS cpu TIMEOUT 120)
endforeach()

# run_course.sh deletes no JSON it did not write (every lesson failing, from a stand-in checkout).
add_test(NAME scripts.run_course_keeps_json
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_scripts.sh run_course_keeps_json ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
set_tests_properties(scripts.run_course_keeps_json PROPERTIES LABELS cpu TIMEOUT 120 ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1")

# The docs' commands as written, from a checkout-like folder whose build/release/bin is this
# build's: one test for the course pages and one per lesson built (its docs page and its README
# together, so a command shown in both runs once). No GPU lock: nothing in them is timed against
# a bar, and on a GPU machine the lessons' documented runs take minutes one after another.
# Two tests per page set:
#   docs.commands.<name>        the pages' full sizes; labels cpu and docs-full. On a GPU machine
#                               they take about 24 GPU-minutes, so scripts/test_course.sh leaves
#                               the docs-full label out there (scripts/reproduce_docs.py runs it);
#                               without a GPU (CI) they run as part of every test run.
#   docs.commands.<name>.quick  the same commands with sizes capped and few repetitions
#                               (scripts/tests/doc_quick.sh): every flag still parsed and run, in
#                               every test run.
function(course_add_doc_commands_test name)  # ARGN: the pages, relative to the checkout
  add_test(NAME docs.commands.${name}
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_scripts.sh doc_commands
             ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} ${ARGN})
  set_tests_properties(docs.commands.${name} PROPERTIES LABELS "cpu;docs-full" TIMEOUT 1200)
  add_test(NAME docs.commands.${name}.quick
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_scripts.sh doc_commands --quick
             ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} ${ARGN})
  # COST: the longest tests of a GPU machine's run (up to two minutes each), started first so that on
  # a fresh build folder, where ctest has no timings yet, none of them starts last.
  set_tests_properties(docs.commands.${name}.quick PROPERTIES LABELS cpu TIMEOUT 600 COST 100)
endfunction()

course_add_doc_commands_test(course README.md docs/README.md docs/contributing.md docs/workshop.md)
file(GLOB lesson_folders RELATIVE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/[0-9][0-9]_*)
foreach(lesson IN LISTS lesson_folders)
  if(NOT TARGET ${lesson})
    continue()  # a lesson left out of this build (a missing optional library): its commands cannot run
  endif()
  set(pages "")
  foreach(page docs/${lesson}.md ${lesson}/README.md)
    if(EXISTS ${PROJECT_SOURCE_DIR}/${page})
      list(APPEND pages ${page})
    endif()
  endforeach()
  if(pages)
    course_add_doc_commands_test(${lesson} ${pages})
  endif()
endforeach()

# The docs checkers below need only the standard library, so they run with the Python 3 that CMake
# finds (not COURSE_PLOT_PYTHON, which must also have matplotlib).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  # The code the docs quote from the sources still matches them (scripts/check_doc_quotes.py over
  # docs/*.md and every lesson's README.md: each <!-- quote: PATH#NAME --> block against the region
  # between [docs:NAME] and [docs:end NAME] in PATH), and the checker itself on its fixtures (a
  # stale quote, an edited source, a missing file or region, ...), so that it cannot pass vacuously.
  add_test(NAME docs.quotes COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check_doc_quotes.py)
  set_tests_properties(docs.quotes PROPERTIES LABELS cpu TIMEOUT 60)
  foreach(case IN ITEMS matching stale short edited_source missing_file missing_region unclosed no_block malformed
                       no_quote bad_command_line)
    add_test(NAME docs.quotes.checker.${case}
             COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_quote_checker.sh ${case} ${Python3_EXECUTABLE})
    set_tests_properties(docs.quotes.checker.${case} PROPERTIES LABELS cpu TIMEOUT 60)
  endforeach()

  # Every relative link of the pages leads to a file that exists and, with an anchor, to a heading
  # of that page (scripts/check_doc_links.py), so that renumbered sections leave no dead link.
  add_test(NAME docs.links COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check_doc_links.py)
  set_tests_properties(docs.links PROPERTIES LABELS cpu TIMEOUT 60)
else()
  message(WARNING "No Python 3 interpreter: the tests docs.quotes and docs.links are left out")
endif()

# The pictures of ideas (scripts/draw_pictures.py) are redrawn into a temporary folder: every one
# listed in docs/images/PICTURES.md is drawn, as a PNG of page width, the same on a second drawing
# (scripts/tests/check_pictures.py); skipped, with the reason, where no Python has matplotlib.
add_test(NAME docs.pictures COMMAND ${COURSE_PLOT_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/tests/check_pictures.py
           ${COURSE_PLOT_PYTHON})
set_tests_properties(docs.pictures PROPERTIES LABELS cpu TIMEOUT 180 SKIP_REGULAR_EXPRESSION "SKIPPED:")

# The figures the pages quote from a run are the run's (scripts/check_doc_figures.py): every
# figure in a block marked <!-- figures: PATH... --> is in those JSON files, rounded as printed;
# and the checker on pages and runs it makes (a stale figure, a goal, a missing file, ...).
add_test(NAME docs.figures COMMAND ${COURSE_PLOT_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/check_doc_figures.py)
set_tests_properties(docs.figures PROPERTIES LABELS cpu TIMEOUT 60)
add_test(NAME docs.figures.checker
         COMMAND ${COURSE_PLOT_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/tests/check_figures_checker.py)
set_tests_properties(docs.figures.checker PROPERTIES LABELS cpu TIMEOUT 120)

# The workshop's agendas hold (scripts/check_agenda.py, standard-library Python): every row
# teaches only core-path sections (a deep-dive one only after "extra:"), its minutes hold its
# words at 100 a minute, its commands' measured seconds and its exercise's minutes, and its
# exercise is a checked one, as shipped. It prints each slot's budget.
if(Python3_Interpreter_FOUND)
  add_test(NAME docs.agenda COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check_agenda.py)
  set_tests_properties(docs.agenda PROPERTIES LABELS cpu TIMEOUT 60)
  foreach(case IN ITEMS matching deep_link over_budget unchecked_exercise edited_starter unknown_command no_agenda)
    add_test(NAME docs.agenda.checker.${case}
             COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_agenda_checker.sh ${case})
    set_tests_properties(docs.agenda.checker.${case} PROPERTIES LABELS cpu TIMEOUT 60)
  endforeach()
  # The reference-run script (scripts/reproduce_docs.py) without a GPU or a build: its command line
  # (one line, exit 2, nothing made), and its steps over stand-in binaries: timings.tsv, --skip,
  # --deadline, runs copied between parts and between calls, exit 1 for a failed or skipped step.
  # The generated fuzz of bad inputs (scripts/tests/fuzz_bad_inputs.py): every program's flags with
  # missing, empty, non-numeric, negative, huge and out-of-range values, unusable paths, two outputs
  # on one path; no hang, crash, traceback, exit 0, file named after a flag or write in the checkout.
  # Here a sample of 300 with a fixed seed within 45 s; the whole set (about 2,350 cases, a minute or two):
  #   python3 scripts/tests/fuzz_bad_inputs.py build/release/bin
  add_test(NAME scripts.bad_input.fuzz_sample
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/tests/fuzz_bad_inputs.py
             ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} --sample 300 --budget 45 --timeout 10)
  set_tests_properties(scripts.bad_input.fuzz_sample PROPERTIES LABELS cpu TIMEOUT 120)
  foreach(case IN ITEMS bad_command_line steps skip_and_deadline split_calls)
    add_test(NAME scripts.reproduce_docs.${case}
             COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/tests/check_reproduce_docs.py ${case})
    set_tests_properties(scripts.reproduce_docs.${case} PROPERTIES LABELS cpu TIMEOUT 120)
  endforeach()
endif()

# COURSE_REQUIRE_GPU=1 on a machine without a GPU (hidden here on any machine): an exit-3 check
# written for "out of memory" must accept, and only accept, the missing GPU as the reason.
if(TARGET 01_vector_exp)
  add_test(NAME common.exit3_when_gpu_required_and_absent
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:01_vector_exp> "-DARGS=--length|68719476736"
             -DEXPECTED_EXIT=3 "-DEXPECTED_STDERR=out of (GPU|host) memory" -DPROBE=$<TARGET_FILE:course_device_info>
             -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set_tests_properties(common.exit3_when_gpu_required_and_absent PROPERTIES LABELS cpu TIMEOUT 60
                       ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1;COURSE_REQUIRE_GPU=1")
  # The runner of the lessons' tables (scripts/check_bad_args.py) on fixtures, lesson 01's binary:
  # quoted and empty arguments reach it whole, and an exit-3 case needing the GPU, with the GPU
  # required and hidden, accepts only the missing GPU (the same rule as above); a wrong case fails
  # the table, named by its line, arguments and both exit codes.
  set(bad_args_fixtures ${PROJECT_SOURCE_DIR}/scripts/tests/fixtures/bad_args)
  add_test(NAME common.bad_args.arguments_and_gpu_required
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/check_bad_args.py
             $<TARGET_FILE:01_vector_exp> ${bad_args_fixtures}/arguments.tsv
             --probe $<TARGET_FILE:course_device_info>)
  set_tests_properties(common.bad_args.arguments_and_gpu_required PROPERTIES LABELS cpu TIMEOUT 300
                       ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1;COURSE_REQUIRE_GPU=1")
  add_test(NAME common.bad_args.names_the_failing_case
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=${Python3_EXECUTABLE}
             "-DARGS=${PROJECT_SOURCE_DIR}/scripts/check_bad_args.py|$<TARGET_FILE:01_vector_exp>|${bad_args_fixtures}/failing.tsv"
             -DEXPECTED_EXIT=1
             "-DEXPECTED_STDOUT=ok   line 2: .*FAIL line 3: --tile 0\n +expected exit code 3, got 2\n.*FAIL line 4: --reps 0\n +the error does not match 'no such message'\n.*1 of 3 cases"
             -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set_tests_properties(common.bad_args.names_the_failing_case PROPERTIES LABELS cpu TIMEOUT 60)
endif()

# Bad input as a careless or hostile user gives it (scripts/tests/check_bad_input.sh): hostile
# results files and output folders for plot.py, --json to a FIFO, a full disk (a file-size limit),
# lesson 08's kernel file and its JIT cache after a kill, sweep.sh's checks and exit code; and the
# progress line of a long CPU reference.
foreach(case IN ITEMS plot_files plot_pictures json_fifo full_disk kernel_file jit_cache_kill sweep progress corpus)
  add_test(NAME scripts.bad_input.${case}
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_bad_input.sh ${case} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
  set_tests_properties(scripts.bad_input.${case} PROPERTIES LABELS cpu TIMEOUT 300)
endforeach()
# Every lesson with more CPU threads than the machine runs (OMP_NUM_THREADS=100000 crashed
# libgomp in the first random fill): refused before any work, one line, exit 2.
file(GLOB lesson_folders RELATIVE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/[0-9][0-9]_*)
foreach(lesson IN LISTS lesson_folders)
  if(TARGET ${lesson})
    add_test(NAME ${lesson}.threads_beyond_the_machine
             COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:${lesson}> -DARGS=--skip-gpu -DEXPECTED_EXIT=2
               "-DEXPECTED_STDERR=OMP_NUM_THREADS=100000: more CPU threads than this machine runs"
               -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
    set_tests_properties(${lesson}.threads_beyond_the_machine PROPERTIES LABELS cpu TIMEOUT 60
                         ENVIRONMENT "OMP_NUM_THREADS=100000;CUDA_VISIBLE_DEVICES=-1")
  endif()
endforeach()
# The tools parse by the lessons' rules (course::parse_command_line): decimal whole numbers in range,
# no flag taken for a value, one-line errors, exit 2.
set(course_tool_bad_args "")
if(TARGET matmul_tune)
  list(APPEND course_tool_bad_args "matmul_tune|--size: '1e3' is not a whole number|--size|1e3"
       "matmul_tune|--size: '5abc' is not a whole number|--size|5abc"
       "matmul_tune|--size: Value 4294967297 not in range|--size|4294967297"
       "matmul_tune|--size: Value 2147483648 not in range|--size|2147483648"
       "matmul_tune|--reps: '--skip-cpu' is a flag|--reps|--skip-cpu" "matmul_tune|unknown flag --bogus|--bogus")
endif()
list(APPEND course_tool_bad_args "course_device_info|--device: '0x1' is not a whole number|--device|0x1"
     "course_device_info|--device: '\\+0' is not a whole number|--device|+0")
set(index 0)
foreach(item IN LISTS course_tool_bad_args)
  string(REPLACE "|" ";" parts "${item}")
  list(POP_FRONT parts tool pattern)
  string(REPLACE ";" "|" arguments "${parts}")
  math(EXPR index "${index} + 1")
  add_test(NAME common.tool_bad_args.${tool}.${index}
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:${tool}> "-DARGS=${arguments}" -DEXPECTED_EXIT=2
             "-DEXPECTED_STDERR=${pattern}" -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set_tests_properties(common.tool_bad_args.${tool}.${index} PROPERTIES LABELS cpu TIMEOUT 60)
endforeach()
if(TARGET matmul_tune)
  add_test(NAME common.tool_help.matmul_tune
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:matmul_tune> -DARGS=--help -DEXPECTED_EXIT=0
             "-DEXPECTED_STDOUT=--size.*--reps.*--skip-variants.*Exit codes" -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set_tests_properties(common.tool_help.matmul_tune PROPERTIES LABELS cpu TIMEOUT 60)
endif()

# scripts/check_exercise.sh and its table, scripts/exercises.txt (scripts/tests/check_exercise_script.sh):
# its one-line errors, the reason its FAIL line picks from a test's output, lesson 06's CPU
# exercise in this build (the shipped solution passes, the shipped starter fails with the check
# that failed), every starter still its recorded self
# (an edited one is a student's: skipped, except under CI=true, where it fails), --hint, a fast
# exercise's PASS, FAIL and NEEDS A GPU lines (a stand-in build), and a build folder of another
# checkout (refused, or moved aside).
foreach(case IN ITEMS usage records reasons stalled hints fast foreign sanitizer)
  add_test(NAME scripts.check_exercise.${case}
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_exercise_script.sh ${case})
  set_tests_properties(scripts.check_exercise.${case} PROPERTIES LABELS cpu TIMEOUT 120 SKIP_REGULAR_EXPRESSION "SKIPPED:")
endforeach()
if(TARGET 06_fft_convolve_tests)
  add_test(NAME scripts.check_exercise.cpu_exercise
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_exercise_script.sh cpu_exercise ${CMAKE_BINARY_DIR})
  set_tests_properties(scripts.check_exercise.cpu_exercise PROPERTIES LABELS cpu TIMEOUT 600
                       SKIP_REGULAR_EXPRESSION "SKIPPED:" ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1")
endif()

# The watchdog (common/include/course/watchdog.hpp, --timeout): lesson 08's NVRTC compile of a
# source that never finishes preprocessing (nested doubling macros) is stopped at --timeout 1,
# one line naming the compile, exit 3 (no GPU needed: NVRTC compiles without one). On a GPU, a
# kernel that never ends (`while (true) {}`) is stopped at --timeout 5, naming its row; without
# a GPU that test says so (--skip-cpu needs one) and is skipped.
if(TARGET 08_driver_api_saxpy)
  set(saxpy_tests ${PROJECT_SOURCE_DIR}/08_driver_api_saxpy/tests)
  add_test(NAME common.watchdog.nvrtc_compile
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:08_driver_api_saxpy>
             "-DARGS=--kernel-file|${saxpy_tests}/macro_bomb.cu|--length|1000|--timeout|1|--skip-gpu"
             -DEXPECTED_EXIT=3 "-DEXPECTED_STDERR=the NVRTC compile of macro_bomb.cu ran past its time limit of 1 s"
             -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set_tests_properties(common.watchdog.nvrtc_compile PROPERTIES LABELS cpu TIMEOUT 60)
  add_test(NAME common.watchdog.endless_kernel
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:08_driver_api_saxpy>
             "-DARGS=--kernel-file|${saxpy_tests}/endless_kernel.cu|--entry|saxpy|--length|1000|--skip-cpu|--timeout|5"
             -DEXPECTED_EXIT=3 "-DEXPECTED_STDERR=GPU row '.*ran past its time limit of 5 s|a GPU is required"
             -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set_tests_properties(common.watchdog.endless_kernel PROPERTIES LABELS gpu TIMEOUT 120 RESOURCE_LOCK gpu
                       SKIP_REGULAR_EXPRESSION "stderr: [^\n]*a GPU is required by --skip-cpu")
endif()

# course_summary takes one value per --missing: a results file after it is read, not swallowed.
add_test(NAME common.summary.missing_keeps_the_file
         COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:course_summary>
           "-DARGS=--missing|02_elementwise_add=exit 3|${PROJECT_SOURCE_DIR}/common/tests/fixtures/01_vector_exp_fixture.json"
           -DEXPECTED_EXIT=1 "-DEXPECTED_STDOUT=01_vector_exp .*02_elementwise_add +no +did not finish: exit 3"
           -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
set_tests_properties(common.summary.missing_keeps_the_file PROPERTIES LABELS cpu TIMEOUT 60)

# Lesson 01's first program takes no arguments: --help answers, anything else is exit 2.
if(TARGET 01_vector_exp_first_contact)
  add_test(NAME 01_vector_exp.first_contact_bad_argument
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:01_vector_exp_first_contact> -DARGS=--length|5
             -DEXPECTED_EXIT=2 "-DEXPECTED_STDERR=unexpected argument '--length': this program takes none"
             -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  add_test(NAME 01_vector_exp.first_contact_help
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:01_vector_exp_first_contact> -DARGS=--help
             -DEXPECTED_EXIT=0 "-DEXPECTED_STDOUT=Usage: .*no arguments" -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set_tests_properties(01_vector_exp.first_contact_bad_argument 01_vector_exp.first_contact_help PROPERTIES LABELS cpu TIMEOUT 60)
endif()
