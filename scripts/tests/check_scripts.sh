#!/usr/bin/env bash
# Tests of the course's scripts as a newcomer meets them (registered in cmake/ToolTests.cmake).
#
# Usage: scripts/tests/check_scripts.sh CASE [BIN_DIR PAGE...]
#   missing_values  a script flag given without its value: one line naming it, exit 2
#   plot_errors     plot.py on a missing (exit 2), an invalid or a foreign file, plain or gzipped, a cut-off
#                   gzip or one that unpacks past 64 MiB (exit 3): one line, no traceback
#   progress        a build shows one line per target; apt's output goes to build/apt.log
#   configure_installs  the configure step (setup.sh) with stand-ins for cmake, apt-get and id:
#                   as root every missing package, required and optional, is installed in one
#                   go; as another user, or with COURSE_NO_INSTALL=1, one apt-get line names them
#                   all, nothing is installed, and only a missing required package stops the build
#   doc_commands    every command in the bash blocks of the PAGEs given after BIN_DIR (relative to
#                   the checkout) that runs a lesson, a tool or plot.py, as written, from a
#                   checkout-like folder whose build/release/bin is BIN_DIR and whose first python3
#                   on PATH has no matplotlib
#   run_course_keeps_json  run_course.sh (from a stand-in checkout, BIN_DIR's binaries, a cmake
#                   that builds nothing) with every lesson failing: JSON already in --results, its
#                   own names included, is all still there and unchanged; exit 1
#   doc_quick       scripts/tests/doc_quick.sh in front of a stand-in lesson: sizes and repetitions
#                   capped, every other argument kept, and COURSE_SWEEP_MAX_POINTS=3 handed to the
#                   lesson (a value already set is kept)
#   doc_plot_command  the docs show at least one plot.py command (so doc_commands exercises the
#                   restart into a python3 that has matplotlib)
# Each case prints what it checked and exits non-zero at the first thing that is wrong.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/support.sh"  # root, work, fail, capture

# The last command exited with `code` and printed one line on stderr matching `pattern`.
expect_one_line() {
  local what="$1" code="$2" pattern="$3"
  [ "$status" -eq "$code" ] || fail "$what: exit $status, expected $code (stderr: $err)"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "$what: expected one line on stderr, got:"$'\n'"$err"
  [[ "$err" =~ $pattern ]] || fail "$what: stderr '$err' does not match '$pattern'"
  echo "ok: $what -> exit $status: $err"
}

case_missing_values() {
  local script flag runner
  for item in "sweep.sh --lesson" "sweep.sh --sizes" "sweep.sh --out" "run_course.sh --results" \
              "reproduce_docs.py --part" "reproduce_docs.py --out" "reproduce_docs.py --lessons" \
              "reproduce_docs.py --skip" "reproduce_docs.py --deadline" "reproduce_docs.py --bin"; do
    read -r script flag <<<"$item"
    runner=bash
    [[ "$script" != *.py ]] || runner=python3
    capture "$runner" "$root/scripts/$script" "$flag"
    expect_one_line "$script $flag (no value)" 2 "^$script: $flag needs a value"
    capture "$runner" "$root/scripts/$script" "$flag" ""
    expect_one_line "$script $flag '' (empty value)" 2 "^$script: $flag needs a value"
  done
  # reproduce_docs.py's other refusals are in scripts/tests/check_reproduce_docs.py.
  capture python3 "$root/scripts/reproduce_docs.py" --part everything
  expect_one_line "reproduce_docs.py --part everything" 2 "^reproduce_docs.py: --part everything: choose"
  capture bash "$root/scripts/sweep.sh" --lesson 99_nothing
  expect_one_line "sweep.sh --lesson 99_nothing (before any build)" 2 "^sweep.sh: --lesson 99_nothing: no such lesson"
}

case_plot_errors() {
  local plot="$root/scripts/plot.py"
  printf '{"schema": "cuda-course-report/1", ' >"$work/truncated.json"
  printf '{"schema": "cuda-course-report/1"}' >"$work/foreign.json"
  printf '{"schema": "cuda-course-report/1", ' | gzip -n >"$work/truncated.json.gz"
  head -c 12 "$work/truncated.json.gz" >"$work/cut.json.gz"
  head -c $((65 << 20)) /dev/zero | gzip -n >"$work/bomb.json.gz"  # 65 MiB of zeros in about 64 KiB
  # A file named that cannot be read is a bad command line (2, as a lesson's input file); one
  # read that is not a lesson's results is 3.
  for item in "missing:$work/no-such-file.json:2:does not exist" \
              "truncated:$work/truncated.json:3:is not valid JSON" \
              "fieldless:$work/foreign.json:3:lacks a field" \
              "gzipped truncated:$work/truncated.json.gz:3:is not valid JSON" \
              "cut gzip:$work/cut.json.gz:3:is not valid gzip" \
              "gzip bomb:$work/bomb.json.gz:3:unpacks to more than 64 MiB"; do
    IFS=: read -r what file code pattern <<<"$item"
    capture python3 "$plot" "$file" --out "$work/plots"
    [[ "$err" != *Traceback* ]] || fail "plot.py on a $what file printed a traceback:"$'\n'"$err"
    expect_one_line "plot.py on a $what file" "$code" "^plot.py: error: .*$pattern"
  done
}

case_progress() {
  # The install check below must not inherit the caller's choice (a machine without apt sets it).
  unset COURSE_NO_INSTALL
  # The build filter: one line per target, none of the compiler lines.
  source "$root/scripts/setup.sh"
  local lines
  lines="$(printf '%s\n' "[  2%] Building CXX object common/x.o" "[ 10%] Built target course_common" \
             "warning: something" "[ 45%] Linking CXX executable ../bin/01_vector_exp" \
             "[ 45%] Built target 01_vector_exp" "[100%] Built target 03_streams_tests" | course_build_progress)"
  [ "$(printf '%s\n' "$lines" | wc -l)" -eq 3 ] || fail "course_build_progress printed:"$'\n'"$lines"
  [[ "$lines" == *"[ 45%] Built target 01_vector_exp"* ]] || fail "no progress line for 01_vector_exp"
  echo "ok: the build shows one line per target"

  # Package installs: a stand-in apt-get printing 200 lines, run "as root" (a stand-in id).
  mkdir -p "$work/fakebin"
  printf '#!/bin/sh\nfor i in $(seq 200); do echo "apt noise $i"; done\n' >"$work/fakebin/apt-get"
  printf '#!/bin/sh\necho 0\n' >"$work/fakebin/id"
  chmod +x "$work/fakebin/apt-get" "$work/fakebin/id"
  # A copy of setup.sh in a scratch checkout, so its build/apt.log is the test's own.
  mkdir -p "$work/copy/scripts"
  cp "$root/scripts/setup.sh" "$work/copy/scripts/"
  local log="$work/copy/build/apt.log"
  capture env PATH="$work/fakebin:$PATH" bash -c 'source "$1"; course_install_packages pkg-a pkg-b' _ "$work/copy/scripts/setup.sh"
  [ "$status" -eq 0 ] || fail "course_install_packages exited $status: $err"
  [ "$(printf '%s\n' "$out$err" | wc -l)" -le 2 ] || fail "apt output reached the terminal:"$'\n'"$out$err"
  [[ "$out" == *"apt-get install pkg-a pkg-b (output in build/apt.log)"* ]] || fail "no install line: $out"
  [ "$(wc -l <"$log")" -eq 400 ] || fail "build/apt.log did not get apt's 400 lines"
  echo "ok: apt's 400 lines went to build/apt.log; the terminal got: $(printf '%s' "$out" | tr '\n' '|')"
}

# A stand-in for CMake's configure: packages listed in $FAKE_INSTALLED count as present;
# $FAKE_REQUIRED and $FAKE_OPTIONAL missing ones go to the lists cmake/CourseDependencies.cmake
# writes, and a missing required one fails the configure.
write_fake_configure_tools() {
  mkdir -p "$work/fakebin"
  cat >"$work/fakebin/cmake" <<'FAKE'
#!/bin/bash
dir="build/$2"
mkdir -p "$dir"
echo "cmake $*" >>"$FAKE_CALLS"
missing() { local p; for p in $1; do grep -qx "$p" "$FAKE_INSTALLED" 2>/dev/null || printf '%s ' "$p"; done; }
required="$(missing "$FAKE_REQUIRED")" optional="$(missing "$FAKE_OPTIONAL")"
[ -z "$optional" ] || echo "$optional" >"$dir/missing-optional-debian-packages.txt"
[ -z "$required" ] || { echo "$required" >"$dir/missing-debian-packages.txt"; echo "Missing dependencies"; exit 1; }
FAKE
  cat >"$work/fakebin/apt-get" <<'FAKE'
#!/bin/bash
echo "apt-get $*" >>"$FAKE_CALLS"
[ "$1" = install ] || exit 0
for p in "$@"; do case "$p" in install|-*) ;; *) echo "$p" >>"$FAKE_INSTALLED" ;; esac; done
FAKE
  printf '#!/bin/sh\necho "$FAKE_UID"\n' >"$work/fakebin/id"
  chmod +x "$work/fakebin/cmake" "$work/fakebin/apt-get" "$work/fakebin/id"
}

# One configure in a fresh scratch checkout: $1 the user id, $2 the packages already installed.
fake_configure() {
  rm -rf "$work/copy" && mkdir -p "$work/copy/scripts"
  cp "$root/scripts/setup.sh" "$work/copy/scripts/"
  printf '%s\n' $2 >"$work/installed"
  : >"$work/calls"
  capture env PATH="$work/fakebin:$PATH" FAKE_UID="$1" FAKE_INSTALLED="$work/installed" FAKE_CALLS="$work/calls" \
    FAKE_REQUIRED="req-a req-b" FAKE_OPTIONAL="opt-c opt-d" \
    bash -c 'set -euo pipefail; source "$1"; course_prepare_build_dir; course_configure release; echo "configured"' \
    _ "$work/copy/scripts/setup.sh"  # with the options the course's scripts run under
}

case_configure_installs() {
  unset COURSE_NO_INSTALL  # each check below sets it where it tests it
  write_fake_configure_tools
  # Root, a required and both optional packages missing: one install of all three, configured.
  fake_configure 0 "req-b"
  [ "$status" -eq 0 ] && [[ "$out" == *configured ]] || fail "root: exit $status: $out $err"
  grep -qx "apt-get install -y -qq --no-install-recommends req-a opt-c opt-d" "$work/calls" ||
    fail "root: not one install of every missing package:"$'\n'"$(cat "$work/calls")"
  [ "$(grep -c '^cmake' "$work/calls")" -eq 2 ] || fail "root: not configured again after the install"
  echo "ok: as root, required and optional packages installed in one go: $(grep install "$work/calls")"
  # Root, only optional packages missing (the case that once left lesson 04 out): installed too.
  fake_configure 0 "req-a req-b opt-d"
  [ "$status" -eq 0 ] && grep -qx "apt-get install -y -qq --no-install-recommends opt-c" "$work/calls" ||
    fail "root, optional missing: $(cat "$work/calls") $err"
  echo "ok: as root, a missing optional package alone is installed too"
  # Not root, required and optional missing: one apt-get line naming all, exit 1, nothing installed.
  fake_configure 1000 "req-b"
  [ "$status" -eq 1 ] || fail "user: exit $status, expected 1"
  [[ "$err" == *"sudo apt-get install -y req-a opt-c opt-d"* ]] || fail "user: no apt-get line naming all: $err"
  ! grep -q "^apt-get" "$work/calls" || fail "user: apt-get was run"
  echo "ok: as a user, one line: $(printf '%s\n' "$err" | grep 'sudo apt-get')"
  # Not root, only optional missing: the same line, and the build goes on.
  fake_configure 1000 "req-a req-b"
  [ "$status" -eq 0 ] && [[ "$out" == *configured ]] || fail "user, optional missing: exit $status: $err"
  [[ "$err" == *"sudo apt-get install -y opt-c opt-d"* ]] || fail "user, optional missing: no apt-get line: $err"
  echo "ok: as a user with only optional packages missing, the build goes on after: $(printf '%s\n' "$err" | grep 'sudo apt-get')"
  # Nothing missing: no apt-get at all, one configure.
  fake_configure 0 "req-a req-b opt-c opt-d"
  [ "$status" -eq 0 ] && ! grep -q "^apt-get" "$work/calls" && [ "$(grep -c '^cmake' "$work/calls")" -eq 1 ] ||
    fail "nothing missing: $(cat "$work/calls")"
  echo "ok: nothing missing, nothing installed, one configure"
  # COURSE_NO_INSTALL=1 (packages found through CMAKE_PREFIX_PATH): root installs nothing either.
  COURSE_NO_INSTALL=1 fake_configure 0 "req-a req-b"
  [ "$status" -eq 0 ] && [[ "$out" == *configured ]] && ! grep -q "^apt-get" "$work/calls" ||
    fail "COURSE_NO_INSTALL=1, optional missing: exit $status: $(cat "$work/calls") $err"
  echo "ok: COURSE_NO_INSTALL=1 as root, only optional packages missing: nothing installed, the build goes on"
  COURSE_NO_INSTALL=1 fake_configure 0 "req-b"
  [ "$status" -eq 1 ] && ! grep -q "^apt-get" "$work/calls" || fail "COURSE_NO_INSTALL=1, required missing: exit $status"
  [[ "$err" == *"COURSE_NO_INSTALL=1: nothing is installed"* ]] || fail "COURSE_NO_INSTALL=1: no line saying so: $err"
  echo "ok: COURSE_NO_INSTALL=1 as root, a required package missing: exit 1, $(printf '%s\n' "$err" | grep 'COURSE_NO')"
}

# Every non-comment line of every ```bash block of the given pages (relative to the checkout):
# file, line number, command, tab-separated.
documented_commands() {
  (cd "$root" && awk '
/^```bash/ { inside = 1; next }
/^```/ { inside = 0 }
inside && $0 !~ /^[[:space:]]*(#|$)/ { print FILENAME "\t" FNR "\t" $0 }' "$@")
}

case_doc_plot_command() {
  local count
  count="$(cd "$root" && documented_commands README.md docs/*.md [0-9][0-9]_*/README.md | grep -c 'plot\.py.*--out ')"
  [ "$count" -gt 0 ] || fail "no documented plot command was found"
  echo "ok: $count documented plot commands"
}

# Commands marked "minutes without a GPU" in the docs are run only where a GPU is usable.
# With --quick (first), each lesson binary is run through scripts/tests/doc_quick.sh: the same
# command with its sizes capped and few repetitions (the default test command on a GPU machine;
# the pages' full sizes are the docs-full label's, which scripts/reproduce_docs.py runs).
case_doc_commands() {
  local quick=0
  if [ "${1:-}" = --quick ]; then quick=1; shift; fi
  local bin="${1:?doc_commands needs the bin folder of a build}"
  shift
  [ $# -gt 0 ] || fail "doc_commands needs the pages whose commands it runs"
  local pages=("$@")
  local sandbox="$work/checkout"
  mkdir -p "$sandbox/build/release" "$work/nompl"
  if [ "$quick" -eq 1 ]; then
    mkdir -p "$work/quickbin"
    local program
    for program in "$bin"/*; do
      local stem
      stem="$(basename "$program")"
      if [[ ( "$stem" =~ ^[0-9][0-9]_ && "$stem" != *_tests ) || "$stem" = matmul_tune ]]; then
        printf '#!/bin/sh\nexec bash "%s" "%s" "$@"\n' "$root/scripts/tests/doc_quick.sh" "$program" >"$work/quickbin/$stem"
        chmod +x "$work/quickbin/$stem"
      else
        ln -s "$program" "$work/quickbin/$stem"
      fi
    done
    ln -s "$work/quickbin" "$sandbox/build/release/bin"
    echo "quick mode: lesson binaries run with capped sizes and repetitions (scripts/tests/doc_quick.sh)"
  else
    ln -s "$bin" "$sandbox/build/release/bin"
  fi
  ln -s "$root/scripts" "$sandbox/scripts"
  # The lesson folders and docs too: some commands read a file from them (a user's kernel source).
  local folder
  for folder in "$root"/[0-9][0-9]_*/ "$root/docs/"; do ln -s "$folder" "$sandbox/$(basename "$folder")"; done
  # A python3 without matplotlib first on PATH (-S: no site-packages), as with pyenv or a venv.
  printf '#!/bin/sh\nexec %s -S "$@"\n' "$(command -v python3)" >"$work/nompl/python3"
  chmod +x "$work/nompl/python3"
  if "$work/nompl/python3" -c "import matplotlib" 2>/dev/null; then fail "the stand-in python3 has matplotlib"; fi
  local gpu=0
  "$bin/course_device_info" --has-gpu >/dev/null 2>&1 && gpu=1

  documented_commands "${pages[@]}" >"$work/commands"
  local ran=0 plots=0 file number line
  local -A seen=()
  while IFS=$'\t' read -r file number line; do
    local where="$file:$number"
    case "$line" in
      compute-sanitizer*|*cmake\ *|ctest\ *|git\ *|*./scripts/*.sh*)
        echo "not run here: $where: $line (builds or tests: CI runs ./scripts/test_course.sh)"; continue ;;
      *scripts/tests/*)
        echo "not run here: $where: $line (a test's own script: ctest runs it)"; continue ;;
      *./build/release/bin/*|*scripts/plot.py*) ;;
      *) fail "$where: a documented command this test does not know: $line" ;;
    esac
    if [ "$gpu" -eq 0 ] && [[ "$line" == *"minutes without a GPU"* ]]; then
      echo "not run here: $where: $line (marked: minutes without a GPU)"; continue
    fi
    # The same command shown in a lesson's README and its docs page runs once.
    local key="${line%%#*}"
    key="${key%"${key##*[![:space:]]}"}"
    if [ -n "${seen[$key]:-}" ]; then echo "ran above: $where: $line"; continue; fi
    seen[$key]=1
    capture bash -c "cd '$sandbox' && PATH='$work/nompl':\"\$PATH\" timeout 600 bash -o pipefail -c \"\$1\"" _ "$line"
    if [ "$status" -eq 3 ] && [ "$gpu" -eq 0 ] && [[ "$err" == *"a GPU is required"* ]]; then
      echo "ok (needs a GPU, says so, exit 3): $where: $line"
    elif [ "$status" -ne 0 ]; then
      fail "$where: exit $status: $line"$'\n'"$(printf '%s\n' "$out" | tail -n 5)"$'\n'"$err"
    else
      echo "ok: $where: $line"
    fi
    ran=$((ran + 1))
    if [[ "$line" =~ plot\.py.*--out\ ([^ ]+) ]]; then
      ls "$sandbox/${BASH_REMATCH[1]}"/*.png >/dev/null 2>&1 || fail "$where: no PNG in ${BASH_REMATCH[1]}"
      plots=$((plots + 1))
    fi
  done <"$work/commands"
  [ "$ran" -gt 0 ] || fail "no documented command was found in ${pages[*]}"
  echo "ran $ran documented commands ($plots drew plots, with a python3 lacking matplotlib first on PATH)"
}

case_run_course_keeps_json() {
  local bin="${1:?run_course_keeps_json needs the bin folder of a build}"
  local checkout="$work/co"
  mkdir -p "$checkout/build/release/bin" "$work/fakebin" "$work/results"
  cp -r "$root/scripts" "$checkout/scripts"
  cp "$root/CMakePresets.json" "$checkout/" 2>/dev/null
  local program lessons=0
  for program in "$bin"/[0-9][0-9]_* "$bin/course_summary" "$bin/course_device_info"; do
    [ -x "$program" ] || continue
    ln -s "$program" "$checkout/build/release/bin/"
    local stem
    stem="$(basename "$program")"
    if [[ "$stem" =~ ^[0-9][0-9]_[a-z_]+$ && -d "$root/$stem" ]]; then mkdir -p "$checkout/$stem"; lessons=$((lessons + 1)); fi
  done
  [ "$lessons" -gt 0 ] || fail "no lesson binary in $bin"
  printf '#!/bin/sh\n[ "$1" = --version ] && echo "cmake version 3.28.0"\nexit 0\n' >"$work/fakebin/cmake"
  chmod +x "$work/fakebin/cmake"
  echo '{"mine": true}' >"$work/results/keep.json"
  local first
  first="$(basename "$(ls -d "$checkout"/[0-9][0-9]_*/ | head -n 1)")"
  echo '{"earlier": true}' >"$work/results/$first.json"
  capture env PATH="$work/fakebin:$PATH" COURSE_NO_INSTALL=1 bash "$checkout/scripts/run_course.sh" \
    --results "$work/results" -- --skip-cpu --skip-gpu
  [ "$status" -eq 1 ] || fail "every lesson failing: exit $status, expected 1:"$'\n'"$out"$'\n'"$err"
  [ "$(cat "$work/results/keep.json")" = '{"mine": true}' ] || fail "run_course.sh deleted or changed keep.json"
  [ "$(cat "$work/results/$first.json")" = '{"earlier": true}' ] || fail "run_course.sh deleted or changed an earlier $first.json"
  [ -z "$(ls -A "$work/results" | grep '^\.run_course')" ] || fail "run_course.sh left its stamp file behind"
  [[ "$out" == *"== 0"*"exit 2"* ]] || fail "no lesson ran (exit 2 expected of each):"$'\n'"$out"$'\n'"$err"
  echo "ok: every lesson failed (exit 1); keep.json and an earlier $first.json are untouched ($lessons lessons)"
}

case_doc_quick() {
  mkdir -p "$work/quickfake"
  local fake="$work/quickfake/06_fake"
  printf '#!/bin/sh\necho "limit=${COURSE_SWEEP_MAX_POINTS-unset} args=$*"\n' >"$fake"
  chmod +x "$fake"
  capture env -u COURSE_SWEEP_MAX_POINTS bash "$root/scripts/tests/doc_quick.sh" "$fake" --sweep filter-size --size 2049 --reps 50
  [ "$status" -eq 0 ] || fail "doc_quick.sh: exit $status ($err)"
  [ "$out" = "limit=3 args=--sweep filter-size --size 257 --reps 3 --warmup 1 --cpu-reps 1" ] ||
    fail "doc_quick.sh: the lesson got '$out'"
  capture env COURSE_SWEEP_MAX_POINTS=5 bash "$root/scripts/tests/doc_quick.sh" "$fake" --sweep filter-size
  [[ "$out" == "limit=5 args=--sweep filter-size --size 256 "* ]] || fail "doc_quick.sh with a limit set: the lesson got '$out'"
  ln -sf "$fake" "$work/quickfake/matmul_tune"
  capture env -u COURSE_SWEEP_MAX_POINTS bash "$root/scripts/tests/doc_quick.sh" "$work/quickfake/matmul_tune" --skip-variants
  [ "$out" = "limit=3 args=--skip-variants --size 512 --reps 3" ] || fail "doc_quick.sh: matmul_tune got '$out'"
  echo "ok: doc_quick.sh caps sizes and repetitions and hands the lesson COURSE_SWEEP_MAX_POINTS=3 ($out)"
}

case "${1:-}" in
  missing_values|plot_errors|progress|doc_plot_command|configure_installs|doc_quick) "case_$1" ;;
  doc_commands) shift; case_doc_commands "$@" ;;
  run_course_keeps_json) shift; case_run_course_keeps_json "$@" ;;
  *) echo "usage: check_scripts.sh missing_values|plot_errors|progress|doc_plot_command|configure_installs|doc_quick|doc_commands [--quick] BIN_DIR PAGE..." >&2; exit 2 ;;
esac
