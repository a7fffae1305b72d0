# Test of plot_mandelbrot.py (cmake -P): the lesson writes a small image on the CPU, the plot
# module renders it, and the PNG must be a real image; then scripts/plot.py (COURSE_PLOT) draws the
# block sweep of a real run (SWEEP_JSON) through the module's plot(). Variables: LESSON, PYTHON,
# SCRIPT, OUT_DIR, COURSE_PLOT, SWEEP_JSON.
if(NOT PYTHON)
  message(FATAL_ERROR "no Python interpreter with matplotlib was found at configure time")
endif()
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
    message(FATAL_ERROR "plot_mandelbrot.py failed (exit ${result}) on ${image}")
  endif()
endforeach()
execute_process(COMMAND "${PYTHON}" "${COURSE_PLOT}" "${SWEEP_JSON}" --out "${OUT_DIR}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "scripts/plot.py failed (exit ${result}) on ${SWEEP_JSON}")
endif()
foreach(png IN ITEMS counts_png.png colour_png.png counts_pgm.png 05_mandelbrot_block_sweep.png)
  file(READ "${OUT_DIR}/${png}" head LIMIT 8 HEX)
  if(NOT head STREQUAL "89504e470d0a1a0a")
    message(FATAL_ERROR "${OUT_DIR}/${png} is not a PNG")
  endif()
  file(SIZE "${OUT_DIR}/${png}" size)
  if(size LESS 2000)
    message(FATAL_ERROR "${OUT_DIR}/${png} is suspiciously small (${size} bytes)")
  endif()
  message("wrote ${OUT_DIR}/${png} (${size} bytes)")
endforeach()
