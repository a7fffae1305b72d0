#!/usr/bin/env bash
# Runs the whole course: builds (Release), runs every lesson present at its default size, and
# prints one summary table. The README's "run the course" command.
#
# Usage: scripts/run_course.sh [--results DIR] [--verbose] [-- arguments for every lesson]
#   --results DIR   where each lesson's JSON and full output go (default: results/)
#   --verbose       show each lesson's full output as it runs
#
# On a machine without a GPU the CPU parts run and the GPU cells say why they were skipped.
# Exit status: 0 if every lesson ran and verified, 1 otherwise.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

results="$course_root/results"
verbose=0
lesson_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --results) course_value "$@"; results="$(cd "$course_caller_dir" && realpath -m "$2")"; shift 2 ;;
    --verbose) verbose=1; shift ;;
    --) shift; lesson_args=("$@"); break ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) course_say "run_course.sh: unknown argument '$1' (see --help)"; exit 2 ;;
  esac
done

# The results folder must be one before anything is built. Nothing in it is deleted: a lesson's
# JSON is overwritten by its run, and only JSON written by this run is summarised.
if ! mkdir -p "$results" 2>/dev/null || [ ! -d "$results" ] || [ ! -w "$results" ]; then
  course_say "run_course.sh: --results $results: not a folder this run can create or write to"
  exit 2
fi
stamp="$(mktemp "$results/.run_course.XXXXXX" 2>/dev/null)" || {
  course_say "run_course.sh: --results $results: cannot write there"
  exit 2
}
trap 'rm -f "$stamp"' EXIT

course_build release

bin="$course_root/build/release/bin"
written=()
"$bin/course_device_info" --has-gpu >/dev/null && echo "== GPU: $("$bin/course_device_info" --has-gpu)" ||
  echo "== no usable GPU: $("$bin/course_device_info" --has-gpu || true) (GPU parts will be skipped)"

failed=0
missing=()
for dir in "$course_root"/[0-9][0-9]_*/; do
  lesson="$(basename "$dir")"
  [ -x "$bin/$lesson" ] || continue
  printf '== %-22s ' "$lesson"
  start=$SECONDS
  set +e
  if [ "$verbose" -eq 1 ]; then
    echo
    "$bin/$lesson" --json "$results/$lesson.json" "${lesson_args[@]}" 2>&1 | tee "$results/$lesson.log"
    status=${PIPESTATUS[0]}
  else
    "$bin/$lesson" --json "$results/$lesson.json" "${lesson_args[@]}" >"$results/$lesson.log" 2>&1
    status=$?
  fi
  set -e
  echo "exit $status, $((SECONDS - start)) s (output: ${results#"$course_root"/}/$lesson.log)"
  # This run's JSON only: one older than the run's start is a previous run's, kept but not summarised.
  if [ -s "$results/$lesson.json" ] && [ "$results/$lesson.json" -nt "$stamp" ]; then
    written+=("$results/$lesson.json")
  fi
  if [ "$status" -ne 0 ]; then
    failed=1
    if [ ! -s "$results/$lesson.json" ] || [ ! "$results/$lesson.json" -nt "$stamp" ]; then
      missing+=(--missing "$lesson=exit $status: $(tail -n 1 "$results/$lesson.log")")
    fi
  fi
done

# course_summary exits 1 when a lesson failed or did not finish: the message below says so.
"$bin/course_summary" "${written[@]}" "${missing[@]}" || failed=1
course_report_left_out release  # lessons not built for a missing optional package, and why
if [ "$failed" -ne 0 ]; then
  echo
  echo "Some lessons failed: see their logs in ${results#"$course_root"/}/."
  exit 1
fi
