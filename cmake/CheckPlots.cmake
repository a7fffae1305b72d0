# Test of scripts/plot.py (cmake -P). From the committed fixture it makes two more "runs" at
# other sizes, draws the plots, and checks that each expected PNG is a real image. Lesson 02's
# fixture (a launch sweep in "sweeps") checks that a sweep is drawn.
# Variables: PYTHON, SCRIPT, FIXTURE_DIR, OUT_DIR.
if(NOT PYTHON)
  message(FATAL_ERROR "no Python interpreter with matplotlib was found at configure time; "
                      "install python3-matplotlib and reconfigure")
endif()
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}/in")
file(READ "${FIXTURE_DIR}/01_vector_exp_fixture.json" fixture)
file(WRITE "${OUT_DIR}/in/run_base.json" "${fixture}")
foreach(scale IN ITEMS 4 16)
  string(JSON size GET "${fixture}" size value)
  math(EXPR size "${size} * ${scale}")
  string(JSON variant SET "${fixture}" size value "${size}")
  file(WRITE "${OUT_DIR}/in/run_x${scale}.json" "${variant}")
endforeach()

file(READ "${FIXTURE_DIR}/02_elementwise_add_fixture.json" fixture_02)
file(WRITE "${OUT_DIR}/in/run_02.json" "${fixture_02}")

execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${OUT_DIR}/in" --out "${OUT_DIR}"
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "plot.py failed with exit code ${result}")
endif()

include("${CMAKE_CURRENT_LIST_DIR}/ExpectPng.cmake")
foreach(name IN ITEMS 01_vector_exp_times.png 01_vector_exp_throughput.png
                     02_elementwise_add_times.png 02_elementwise_add_launch_sweep.png)
  course_expect_png("${OUT_DIR}/${name}" 5000 300 200)  # large enough to hold a plot
endforeach()
