# Test of plot_fft_convolve.py through scripts/plot.py (cmake -P): the lesson runs small on the
# CPU (one thread: the single-core and all-cores rows are then alike, and must both run) with
# --out-dir, --sweep filter-size and --json, then the plot script draws its figures, and
# each must be a real PNG: the side-by-side pictures, the naive FFT's wrap and the crossover.
# Variables (add_lesson's SCRIPT_TESTS): LESSON, PYTHON, BINARY_DIR (this test's own folder), PROJECT_DIR.
set(COURSE_PLOT "${PROJECT_DIR}/scripts/plot.py")
set(OUT_DIR "${BINARY_DIR}")
if(NOT PYTHON)
  message(FATAL_ERROR "no Python interpreter with matplotlib was found at configure time")
endif()
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
execute_process(COMMAND "${LESSON}" --width 96 --height 80 --skip-gpu --cpu-reps 1 --threads 1 --fftw-planner estimate
                        --sweep filter-size --out-dir "${OUT_DIR}/pictures" --json "${OUT_DIR}/run.json"
                RESULT_VARIABLE result OUTPUT_QUIET)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the lesson failed (exit ${result})")
endif()
execute_process(COMMAND "${PYTHON}" "${COURSE_PLOT}" "${OUT_DIR}/run.json" --out "${OUT_DIR}/plots" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "scripts/plot.py failed (exit ${result})")
endif()
include("${PROJECT_DIR}/cmake/ExpectPng.cmake")
foreach(png IN ITEMS side_by_side naive_wrap crossover)
  course_expect_png("${OUT_DIR}/plots/06_fft_convolve_${png}.png" 5000)
endforeach()
