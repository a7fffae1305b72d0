# Test (cmake -P) that the table-alone rows of a box run follow --kernel, on the CPU (--skip-gpu:
# the rows are listed, skipped, without a GPU): one row per sat_* method --kernel names, none
# when it names no table method, and a row for every table method when it names nothing.
# Variables (add_lesson's SCRIPT_TESTS): LESSON, PYTHON, BINARY_DIR, PROJECT_DIR.
function(count_table_rows result)
  execute_process(COMMAND "${LESSON}" --width 48 --height 40 --filter box --filter-size 3 --skip-gpu --cpu-reps 1
                          --fftw-planner estimate ${ARGN}
                  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "the lesson failed (exit ${code}) with ${ARGN}: ${err}")
  endif()
  string(REGEX MATCHALL "\n  GPU sat_[a-z_]+: the table alone +skipped" rows "${out}")
  list(LENGTH rows n)
  set(${result} ${n} PARENT_SCOPE)
endfunction()

count_table_rows(two --kernel sat_bands --kernel sat_cub)
if(NOT two EQUAL 2)
  message(FATAL_ERROR "--kernel sat_bands --kernel sat_cub: ${two} table rows, expected 2")
endif()
count_table_rows(none --kernel direct_tiled)
if(NOT none EQUAL 0)
  message(FATAL_ERROR "--kernel direct_tiled: ${none} table rows, expected none")
endif()
count_table_rows(every)
if(every LESS 8)
  message(FATAL_ERROR "no --kernel: ${every} table rows, expected one per table method (8 or more)")
endif()
