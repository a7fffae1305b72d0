#!/usr/bin/env bash
# Tests of scripts/check_exercise.sh and of the exercise table it reads (scripts/exercises.txt);
# registered in cmake/ToolTests.cmake, label cpu: nothing here needs a GPU.
#
# Usage: scripts/tests/check_exercise_script.sh CASE [BUILD_DIR]
#   usage         an unknown lesson or exercise: one line, exit 2; a lesson with several exercises
#                 and no name: the list, exit 2
#   cpu_exercise  lesson 06's CPU exercise in BUILD_DIR: its shipped solution passes (--solution:
#                 PASS, exit 0) and its shipped starter fails (FAIL with the failed check, exit 1)
#   records       every row names a lesson, a starter and a solution that exist, every starter
#                 file is in the table, and every starter's SHA-256 is its record's. An edited
#                 starter is reported as SKIPPED (a student's edit), but fails under CI=true.
#   stalled       a check that never ends (a stand-in test binary that sleeps) is stopped at
#                 --timeout: STOPPED, exit 3; a COURSE_BUILD_DIR that is not a configured build
#                 folder: one line, exit 2, nothing written there; --timeout 0/abc: exit 2
#   hints         --hint prints an exercise's hints one by one (Hint 1 of N, 2 of N, ...), then says
#                 there are no more, keeping its place in COURSE_BUILD_DIR/.hints (a scratch folder
#                 here); --hint with --solution: exit 2. Every NAME.hints file belongs to a row of
#                 the table and holds 2 or 3 non-empty hints
#   fast          a "make it fast" exercise against a stand-in build (a cmake that builds nothing, a
#                 lesson program that writes a --json result): below the target FAIL with the
#                 efficiency reached and the target, exit 1; at or above it PASS, exit 0; wrong
#                 results FAIL naming them; no GPU (the program's "a GPU is required", exit 3)
#                 NEEDS A GPU, exit 3
#   foreign       a build folder configured for another checkout (a copy made with cp -a): named
#                 by COURSE_BUILD_DIR, one line, exit 2, nothing built there; as this checkout's
#                 build/release (in a scratch copy of the scripts), moved aside in one line and a
#                 fresh one configured
#   sanitizer     a bug exercise with a compute-sanitizer tool (a stand-in build and tool): a race
#                 the test itself passes FAILs naming the tool's report; no report, PASS
#   reasons       the FAIL line's reason (scripts/gtest_failure_reason.awk) from Google Test
#                 outputs of the kinds the exercises' tests print, and none from a crashed test
# Each case prints what it checked and exits non-zero at the first thing that is wrong.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/support.sh"  # root, work, fail, capture
table="$root/scripts/exercises.txt"

check_script() { capture "$root/scripts/check_exercise.sh" "$@"; }

# The row's starter is the file the course ships (its SHA-256 is the table's).
starter_as_shipped() {
  local lesson="$1" name="$2" starter sha
  read -r starter sha < <(awk -v l="$lesson" -v n="$name" '$1 == l && $2 == n {print $5, $8}' "$table")
  [ "$(sha256sum "$root/$lesson/$starter" | cut -d' ' -f1)" = "$sha" ]
}

case_usage() {
  check_script 99
  [ "$status" -eq 2 ] || fail "unknown lesson 99: exit $status, expected 2"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"no lesson '99'"* ]] || fail "unknown lesson 99 printed: $err"
  echo "ok: unknown lesson -> exit 2: $err"
  check_script 06 no_such_exercise
  [ "$status" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"no exercise 'no_such_exercise'"* ]] ||
    fail "unknown exercise: exit $status: $err"
  echo "ok: unknown exercise -> exit 2: $err"
  check_script 06
  [ "$status" -eq 2 ] || fail "06 without a name: exit $status, expected 2"
  [[ "$out" == *fixed_naive* && "$out" == *separable_cpu* ]] || fail "06 without a name did not list both exercises: $out"
  echo "ok: 06 without a name lists its exercises, exit 2: $(printf '%s' "$out" | tr '\n' '|')"
  check_script 04 tiled --bogus
  [ "$status" -eq 2 ] && [[ "$err" == *"unknown flag --bogus"* ]] || fail "--bogus: exit $status: $err"
  echo "ok: an unknown flag -> exit 2: $err"
}

case_stalled() {
  # A stand-in build: configured (a CMakeCache.txt), a cmake that builds nothing, a test binary
  # that starts its test and never finishes.
  local build="$work/build"
  mkdir -p "$build/bin" "$work/fakebin"
  : >"$build/CMakeCache.txt"
  printf '#!/bin/sh\nexit 0\n' >"$work/fakebin/cmake"
  printf '#!/bin/sh\necho "[ RUN      ] Stand.In"\nexec sleep 60\n' >"$build/bin/06_fft_convolve_tests"
  chmod +x "$work/fakebin/cmake" "$build/bin/06_fft_convolve_tests"
  local start=$SECONDS
  capture env PATH="$work/fakebin:$PATH" COURSE_BUILD_DIR="$build" "$root/scripts/check_exercise.sh" 06 separable_cpu --timeout 2
  [ "$status" -eq 3 ] || fail "a check that never ends: exit $status, expected 3: $out $err"
  [[ "$out" == *"STOPPED: separable_cpu: its check ran past 2 s (--timeout)"* ]] || fail "no STOPPED line: $out"
  [ $((SECONDS - start)) -lt 30 ] || fail "the stalled check took $((SECONDS - start)) s to stop"
  echo "ok: a check that never ends is stopped at --timeout 2, exit 3"
  capture env COURSE_BUILD_DIR="$work/nonexistent" "$root/scripts/check_exercise.sh" 01 gaussian
  [ "$status" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"is not a configured build folder"* ]] ||
    fail "COURSE_BUILD_DIR=/nonexistent: exit $status: $out $err"
  [ ! -e "$work/nonexistent" ] || fail "COURSE_BUILD_DIR=/nonexistent: something was written there"
  echo "ok: COURSE_BUILD_DIR not a build folder -> exit 2: $err"
  for bad in 0 abc -5; do
    check_script 06 separable_cpu --timeout "$bad"
    [ "$status" -eq 2 ] && [[ "$err" == *"--timeout"* ]] || fail "--timeout $bad: exit $status: $err"
  done
  echo "ok: --timeout 0, abc, -5 -> exit 2"
}

case_cpu_exercise() {
  local build_dir="$1"
  export COURSE_BUILD_DIR="$build_dir"
  check_script 06 separable_cpu --solution
  [ "$status" -eq 0 ] && [ "$(printf '%s\n' "$out" | tail -n 1)" = "PASS: separable_cpu" ] ||
    fail "the shipped solution: exit $status, output:"$'\n'"$out"$'\n'"$err"
  echo "ok: the shipped solution -> PASS, exit 0"
  if ! starter_as_shipped 06_fft_convolve separable_cpu; then
    echo "SKIPPED: 06_fft_convolve's separable_cpu starter is edited: its FAIL as shipped cannot be checked"
    exit 0
  fi
  check_script 06_fft_convolve separable_cpu
  local last
  last="$(printf '%s\n' "$out" | tail -n 1)"
  [ "$status" -eq 1 ] || fail "the shipped starter: exit $status, expected 1; output:"$'\n'"$out"
  [[ "$last" =~ ^FAIL:\ separable_cpu:\ .*elements\ differ ]] || fail "the shipped starter's last line: $last"
  echo "ok: the shipped starter -> exit 1: $last"
}

case_records() {
  local lesson name kind needs starter check solution_check sha target ceiling run_args edited=0 rows=0 fast=0
  while read -r lesson name kind needs starter check solution_check sha target ceiling run_args; do
    rows=$((rows + 1))
    [ -d "$root/$lesson" ] || fail "$name: no lesson folder $lesson"
    [ -f "$root/$lesson/$starter" ] || fail "$lesson $name: no starter $starter"
    [[ "$kind" =~ ^(write|bug|fast)$ ]] || fail "$lesson $name: kind '$kind', not write, bug or fast"
    [[ "$needs" =~ ^(cpu|gpu)$ ]] || fail "$lesson $name: needs '$needs', not cpu or gpu"
    if [ "$kind" = fast ]; then
      # The starter's and the solution's kernels: lines of exercises/registry.inc that run only by
      # name, defined in the starter and in the solution; a target in percent, a ceiling, a run.
      fast=$((fast + 1))
      [ "$needs" = gpu ] || fail "$lesson $name: a fast exercise is timed on a GPU (needs gpu)"
      local registry="$root/$lesson/exercises/registry.inc" solution_file="$root/$lesson/${starter/_starter/_solution}"
      [ -f "$solution_file" ] && [ "$solution_file" != "$root/$lesson/$starter" ] || fail "$lesson $name: no solution next to $starter"
      if [[ "$run_args" == *"{kernel}"* ]]; then
        # A kernel file the lesson compiles at run time (08's --kernel-file {file} --entry {kernel}).
        [[ "$run_args" == *"{file}"* ]] || fail "$lesson $name: a run with {kernel} names the file too ({file})"
        grep -q "__global__ void $check(" "$root/$lesson/$starter" || fail "$lesson $name: $starter has no kernel $check"
        grep -q "__global__ void $solution_check(" "$solution_file" || fail "$lesson $name: ${solution_file#"$root/"} has no kernel $solution_check"
      else
        for kernel in "$check" "$solution_check"; do
          awk -v k="COURSE_KERNEL($kernel," 'index($0, k) == 1 {found = 1; on = 0} found && /\.on_request = true/ {on = 1}
               found && /\)[[:space:]]*$/ {exit} END {exit !(found && on)}' "$registry" ||
            fail "$lesson $name: $kernel is not a line of $lesson/exercises/registry.inc with .on_request = true"
        done
        grep -q "launch_$check\b" "$root/$lesson/$starter" || fail "$lesson $name: $starter does not define launch_$check"
        grep -q "launch_$solution_check\b" "$solution_file" || fail "$lesson $name: ${solution_file#"$root/"} does not define launch_$solution_check"
      fi
      [[ "$target" =~ ^[0-9]+$ ]] && [ "$target" -ge 1 ] && [ "$target" -le 100 ] ||
        fail "$lesson $name: target '$target' is not a percentage (1 to 100)"
      [[ "$ceiling" =~ ^[a-z0-9_]+$ ]] || fail "$lesson $name: ceiling '$ceiling' is not a ceiling's name"
      [ -n "$run_args" ] || fail "$lesson $name: no run arguments"
      [[ " $run_args " != *" --kernel "* && " $run_args " != *" -k "* && "$run_args" != *--json* ]] ||
        fail "$lesson $name: the check adds --kernel (or {kernel}) and --json itself"
    else
      [ -z "$ceiling" ] || fail "$lesson $name: a $kind exercise has no target, ceiling or run (they are for fast ones)"
      if [ -n "$target" ]; then  # a bug exercise's compute-sanitizer tool
        [ "$kind" = bug ] && [[ "$target" =~ ^(memcheck|racecheck|synccheck|initcheck)$ ]] ||
          fail "$lesson $name: '$target' after the SHA-256: only a bug exercise names a tool there (memcheck, racecheck, synccheck, initcheck)"
        [ "$needs" = gpu ] || fail "$lesson $name: a compute-sanitizer check needs a GPU (needs gpu)"
      fi
      [[ "$check" == *.DISABLED_* ]] || fail "$lesson $name: the check $check is not DISABLED_ (the shipped starter fails it)"
      grep -q "${check#*.}" "$root/$lesson"/test_*.cpp || fail "$lesson $name: no test ${check#*.} in $lesson/test_*.cpp"
      grep -q "${solution_check#*.}" "$root/$lesson"/test_*.cpp || fail "$lesson $name: no test ${solution_check#*.}"
      grep -q "COURSE_SKIP_IF_STARTER_EDITED(\"$lesson\", \"$name\")" "$root/$lesson"/test_*.cpp ||
        fail "$lesson $name: no as-shipped test asks COURSE_SKIP_IF_STARTER_EDITED(\"$lesson\", \"$name\")"
    fi
    if [ "$(sha256sum "$root/$lesson/$starter" | cut -d' ' -f1)" != "$sha" ]; then
      [ "${CI:-}" != true ] || fail "CI=true and $lesson/$starter is not the starter as shipped (its SHA-256 in scripts/exercises.txt)"
      echo "edited: $lesson/$starter (a student's edit; check it with ./scripts/check_exercise.sh ${lesson%%_*} $name)"
      edited=$((edited + 1))
    fi
  done < <(grep -v '^#' "$table" | awk 'NF')
  [ "$rows" -gt 0 ] || fail "no rows in $table"
  # Every lesson has an exercise of each kind it can check (a fast one in each lesson that has
  # exercises/registry.inc).
  for registry in "$root"/[0-9][0-9]_*/exercises/registry.inc; do
    [ -f "$registry" ] || continue
    lesson="$(basename "$(dirname "$(dirname "$registry")")")"
    awk -v l="$lesson" '!/^#/ && $1 == l && $3 == "fast" {found = 1} END {exit !found}' "$table" ||
      fail "$lesson has exercises/registry.inc but no fast exercise in $table"
  done
  # Every starter in the tree is in the table: an exercise cannot be added and left unchecked.
  local file
  while IFS= read -r file; do
    lesson="${file%%/*}"
    awk -v l="$lesson" -v s="${file#*/}" '$1 == l && $5 == s {found = 1} END {exit !found}' "$table" ||
      fail "$file is a starter missing from scripts/exercises.txt"
  done < <(cd "$root" && ls [0-9][0-9]_*/exercises/*_starter.* [0-9][0-9]_*/exercises/kernels/*_starter.* 2>/dev/null)
  echo "ok: $rows exercises recorded ($fast fast); their files, tests, kernels and starters agree"
  [ "$edited" -eq 0 ] || echo "SKIPPED: $edited starter(s) edited (not under CI=true: a student's work)"
}

# One gtest output (stdin) through the reason picker; prints the reason.
reason_of() { awk -f "$root/scripts/gtest_failure_reason.awk"; }
expect_reason() {
  local what="$1" expected="$2" got
  got="$(reason_of)"
  [ "$got" = "$expected" ] || fail "$what: reason '$got', expected '$expected'"
  echo "ok: $what -> $got"
}

case_reasons() {
  # An AssertionResult (same_bits): its message is in "Actual: false (...)"; the trace names the case.
  expect_reason "AssertionResult" "element 256: nan vs 1.5 (block 256)" <<'OUT'
[ RUN      ] GpuExercise.DISABLED_OneBlockLoopStarterMatchesTheReference
test_elementwise_add.cpp:476: Failure
Value of: same_bits(run_exercise(launch, inputs, block), expected)
  Actual: false (element 256: nan vs 1.5)
Expected: true
Google Test trace:
test_elementwise_add.cpp:475: block 256
test_elementwise_add.cpp:471: n = 5000, seed = 7
[  FAILED  ] GpuExercise.DISABLED_OneBlockLoopStarterMatchesTheReference (12 ms)
OUT
  # The course's verdict, then the replay hint: the verdict is the reason.
  expect_reason "verdict and replay" "FAILED (norm criterion): 496 of 961 elements differ, 496 NaN (exercise 1 at 31x31x31, seed 9)" <<'OUT'
test_matmul.cpp:120: Failure
Value of: check.passed
  Actual: false
Expected: true
FAILED (norm criterion): 496 of 961 elements differ, 496 NaN
  replay: COURSE_SEED=9 ./build/<preset>/bin/04_shared_matmul_tests --gtest_filter='GpuExercise.X'
Google Test trace:
test_matmul.cpp:376: exercise 1 at 31x31x31, seed 9
[  FAILED  ] GpuExercise.X (3 ms)
OUT
  # A boolean with a streamed message: the message.
  expect_reason "streamed message" "the starter passes as shipped: has it been solved?" <<'OUT'
test_fft_convolve.cpp:762: Failure
Value of: check(result.output, image, f, reference).passed
  Actual: true
Expected: false
the starter passes as shipped: has it been solved?
[  FAILED  ] GpuExercise.Y (5 ms)
OUT
  # Only the first failure counts.
  expect_reason "first of two" "first (case 1)" <<'OUT'
a.cpp:1: Failure
first
Google Test trace:
a.cpp:2: case 1
a.cpp:3: Failure
second
[  FAILED  ] T.U (1 ms)
OUT
  # A crash prints no failure: no reason (check_exercise.sh then says the test stopped).
  expect_reason "crash" "" <<'OUT'
[ RUN      ] GpuExercise.DISABLED_FixedNaiveStarterMatchesTheReference
free(): invalid next size (normal)
OUT
}

case_hints() {
  local build="$work/build" i total
  mkdir -p "$build"
  total="$(awk '/^---[[:space:]]*$/ {n++} END {print n + 1}' "$root/01_vector_exp/exercises/launch_shape.hints")"
  for ((i = 1; i <= total; i++)); do
    capture env COURSE_BUILD_DIR="$build" "$root/scripts/check_exercise.sh" 01 launch_shape --hint
    [ "$status" -eq 0 ] || fail "--hint number $i: exit $status: $err"
    [[ "$out" == "Hint $i of $total for launch_shape:"* ]] || fail "--hint number $i printed: $out"
    [ "$(printf '%s\n' "$out" | wc -l)" -ge 3 ] || fail "--hint number $i printed no hint text: $out"
  done
  echo "ok: --hint printed hints 1 to $total of 01 launch_shape in turn"
  capture env COURSE_BUILD_DIR="$build" "$root/scripts/check_exercise.sh" 01 launch_shape --hint
  [ "$status" -eq 0 ] && [[ "$out" == "No more hints for launch_shape"* ]] || fail "--hint after the last: exit $status: $out"
  echo "ok: after the last hint: $(printf '%s' "$out" | head -n 1)"
  [ "$(cat "$build/.hints/01_vector_exp.launch_shape")" = "$total" ] || fail "the place was not kept in $build/.hints"
  rm "$build/.hints/01_vector_exp.launch_shape"
  capture env COURSE_BUILD_DIR="$build" "$root/scripts/check_exercise.sh" 01 launch_shape --hint
  [[ "$out" == "Hint 1 of $total"* ]] || fail "--hint after removing the state did not start over: $out"
  echo "ok: removing the state starts over"
  capture env COURSE_BUILD_DIR="$build" "$root/scripts/check_exercise.sh" 01 launch_shape --hint --solution
  [ "$status" -eq 2 ] || fail "--hint --solution: exit $status, expected 2"
  echo "ok: --hint --solution -> exit 2: $err"
  local file lesson name blocks
  while read -r file; do
    lesson="${file%%/*}" name="$(basename "$file" .hints)"
    awk -v l="$lesson" -v n="$name" '!/^#/ && $1 == l && $2 == n {found = 1} END {exit !found}' "$table" ||
      fail "$file: no exercise $lesson $name in $table"
    blocks="$(awk '/^---[[:space:]]*$/ {if (!text) empty = 1; n++; text = 0; next} NF {text = 1}
                   END {if (!text) empty = 1; print (empty ? "empty" : n + 1)}' "$root/$file")"
    [ "$blocks" = 2 ] || [ "$blocks" = 3 ] || fail "$file: $blocks hints (want 2 or 3, none empty)"
    echo "ok: $file: $blocks hints"
  done < <(cd "$root" && ls [0-9][0-9]_*/exercises/*.hints 2>/dev/null)
}

# A stand-in build for lesson 02's fast exercise: a cmake that builds nothing and a lesson
# program that writes the --json result given in $work/result.json (or fails like a machine
# without a GPU when there is none).
fast_build() {
  local build="$work/build"
  mkdir -p "$build/bin" "$work/fakebin"
  printf 'CMAKE_HOME_DIRECTORY:INTERNAL=%s\n' "$root" >"$build/CMakeCache.txt"
  printf '#!/bin/sh\nexit 0\n' >"$work/fakebin/cmake"
  cat >"$build/bin/02_elementwise_add" <<EOF
#!/bin/sh
if [ ! -f "$work/result.json" ]; then
  echo "02_elementwise_add: error: a GPU is required by --skip-cpu (it runs only the GPU part) but none is usable: no CUDA-capable GPU was found" >&2
  exit 3
fi
while [ \$# -gt 0 ]; do
  if [ "\$1" = --json ]; then cp "$work/result.json" "\$2"; fi
  shift
done
EOF
  chmod +x "$work/fakebin/cmake" "$build/bin/02_elementwise_add"
}
# One row of a --json result: variant, status, efficiency, ceiling, verification passed (true/false).
fast_result() {
  printf '{"rows": [{"target": "gpu", "variant": "GPU %s", "status": "%s", "skip_reason": "", "efficiency": %s, "ceiling": "%s", "verification": {"passed": %s, "summary": "FAILED: 12 of 4096 elements differ"}}]}\n' \
    "$@" >"$work/result.json"
}
check_fast() { capture env PATH="$work/fakebin:$PATH" COURSE_BUILD_DIR="$work/build" "$root/scripts/check_exercise.sh" 02 occupancy "$@"; }

case_fast() {
  local target ceiling last
  read -r target ceiling < <(awk '!/^#/ && $1 == "02_elementwise_add" && $2 == "occupancy" {print $9, $10}' "$table")
  [ -n "$target" ] && [ -n "$ceiling" ] || fail "no fast exercise 02 occupancy with a target and a ceiling in $table"
  fast_build
  fast_result exercise_occupancy ok 0.412 "$ceiling" true
  check_fast
  last="$(printf '%s\n' "$out" | tail -n 1)"
  [ "$status" -eq 1 ] && [ "$last" = "FAIL: occupancy: 41.2% of $ceiling, target >= $target%" ] || fail "below the target: exit $status: $last $err"
  echo "ok: below the target -> exit 1: $last"
  fast_result exercise_occupancy_solution ok 0.934 "$ceiling" true
  check_fast --solution
  last="$(printf '%s\n' "$out" | tail -n 1)"
  [ "$status" -eq 0 ] && [ "$last" = "PASS: occupancy: 93.4% of $ceiling, target >= $target%" ] || fail "above the target: exit $status: $last $err"
  echo "ok: the solution above the target -> exit 0: $last"
  fast_result exercise_occupancy ok 0.99 "$ceiling" false
  check_fast
  last="$(printf '%s\n' "$out" | tail -n 1)"
  [ "$status" -eq 1 ] && [[ "$last" == "FAIL: occupancy: its results are wrong: FAILED: 12 of 4096 elements differ" ]] || fail "wrong results: exit $status: $last"
  echo "ok: fast but wrong -> exit 1: $last"
  fast_result exercise_occupancy_solution ok 0.99 "$ceiling" true
  check_fast
  last="$(printf '%s\n' "$out" | tail -n 1)"
  [ "$status" -eq 1 ] && [[ "$last" == *"has no row for kernel exercise_occupancy"* ]] || fail "no row: exit $status: $last"
  echo "ok: no row for the kernel -> exit 1: $last"
  rm "$work/result.json"
  check_fast
  last="$(printf '%s\n' "$out" | tail -n 1)"
  [ "$status" -eq 3 ] && [[ "$last" == "NEEDS A GPU: occupancy: it builds, but its check times it on a GPU"* ]] || fail "no GPU: exit $status: $last"
  echo "ok: no GPU -> exit 3: $last"
}

case_foreign() {
  # COURSE_BUILD_DIR configured for another checkout: refused in one line, nothing built there.
  local build="$work/other-build"
  mkdir -p "$build" "$work/fakebin"
  printf 'CMAKE_HOME_DIRECTORY:INTERNAL=/somewhere/else/cuda-course\n' >"$build/CMakeCache.txt"
  printf '#!/bin/sh\necho "cmake was called" >>"%s/cmake.calls"\nexit 0\n' "$work" >"$work/fakebin/cmake"
  chmod +x "$work/fakebin/cmake"
  capture env PATH="$work/fakebin:$PATH" COURSE_BUILD_DIR="$build" "$root/scripts/check_exercise.sh" 06 separable_cpu
  [ "$status" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ "$err" == *"was configured for another checkout (/somewhere/else/cuda-course)"* ]] ||
    fail "COURSE_BUILD_DIR of another checkout: exit $status: $out $err"
  [ ! -e "$work/cmake.calls" ] && [ ! -e "$build/check_exercise.log" ] || fail "COURSE_BUILD_DIR of another checkout: something was built there"
  echo "ok: COURSE_BUILD_DIR of another checkout -> exit 2: $err"
  # This checkout's build/release configured for another (a scratch copy of the scripts, so the
  # real build folder is left alone): moved aside, said in one line, a fresh one configured.
  local copy="$work/copy"
  mkdir -p "$copy/build/release"
  cp -r "$root/scripts" "$copy/"
  printf 'CMAKE_HOME_DIRECTORY:INTERNAL=/somewhere/else/cuda-course\n' >"$copy/build/release/CMakeCache.txt"
  cat >"$work/fakebin/cmake" <<EOF
#!/bin/sh
case "\$1" in
  --version) echo "cmake version 3.28.3" ;;
  --preset) mkdir -p "$copy/build/release"; printf 'CMAKE_HOME_DIRECTORY:INTERNAL=%s\n' "$copy" >"$copy/build/release/CMakeCache.txt" ;;
esac
exit 0
EOF
  chmod +x "$work/fakebin/cmake"
  capture env PATH="$work/fakebin:$PATH" COURSE_NO_INSTALL=1 timeout 60 "$copy/scripts/check_exercise.sh" 06 separable_cpu
  [[ "$out" == *"== build/release was configured for another checkout (/somewhere/else/cuda-course), not this one: not used (moved to build/release.other-checkout)"* ]] ||
    fail "build/release of another checkout: no one-line notice: $out $err"
  [ -f "$copy/build/release.other-checkout/CMakeCache.txt" ] || fail "the other checkout's build/release was not moved aside"
  grep -q "CMAKE_HOME_DIRECTORY:INTERNAL=$copy\$" "$copy/build/release/CMakeCache.txt" || fail "no fresh build/release was configured for the copy"
  echo "ok: build/release of another checkout -> moved aside, a fresh one configured"
}

# A bug exercise with a tool (05 scan_race: racecheck), against a stand-in build whose test passes
# and a stand-in compute-sanitizer: reporting a race (exit 99), the FAIL line names it; silent, PASS.
case_sanitizer() {
  local build="$work/build" tool last
  tool="$(awk '!/^#/ && $1 == "05_mandelbrot" && $2 == "scan_race" {print $9}' "$table")"
  [ "$tool" = racecheck ] || fail "05 scan_race: tool '$tool' in $table, expected racecheck"
  mkdir -p "$build/bin" "$work/fakebin"
  printf 'CMAKE_HOME_DIRECTORY:INTERNAL=%s\n' "$root" >"$build/CMakeCache.txt"
  printf '#!/bin/sh\nexit 0\n' >"$work/fakebin/cmake"
  printf '#!/bin/sh\necho "[ RUN      ] GpuScanExercise.X"\necho "[       OK ] GpuScanExercise.X (3 ms)"\n' >"$build/bin/05_mandelbrot_tests"
  cat >"$work/fakebin/compute-sanitizer" <<'EOF'
#!/bin/sh
echo "========= COMPUTE-SANITIZER"
shift 6  # --tool T --error-exitcode 99 --print-limit 10: the program and its arguments follow
"$@"
if [ -f "$(dirname "$0")/race" ]; then
  echo "========= Error: Race reported between Write access at scan_race_kernel(const unsigned int *, unsigned int *, int)+0x2a0 in scan_race_starter.cu:33"
  echo "=========     and Read access at scan_race_kernel(const unsigned int *, unsigned int *, int)+0x250 in scan_race_starter.cu:32 [7936 hazards]"
  echo "========= "
  echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
  exit 99
fi
echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
EOF
  chmod +x "$work/fakebin/cmake" "$work/fakebin/compute-sanitizer" "$build/bin/05_mandelbrot_tests"
  : >"$work/fakebin/race"
  capture env PATH="$work/fakebin:$PATH" COURSE_BUILD_DIR="$build" "$root/scripts/check_exercise.sh" 05 scan_race
  last="$(printf '%s\n' "$out" | tail -n 1)"
  [ "$status" -eq 1 ] && [ "$last" = "FAIL: scan_race: compute-sanitizer --tool racecheck reported: Error: Race reported between Write access at scan_race_kernel(const unsigned int *, unsigned int *, int)+0x2a0 in scan_race_starter.cu:33 and Read access at scan_race_kernel(const unsigned int *, unsigned int *, int)+0x250 in scan_race_starter.cu:32 [7936 hazards] (RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings))" ] ||
    fail "a race the test does not see: exit $status: $last"
  echo "ok: a race the test itself passes -> exit 1: $last"
  rm "$work/fakebin/race"
  capture env PATH="$work/fakebin:$PATH" COURSE_BUILD_DIR="$build" "$root/scripts/check_exercise.sh" 05 scan_race --solution
  last="$(printf '%s\n' "$out" | tail -n 1)"
  [ "$status" -eq 0 ] && [ "$last" = "PASS: scan_race" ] || fail "no race: exit $status: $last"
  echo "ok: no race, the test passes -> exit 0: $last"
}

case "${1:-}" in
  usage) case_usage ;;
  sanitizer) case_sanitizer ;;
  fast) case_fast ;;
  foreign) case_foreign ;;
  hints) case_hints ;;
  cpu_exercise) [ $# -eq 2 ] || fail "cpu_exercise needs BUILD_DIR"; case_cpu_exercise "$2" ;;
  records) case_records ;;
  reasons) case_reasons ;;
  stalled) case_stalled ;;
  *) echo "usage: $0 usage|cpu_exercise BUILD_DIR|records|reasons|stalled|hints|fast|foreign|sanitizer" >&2; exit 2 ;;
esac
