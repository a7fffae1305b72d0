#!/usr/bin/env bash
# Builds the course and runs every test: the README's test command, and what CI runs.
#
# Usage: scripts/test_course.sh [extra ctest arguments, e.g. -L cpu or -R 01_vector_exp]
#
# Installs missing Debian packages when run as root (otherwise prints the apt-get line and
# stops), configures, builds and runs ctest. Where there is no GPU, GPU tests are reported as
# skipped with the reason. With COURSE_REQUIRE_GPU=1 a missing GPU fails them instead.
# Package and build output go to build/*.log (one line per step here); after ctest's own closing
# lines comes one more: how many tests passed, were skipped (grouped by reason) and failed.
# With CI=true it uses the "ci" preset: one GPU architecture and warnings as errors.
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
if [ -s "$junit" ]; then
  # Any python3 will do: the summary uses the standard library only.
  python3 "$course_root/scripts/test_summary.py" "$junit" || true
fi
exit "$status"
