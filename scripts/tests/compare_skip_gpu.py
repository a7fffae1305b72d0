#!/usr/bin/env python3
"""Compares every lesson's --skip-gpu run between two builds.

    scripts/tests/compare_skip_gpu.py BUILD_A BUILD_B [--source ROOT] [--lesson NAME ...]

Each lesson binary (BUILD/bin/NN_name) runs with its smoke arguments (SMOKE_ARGS in the lesson's
CMakeLists.txt) and with the arguments of each of its OUTPUT_CHECKS, plus --skip-gpu and --json.
For each run the two builds must agree on:
  - the exit code;
  - the JSON's keys, recursively (values are times and differ from run to run);
  - the printed output (stdout and stderr) with every number masked.
Prints one line per run and a summary; exits 1 if any run differs, 2 on bad arguments.
Standard library only.
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

KEYWORD = re.compile(r"^\s*([A-Z][A-Z_]+)\b(.*)$")
NUMBER = re.compile(r"[-+]?(?:\d+(?:[.,]\d+)*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def lesson_runs(cmake_file):
    """The argument lists a lesson is run with: its SMOKE_ARGS, then each OUTPUT_CHECKS entry's."""
    smoke, checks, current = [], [], None
    for line in cmake_file.read_text().splitlines():
        line = line.split("#", 1)[0] if not line.lstrip().startswith('"') else line
        match = KEYWORD.match(line)
        if match:
            current, rest = match.group(1), match.group(2)
        else:
            rest = line
        if current == "SMOKE_ARGS" and match:
            smoke = shlex.split(rest.rstrip(") \t"))
        elif current == "OUTPUT_CHECKS":
            for entry in shlex.split(rest.rstrip(")")):
                if "=" in entry:
                    name = entry.split(":", 1)[0]
                    checks.append((name, shlex.split(entry.split("=", 1)[1])))
    runs = [("smoke", smoke)] if smoke else []
    here = str(cmake_file.parent.resolve())
    return [(name, [arg.replace("${CMAKE_CURRENT_SOURCE_DIR}", here) for arg in args]) for name, args in runs + checks]


def keys(value, prefix=""):
    """Every key path in a JSON value; list items share their list's path (lengths may differ)."""
    out = set()
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}/{key}"
            out.add(path)
            out |= keys(item, path)
    elif isinstance(value, list):
        for item in value:
            out |= keys(item, prefix + "[]")
    return out


def masked(text, build):
    text = text.replace(str(build.resolve()), "<BUILD>").replace(str(build), "<BUILD>")
    text = NUMBER.sub("#", text)
    text = re.sub(r"-{3,}", "---", text)
    text = re.sub(r"={3,}", "===", text)
    return [re.sub(r"[ \t]+", " ", line).rstrip() for line in text.splitlines()]


def run_once(build, lesson, args):
    binary = build.resolve() / "bin" / lesson
    with tempfile.TemporaryDirectory() as tmp:
        json_path = Path(tmp) / "out.json"
        proc = subprocess.run([str(binary), *args, "--skip-gpu", "--json", str(json_path)], cwd=tmp,
                              capture_output=True, text=True, timeout=600)
        report = json.loads(json_path.read_text()) if json_path.exists() else None
        output = (proc.stdout + proc.stderr).replace(tmp, "<TMP>")
    return proc.returncode, (keys(report) if report is not None else None), masked(output, build)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_a", type=Path)
    parser.add_argument("build_b", type=Path)
    parser.add_argument("--source", type=Path, default=Path(__file__).resolve().parents[2])
    parser.add_argument("--lesson", action="append", default=[])
    opts = parser.parse_args()
    lessons = sorted(p.name for p in opts.source.iterdir() if re.match(r"^\d\d_", p.name) and (p / "CMakeLists.txt").exists())
    if opts.lesson:
        lessons = [name for name in lessons if name in opts.lesson]
    for build in (opts.build_a, opts.build_b):
        missing = [name for name in lessons if not (build / "bin" / name).exists()]
        if missing:
            print(f"error: {build}/bin lacks {', '.join(missing)}", file=sys.stderr)
            return 2
    differing = 0
    total = 0
    for lesson in lessons:
        for run_name, args in lesson_runs(opts.source / lesson / "CMakeLists.txt"):
            total += 1
            a, b = run_once(opts.build_a, lesson, args), run_once(opts.build_b, lesson, args)
            problems = []
            if a[0] != b[0]:
                problems.append(f"exit code {a[0]} vs {b[0]}")
            if a[1] != b[1]:
                only_a = sorted((a[1] or set()) - (b[1] or set()))
                only_b = sorted((b[1] or set()) - (a[1] or set()))
                problems.append(f"JSON keys differ: only in A {only_a[:8]}, only in B {only_b[:8]}")
            if a[2] != b[2]:
                diff = [f"A: {x!r} | B: {y!r}" for x, y in zip(a[2], b[2]) if x != y][:3]
                problems.append(f"output differs ({len(a[2])} vs {len(b[2])} lines): {diff}")
            key_count = len(a[1]) if a[1] is not None else 0
            status = "same" if not problems else "DIFFERENT: " + "; ".join(problems)
            print(f"{lesson:22} {run_name:16} exit {a[0]}, {key_count:4} JSON keys, {len(a[2]):3} lines: {status}")
            differing += bool(problems)
    print(f"{total - differing} of {total} runs identical ({len(lessons)} lessons)")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
