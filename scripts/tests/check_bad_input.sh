#!/usr/bin/env bash
# Bad input as a careless or hostile user gives it (registered in cmake/ToolTests.cmake, label cpu):
# every case must end with one line and the course's exit code, never a hang, a crash, a
# traceback or an output file that says more than happened.
#
# Usage: scripts/tests/check_bad_input.sh CASE BIN_DIR
#   plot_files      plot.py on hostile results (a "lesson" that is a path), deep JSON, FIFOs, and
#                   --out paths that cannot be folders (a file, /dev/full, /proc, too long, "")
#   json_fifo       every lesson with --json naming a FIFO: refused at once (exit 2), no open
#   full_disk       a file-size limit standing in for a full disk: no half-written JSON, and a
#                   JSON written before a later failure (lesson 05's image) says so
#   kernel_file     lesson 08's --kernel-file as a FIFO, /dev/zero, a huge file, ""; -a ""
#   jit_cache_kill  lesson 08 killed (SIGTERM, SIGKILL) leaves no JIT-cache folder behind
#   sweep           sweep.sh: blank or glob --sizes, a bad --lesson, a lesson's exit 3 kept
#   plot_pictures   plot.py's checks of the pictures a results file names (lesson 06's extra.images),
#                   with a stand-in matplotlib: a folder outside the results' folders and --out, '..',
#                   a file name with a path, a FIFO, a folder, an oversized file are refused (no
#                   hang); a picture inside is accepted; filter names reach PNG names as letters,
#                   digits and '_' only; MPLBACKEND=bogus is ignored
#   corpus          every case of scripts/tests/bad_inputs.tsv (the fuzz corpus): its exit code and
#                   its one stderr line, within 60 s (cases named plot_* need matplotlib)
#   progress        (not bad input, but a long run's silence) lesson 05's CPU reference at a size
#                   of minutes prints a progress line with an estimate within seconds
# Each case prints what it checked and exits non-zero at the first thing that is wrong.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CUDA_VISIBLE_DEVICES=-1 COURSE_REQUIRE_GPU=0  # the no-GPU path, on any machine

fail() { echo "FAIL: $*"; exit 1; }

# Runs "$@" with a time limit, capturing stdout and stderr apart: sets status, out, err.
capture() {
  timeout 60 "$@" >"$work/.stdout" 2>"$work/.stderr"
  status=$?
  out="$(cat "$work/.stdout")"
  err="$(cat "$work/.stderr")"
  [ "$status" -ne 124 ] || fail "$* hung (killed after 60 s)"
}

# The last command exited with `code` and printed one line on stderr matching `pattern`.
expect_one_line() {
  local what="$1" code="$2" pattern="$3"
  [ "$status" -eq "$code" ] || fail "$what: exit $status, expected $code (stderr: $err)"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "$what: expected one line on stderr, got:"$'\n'"$err"
  [[ "$err" != *Traceback* ]] || fail "$what: a traceback"
  [[ "$err" =~ $pattern ]] || fail "$what: stderr '$err' does not match '$pattern'"
  echo "ok: $what -> exit $status: $err"
}

lessons() { local bin="$1" dir; for dir in "$root"/[0-9][0-9]_*/; do [ -x "$bin/$(basename "$dir")" ] && basename "$dir"; done; }

case_plot_files() {
  local plot="$root/scripts/plot.py" fixture="$root/common/tests/fixtures/01_vector_exp_fixture.json"
  local python
  python="$(command -v python3)"
  # A results file whose "lesson" names a folder holding a plot module: nothing may run or be written there.
  mkdir -p "$work/evil" "$work/in"
  printf 'open("%s/ran", "w").write("x")\ndef plot(r, o, c):\n    return []\n' "$work" >"$work/evil/plot_evil.py"
  local lesson
  for lesson in "$work/evil" "../../evil" "01_vector_exp/../../evil" "evil"; do
    sed "s|\"lesson\": \"01_vector_exp\"|\"lesson\": \"$lesson\"|" "$fixture" >"$work/in/hostile.json"
    grep -q "\"lesson\": \"$lesson\"" "$work/in/hostile.json" || fail "the hostile file was not made"
    capture "$python" "$plot" "$work/in/hostile.json" --out "$work/plots"
    expect_one_line "plot.py, lesson '$lesson'" 3 "the field /lesson is not a lesson's name"
  done
  [ ! -e "$work/ran" ] || fail "a module named by a results file ran"
  [ -z "$(find "$work" -name '*.png')" ] || fail "a PNG was written: $(find "$work" -name '*.png')"
  # A sweep's name becomes part of a PNG's name too.
  "$python" -c 'import json, sys; r = json.load(open(sys.argv[1])); r["sweeps"] = [{"name": "../../evil", "points": []}]
json.dump(r, open(sys.argv[2], "w"))' "$fixture" "$work/in/sweep.json" || fail "could not make sweep.json"
  capture "$python" "$plot" "$work/in/sweep.json" --out "$work/plots"
  expect_one_line "plot.py, a sweep named '../../evil'" 3 "the field /sweeps/0/name is not a sweep's name"
  rm -f "$work/in/sweep.json"
  # The fixed list of lesson plot modules names every plot_*.py there is, and nothing else.
  local listed found
  listed="$(cd "$root/scripts" && /usr/bin/env python3 -S -c 'import ast, sys
tree = ast.parse(open("plot.py").read())
table = next(n.value for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "LESSON_PLOT_MODULES")
print("\n".join(sorted(f"{k}/{m}.py" for k, v in ast.literal_eval(table).items() for m in v)))')"
  found="$(cd "$root" && ls -1 [0-9][0-9]_*/plot_*.py | sort)"
  [ "$listed" = "$found" ] || fail "LESSON_PLOT_MODULES lists:"$'\n'"$listed"$'\n'"but the lessons have:"$'\n'"$found"
  echo "ok: LESSON_PLOT_MODULES names every lesson plot module: $(echo $found)"
  sed 's|"median": [0-9.e+-]*|"median": "fast"|' "$fixture" >"$work/in/typed.json"
  capture "$python" "$plot" "$work/in/typed.json" --out "$work/plots"
  expect_one_line "plot.py, a field of the wrong type" 3 "typed.json lacks a field or has a wrong one: /rows/0/time_ms/median"
  rm -f "$work/in/"*.json
  # Deeply nested JSON, a FIFO as a file and inside a folder.
  printf '%*s' 100000 '' | tr ' ' '[' >"$work/deep.json"
  capture "$python" "$plot" "$work/deep.json" --out "$work/plots"
  expect_one_line "plot.py, JSON nested 100,000 deep" 3 "deep.json is nested too deeply"
  mkfifo "$work/in/pipe.json"
  capture "$python" "$plot" "$work/in/pipe.json" --out "$work/plots"
  expect_one_line "plot.py, a FIFO" 2 "pipe.json is not a regular file"
  capture "$python" "$plot" "$work/in" --out "$work/plots"
  expect_one_line "plot.py, a folder holding a FIFO" 3 "pipe.json is not a regular file"
  # --out: checked before anything is read or drawn.
  touch "$work/a_file"
  local long
  long="$work/$(printf '%*s' 5000 '' | tr ' ' 'x')"
  local item
  for item in "a file:$work/a_file:is not a folder" "/dev/full:/dev/full:is not a folder" \
              "/proc:/proc/course:cannot create files there" "a name too long:$long:cannot create files there"; do
    IFS=: read -r what path pattern <<<"$item"
    capture "$python" "$plot" "$fixture" --out "$path"
    expect_one_line "plot.py --out $what" 2 "^plot.py: error: --out .*$pattern"
  done
  capture "$python" "$plot" "$fixture" --out ""
  expect_one_line "plot.py --out ''" 2 "^plot.py: error: --out: the folder name is empty"
  capture "$python" "$plot" "$fixture"
  expect_one_line "plot.py without --out" 2 "^plot.py: error: the following arguments are required: --out"
  if [ "$(id -u)" -ne 0 ]; then  # root writes into read-only folders
    mkdir -p "$work/readonly" && chmod 555 "$work/readonly"
    capture "$python" "$plot" "$fixture" --out "$work/readonly/plots"
    expect_one_line "plot.py --out in a read-only folder" 2 "cannot create files there: Permission denied"
  fi
}

case_json_fifo() {
  local bin="$1" name count=0
  mkfifo "$work/results.json"
  for name in $(lessons "$bin"); do
    capture "$bin/$name" --json "$work/results.json" --skip-gpu
    expect_one_line "$name --json FIFO" 2 "--json: .*results.json is a FIFO \\(named pipe\\), not a regular file"
    # A flag taken for the value: refused, and no file named after the flag.
    (cd "$work" && capture "$bin/$name" --json --skip-gpu --size 100
     expect_one_line "$name --json --skip-gpu" 2 "--json: '--skip-gpu' is a flag, not a value") || exit 1
    [ ! -e "$work/--skip-gpu" ] || fail "$name wrote a file named --skip-gpu"
    count=$((count + 1))
  done
  [ "$count" -gt 0 ] || fail "no lesson binary in $bin"
}

case_full_disk() {
  local bin="$1"
  mkdir -p "$work/out"
  # ulimit -f (in KiB) makes a write beyond it fail with EFBIG, as a full disk fails with ENOSPC;
  # SIGXFSZ ignored, so the write returns the error instead of ending the program.
  capture bash -c 'trap "" XFSZ; ulimit -f 2; exec "$@"' _ "$bin/01_vector_exp" --length 1000 --cpu-reps 1 \
    --json "$work/out/01.json"
  expect_one_line "01_vector_exp --json with 2 KiB of room" 3 "cannot write the JSON results to .*01.json: write failed: File too large"
  [ -z "$(ls -A "$work/out")" ] || fail "something was left behind: $(ls -A "$work/out")"
  [ -x "$bin/05_mandelbrot" ] || { echo "05_mandelbrot not built: its case is left out"; return 0; }
  # The JSON fits, the image does not: the JSON written before the failure must say so.
  capture bash -c 'trap "" XFSZ; ulimit -f 100; exec "$@"' _ "$bin/05_mandelbrot" --width 301 --height 203 \
    --iters 50 --skip-gpu --cpu-reps 1 --json "$work/out/05.json" --image "$work/out/05.ppm"
  expect_one_line "05_mandelbrot --image with 100 KiB of room" 3 "cannot write the image to .*05.ppm: write failed"
  [ ! -e "$work/out/05.ppm" ] || fail "a half-written image was left"
  [ "$(ls -A "$work/out")" = "05.json" ] || fail "expected only 05.json, found: $(ls -A "$work/out")"
  grep -q '"exit_code": 3' "$work/out/05.json" || fail "05.json does not say exit_code 3"
  grep -q '"verified": true' "$work/out/05.json" && fail "05.json still says verified: true"
  grep -q '"error": "cannot write the image' "$work/out/05.json" || fail "05.json does not name the error"
  echo "ok: 05.json says exit_code 3, verified false, and the error"
}

case_kernel_file() {
  local bin="$1" lesson="$1/08_driver_api_saxpy"
  [ -x "$lesson" ] || { echo "08_driver_api_saxpy not built: nothing to check"; return 0; }
  mkfifo "$work/kernel.cu"
  capture "$lesson" --kernel-file "$work/kernel.cu"
  expect_one_line "08 --kernel-file FIFO" 2 "--kernel-file: .*kernel.cu is a FIFO \\(named pipe\\), not a regular file"
  capture "$lesson" --kernel-file /dev/zero
  expect_one_line "08 --kernel-file /dev/zero" 2 "--kernel-file: /dev/zero is a character device"
  head -c 5000000 /dev/zero | tr '\0' ' ' >"$work/huge.cu"
  capture "$lesson" --kernel-file "$work/huge.cu"
  expect_one_line "08 --kernel-file of 5 MB" 2 "--kernel-file: .*huge.cu is larger than 4.00 MiB"
  capture "$lesson" --kernel-file ""
  expect_one_line "08 --kernel-file ''" 2 "--kernel-file: the value is empty"
  capture "$lesson" -a ""
  expect_one_line "08 -a ''" 2 "^08_driver_api_saxpy: error: -a: the value is empty"
  capture "$lesson" -a abc
  expect_one_line "08 -a abc" 2 "-a: 'abc' is not a number"
}

case_jit_cache_kill() {
  local lesson="$1/08_driver_api_saxpy"
  [ -x "$lesson" ] || { echo "08_driver_api_saxpy not built: nothing to check"; return 0; }
  mkdir -p "$work/tmp"
  local signal pid i folder
  for signal in TERM HUP KILL; do
    # A long CPU-only run; its fresh JIT cache folder is made at start, in TMPDIR.
    TMPDIR="$work/tmp" "$lesson" --skip-gpu --cpu-reps 1000 >/dev/null 2>&1 &
    pid=$!
    for i in $(seq 100); do
      folder="$(ls "$work/tmp")"
      [ -n "$folder" ] && break
      sleep 0.1
    done
    [ -n "$folder" ] || fail "08 made no JIT cache folder in TMPDIR"
    mkdir -p "$work/tmp/$folder/a/b" && touch "$work/tmp/$folder/a/b/entry"  # as the driver would fill it
    kill -s "$signal" "$pid"
    wait "$pid"
    echo "08 killed with SIG$signal: exit $?"
    if [ "$signal" = KILL ]; then
      # SIGKILL cannot be caught: the next run removes the folder of a process that no longer runs.
      [ -d "$work/tmp/$folder" ] || fail "expected the folder to outlive SIGKILL until the next run"
      TMPDIR="$work/tmp" "$lesson" --help >/dev/null
    fi
    [ -z "$(ls -A "$work/tmp")" ] || fail "left behind after SIG$signal: $(ls -A "$work/tmp")"
    echo "ok: nothing left in TMPDIR after SIG$signal"
  done
}

case_sweep() {
  local bin="$1" sweep="$root/scripts/sweep.sh"
  capture bash "$sweep" --sizes "   " --bin "$bin"
  expect_one_line "sweep.sh --sizes '   '" 2 "^sweep.sh: --sizes '   ' holds no size"
  capture bash "$sweep" --sizes "*" --bin "$bin"
  expect_one_line "sweep.sh --sizes '*'" 2 "^sweep.sh: --sizes: '\\*' is not a whole number"
  touch "$work/a_file"
  capture bash "$sweep" --out "$work/a_file" --bin "$bin"
  expect_one_line "sweep.sh --out a_file" 2 "^sweep.sh: --out .*a_file: not a folder where files can be written"
  capture bash "$sweep" --sizes "1024 1e3" --bin "$bin"
  expect_one_line "sweep.sh --sizes '1024 1e3'" 2 "^sweep.sh: --sizes: '1e3' is not a whole number"
  local lesson
  for lesson in scripts ../.. "01_vector_exp/../scripts" docs; do
    capture bash "$sweep" --lesson "$lesson"  # no --bin: it would configure and build if not refused first
    expect_one_line "sweep.sh --lesson $lesson (before any build)" 2 "^sweep.sh: --lesson .*: no such lesson"
  done
  [ -x "$bin/01_vector_exp" ] || fail "no 01_vector_exp in $bin"
  # A point that runs out of host memory exits 3; the sweep says so with its own exit code 3.
  capture bash "$sweep" --bin "$bin" --lesson 01_vector_exp --sizes "1000 68719476736" --no-plot --out "$work/sweep" \
    -- --skip-gpu --cpu-reps 1
  [ "$status" -eq 3 ] || fail "sweep.sh with a failing point: exit $status, expected 3:"$'\n'"$out"$'\n'"$err"
  [[ "$out" == *"run 2 of 2"* ]] || fail "no progress line 'run 2 of 2':"$'\n'"$out"
  [[ "$out" == *"FAILED (exit 3"* ]] || fail "the failed point is not shown:"$'\n'"$out"
  echo "ok: sweep.sh kept the lesson's exit 3 and showed each run:"$'\n'"$out"
}

case_progress() {
  local lesson="$1/05_mandelbrot"
  [ -x "$lesson" ] || { echo "05_mandelbrot not built: nothing to check"; return 0; }
  # Minutes of work on one thread: a line must come after about 3 s; the run is then stopped.
  "$lesson" --width 2048 --height 2048 --iters 100000 --threads 1 --precision float --skip-gpu \
    >"$work/progress.txt" 2>&1 &
  local pid=$! i line=""
  for i in $(seq 300); do
    line="$(grep -m1 -- '\.\.\. CPU FP32 Mandelbrot' "$work/progress.txt")" && break
    sleep 0.2
  done
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  [ -n "$line" ] || fail "no progress line within 60 s:"$'\n'"$(cat "$work/progress.txt")"
  [[ "$line" =~ [0-9]+%\ \([0-9,]+\ of\ 2,048\ rows\),\ [0-9]+\ s\ so\ far,\ about\ .*\ left ]] ||
    fail "the progress line lacks how far or the estimate: $line"
  echo "ok: $line"
}

case_plot_pictures() {
  mkdir -p "$work/stub/matplotlib" "$work/results/pictures" "$work/out" "$work/elsewhere"
  printf 'rcParams = {}\ndef use(name):\n    pass\n' >"$work/stub/matplotlib/__init__.py"
  printf 'class Figure:\n    def savefig(self):\n        pass\n    def tight_layout(self):\n        pass\n' >"$work/stub/matplotlib/figure.py"
  : >"$work/stub/matplotlib/pyplot.py"
  printf 'png' >"$work/results/pictures/input.png"
  printf 'png' >"$work/elsewhere/input.png"
  mkfifo "$work/results/pictures/fifo.png"
  mkdir "$work/results/pictures/folder.png"
  truncate -s 65M "$work/results/pictures/huge.png"
  capture timeout 60 env MPLBACKEND=bogus PYTHONPATH="$work/stub" python3 - "$root" "$work" <<'PY'
import importlib.util, sys
root, work = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("course_plot", f"{root}/scripts/plot.py")
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)
from pathlib import Path
plot.ALLOWED_ROOTS[:] = [Path(f"{work}/results").resolve(), Path(f"{work}/out").resolve()]
pictures = f"{work}/results/pictures"
assert plot.image_path(pictures, "input.png") == Path(pictures).resolve() / "input.png"
assert plot.image_path(pictures, "missing.png") is None
refused = [("/", "etc.png"), (f"{work}/elsewhere", "input.png"), (f"{pictures}/../../elsewhere", "input.png"),
           (pictures, "../input.png"), (pictures, "/etc/passwd"), (pictures, "input.txt"), (pictures, "fifo.png"),
           (pictures, "folder.png"), (pictures, "huge.png"), ("", "input.png"), (None, "input.png")]
for folder, file in refused:
    try:
        plot.image_path(folder, file)
    except plot.InputError as error:
        print(f"ok: refused {folder!r} / {file!r}: {error}")
    else:
        sys.exit(f"accepted {folder!r} / {file!r}")
spec = importlib.util.spec_from_file_location("plot06", f"{root}/06_fft_convolve/plot_fft_convolve.py")
plot06 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot06)
for name, tag in [("gaussian /../../escaped_by_plot", "_gaussian_escaped_by_plot"), ("box 31 x 31", "_box_31"),
                  ("classic", ""), ("gaussian \x1b[31m\n", "_gaussian_31m")]:
    assert plot06.filter_tag(name) == tag, (name, plot06.filter_tag(name))
print("ok: filter names become letters, digits and '_' in PNG names")
PY
  [ "$status" -eq 0 ] || fail "plot.py's picture checks: exit $status:"$'\n'"$out"$'\n'"$err"
  printf '%s\n' "$out"
}

case_corpus() {
  local bin="$1" name code pattern command ran=0 skipped=0
  mkfifo "$work/fifo"
  mkdir -p "$work/out"
  printf '0 0 0\n0 0 0\n0 0 0\n' >"$work/zero.txt"
  printf '1e-45 1e-45 1e-45\n1e-45 1e-45 1e-45\n1e-45 1e-45 1e-45\n' >"$work/tiny.txt"
  printf '3e38 -3e38 3e38\n-3e38 3e38 -3e38\n3e38 -3e38 3e38\n' >"$work/huge.txt"
  printf 'P5\n1 1\n255\n\x80' >"$work/one.pgm"
  python3 - "$root/common/tests/fixtures/01_vector_exp_fixture.json" "$work" <<'PY' || fail "could not make the plot inputs"
import json, sys
report = json.load(open(sys.argv[1]))
nan = json.loads(json.dumps(report))
nan["rows"][0]["time_ms"] = float("nan")
open(f"{sys.argv[2]}/nan.json", "w").write(json.dumps(nan))
for row in report["rows"]:
    row["status"] = "skipped"
    row["time_ms"] = None
report.pop("sweeps", None)
open(f"{sys.argv[2]}/nothing_ran.json", "w").write(json.dumps(report))
PY
  local plot_python=""
  plot_python="$(source "$root/scripts/setup.sh" >/dev/null 2>&1; course_plot_python)"
  while IFS=$'\t' read -r name code pattern command; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    local program
    program="$(printf '%s\n' "$command" | grep -oE '\$bin/[A-Za-z0-9_]+' | head -n 1)"
    if [ -n "$program" ] && [ ! -x "$bin/${program#\$bin/}" ]; then
      echo "skipped: $name (${program#\$bin/} is not built)"
      skipped=$((skipped + 1))
      continue
    fi
    if [[ "$name" == plot_* && -z "$plot_python" ]]; then
      echo "skipped: $name (no python3 with matplotlib here)"
      skipped=$((skipped + 1))
      continue
    fi
    capture env bin="$bin" root="$root" work="$work" bash -c "cd \"\$work\" && $command"
    # libgomp's own warning about OMP_NUM_THREADS comes as the program loads, before any course
    # code runs: it is set aside for the omp_* cases, where the course's line must follow it.
    if [[ "$name" == omp_* ]]; then err="$(printf '%s\n' "$err" | grep -v -e '^$' -e '^libgomp: Invalid value for environment variable')"; fi
    if [ "$code" -eq 0 ]; then  # a case that must succeed: its stdout matches the pattern
      [ "$status" -eq 0 ] || fail "corpus $name: exit $status, expected 0 (stderr: $err)"
      [[ "$out" =~ $pattern ]] || fail "corpus $name: stdout does not match '$pattern':"$'\n'"$out"
      echo "ok: corpus $name -> exit 0"
    else
      expect_one_line "corpus $name" "$code" "$pattern"
    fi
    ran=$((ran + 1))
  done <"$root/scripts/tests/bad_inputs.tsv"
  [ "$ran" -gt 0 ] || fail "no corpus case ran"
  echo "corpus: $ran cases ran, $skipped skipped"
}

case "${1:-}" in
  plot_files) case_plot_files ;;
  plot_pictures) case_plot_pictures ;;
  json_fifo|full_disk|kernel_file|jit_cache_kill|sweep|progress|corpus)
    [ -d "${2:-}" ] || { echo "check_bad_input.sh $1 needs the bin folder of a build" >&2; exit 2; }
    "case_$1" "$(cd "$2" && pwd)" ;;
  *) echo "usage: check_bad_input.sh plot_files|plot_pictures|json_fifo|full_disk|kernel_file|jit_cache_kill|sweep|progress|corpus [BIN_DIR]" >&2; exit 2 ;;
esac
