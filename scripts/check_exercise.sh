#!/usr/bin/env bash
# Checks an exercise: builds the lesson's tests and runs the one that holds your edited starter
# to the reference, then prints one line. A "make it fast" exercise (kind fast in the table) is
# checked by the lesson's own benchmark instead: the lesson's program runs your kernel
# (--kernel), verifies it and times it against the ceiling it measures in the same run, and the
# row's efficiency must reach the exercise's target. A "find the bug" exercise whose row names a
# compute-sanitizer tool (racecheck, memcheck, ...) also runs its test under that tool, and the
# FAIL line carries the tool's first report.
#
# Usage: ./scripts/check_exercise.sh LESSON [NAME] [--solution] [--timeout SECONDS] [--hint]
#   LESSON      04 or 04_shared_matmul
#   NAME        the exercise, when the lesson has several (without it they are listed)
#   --solution  run the same checks on the shipped solution instead of your starter
#   --hint      print the exercise's next hint (from LESSON/exercises/NAME.hints) and stop; builds
#               nothing. Which hint was shown last is kept in build/.hints/ (delete it to start over)
#   --timeout S stop the check after S seconds (default 120): a kernel that never ends is stopped
#               (exit 3) instead of holding the GPU
# The exercises, their starter files and their tests are listed in scripts/exercises.txt.
#
# Prints "PASS: <exercise>" (exit 0) or "FAIL: <exercise>: <the first failed check>" (exit 1); for
# a fast exercise "FAIL: <exercise>: 41.2% of d2d_copy, target >= 75%".
# Exit 2: an unknown lesson or exercise, or a bad command line. Exit 3: the exercise needs a GPU
# and none is usable (the starter was still compiled: NEEDS A GPU), or its check ran past
# --timeout. The build is the release preset's (build/release, configured if needed; one
# configured for another checkout, as a copy made with cp -a has, is moved aside to
# build/release.other-checkout and a fresh one configured); COURSE_BUILD_DIR names another,
# already configured one (of this checkout). The compiler's and CMake's errors are shown here.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"  # cd's to the checkout's root

table="scripts/exercises.txt"
usage="usage: $course_script LESSON [NAME] [--solution] [--timeout SECONDS] [--hint] (the exercises are in $table)"
fail_usage() { course_say "$course_script: $*"; exit 2; }

lesson_arg="" name_arg="" solution=0 limit=120 hint=0
while [ $# -gt 0 ]; do
  argument="$1"
  shift
  case "$argument" in
    --solution) solution=1 ;;
    --hint) hint=1 ;;
    --timeout)
      [ $# -gt 0 ] && [ -n "$1" ] || fail_usage "--timeout needs a value (seconds)"
      [[ "$1" =~ ^[0-9]{1,6}$ ]] && [ "$1" -ge 1 ] || fail_usage "--timeout ${1//[[:cntrl:]]/?}: give whole seconds, 1 or more"
      limit="$1"
      shift ;;
    -h | --help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 0 ;;
    -*) fail_usage "unknown flag ${argument//[[:cntrl:]]/?} ($usage)" ;;
    *)
      [ -n "$argument" ] || fail_usage "an empty argument: give a LESSON and a NAME ($usage)"
      if [ -z "$lesson_arg" ]; then lesson_arg="$argument"
      elif [ -z "$name_arg" ]; then name_arg="$argument"
      else fail_usage "too many arguments ($usage)"
      fi ;;
  esac
done
[ -n "$lesson_arg" ] || fail_usage "which lesson? ($usage)"

# The table's rows for the lesson: "04" matches 04_shared_matmul, a full name matches itself.
rows="$(awk -v want="$lesson_arg" '!/^#/ && NF >= 8 && ($1 == want || index($1, want "_") == 1)' "$table")"
if [ -z "$rows" ]; then
  fail_usage "no lesson '${lesson_arg//[[:cntrl:]]/?}' has a checked exercise (lessons: $(awk '!/^#/ && NF {print $1}' "$table" | sort -u | paste -sd ' ' -))"
fi
lesson="$(printf '%s\n' "$rows" | awk '{print $1}' | sort -u)"
[ "$(printf '%s\n' "$lesson" | wc -l)" -eq 1 ] || fail_usage "'${lesson_arg//[[:cntrl:]]/?}' names more than one lesson"
names="$(printf '%s\n' "$rows" | awk '{print $2}' | paste -sd ' ' -)"

if [ -z "$name_arg" ]; then
  if [ "$(printf '%s\n' "$rows" | wc -l)" -gt 1 ]; then
    echo "Lesson $lesson has several exercises: $names"
    echo "Check one with: ./scripts/$course_script ${lesson%%_*} NAME"
    exit 2
  fi
  name_arg="$names"
fi
row="$(printf '%s\n' "$rows" | awk -v want="$name_arg" '$2 == want')"
[ -n "$row" ] || fail_usage "lesson $lesson has no exercise '${name_arg//[[:cntrl:]]/?}' (its exercises: $names)"
# lesson name kind needs starter check solution_check sha256, then (kind fast) target ceiling run...
read -r _ name kind needs starter check solution_check _ target ceiling run_args <<<"$row"
test_name="$check"

# --hint: the next block of the hints file (blocks separated by a line "---"); the number of the
# last one shown is kept under build/ (COURSE_BUILD_DIR's folder where set), one file per exercise.
if [ "$hint" -eq 1 ]; then
  [ "$solution" -eq 0 ] || fail_usage "--hint and --solution: give one of them"
  hints_file="$lesson/exercises/$name.hints"
  if [ ! -f "$hints_file" ]; then
    echo "No hints for $name yet: its page's exercise text and the comments of $lesson/$starter are the help there is."
    exit 0
  fi
  total="$(awk '/^---[[:space:]]*$/ {n++} END {print n + 1}' "$hints_file")"
  state_dir="${COURSE_BUILD_DIR:-$course_root/build}/.hints"
  state="$state_dir/${lesson}.${name}"
  shown=0
  if [ -f "$state" ]; then
    shown="$(cat "$state")"
    [[ "$shown" =~ ^[0-9]+$ ]] || shown=0
  fi
  if [ "$shown" -ge "$total" ]; then
    solution_file="$lesson/${starter/_starter/_solution}"
    [ -f "$solution_file" ] && [ "$solution_file" != "$lesson/$starter" ] || solution_file="the solution file next to $lesson/$starter"
    echo "No more hints for $name: all $total were shown. The solution: $solution_file, and the page's Solutions section."
    echo "(To see them again from the first: rm $state)"
    exit 0
  fi
  next=$((shown + 1))
  echo "Hint $next of $total for $name:"
  awk -v want="$next" '/^---[[:space:]]*$/ {n++; next} n + 1 == want' "$hints_file" | sed '/./,$!d'
  mkdir -p "$state_dir"
  echo "$next" >"$state"
  [ "$next" -lt "$total" ] && echo "(another hint: the same command again)" || echo "(that was the last hint)"
  exit 0
fi
[ "$solution" -eq 0 ] || test_name="$solution_check"

# The checkout a build folder was configured for (CMakeCache.txt's CMAKE_HOME_DIRECTORY), or
# nothing when the cache does not say.
configured_source() {
  sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt" 2>/dev/null | head -n 1
}
# True when build folder $1 was configured for another checkout than this one (a copy made
# with cp -a keeps the original's build/release, which would build and test the original).
foreign_build() {
  local source here there
  source="$(configured_source "$1")"
  [ -n "$source" ] || return 1
  here="$(cd "$course_root" && pwd -P)"
  there="$( (cd "$source" 2>/dev/null && pwd -P) || printf '%s' "$source")"
  [ "$here" != "$there" ]
}

# Build only what the check runs: the lesson's test binary, or for a fast exercise the lesson's
# program. The build's output goes to a log; its errors (the compiler's, CMake's) are shown here.
if [ -n "${COURSE_BUILD_DIR:-}" ]; then
  build_dir="$COURSE_BUILD_DIR"
  # A configured build folder, or nothing is built (and no log is written) there.
  if [ ! -d "$build_dir" ] || [ ! -f "$build_dir/CMakeCache.txt" ]; then
    fail_usage "COURSE_BUILD_DIR=$build_dir is not a configured build folder (no CMakeCache.txt there)"
  fi
  if foreign_build "$build_dir"; then
    fail_usage "COURSE_BUILD_DIR=$build_dir was configured for another checkout ($(configured_source "$build_dir")), not $course_root: building there would test that one (unset COURSE_BUILD_DIR to use this checkout's build/release)"
  fi
else
  build_dir="$course_root/build/release"
  course_prepare_build_dir
  course_ensure_base_tools
  if [ -f "$build_dir/CMakeCache.txt" ] && foreign_build "$build_dir"; then
    aside="$course_root/build/release.other-checkout"
    rm -rf "$aside"
    mv "$build_dir" "$aside"
    echo "== build/release was configured for another checkout ($(configured_source "$aside")), not this one: not used (moved to build/release.other-checkout); configuring this checkout's own"
  fi
  [ -f "$build_dir/CMakeCache.txt" ] || { echo "== configure (preset release; output in build/configure-release.log)"; course_configure release; }
fi
log="$build_dir/check_exercise.log"
build_target="${lesson}_tests"
[ "$kind" != fast ] || build_target="$lesson"
echo "== build $build_target ($lesson/$starter; output in $log)"
if ! cmake --build "$build_dir" --target "$build_target" -j "${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" >"$log" 2>&1; then
  # The compiler's errors (nvcc: "file(12): error: ...", g++: "file:12:3: error: ..."), the
  # linker's and CMake's ("CMake Error at ..."), each with the lines that explain it.
  grep -E -A3 'error|Error|undefined reference' "$log" | grep -v '^gmake\|^make' | head -n 40 >&2 || true
  echo "FAIL: $name: it does not build (the errors above; all of it in $log)"
  exit 1
fi

# A fast exercise: the lesson's benchmark on the starter's kernel (or the solution's), verified
# and timed by the lesson's program, its efficiency read from the --json output.
if [ "$kind" = fast ]; then
  kernel_name="$check"
  kernel_file="$course_root/$lesson/$starter"
  if [ "$solution" -eq 1 ]; then
    kernel_name="$solution_check"
    kernel_file="$course_root/$lesson/${starter/_starter/_solution}"
  fi
  program="$build_dir/bin/$lesson"
  json="$build_dir/check_exercise.$name.json"
  rm -f "$json"
  # The table's run arguments: {kernel} and {file} stand for the kernel's name and its file (a
  # lesson that compiles a kernel file at run time: 08's --kernel-file {file} --entry {kernel});
  # without {kernel} the kernel is selected with --kernel.
  arguments="${run_args//\{file\}/$kernel_file}"
  if [[ "$arguments" == *"{kernel}"* ]]; then
    arguments="${arguments//\{kernel\}/$kernel_name}"
  else
    arguments="--kernel $kernel_name $arguments"
  fi
  echo "== run $lesson $arguments (target: >= $target% of $ceiling)"
  # shellcheck disable=SC2086 # the arguments, one per word (no spaces inside one)
  run_output="$(timeout -k 10 "$limit" "$program" $arguments --json "$json" 2>&1)" && status=0 || status=$?
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "STOPPED: $name: its run ran past $limit s (--timeout) and was stopped; a kernel that never ends?"
    exit 3
  fi
  if [ ! -f "$json" ] && [ "$status" -eq 3 ] && [[ "$run_output" == *"a GPU is required"* ]]; then
    reason="$(printf '%s\n' "$run_output" | grep -m1 'a GPU is required' | sed 's/.*but none is usable: //')"
    echo "NEEDS A GPU: $name: it builds, but its check times it on a GPU and none is usable here (${reason:-no usable GPU})"
    exit 3
  fi
  if [ ! -f "$json" ]; then
    printf '%s\n' "$run_output" | tail -n 5 >&2
    echo "FAIL: $name: the run stopped without a result (exit status $status; its last lines above)"
    exit 1
  fi
  # One line: "gpu_missing REASON", "failed SUMMARY", "missing", or "ok EFFICIENCY ROW_CEILING".
  verdict="$(python3 - "$json" "$kernel_name" <<'PY'
import json, re, sys
data = json.load(open(sys.argv[1]))
want = re.compile(r"\b" + re.escape(sys.argv[2]) + r"\b")
rows = [r for r in data.get("rows", []) if r.get("target") == "gpu" and want.search(r.get("variant", ""))]
rows = [r for r in rows if r.get("ceiling")] + [r for r in rows if not r.get("ceiling")]  # timed against a ceiling first
if not rows:
    print("missing")
elif rows[0].get("status") == "skipped":
    print("gpu_missing", rows[0].get("skip_reason") or "no usable GPU")
elif rows[0].get("verification") and not rows[0]["verification"].get("passed", False):
    print("failed", rows[0]["verification"].get("summary", "its results differ from the reference"))
elif rows[0].get("status") != "ok" or rows[0].get("efficiency") is None:
    print("failed", "its row did not complete (status " + str(rows[0].get("status")) + ")")
else:
    print("ok", rows[0]["efficiency"], rows[0].get("ceiling") or "")
PY
)" || verdict="failed the --json output could not be read"
  read -r outcome rest <<<"$verdict"
  case "$outcome" in
    gpu_missing)
      echo "NEEDS A GPU: $name: it builds, but its check times it on a GPU and none is usable here ($rest)"
      exit 3 ;;
    missing)
      echo "FAIL: $name: the run has no row for kernel $kernel_name (is $table up to date?)"
      exit 1 ;;
    failed)
      echo "FAIL: $name: its results are wrong: $rest"
      exit 1 ;;
  esac
  read -r efficiency row_ceiling <<<"$rest"
  percent="$(awk -v e="$efficiency" 'BEGIN {printf "%.1f", 100 * e}')"
  if [ "$row_ceiling" != "$ceiling" ]; then
    echo "FAIL: $name: its row is held against $row_ceiling, not $ceiling (is $table up to date?)"
    exit 1
  fi
  if awk -v p="$percent" -v t="$target" 'BEGIN {exit !(p + 0 >= t + 0)}'; then
    echo "PASS: $name: $percent% of $ceiling, target >= $target%"
    exit 0
  fi
  echo "FAIL: $name: $percent% of $ceiling, target >= $target%"
  exit 1
fi

binary="$build_dir/bin/${lesson}_tests"
echo "== run $test_name"
# Under a time limit: an edited kernel that never ends is stopped (ending the process frees the GPU).
output="$(COURSE_REQUIRE_GPU=0 timeout -k 10 "$limit" "$binary" --gtest_also_run_disabled_tests --gtest_filter="$test_name" --gtest_color=no 2>&1)" && status=0 || status=$?
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "STOPPED: $name: its check ran past $limit s (--timeout) and was stopped; a kernel that never ends? (a loop whose counter never moves)"
  exit 3
fi

if ! grep -q '^\[ RUN      \] ' <<<"$output"; then
  echo "FAIL: $name: $binary has no test $test_name (is $table up to date?)"
  exit 1
fi
if grep -q '^\[  SKIPPED \] ' <<<"$output"; then
  reason="$(printf '%s\n' "$output" | grep -B1 -m1 '^\[  SKIPPED \] ' | head -n 1)"  # GTEST_SKIP's message
  if [ "$needs" = gpu ]; then
    echo "NEEDS A GPU: $name: it builds, but its check runs on a GPU and none is usable here (${reason:-no usable GPU})"
    exit 3
  fi
fi
# A bug exercise with a tool (the table's column after sha256): the same test under
# compute-sanitizer, whose first report is the FAIL line's reason (a race or an out-of-bounds
# access may leave the results right, so the test alone can pass).
tool=""
[ "$kind" != bug ] || tool="$target"
if [ -n "$tool" ]; then
  sanitizer="$(command -v compute-sanitizer || true)"
  [ -n "$sanitizer" ] || [ ! -x /usr/local/cuda/bin/compute-sanitizer ] || sanitizer=/usr/local/cuda/bin/compute-sanitizer
  if [ -z "$sanitizer" ]; then
    echo "== compute-sanitizer was not found (it comes with the CUDA Toolkit, in its bin folder): the test runs without --tool $tool"
  else
    echo "== run $test_name under compute-sanitizer --tool $tool"
    tool_output="$(COURSE_REQUIRE_GPU=0 timeout -k 10 "$limit" "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 10 \
      "$binary" --gtest_also_run_disabled_tests --gtest_filter="$test_name" --gtest_color=no 2>&1)" && tool_status=0 || tool_status=$?
    if [ "$tool_status" -eq 124 ] || [ "$tool_status" -eq 137 ]; then
      echo "STOPPED: $name: its check under compute-sanitizer ran past $limit s (--timeout) and was stopped"
      exit 3
    fi
    # The report's first error ("Error: Race reported between Write access at ... and Read
    # access at ...", "Invalid __global__ write of size 4 bytes at ...", "Barrier error ..."),
    # its continuation line joined, and the tool's summary.
    found="$(printf '%s\n' "$tool_output" | awk '
      started && /^=========[[:space:]]+(and|at) / { sub(/^=========[[:space:]]+/, ""); line = line " " $0; next }
      started { exit }
      /^========= (Error|Invalid|Barrier|Uninitialized|Race)/ { sub(/^========= /, ""); line = $0; started = 1 }
      END { print line }')"
    summary="$(printf '%s\n' "$tool_output" | grep -m1 -E '^========= [A-Z]+ SUMMARY' | sed 's/^========= //')"
    if [ -n "$found" ] || [ "$tool_status" -eq 99 ]; then
      echo "FAIL: $name: compute-sanitizer --tool $tool reported: ${found:-errors (run it: $sanitizer --tool $tool $binary --gtest_also_run_disabled_tests --gtest_filter=$test_name)}${summary:+ ($summary)}"
      exit 1
    fi
  fi
fi
if [ "$status" -eq 0 ] && grep -q '^\[       OK \] ' <<<"$output"; then
  echo "PASS: $name"
  exit 0
fi

# The first failure's reason (scripts/gtest_failure_reason.awk says which line), or, where the
# output holds no failure at all, how the test ended: a test that crashes prints none.
rerun="$binary --gtest_also_run_disabled_tests --gtest_filter=$test_name"
reason="$(printf '%s\n' "$output" | awk -f "$course_root/scripts/gtest_failure_reason.awk")"
if [ -z "$reason" ] && ! grep -q '^\[  FAILED  \] ' <<<"$output"; then
  reason="the test stopped without a result (exit status $status: it crashed?); run $rerun"
fi
echo "FAIL: $name: ${reason:-its test failed (run $rerun)}"
exit 1
