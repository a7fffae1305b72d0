# The valgrind label: each lesson binary's CPU path (--skip-gpu, a small size) under valgrind
# memcheck. It must show no invalid read or write, no use of uninitialised memory and no leak;
# the one suppression (valgrind-libgomp.supp) is libgomp's thread pool, kept until exit.
# A GPU plays no part: valgrind does not understand device memory (compute-sanitizer does that,
# label sanitizer). valgrind is an optional dependency (CourseDependencies.cmake): without it the
# label is left out (one configure line says so) and everything else builds and runs.
set(COURSE_VALGRIND_SUPPRESSIONS ${CMAKE_CURRENT_LIST_DIR}/valgrind-libgomp.supp)

# course_add_valgrind_test(<lesson> <arguments>...): the arguments are the lesson's smoke run.
function(course_add_valgrind_test name)
  if(NOT COURSE_HAVE_valgrind)
    return()
  endif()
  add_test(NAME ${name}.valgrind
           COMMAND ${COURSE_VALGRIND} --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite,possible
             --error-exitcode=99 --suppressions=${COURSE_VALGRIND_SUPPRESSIONS}
             $<TARGET_FILE:${name}> ${ARGN} --skip-gpu)
  # Two threads keep OpenMP's code paths and the run short under valgrind's serialised threads.
  set_tests_properties(${name}.valgrind PROPERTIES LABELS valgrind TIMEOUT 600 ENVIRONMENT "OMP_NUM_THREADS=2")
endfunction()
