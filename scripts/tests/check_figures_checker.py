#!/usr/bin/env python3
"""Tests of scripts/check_doc_figures.py on pages and runs it makes (standard library only), so
that the figures check cannot pass vacuously: a figure as printed passes; a stale one, one rounded
otherwise, a goal left unnamed fail; a missing or broken file and a marker without a block are
errors (exit 2); words, versions, counts and dates are not figures; a gzipped run (X.json.gz for a
marker's X.json) is read like a plain one.

Usage: check_figures_checker.py [CASE...]   (default: every case; prints one line per case)
Exit code: 0 every case as expected, 1 otherwise.
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

CHECKER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "check_doc_figures.py")

RUN = {
    "lesson": "06_fft_convolve",
    "date": "2026-11-23T20:05:00Z",
    "gpu": {"name": "NVIDIA H100 80GB HBM3", "runtime_cuda_version": "13.0"},
    "rows": [
        {"variant": "CPU direct, OpenMP + SIMD, 16 threads", "time_ms": {"median": 0.31562}},
        {"variant": "GPU fft_r2c", "time_ms": {"median": 0.03606399893760681}, "efficiency": 0.7249334666273313,
         "throughput": 2817.9952169730072},
    ],
    "summary": {"kernel_speedup_vs_cpu_parallel": 8.751, "cpu_serial_ms": 1231.005792},
    "cells": ["8.75x", "0.316 ms"],
}

TABLE = """\
```
Course summary (medians; NVIDIA H100 80GB HBM3, CUDA runtime 13.0; 16 CPU threads)
06_fft_convolve  yes  0.316 ms  0.0361 ms  8.75x  72.5% of cufft_pair
```
"""

# name: (page text, expected exit code, text the output must hold)
CASES = {
    "matching": ("<!-- figures: run.json -->\n" + TABLE, 0, "1 marked blocks in 1 pages: 5 figures, 0 not in"),
    "paragraph": ("Intro 4.5 ms (not marked).\n\n<!-- figures: run.json -->\nThe kernel took 0.0361 ms, "
                  "72.5% of the pair, 2818 GB/s and 1,231 ms on one thread;\nsection 6, 2^24 options, "
                  "2026-11-23, driver 580.159.04, an H100 80GB.\n\nAfter: 9.99 ms.\n", 0, "4 figures, 0 not in"),
    "stale": ("<!-- figures: run.json -->\n" + TABLE.replace("8.75x", "8.76x"), 1,
              "page.md:4: '8.76x' is not in run.json, rounded as printed"),
    "more_digits": ("<!-- figures: run.json -->\nThe CPU took 0.3156 ms.\n", 0, "0 not in") ,
    "too_many_digits": ("<!-- figures: run.json -->\nThe CPU took 0.3157 ms.\n", 1, "'0.3157' is not in"),
    "percent_of_fraction": ("<!-- figures: run.json -->\nAt 72.49% of the pair.\n", 0, "1 figures, 0 not in"),
    "goal_unnamed": ("<!-- figures: run.json -->\n72.5% of the pair (goal 90%).\n", 1, "'90%' is not in"),
    "goal_named": ("<!-- figures: run.json not: 90% -->\n72.5% of the pair (goal 90%).\n", 0, "1 figures, 0 not in"),
    "two_files": ("<!-- figures: run.json other.json -->\n0.316 ms and 42.0 ms.\n", 0, "2 figures, 0 not in"),
    "glob": ("<!-- figures: *.json -->\n0.316 ms and 42.0 ms.\n", 0, "2 figures, 0 not in"),
    "missing_file": ("<!-- figures: gone.json -->\n0.316 ms\n", 2, "page.md:1: figures: 'gone.json' names no file"),
    "not_json": ("<!-- figures: broken.json -->\n0.316 ms\n", 2, "broken.json is not readable JSON"),
    "no_file_named": ("<!-- figures:  -->\n0.316 ms\n", 2, "page.md:1: figures: no file named"),
    "no_block": ("Text.\n\n<!-- figures: run.json -->\n\n", 2, "page.md:3: figures: no block after the marker"),
    "text_log": ("<!-- figures: tune.txt -->\nThe best tile ran at 43,983 GFLOP/s, 85.8% of cuBLAS.\n", 0,
                 "2 figures, 0 not in"),
    "text_log_stale": ("<!-- figures: tune.txt -->\nThe best tile ran at 43,984 GFLOP/s.\n", 1,
                       "'43,984' is not in tune.txt"),
    "microseconds": ("<!-- figures: run.json -->\nThe kernel took 36.1 µs (36.06 us).\n", 0, "2 figures, 0 not in"),
    "microseconds_stale": ("<!-- figures: run.json -->\nThe kernel took 36.2 µs.\n", 1, "'36.2' is not in"),
    "unmarked_table": (TABLE, 0, "note: page.md:2: the course table has no <!-- figures: ... --> marker"),
    # docs/data keeps JSON gzipped: a marker's X.json reads X.json.gz, and still checks every figure.
    "gzipped": ("<!-- figures: packed.json -->\n0.316 ms and 8.75x.\n", 0, "2 figures, 0 not in"),
    "gzipped_stale": ("<!-- figures: packed.json -->\n0.317 ms.\n", 1, "'0.317' is not in packed.json.gz"),
    "gzipped_glob": ("<!-- figures: pack*.json -->\n0.316 ms.\n", 0, "1 figures, 0 not in"),
    "gzipped_cut": ("<!-- figures: cut.json -->\n0.316 ms\n", 2, "cut.json.gz is not readable JSON"),
}


def run_case(name, work):
    text, expected_exit, expected_text = CASES[name]
    with open(os.path.join(work, "run.json"), "w", encoding="utf-8") as out:
        json.dump(RUN, out)
    with open(os.path.join(work, "other.json"), "w", encoding="utf-8") as out:
        json.dump({"ms": 42.0}, out)
    with open(os.path.join(work, "tune.txt"), "w", encoding="utf-8") as out:
        out.write("cp_async 128x128x16 s3   3.125 ms   43983 GFLOP/s   85.8%\n")
    if name.startswith("gzipped"):
        packed = gzip.compress(json.dumps(RUN).encode("utf-8"), mtime=0)
        with open(os.path.join(work, "packed.json.gz"), "wb") as out:
            out.write(packed)
        with open(os.path.join(work, "cut.json.gz"), "wb") as out:
            out.write(packed[:len(packed) // 2])
    if name == "not_json":
        with open(os.path.join(work, "broken.json"), "w", encoding="utf-8") as out:
            out.write("{\"ms\": ")
    with open(os.path.join(work, "page.md"), "w", encoding="utf-8") as out:
        out.write(text)
    result = subprocess.run([sys.executable, CHECKER, "--root", work, "page.md"], capture_output=True, text=True,
                            check=False)
    output = result.stdout + result.stderr
    if result.returncode != expected_exit or expected_text not in output:
        print("FAIL %s: expected exit %d and '%s', got exit %d:\n%s"
              % (name, expected_exit, expected_text, result.returncode, output))
        return False
    print("ok   %s" % name)
    return True


def main():
    names = sys.argv[1:] or list(CASES)
    failed = 0
    for name in names:
        if name not in CASES:
            print("unknown case %s" % name)
            return 1
        with tempfile.TemporaryDirectory() as work:
            failed += not run_case(name, work)
    print("%d passed, %d failed" % (len(names) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
