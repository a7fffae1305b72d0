#!/usr/bin/env bash
# Reproduces, on a GPU machine, every measurement the docs quote: the full test suite with the
# GPU required, each lesson's runs shown in docs/NN_*.md, the size sweeps and their plots.
#
# Usage: scripts/reproduce_docs.sh [--out DIR] [--part tests|runs|sweeps|all]
#   --out    where everything goes (default: docs-runs/<date>); compare with docs/ afterwards
#   --part   tests: configure, build, ctest with COURSE_REQUIRE_GPU=1 (sanitizer tests included)
#            runs: course_device_info and the lesson runs quoted in the docs
#            sweeps: the size sweeps and launch sweeps, and the plots drawn from them
# Each command's output is saved next to its JSON; nothing here edits docs/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

out="$course_root/docs-runs/$(date +%Y-%m-%d)"
part=all
while [ $# -gt 0 ]; do
  case "$1" in
    --out) course_value "$@"; out="$(cd "$course_caller_dir" && realpath -m "$2")"; shift 2 ;;
    --part) course_value "$@"; part="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) course_say "reproduce_docs.sh: unknown argument '$1' (see --help)"; exit 2 ;;
  esac
done
case "$part" in tests|runs|sweeps|all) ;; *) course_say "reproduce_docs.sh: --part $part: choose tests, runs, sweeps or all"; exit 2 ;; esac
mkdir -p "$out"

course_build release
bin="$course_root/build/release/bin"
python="$(course_plot_python)"

# Runs one lesson command, saving its output as <name>.txt and its JSON as <name>.json.
run() {
  local name="$1"
  shift
  echo "== $name: $*"
  "$@" --json "$out/runs/$name.json" >"$out/runs/$name.txt" 2>&1 || { echo "   FAILED (exit $?)"; return 1; }
}

status=0
if [ "$part" = tests ] || [ "$part" = all ]; then
  echo "== tests (COURSE_REQUIRE_GPU=1)"
  COURSE_REQUIRE_GPU=1 ctest --preset gpu -j "$(nproc)" >"$out/tests.log" 2>&1 || status=1
  grep -E "tests passed|Label|^ *(cpu|gpu|smoke|sanitizer) *=|Skipped|Failed|Not Run" "$out/tests.log" || true
fi

if [ "$part" = runs ] || [ "$part" = all ]; then
  mkdir -p "$out/runs"
  "$bin/course_device_info" >"$out/runs/device_info.txt" 2>&1 || status=1
  cat "$out/runs/device_info.txt"
  if [ -x "$bin/01_vector_exp" ]; then
    run 01_default "$bin/01_vector_exp" || status=1
    run 01_warm_l2 "$bin/01_vector_exp" --no-flush-l2 --skip-cpu || status=1
    run 01_2e26 "$bin/01_vector_exp" -l 67108864 || status=1
    run 01_2e28 "$bin/01_vector_exp" -l 268435456 || status=1
    for ilp in 1 2 8; do run "01_2e28_ilp$ilp" "$bin/01_vector_exp" -l 268435456 --ilp "$ilp" --skip-cpu || status=1; done
  fi
  if [ -x "$bin/02_elementwise_add" ]; then
    run 02_default "$bin/02_elementwise_add" || status=1
    run 02_2e26_sweep "$bin/02_elementwise_add" -l 67108864 --sweep launch || status=1
    run 02_2e28 "$bin/02_elementwise_add" -l 268435456 || status=1
  fi
  if [ -x "$bin/03_streams" ]; then
    run 03_default "$bin/03_streams" || status=1
    run 03_compute_bound "$bin/03_streams" --intensity 2000 || status=1
  fi
  if [ -x "$bin/04_shared_matmul" ]; then
    run 04_4096 "$bin/04_shared_matmul" || status=1
    run 04_sweep "$bin/04_shared_matmul" --size 1024 --skip-cpu --sweep size --reps 10 || status=1
  fi
  if [ -x "$bin/05_mandelbrot" ]; then
    run 05_classic "$bin/05_mandelbrot" || status=1
    run 05_perf "$bin/05_mandelbrot" --width 4096 --height 4096 --iters 1000 --skip-serial --sweep blocks || status=1
  fi
  if [ -x "$bin/06_fft_convolve" ]; then
    run 06_default "$bin/06_fft_convolve" --out-dir "$out/runs/06_pictures" || status=1
    run 06_4096 "$bin/06_fft_convolve" -n 4096 || status=1
    run 06_crossover "$bin/06_fft_convolve" -n 1024 --sweep filter-size || status=1
    run 06_naive_wrap "$bin/06_fft_convolve" --filter box --filter-size 31 --out-dir "$out/runs/06_naive_wrap" || status=1
  fi
  if [ -x "$bin/07_black_scholes" ]; then
    run 07_default "$bin/07_black_scholes" || status=1
    run 07_classic "$bin/07_black_scholes" --classic || status=1
    run 07_2e26 "$bin/07_black_scholes" -n 67108864 --skip-cpu || status=1
    # Each kernel's worst option in units of u kappa, and the cancellation table (docs, sections 9, 10).
    "$bin/07_black_scholes_tests" --gtest_filter='*WorstOption*:*Cancellation*' >"$out/runs/07_accuracy_tests.txt" 2>&1 ||
      status=1
  fi
  if [ -x "$bin/08_driver_api_saxpy" ]; then
    run 08_default "$bin/08_driver_api_saxpy" || status=1
    run 08_a1.1 "$bin/08_driver_api_saxpy" -a 1.1 || status=1
  fi
  [ -n "$python" ] && "$python" "$course_root/scripts/plot.py" "$out/runs" --out "$out/plots" || true
fi

if [ "$part" = sweeps ] || [ "$part" = all ]; then
  sizes="4096 16384 65536 262144 1048576 4194304 16777216 67108864 268435456"
  for lesson in 01_vector_exp 02_elementwise_add; do
    [ -x "$bin/$lesson" ] || continue
    "$course_root/scripts/sweep.sh" --lesson "$lesson" --sizes "$sizes" --out "$out/sweep_$lesson" \
      -- --cpu-reps 1 || status=1
  done
fi
echo "== results in $out"
exit "$status"
