#!/usr/bin/env python3
"""Tests of scripts/reproduce_docs.py without a GPU or a build (standard library only): its
command line, and its runs over stand-in binaries that print their arguments and write the JSON
they are asked for (the `tests` part, which runs ctest in the checkout, and the build are left out).

Cases:
  bad_command_line  every flag without a value, with an empty one or with a flag for its value,
                    an unknown argument, a bad --part, --lessons, --deadline, --bin or --out: one
                    line on stderr naming it (control characters shown as \\x.. escapes), exit 2,
                    nothing created; --help: the usage, exit 0
  steps             --part course,runs: each step's line, ok or FAILED with its exit status;
                    timings.tsv (a header, then step, seconds, exit status, command with <out>);
                    the lesson's defaults run copied from course/; a program not built; machine.txt;
                    exit 1 when a step failed, 0 when every step ran and verified
  skip_and_deadline --skip patterns (listed as skipped, exit 0); --deadline: later steps listed as
                    skipped for the deadline (exit 1), the course summary still made
  split_calls       two calls into one --out (course, then runs and sweeps): timings.tsv keeps
                    one header, the second call copies the first's default runs, and the sweep
                    copies the runs' points made with the same command

Usage: check_reproduce_docs.py [CASE...]   (default: every case; prints one line per check)
Exit code: 0 every case as expected, 1 otherwise.
"""
import os
import re
import stat
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "reproduce_docs.py")

# A stand-in for every program: prints its name and arguments, writes '{}' to --json, makes
# --out-dir; exits STUB_EXIT_<name> (default 0) after STUB_SLEEP_<name> seconds (with 3, as a lesson
# stopped by a runtime error, it writes no JSON).
STUB = """#!/bin/sh
name=$(basename "$0")
echo "$name $*"
eval "delay=\\${STUB_SLEEP_$name:-0}; code=\\${STUB_EXIT_$name:-0}"
previous=""
for argument in "$@"; do
  [ "$previous" = --json ] && [ "$code" != 3 ] && echo '{"stub": true}' >"$argument"
  [ "$previous" = --out-dir ] && mkdir -p "$argument"
  previous="$argument"
done
[ "$delay" = 0 ] || sleep "$delay"
exit "$code"
"""
PROGRAMS = ["01_vector_exp", "03_streams", "04_shared_matmul", "course_device_info", "course_summary"]

failures = []


def check(condition, what, detail=""):
    if condition:
        print(f"ok: {what}")
    else:
        print(f"FAIL: {what}" + (f"\n{detail}" if detail else ""))
        failures.append(what)


def run(arguments, env=None, cwd=None):
    environment = dict(os.environ, **(env or {}))
    # No cuobjdump or nvcc from /usr/local/cuda: their steps would read the stand-ins as binaries.
    environment["PATH"] = ":".join(p for p in environment.get("PATH", "").split(":") if "cuda" not in p)
    result = subprocess.run([sys.executable, SCRIPT, *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=environment, cwd=cwd, timeout=120, check=False)
    return result.returncode, result.stdout.decode(errors="replace"), result.stderr.decode(errors="replace")


def make_bin(folder, programs=PROGRAMS):
    os.makedirs(folder, exist_ok=True)
    for program in programs:
        path = os.path.join(folder, program)
        with open(path, "w", encoding="utf-8") as file:
            file.write(STUB)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


def read(path):
    with open(path, encoding="utf-8") as file:
        return file.read()


def case_bad_command_line(work):
    out = os.path.join(work, "never")
    a_file = os.path.join(work, "a_file")
    open(a_file, "w", encoding="utf-8").close()
    cases = []
    for flag in ("--out", "--part", "--lessons", "--skip", "--deadline", "--bin"):
        cases += [([flag], rf"^reproduce_docs\.py: {flag} needs a value \(see --help\)$"),
                  ([flag, ""], rf"^reproduce_docs\.py: {flag} needs a value \(see --help\)$"),
                  ([flag, "--part"], rf"^reproduce_docs\.py: {flag} needs a value, not the flag '--part'"),
                  ([flag, "-k"], rf"^reproduce_docs\.py: {flag} needs a value, not the flag '-k'")]
    choose = "choose from tests, course, runs, sweeps, ncu, exercises, plots or all"
    cases += [
        (["--bogus"], r"^reproduce_docs\.py: unknown argument '--bogus' \(see --help\)$"),
        (["runs"], r"^reproduce_docs\.py: unknown argument 'runs'"),
        (["--part", "everything"], rf"^reproduce_docs\.py: --part everything: {choose}"),
        (["--part", "runs,,sweeps"], rf"^reproduce_docs\.py: --part runs,,sweeps: {choose}"),
        (["--part", ",runs"], rf"^reproduce_docs\.py: --part ,runs: {choose}"),
        (["--part", "Runs"], rf"^reproduce_docs\.py: --part Runs: {choose}"),
        (["--part", "abc\x1b[31m\nnext"], r"^reproduce_docs\.py: --part abc\\x1b\[31m\\x0anext: choose"),
        (["--lessons", "01,99"], r"^reproduce_docs\.py: --lessons 01,99: '99' is not a lesson"),
        (["--lessons", "1"], r"^reproduce_docs\.py: --lessons 1: '1' is not a lesson"),
        (["--lessons", "01,,02"], r"^reproduce_docs\.py: --lessons 01,,02: '' is not a lesson"),
        (["--deadline", "5min"], r"^reproduce_docs\.py: --deadline 5min: give whole seconds, 1 or more$"),
        (["--deadline", "0"], r"^reproduce_docs\.py: --deadline 0: give whole seconds"),
        (["--deadline", "1234567"], r"^reproduce_docs\.py: --deadline 1234567: give whole seconds"),
        (["--deadline", "1.5"], r"^reproduce_docs\.py: --deadline 1\.5: give whole seconds"),
        (["--bin", "/nonexistent"], r"^reproduce_docs\.py: --bin /nonexistent: no such folder$"),
        (["--bin", a_file], r"^reproduce_docs\.py: --bin .*a_file: no such folder$"),
        (["--out", a_file], r"^reproduce_docs\.py: --out .*a_file: not a folder where files can be written$"),
        (["--out", "/dev/full"], r"^reproduce_docs\.py: --out /dev/full: not a folder where files can be written$"),
        (["--out", "/proc/course"], r"^reproduce_docs\.py: --out /proc/course: not a folder where files"),
    ]
    for index, (arguments, pattern) in enumerate(cases):
        # --out comes last, so that every check before it is seen to come first: nothing is created.
        if index >= 24 and "--out" not in arguments:
            arguments = arguments + ["--out", out]
        code, _, err = run(arguments, cwd=work)
        lines = err.splitlines()
        check(code == 2 and len(lines) == 1 and re.search(pattern, lines[0]) and "Traceback" not in err,
              f"{' '.join(arguments).encode('unicode_escape').decode()} -> exit {code}: {err.strip()}", f"expected exit 2 and one line matching {pattern}")
    check(not os.path.exists(out), "no --out folder made by a refused command line")
    check(not os.path.exists(os.path.join(work, "--part")) and not os.path.exists(os.path.join(work, "-k")),
          "no folder named after a flag")
    code, text, err = run(["--help"])
    check(code == 0 and text.startswith("Reproduces") and "Usage: scripts/reproduce_docs.py" in text and not err,
          f"--help -> exit {code}, the usage on stdout")
    code, text, err = run(["--out", out, "--help"])
    check(code == 0 and "Exit status:" in text and not os.path.exists(out), "--help after a flag: the usage, nothing made")


def timings(out):
    """timings.tsv as rows of four fields (the header included)."""
    return [line.split("\t") for line in read(os.path.join(out, "timings.tsv")).splitlines()]


def case_steps(work):
    bin_folder = make_bin(os.path.join(work, "bin"))
    out = os.path.join(work, "out")
    code, text, err = run(["--out", "out", "--bin", "bin", "--part", "course,runs", "--lessons", "01,03,04",
                           "--skip", "01_ublkcp,01_warm_l2"], env={"STUB_EXIT_03_streams": "3"}, cwd=work)
    check(code == 1, f"a step failed: exit {code}", text + err)
    check(f"== course/03_streams: 03_streams --json <out>/course/03_streams.json\n   FAILED (exit 3, " in text
          and "output in course/03_streams.log)" in text, "a failed step: its command, FAILED, its exit status and log")
    check(re.search(r"== course/01_vector_exp: 01_vector_exp --json <out>/course/01_vector_exp\.json\n   ok, [0-9]+\.[0-9] s\n",
                    text), "a step: its command without the bin folder, <out> for the output folder, ok and seconds")
    check("== 01_vector_exp_first_contact: not built (see build/release/left-out.txt)" in text
          and "== matmul_tune: not built" in text, "programs not built are named")
    check("== 01_default: course/01_vector_exp of this session (the same command), copied" in text
          and read(os.path.join(out, "runs", "01_default.json")) == read(os.path.join(out, "course", "01_vector_exp.json")),
          "the lesson's defaults run is copied from course/")
    check(re.search(r"== failed: course/03_streams 01_vector_exp_first_contact \(not built\) .*matmul_tune \(not built\)",
                    text), "the failures are listed at the end")
    check("== skipped: 01_warm_l2 (--skip)" in text, "the skipped steps are listed at the end")
    rows = timings(out)
    check(rows[0] == ["step", "seconds", "exit", "command"], "timings.tsv starts with its header")
    by_name = {row[0]: row for row in rows[1:]}
    check(by_name.get("course/03_streams", [""] * 4)[2] == "3" and re.fullmatch(r"[0-9]+\.[0-9]", by_name["course/03_streams"][1]),
          f"timings.tsv: a failed step's exit status and seconds: {by_name.get('course/03_streams')}")
    check(by_name.get("01_default") == ["01_default", "0", "copied", "course/01_vector_exp"], "timings.tsv: a copied run")
    check(by_name.get("01_warm_l2", [""] * 4)[1:3] == ["-", "skipped"], "timings.tsv: a skipped step")
    check(by_name.get("04_1600", [""] * 4)[3] == "04_shared_matmul -n 1600 --skip-cpu --json <out>/runs/04_1600.json",
          f"timings.tsv: the command as shown: {by_name.get('04_1600')}")
    check(all(len(row) == 4 for row in rows), "timings.tsv: four fields a line")
    summary = read(os.path.join(out, "course", "summary.txt"))
    check("--missing 03_streams=exit 3: 03_streams --json" in summary,
          "course_summary is told of a lesson that wrote no JSON, with its exit status and last line", summary)
    machine = read(os.path.join(out, "machine.txt"))
    check(re.search(r"^command: .*reproduce_docs\.py --out .*/out --part course,runs --lessons 01,03,04 --skip 01_ublkcp,01_warm_l2$",
                    machine, re.M) and "== lscpu" in machine, "machine.txt: the command and the machine")
    check(os.path.isfile(os.path.join(out, "runs", "device_info.txt")), "runs/device_info.txt")
    # Every step ran and verified: exit 0.
    make_bin(bin_folder, ["01_vector_exp_first_contact"])
    code, text, err = run(["--out", "ok", "--bin", "bin", "--part", "course,runs", "--lessons", "01",
                           "--skip", "01_ublkcp"], cwd=work)
    check(code == 0 and "== failed" not in text and not err, f"every step ran and verified: exit {code}", text + err)


def case_skip_and_deadline(work):
    make_bin(os.path.join(work, "bin"))
    code, text, err = run(["--out", "skipped", "--bin", "bin", "--part", "course", "--lessons", "01,03",
                           "--skip", "course/0[3-9]*,nothing"], cwd=work)
    check(code == 0 and "== course/03_streams: skipped (--skip course/0[3-9]*)" in text
          and "== skipped: course/03_streams (--skip)" in text, f"--skip with a pattern: skipped, exit {code}", text + err)
    # 4 s, not 1: before the first step the script records the machine (nvidia-smi among others),
    # which took over a second on a GPU machine running the whole test suite at once.
    code, text, err = run(["--out", "late", "--bin", "bin", "--part", "course,runs", "--lessons", "01,03",
                           "--deadline", "4", "--skip", "01_ublkcp"], env={"STUB_SLEEP_01_vector_exp": "4.2"}, cwd=work)
    check(code == 1, f"a step skipped for the deadline: exit {code}", text + err)
    check("== course/03_streams: skipped (the deadline of 4 s has passed)" in text
          and "course/03_streams (deadline)" in text, "the deadline: later steps skipped and listed")
    check(re.search(r"== course_summary: course_summary .*\n   ok", text) is not None,
          "the course summary is made whatever the time", text + err)
    rows = {row[0]: row for row in timings(os.path.join(work, "late"))}
    check(rows.get("course/03_streams", [""] * 4)[1:3] == ["-", "deadline"], "timings.tsv: a step skipped for the deadline")


def case_split_calls(work):
    make_bin(os.path.join(work, "bin"))
    code, text, err = run(["--out", "split", "--bin", "bin", "--part", "course", "--lessons", "01"], cwd=work)
    check(code == 0, f"first call (course): exit {code}", text + err)
    code, text, err = run(["--out", "split", "--bin", "bin", "--part", "runs,sweeps", "--lessons", "01",
                           "--skip", "01_ublkcp,01_first_contact,01_2e28*"], cwd=work)
    check(code == 1 and "01_vector_exp_first_contact (not built)" in text, f"second call (runs, sweeps): exit {code}",
          text + err)
    check("== 01_default: course/01_vector_exp of this session (the same command), copied" in text,
          "the second call copies the first call's default run")
    rows = timings(os.path.join(work, "split"))
    check([row[0] for row in rows].count("step") == 1, "timings.tsv: one header over both calls")
    check("== sweep_01_vector_exp, 67108864: runs/01_2e26 of this session (the same command), copied" in text
          and "== sweep_01_vector_exp, 268435456" not in text,
          "the sweep copies the point runs/ made with the same command, and runs the others")
    sweep = os.path.join(work, "split", "sweep_01_vector_exp")
    check(os.path.isfile(os.path.join(sweep, "01_vector_exp_67108864.json")), "the copied point is in the sweep's folder")
    row = {r[0]: r for r in rows}.get("sweep_01_vector_exp", [""] * 4)
    check("--sizes 4096 16384 65536 262144 1048576 4194304 16777216 268435456 " in row[3],
          f"sweep.sh is given the sizes not copied: {row[3]}")


CASES = {"bad_command_line": case_bad_command_line, "steps": case_steps, "skip_and_deadline": case_skip_and_deadline,
         "split_calls": case_split_calls}


def main(names):
    for name in names or CASES:
        if name not in CASES:
            print(f"check_reproduce_docs.py: unknown case '{name}' (cases: {', '.join(CASES)})", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory() as work:
            print(f"== {name}")
            CASES[name](work)
    if failures:
        print(f"{len(failures)} checks failed: {'; '.join(failures)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
