# Test of draw_counts.py (cmake -P, add_lesson's SCRIPT_TESTS): the lesson writes a small
# image on the CPU, the plot module renders it, and the PNG must be a real image; then
# scripts/plot.py draws the block sweep of a real run (SWEEP_JSON, in docs/data: written before
# sweeps were part of the report, so this also checks that plot.py still reads such runs). Variables from
# add_lesson: LESSON, PYTHON, SOURCE_DIR, BINARY_DIR (this test's own folder), PROJECT_DIR.
if(NOT PYTHON)
  message(FATAL_ERROR "no Python interpreter with matplotlib was found at configure time")
endif()
set(SCRIPT "${SOURCE_DIR}/draw_counts.py")
set(OUT_DIR "${BINARY_DIR}")
set(COURSE_PLOT "${PROJECT_DIR}/scripts/plot.py")
set(SWEEP_JSON "${PROJECT_DIR}/docs/data/h200-2026-11-22/05_mandelbrot/perf.json")
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
# Each image form the lesson writes: grey PNG (what the docs plot), colour PNG, grey PGM.
foreach(form IN ITEMS "counts.png|--gray" "colour.png" "counts.pgm")
  string(REPLACE "|" ";" form "${form}")
  list(POP_FRONT form image)
  execute_process(COMMAND "${LESSON}" --width 120 --height 80 --iters 30 --skip-gpu --cpu-reps 1 --skip-serial
                          --image "${OUT_DIR}/${image}" ${form}
                  RESULT_VARIABLE result OUTPUT_QUIET)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "the lesson failed (exit ${result}) writing ${OUT_DIR}/${image}")
  endif()
  string(REPLACE "." "_" plotted "${image}")
  execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${OUT_DIR}/${image}" --out "${OUT_DIR}/${plotted}.png"
                  RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "draw_counts.py failed (exit ${result}) on ${image}")
  endif()
endforeach()
execute_process(COMMAND "${PYTHON}" "${COURSE_PLOT}" "${SWEEP_JSON}" --out "${OUT_DIR}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "scripts/plot.py failed (exit ${result}) on ${SWEEP_JSON}")
endif()
include("${PROJECT_DIR}/cmake/ExpectPng.cmake")
foreach(png IN ITEMS counts_png.png colour_png.png counts_pgm.png 05_mandelbrot_blocks_sweep.png)
  course_expect_png("${OUT_DIR}/${png}" 2000)
endforeach()
