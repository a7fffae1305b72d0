#!/usr/bin/env python3
"""Runs a lesson's bad-argument table (NN_name/tests/bad_args.tsv) against its binary.

Test <lesson>.bad_args (cmake/AddLesson.cmake) runs:

    check_bad_args.py BINARY TABLE [--lesson-dir DIR] [--probe course_device_info] [--timeout S]

The table: one case a line, three fields separated by TABs; blank lines and lines starting
with '#' (a comment naming the group that follows) are skipped.

    exit       the exit code the course's contract gives the case (2 bad command line,
               3 runtime problem)
    stderr     a regular expression (Python's re.search) that the one line on stderr must match:
               the flag or the reason the error names
    arguments  the binary's arguments, split as a POSIX shell would (quotes keep spaces; '' is
               an empty argument); ${LESSON_DIR} stands for the lesson's source folder

Each case must exit with its code and print exactly one non-empty line on stderr that matches.
An exit-3 case that needs a GPU (COURSE_REQUIRE_GPU set, or --skip-cpu or --require-gpu among
its arguments) on a machine where --probe finds none expects "a GPU is required" instead, as
cmake/ExpectExit.cmake does for single checks: the missing GPU is then the only right error.

Every case runs; each failing one is named (line, arguments, expected and got exit code and
stderr), and the exit code is 1 if any failed, 2 if the table itself is malformed.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys

import doc_check_args  # run(): standard output that cannot be written is one line, exit 3


def malformed(message):
    print(message, file=sys.stderr)
    sys.exit(2)


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # one line, as everywhere in the course (argparse prints the usage too)
        malformed(f"check_bad_args.py: error: {message} (see --help)")


def read_table(path, lesson_dir):
    """Returns [(line number, exit code, regex, [arguments])]; exits 2 on a malformed line."""
    cases = []
    if not os.path.isfile(path):  # a FIFO would block the read
        malformed(f"check_bad_args.py: error: the table {path} is not a file")
    try:
        with open(path, encoding="utf-8") as table:
            lines = table.readlines()
    except (OSError, UnicodeDecodeError) as error:
        malformed(f"check_bad_args.py: error: cannot read the table {path}: {getattr(error, 'strerror', None) or error}")
    for number, line in enumerate(lines, start=1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3 or not fields[0].isdigit() or not fields[1]:
            malformed(f"{path}:{number}: not <exit>TAB<stderr regex>TAB<arguments>: {line!r}")
        try:
            re.compile(fields[1])
            arguments = shlex.split(fields[2])
        except (re.error, ValueError) as error:
            malformed(f"{path}:{number}: {error}: {line!r}")
        arguments = [a.replace("${LESSON_DIR}", lesson_dir) for a in arguments]
        cases.append((number, int(fields[0]), fields[1], arguments))
    if not cases:
        malformed(f"{path}: no cases")
    return cases


def gpu_missing(probe, cache={}):
    """True when the probe (course_device_info --has-gpu) reports no usable GPU (exit 1)."""
    if "missing" not in cache:
        result = subprocess.run([probe, "--has-gpu"], capture_output=True, text=True)
        cache["missing"] = result.returncode == 1
        if cache["missing"]:
            print(f"no usable GPU ({result.stdout.strip()}): exit-3 cases that need one "
                  "expect 'a GPU is required'")
    return cache["missing"]


def main():
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("table")
    parser.add_argument("--lesson-dir", default=None,
                        help="what ${LESSON_DIR} stands for (default: the table's parent folder's parent)")
    parser.add_argument("--probe", default=None, help="course_device_info, for the exit-3 cases")
    parser.add_argument("--timeout", type=float, default=60,
                        help="seconds for one case (a case past it fails, named; default 60)")
    options = parser.parse_args()
    for flag, program in (("binary", options.binary), ("--probe", options.probe)):
        if program is not None and not (os.path.isfile(program) and os.access(program, os.X_OK)):
            parser.error(f"{flag} {program[:200]!r}: not a program that can be run")
    if not 0 < options.timeout < 1e6:
        parser.error(f"--timeout {options.timeout:g}: give seconds, more than 0")
    if options.lesson_dir is not None and not os.path.isdir(options.lesson_dir):
        parser.error(f"--lesson-dir {options.lesson_dir[:200]!r}: no such folder")
    lesson_dir = options.lesson_dir or os.path.dirname(os.path.dirname(os.path.abspath(options.table)))
    cases = read_table(options.table, lesson_dir)

    require_gpu = os.environ.get("COURSE_REQUIRE_GPU", "").lower() in ("1", "true", "yes", "on")
    failures = 0
    for number, code, pattern, arguments in cases:
        expected = pattern
        if (code == 3 and options.probe
                and (require_gpu or "--skip-cpu" in arguments or "--require-gpu" in arguments)
                and gpu_missing(options.probe)):
            expected = "a GPU is required"
        shown = shlex.join(arguments)
        try:
            result = subprocess.run([options.binary, *arguments], capture_output=True, text=True,
                                    errors="replace", timeout=options.timeout, stdin=subprocess.DEVNULL)
            got, err, out = result.returncode, result.stderr.strip(), result.stdout
        except subprocess.TimeoutExpired:
            got, err, out = "timeout", f"(ran past {options.timeout:g} s)", ""
        problem = None
        if got != code:
            problem = f"expected exit code {code}, got {got}"
        elif not err:
            problem = "expected an error message on stderr, got none"
        elif "\n" in err:
            problem = "expected a one-line error, got several lines"
        elif not re.search(expected, err):
            problem = f"the error does not match '{expected}'"
        if problem is None:
            print(f"ok   line {number}: exit {got}: {shown}")
            continue
        failures += 1
        print(f"FAIL line {number}: {shown}\n"
              f"     {problem}\n"
              f"     expected: exit {code}, stderr matching '{expected}'\n"
              f"     got:      exit {got}, stderr: {err}")
        if out.strip():
            print("     stdout:\n" + "".join(f"       {l}\n" for l in out.splitlines()[-20:]), end="")
    print(f"{len(cases) - failures} of {len(cases)} cases of {options.table} passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(doc_check_args.run("check_bad_args.py", main))
