# Tests of what a newcomer meets outside the lessons (label cpu): course_summary's answers to
# bad input, course_test_summary's closing lines of test_course.sh, the scripts' errors and
# output, and the commands the docs show, run as written.
# Included by the top-level CMakeLists.txt after the lessons.

foreach(case IN ITEMS folder not_json missing_without_equals failed_row did_not_finish all_verified groups
                     failed_sweep)
  add_test(NAME common.summary.${case}
           COMMAND ${CMAKE_COMMAND} -DSUMMARY=$<TARGET_FILE:course_summary> -DCASE=${case}
             -DFIXTURE=${PROJECT_SOURCE_DIR}/common/tests/fixtures/01_vector_exp_fixture.json
             -DWORK=${CMAKE_BINARY_DIR}/summary_test/${case}
             -P ${PROJECT_SOURCE_DIR}/cmake/CheckSummary.cmake)
  set_tests_properties(common.summary.${case} PROPERTIES LABELS cpu TIMEOUT 60)
endforeach()

foreach(case IN ITEMS fixture entities truncated missing no_file_given)
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

foreach(case IN ITEMS missing_values plot_errors progress doc_plot_command configure_installs)
  add_test(NAME scripts.${case} COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_scripts.sh ${case})
  set_tests_properties(scripts.${case} PROPERTIES LABELS cpu TIMEOUT 120)
endforeach()

# The docs' commands as written, from a checkout-like folder whose build/release/bin is this
# build's: one test for the course pages and one per lesson built (its docs page and its README
# together, so a command shown in both runs once). No GPU lock: nothing in them is timed against
# a bar, and on a GPU machine the lessons' documented runs take minutes one after another.
function(course_add_doc_commands_test name)  # ARGN: the pages, relative to the checkout
  add_test(NAME docs.commands.${name}
           COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_scripts.sh doc_commands
             ${CMAKE_RUNTIME_OUTPUT_DIRECTORY} ${ARGN})
  set_tests_properties(docs.commands.${name} PROPERTIES LABELS cpu TIMEOUT 1200)
endfunction()

course_add_doc_commands_test(course README.md docs/README.md)
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

# COURSE_REQUIRE_GPU=1 on a machine without a GPU (hidden here on any machine): an exit-3 check
# written for "out of memory" must accept, and only accept, the missing GPU as the reason.
if(TARGET 01_vector_exp)
  add_test(NAME common.exit3_when_gpu_required_and_absent
           COMMAND ${CMAKE_COMMAND} -DCOMMAND=$<TARGET_FILE:01_vector_exp> "-DARGS=--length|68719476736"
             -DEXPECTED_EXIT=3 "-DEXPECTED_STDERR=out of (GPU|host) memory" -DPROBE=$<TARGET_FILE:course_device_info>
             -P ${PROJECT_SOURCE_DIR}/cmake/ExpectExit.cmake)
  set_tests_properties(common.exit3_when_gpu_required_and_absent PROPERTIES LABELS cpu TIMEOUT 60
                       ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1;COURSE_REQUIRE_GPU=1")
endif()
