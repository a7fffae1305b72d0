#!/usr/bin/env bash
# Checks an exercise: builds the lesson's tests and runs the one that holds your edited starter
# to the reference, then prints one line.
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
# Prints "PASS: <exercise>" (exit 0) or "FAIL: <exercise>: <the first failed check>" (exit 1).
# Exit 2: an unknown lesson or exercise, or a bad command line. Exit 3: the exercise needs a GPU
# and none is usable (the starter was still compiled), or its check ran past --timeout. The build is the release preset's
# (build/release, configured if needed); COURSE_BUILD_DIR names another, already configured one.
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
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
rows="$(awk -v want="$lesson_arg" '!/^#/ && NF >= 7 && ($1 == want || index($1, want "_") == 1)' "$table")"
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
read -r _ name needs starter check solution_check _ <<<"$row"
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

# Build only the lesson's test binary; the build's output goes to a log, shown if it fails.
if [ -n "${COURSE_BUILD_DIR:-}" ]; then
  build_dir="$COURSE_BUILD_DIR"
  # A configured build folder, or nothing is built (and no log is written) there.
  if [ ! -d "$build_dir" ] || [ ! -f "$build_dir/CMakeCache.txt" ]; then
    fail_usage "COURSE_BUILD_DIR=$build_dir is not a configured build folder (no CMakeCache.txt there)"
  fi
else
  build_dir="$course_root/build/release"
  course_prepare_build_dir
  course_ensure_base_tools
  [ -f "$build_dir/CMakeCache.txt" ] || { echo "== configure (preset release; output in build/configure-release.log)"; course_configure release; }
fi
log="$build_dir/check_exercise.log"
echo "== build ${lesson}_tests ($lesson/$starter; output in $log)"
if ! cmake --build "$build_dir" --target "${lesson}_tests" -j "${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" >"$log" 2>&1; then
  grep -E 'error|Error' "$log" | head -n 20 >&2 || true
  echo "FAIL: $name: it does not build (the compiler's errors above; all of it in $log)"
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
