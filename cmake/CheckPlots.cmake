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

foreach(name IN ITEMS 01_vector_exp_times.png 01_vector_exp_throughput.png
                     02_elementwise_add_times.png 02_elementwise_add_launch_sweep.png)
  set(png "${OUT_DIR}/${name}")
  if(NOT EXISTS "${png}")
    message(FATAL_ERROR "plot.py did not write ${name}")
  endif()
  # A PNG starts with its 8-byte signature, then the IHDR chunk holding width and height.
  file(READ "${png}" head LIMIT 24 HEX)
  string(SUBSTRING "${head}" 0 16 signature)
  if(NOT signature STREQUAL "89504e470d0a1a0a")
    message(FATAL_ERROR "${name} is not a PNG file (starts with ${signature})")
  endif()
  string(SUBSTRING "${head}" 32 8 width_hex)
  string(SUBSTRING "${head}" 40 8 height_hex)
  math(EXPR width "0x${width_hex}")
  math(EXPR height "0x${height_hex}")
  file(SIZE "${png}" bytes)
  if(width LESS 300 OR height LESS 200 OR bytes LESS 5000)
    message(FATAL_ERROR "${name} is ${width}x${height}, ${bytes} bytes: too small to hold a plot")
  endif()
  message(STATUS "${name}: ${width}x${height} PNG, ${bytes} bytes")
endforeach()
