#!/usr/bin/env bash
# Runs one lesson (or all) at a list of sizes, one JSON per point, then draws the plots.
#
# Usage: scripts/sweep.sh [--lesson NAME|all] [--sizes "N1 N2 ..."] [--out DIR] [--no-plot] [--bin DIR]
#                         [-- arguments for every run, e.g. --skip-cpu --reps 50]
#   --lesson   a lesson folder name such as 01_vector_exp (default: all)
#   --sizes    the values of each lesson's size flag (default: 2^10, 2^12, ..., 2^28)
#   --out      output folder (default: sweeps/<date>); plots go to <out>/plots
#   --bin      the lesson binaries of a build already made (default: build and use build/release/bin)
# Needs a Release build (made if missing). Plots need Python 3 with matplotlib.
# This is a sweep over sizes, one run per size. A lesson's own sweeps inside one run (--sweep NAME,
# e.g. 02's --sweep launch, 04's --sweep size, 05's --sweep blocks) go into that run's JSON
# ("sweeps") and plot.py draws them too.
# Prints a line per run (which, how far, an estimate of the time left). Exit code: 0 every run
# verified, else the worst a run gave (1 verification failed, 2 bad arguments, 3 runtime error).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

lesson=all
sizes="1024 4096 16384 65536 262144 1048576 4194304 16777216 67108864 268435456"
out="$course_root/sweeps/$(date +%Y-%m-%d)"
plot=1
bin=""
run_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --lesson) course_value "$@"; lesson="$2"; shift 2 ;;
    --sizes) course_value "$@"; sizes="$2"; shift 2 ;;
    --out) course_value "$@"; out="$(cd "$course_caller_dir" && realpath -m "$2")"; shift 2 ;;
    --bin) course_value "$@"; bin="$(cd "$course_caller_dir" && realpath -m "$2")"; shift 2 ;;
    --no-plot) plot=0; shift ;;
    --) shift; run_args=("$@"); break ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) course_say "sweep.sh: unknown argument '$1' (see --help)"; exit 2 ;;
  esac
done

# Everything is checked before anything is configured or built.
if [ "$lesson" != all ] && { ! [[ "$lesson" =~ ^[0-9][0-9]_[A-Za-z0-9_]+$ ]] ||
                             [ ! -f "$course_root/$lesson/CMakeLists.txt" ]; }; then
  course_say "sweep.sh: --lesson ${lesson//[[:cntrl:]]/?}: no such lesson (lessons are folders such as 01_vector_exp)"
  exit 2
fi
set -f  # the sizes are words, never file names: "*" stays "*"
read -ra size_list <<<"$sizes"
set +f
if [ "${#size_list[@]}" -eq 0 ]; then
  course_say "sweep.sh: --sizes '$sizes' holds no size (give whole numbers, e.g. \"1024 4096\")"
  exit 2
fi
for size in "${size_list[@]}"; do
  if ! [[ "$size" =~ ^[1-9][0-9]{0,18}$ ]]; then
    course_say "sweep.sh: --sizes: '$size' is not a whole number of 1 or more"
    exit 2
  fi
done
# --bin first: a refused run leaves no empty output folder behind.
if [ -n "$bin" ] && [ ! -d "$bin" ]; then
  course_say "sweep.sh: --bin $bin: no such folder"
  exit 2
fi
if ! mkdir -p "$out" 2>/dev/null || [ ! -w "$out" ]; then
  course_say "sweep.sh: --out $out: not a folder where files can be written"
  exit 2
fi

if [ -z "$bin" ]; then
  course_build release
  bin="$course_root/build/release/bin"
fi

lessons=()
if [ "$lesson" = all ]; then
  for dir in "$course_root"/[0-9][0-9]_*/; do
    [ -x "$bin/$(basename "$dir")" ] && lessons+=("$(basename "$dir")")
  done
else
  [ -x "$bin/$lesson" ] || { course_say "sweep.sh: no lesson binary $bin/$lesson (left out of the build?)"; exit 2; }
  lessons=("$lesson")
fi

worst=0
total=$((${#lessons[@]} * ${#size_list[@]}))
done_runs=0
started=$SECONDS
for name in "${lessons[@]}"; do
  for size in "${size_list[@]}"; do
    # How far, and an estimate at the pace of the runs so far.
    estimate=""
    if [ "$done_runs" -gt 0 ]; then
      elapsed=$((SECONDS - started))
      estimate=", ${elapsed} s so far, about $((elapsed * (total - done_runs) / done_runs)) s left at this pace"
    fi
    echo "== run $((done_runs + 1)) of $total$estimate"
    # --size is every lesson's alias for its own size flag (--length, ...).
    printf '%-20s --size %-12s ' "$name" "$size"
    status=0
    "$bin/$name" --size "$size" --json "$out/${name}_$size.json" "${run_args[@]}" \
      >"$out/${name}_$size.log" 2>&1 || status=$?
    if [ "$status" -eq 0 ]; then
      echo ok
    else
      echo "FAILED (exit $status, see $out/${name}_$size.log)"
      # A lesson's own code (1, 2, 3) is kept; a crash (killed by a signal, 128 + n) counts as 3.
      [ "$status" -gt 3 ] && status=3
      [ "$status" -gt "$worst" ] && worst=$status
    fi
    done_runs=$((done_runs + 1))
  done
done

if [ "$plot" -eq 1 ]; then
  python="$(course_plot_python)"
  if [ -z "$python" ]; then
    course_say "No Python with matplotlib: install python3-matplotlib to draw the plots."
    exit 1
  fi
  "$python" "$course_root/scripts/plot.py" "$out" --out "$out/plots" || { [ "$worst" -eq 0 ] && worst=3; }
fi
exit "$worst"
