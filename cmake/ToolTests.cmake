# Tests of what a newcomer meets outside the lessons (label cpu): course_summary's answers to
# bad input, the scripts' errors and output, and the commands the docs show, run as written.
# Included by the top-level CMakeLists.txt after the lessons.

foreach(case IN ITEMS folder not_json missing_without_equals failed_row did_not_finish all_verified)
  add_test(NAME common.summary.${case}
           COMMAND ${CMAKE_COMMAND} -DSUMMARY=$<TARGET_FILE:course_summary> -DCASE=${case}
             -DFIXTURE=${PROJECT_SOURCE_DIR}/common/tests/fixtures/01_vector_exp_fixture.json
             -DWORK=${CMAKE_BINARY_DIR}/summary_test/${case}
             -P ${PROJECT_SOURCE_DIR}/cmake/CheckSummary.cmake)
  set_tests_properties(common.summary.${case} PROPERTIES LABELS cpu TIMEOUT 60)
endforeach()

foreach(case IN ITEMS missing_values plot_errors progress test_summary)
  add_test(NAME scripts.${case} COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_scripts.sh ${case})
  set_tests_properties(scripts.${case} PROPERTIES LABELS cpu TIMEOUT 120)
endforeach()

# The docs' commands as written, from a checkout-like folder whose build/release/bin is this
# build's. Lesson runs among them use the GPU where there is one, hence the lock.
add_test(NAME docs.commands
         COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/tests/check_scripts.sh doc_commands
           ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
set_tests_properties(docs.commands PROPERTIES LABELS cpu TIMEOUT 1200 RESOURCE_LOCK gpu)

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
