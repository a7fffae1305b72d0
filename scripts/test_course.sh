#!/usr/bin/env bash
# Builds the course and runs every test: the README's test command, and what CI runs.
#
# Usage: scripts/test_course.sh [extra ctest arguments, e.g. -L cpu or -R 01_vector_exp]
#        (ctest's -R, -E, -L, -LE, -j, -N, -V, --output-on-failure, --rerun-failed, --repeat,
#        --timeout; anything else is refused, exit 2)
#
# Installs missing Debian packages when run as root (otherwise prints the apt-get line and
# stops), configures, builds and runs ctest. Where there is no GPU, GPU tests are reported as
# skipped with the reason. With COURSE_REQUIRE_GPU=1 a missing GPU fails them instead.
# Package and build output go to build/*.log (one line per step here); after ctest's own closing
# lines comes one more: how many tests passed, were skipped (grouped by reason) and failed; then
# what the build left out for a missing optional package (a lesson, the valgrind label), and why.
# With CI=true it uses the "ci" preset: one GPU architecture and warnings as errors, and a
# missing optional package is an error (CI never passes with a lesson left out).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

# Its own --help, and only ctest options it knows (ctest ignores an unknown one, so a typo would
# run the whole suite): checked before anything is installed or built.
ctest_with_value=" -R -E -L -LE -j -I --repeat --timeout --stop-time -C --tests-regex --exclude-regex --label-regex --label-exclude --parallel "
ctest_flags=" -N -V -VV -Q --output-on-failure --rerun-failed --show-only --stop-on-failure --schedule-random --no-tests=error --no-tests=ignore "
# COURSE_REQUIRE_GPU: 1/true/yes/on or 0/false/no/off (or unset); anything else is not guessed.
if [ -n "${COURSE_REQUIRE_GPU:-}" ] && ! [[ "$COURSE_REQUIRE_GPU" =~ ^([01]|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[Yy][Ee][Ss]|[Nn][Oo]|[Oo][Nn]|[Oo][Ff][Ff])$ ]]; then
  course_say "test_course.sh: COURSE_REQUIRE_GPU=$COURSE_REQUIRE_GPU: give 1 (a GPU is required) or 0 (it is not)"
  exit 2
fi
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  arg="${args[i]}"
  case "$arg" in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  esac
  if [[ "$ctest_with_value" == *" $arg "* ]]; then
    if ((i + 1 >= ${#args[@]})) || [ -z "${args[i + 1]}" ]; then course_say "test_course.sh: $arg needs a value"; exit 2; fi
    value="${args[i + 1]}"
    # ctest takes "-R -N" as a regex and "-j abc" as no limit: a value is checked here, so that a
    # slip never configures, builds and runs the whole suite.
    if [[ "$value" == -* ]]; then
      course_say "test_course.sh: $arg needs a value, not the flag '$(printf '%q' "$value")'"; exit 2
    fi
    case "$arg" in
      -j|--parallel) [[ "$value" =~ ^[1-9][0-9]{0,3}$ ]] ||
        { course_say "test_course.sh: $arg $(printf '%q' "$value"): give a number of jobs, 1 to 9999"; exit 2; } ;;
      --timeout) [[ "$value" =~ ^[0-9]{1,7}(\.[0-9]+)?$ ]] ||
        { course_say "test_course.sh: --timeout $(printf '%q' "$value"): give seconds, such as 600"; exit 2; } ;;
      --repeat) [[ "$value" =~ ^(until-fail|until-pass|after-timeout):[1-9][0-9]{0,5}$ ]] ||
        { course_say "test_course.sh: --repeat $(printf '%q' "$value"): give until-fail:N, until-pass:N or after-timeout:N"; exit 2; } ;;
    esac
    i=$((i + 1))
  elif [[ "$ctest_flags" == *" $arg "* ]] || [[ "$arg" =~ ^-(j[0-9]+|-parallel=.+|R.+|E.+|L.+|-tests-regex=.+|-exclude-regex=.+|-label-regex=.+|-label-exclude=.+)$ ]]; then
    :
  else
    course_say "test_course.sh: unknown argument '$arg' (it passes ctest's -R, -E, -L, -LE, -j, -N, -V, --output-on-failure, --rerun-failed, --repeat, --timeout; see --help)"
    exit 2
  fi
done

preset=release
if [ "${CI:-}" = "true" ]; then preset=ci; fi

course_build "$preset"

probe="$course_root/build/$preset/bin/course_device_info"
# On a GPU machine the documented commands run at their quick sizes only (docs.commands.*.quick):
# at the pages' full sizes (label docs-full) they take about 24 GPU-minutes, which is
# scripts/reproduce_docs.py's part "tests". Without a GPU (CI) they run in full.
leave_out=()
if gpu="$("$probe" --has-gpu)"; then
  echo "== test (GPU: ${gpu#usable: }; the documented commands at their quick sizes: the docs-full label is reproduce_docs.py's)"
  [[ " $* " == *docs-full* ]] || leave_out=(-LE docs-full)
elif [[ "${COURSE_REQUIRE_GPU:-}" =~ ^(1|[Tt][Rr][Uu][Ee]|[Yy][Ee][Ss]|[Oo][Nn])$ ]]; then
  echo "== test (no usable GPU: $gpu; COURSE_REQUIRE_GPU is set, so GPU tests will fail)"
else
  echo "== test (no usable GPU: $gpu; GPU tests will be reported as skipped)"
fi
# Tests that use the GPU hold the "gpu" resource lock, so running in parallel is safe.
# The test presets set OMP_WAIT_POLICY=PASSIVE: ctest runs one test per core and each lesson starts
# one OpenMP thread per core; libgomp's threads spin while they wait, and so many spinning threads
# starve every other test (on a 16-core H100 machine 06's 1.4 s no-GPU run took 97 s). Tests are
# never timings, so idle threads sleep instead.
junit="$course_root/build/$preset/ctest-junit.xml"
rm -f "$junit"
status=0
ctest --preset "$preset" -j "$(nproc)" --output-junit "$junit" "${leave_out[@]}" "$@" || status=$?
# Built with the course (common/tools/course_test_summary.cpp); it never changes the exit status.
summary="$course_root/build/$preset/bin/course_test_summary"
if [ -s "$junit" ] && [ -x "$summary" ]; then
  "$summary" "$junit" || true
elif [ -s "$junit" ]; then
  reason="$(grep -h '^The test summary tool' "$course_root/build/$preset/left-out.txt" 2>/dev/null || true)"
  echo "== no test summary: ${reason:-$summary was not built}"
fi
course_report_left_out "$preset"
exit "$status"
