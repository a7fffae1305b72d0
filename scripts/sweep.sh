#!/usr/bin/env bash
# Runs one lesson (or all) at a list of sizes, one JSON per point, then draws the plots.
#
# Usage: scripts/sweep.sh [--lesson NAME|all] [--sizes "N1 N2 ..."] [--out DIR] [--no-plot]
#                         [-- arguments for every run, e.g. --skip-cpu --reps 50]
#   --lesson   a lesson folder name such as 01_vector_exp (default: all)
#   --sizes    the values of each lesson's size flag (default: 2^10, 2^12, ..., 2^28)
#   --out      output folder (default: sweeps/<date>); plots go to <out>/plots
# Needs a Release build (made if missing). Plots need Python 3 with matplotlib.
# This is a sweep over sizes, one run per size. A lesson's own sweeps inside one run (--sweep NAME,
# e.g. 02's --sweep launch) go into that run's JSON ("sweeps") and plot.py draws them too.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

lesson=all
sizes="1024 4096 16384 65536 262144 1048576 4194304 16777216 67108864 268435456"
out="$course_root/sweeps/$(date +%Y-%m-%d)"
plot=1
run_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --lesson) course_value "$@"; lesson="$2"; shift 2 ;;
    --sizes) course_value "$@"; sizes="$2"; shift 2 ;;
    --out) course_value "$@"; out="$(cd "$course_caller_dir" && realpath -m "$2")"; shift 2 ;;
    --no-plot) plot=0; shift ;;
    --) shift; run_args=("$@"); break ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) course_say "sweep.sh: unknown argument '$1' (see --help)"; exit 2 ;;
  esac
done

if [ "$lesson" != all ] && [ ! -d "$course_root/$lesson" ]; then
  course_say "sweep.sh: --lesson $lesson: no such lesson folder (lessons are folders such as 01_vector_exp)"
  exit 2
fi

course_build release
bin="$course_root/build/release/bin"

lessons=()
if [ "$lesson" = all ]; then
  for dir in "$course_root"/[0-9][0-9]_*/; do
    [ -x "$bin/$(basename "$dir")" ] && lessons+=("$(basename "$dir")")
  done
else
  [ -x "$bin/$lesson" ] || { course_say "sweep.sh: no lesson binary $bin/$lesson"; exit 2; }
  lessons=("$lesson")
fi

mkdir -p "$out"
failed=0
for name in "${lessons[@]}"; do
  for size in $sizes; do
    # --size is every lesson's alias for its own size flag (--length, ...).
    printf '%-20s --size %-12s ' "$name" "$size"
    if "$bin/$name" --size "$size" --json "$out/${name}_$size.json" "${run_args[@]}" \
        >"$out/${name}_$size.log" 2>&1; then
      echo ok
    else
      echo "FAILED (exit $?, see $out/${name}_$size.log)"
      failed=1
    fi
  done
done

if [ "$plot" -eq 1 ]; then
  python="$(course_plot_python)"
  if [ -z "$python" ]; then
    course_say "No Python with matplotlib: install python3-matplotlib to draw the plots."
    exit 1
  fi
  "$python" "$course_root/scripts/plot.py" "$out" --out "$out/plots"
fi
exit "$failed"
