#!/usr/bin/env bash
# Builds the course and runs every test: the README's test command, and what CI runs.
#
# Usage: scripts/test_course.sh [extra ctest arguments, e.g. -L cpu or -R 01_vector_exp]
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

preset=release
if [ "${CI:-}" = "true" ]; then preset=ci; fi

course_build "$preset"

probe="$course_root/build/$preset/bin/course_device_info"
if gpu="$("$probe" --has-gpu)"; then
  echo "== test (GPU: ${gpu#usable: })"
elif [ -n "${COURSE_REQUIRE_GPU:-}" ] && [ "${COURSE_REQUIRE_GPU}" != 0 ]; then
  echo "== test (no usable GPU: $gpu; COURSE_REQUIRE_GPU is set, so GPU tests will fail)"
else
  echo "== test (no usable GPU: $gpu; GPU tests will be reported as skipped)"
fi
# Tests that use the GPU hold the "gpu" resource lock, so running in parallel is safe.
junit="$course_root/build/$preset/ctest-junit.xml"
rm -f "$junit"
status=0
ctest --preset "$preset" -j "$(nproc)" --output-junit "$junit" "$@" || status=$?
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
