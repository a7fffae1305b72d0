#!/usr/bin/env python3
"""Checks that the figures a page quotes from a run are the run's (standard library only).

Usage: check_doc_figures.py [--root DIR] [PAGE...]
  PAGEs are relative to the root (default: this checkout); without any, README.md, docs/*.md and
  every lesson's README.md.

A page marks a block of figures with the JSON files they come from, on the line before it:

    <!-- figures: docs/data/h100-2026-11-23-ref/course/summary.json -->
    ```
    Course summary (medians; ...)
    06_fft_convolve   yes   1.87 ms   0.316 ms   ...   8.75x ...
    ```

PATHs are from the repository root, separated by spaces; a PATH may be a glob
(docs/data/h100-2026-11-23-ref/course/[0-9]*.json). docs/data keeps its JSON files gzipped, so a
PATH (or a glob) ending in .json names X.json.gz wherever X.json itself is not there; the marker
names the file as the run wrote it. A PATH ending in .txt or .log is a run's
printed output (a tool that writes no JSON: matmul_tune, Nsight Compute, NumPy): its numbers are
every number in its text, as printed. The block is the fenced code block that
follows, or else the paragraph, list or table that follows (up to the next blank line); the
marker is an HTML comment, so it does not show on the rendered page.

Every figure in the block must be in one of the files, rounded as printed. A figure is a number
with a decimal point, a "%" or an "x" after it, or a unit (ms, s, GB/s, GFLOP/s, Gpixel/s, Giter/s):
counts, sizes, section numbers and dates are not checked. A figure of the block that does not come
from the run (a goal) is named after "not:" in the marker, as written:
<!-- figures: docs/data/.../07_black_scholes.json not: 90% 85% -->.
"0.316" matches a
value v with |v - 0.316| <= 0.0005 ("9.10 us" or "9.10 µs" also a value in ms within 0.000005 of
0.00910: runs store times in milliseconds), "180x" one within 0.5 of 180, "106.5%" a value v or 100 v
within 0.05 (efficiencies are stored as fractions), "1,231" is 1231. The values looked in are
every number in the files and every number written inside their strings (a cell "8.75x", a date,
a version "13.0"). A figure may end in "x" (a speedup) or "%"; numbers that are part of a word are
not figures and are skipped: the 01 of 01_vector_exp, the 32 of FP32, the 100 of H100, the 80 of
80GB, and so are versions with two dots (driver 580.159.04).

A fenced block that starts with "Course summary (medians" (the course table) without a marker is
reported as a note, not a failure, so that a page can be marked when it is next edited.
Exit codes: 0 every marked block holds only figures of its files, 1 a figure is not in them (one
line each: page, line, the figure, the files), 2 bad command line or a marker that names no file,
names a file that does not exist or is not JSON, or has no block after it.
"""
import argparse
import bisect
import glob
import gzip
import json
import math
import os
import re
import sys

import doc_check_args  # run(): standard output that cannot be written is one line, exit 3

MARKER = re.compile(r"^\s*<!--\s*figures:\s*(.*?)\s*-->\s*$")
# A number that stands alone: not inside a word (lookbehind/lookahead on letters, digits, _ and .).
NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:[eE]([-+]?\d+))?(%|x)?(?![\w]|\.\d)")
UNIT_AFTER = re.compile(r"\s?(ms|s|us|µs|GB/s|GFLOP/s|TFLOP/s|Gpixel/s|Giter/s|Gpixel-iter/s)(?![\w/])")
MICROSECONDS = re.compile(r"\s?(us|µs)(?![\w/])")
COURSE_TABLE = "Course summary (medians"


class UsageError(Exception):
    pass


def numbers_in_text(text, figures_only=False):
    """(value, tolerance, is_percent, as written, in_microseconds) for each standalone number in text; with
    figures_only, only the measured-looking ones: with a decimal point, a "%" or "x", or a unit
    after them (12 ms, 2818 GB/s). Counts, sizes, section numbers and dates are left out."""
    found = []
    for match in NUMBER.finditer(text):
        if figures_only and not (match.group(2) or match.group(4) or UNIT_AFTER.match(text, match.end())):
            continue
        whole, fraction, exponent = match.group(1), match.group(2) or "", match.group(3)
        percent = match.group(4) == "%"
        digits = len(fraction) - 1 if fraction else 0
        value = float(whole.replace(",", "") + fraction)
        scale = 0
        if exponent is not None:
            scale = int(exponent)
            value *= 10.0 ** scale
        tolerance = 0.5 * 10.0 ** (scale - digits)
        micro = bool(MICROSECONDS.match(text, match.end()))
        found.append((value, tolerance, percent, match.group(0), micro))
    return found


def values_in_json(node, into):
    if isinstance(node, bool) or node is None:
        return
    if isinstance(node, (int, float)):
        if math.isfinite(node):
            into.append(abs(float(node)))
    elif isinstance(node, str):
        for value, _, _, _, _ in numbers_in_text(node):
            into.append(value)
    elif isinstance(node, list):
        for item in node:
            values_in_json(item, into)
    elif isinstance(node, dict):
        for key, item in node.items():
            values_in_json(item, into)


def near(sorted_values, value, tolerance):
    tolerance *= 1 + 1e-9
    at = bisect.bisect_left(sorted_values, value - tolerance)
    return at < len(sorted_values) and sorted_values[at] <= value + tolerance


def block_after(lines, start):
    """(first line number, lines) of the block after the marker at index start, or None."""
    i = start + 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i >= len(lines) or MARKER.match(lines[i]):
        return None
    if lines[i].lstrip().startswith("```"):
        end = i + 1
        while end < len(lines) and not lines[end].lstrip().startswith("```"):
            end += 1
        return i + 2, lines[i + 1:end]  # line numbers from 1; the fence lines themselves are not figures
    end = i
    while end < len(lines) and lines[end].strip():
        end += 1
    return i + 1, lines[i:end]


def load_values(root, spec, page, line_number, cache):
    paths = []
    for pattern in spec.split():
        full = os.path.join(root, pattern)
        matches = set(glob.glob(full))
        if pattern.endswith(".json"):  # a run's JSON, stored gzipped: X.json.gz stands for X.json
            matches |= {path for path in glob.glob(full + ".gz") if path[:-3] not in matches}
        matches = sorted(matches)
        if not matches:
            raise UsageError("%s:%d: figures: '%s' names no file" % (page, line_number, pattern))
        paths.extend(matches)
    values = []
    for path in paths:
        if path not in cache:
            found = []
            if path.endswith((".txt", ".log")):
                # A run's printed output (a tool that writes no JSON: matmul_tune, ncu, NumPy): every
                # number in its text.
                try:
                    with open(path, encoding="utf-8") as source:
                        text = source.read()
                except (OSError, ValueError) as error:
                    raise UsageError("%s:%d: figures: %s is not readable text (%s)"
                                     % (page, line_number, os.path.relpath(path, root), error))
                found = [value for value, _, _, _, _ in numbers_in_text(text)]
            else:
                try:
                    opener = gzip.open if path.endswith(".gz") else open
                    with opener(path, "rt", encoding="utf-8") as source:
                        content = json.load(source)
                except (OSError, EOFError, ValueError) as error:  # EOFError: a cut-off .gz
                    raise UsageError("%s:%d: figures: %s is not readable JSON (%s)"
                                     % (page, line_number, os.path.relpath(path, root), error))
                values_in_json(content, found)
            cache[path] = found
        values.extend(cache[path])
    values.sort()
    return values, [os.path.relpath(path, root) for path in paths]


def check_page(root, page, cache, out):
    """(blocks, figures, failures) of one page."""
    with open(os.path.join(root, page), encoding="utf-8") as source:
        lines = source.read().split("\n")
    blocks = figures = failures = 0
    marked_fences = set()
    for index, line in enumerate(lines):
        match = MARKER.match(line)
        if not match:
            continue
        spec, _, exempt = match.group(1).partition(" not:")
        exempt = set(exempt.split())
        if not spec.strip():
            raise UsageError("%s:%d: figures: no file named" % (page, index + 1))
        block = block_after(lines, index)
        if block is None:
            raise UsageError("%s:%d: figures: no block after the marker" % (page, index + 1))
        first, body = block
        marked_fences.add(first)
        values, names = load_values(root, spec, page, index + 1, cache)
        percent_values = sorted(v * 100.0 for v in values)
        blocks += 1
        for offset, text in enumerate(body):
            for value, tolerance, percent, written, micro in numbers_in_text(text, figures_only=True):
                if written in exempt:
                    continue
                figures += 1
                if near(values, value, tolerance) or (percent and near(percent_values, value, tolerance)):
                    continue
                # Runs store times in ms; a page may print a short one in microseconds.
                if micro and near(values, value / 1000.0, tolerance / 1000.0):
                    continue
                failures += 1
                out.write("%s:%d: '%s' is not in %s, rounded as printed\n"
                          % (page, first + offset, written, " ".join(names)))
    # The course table unmarked: a note.
    for index, line in enumerate(lines):
        if line.lstrip().startswith("```") and index + 1 < len(lines) and \
                lines[index + 1].startswith(COURSE_TABLE) and (index + 2) not in marked_fences:
            out.write("note: %s:%d: the course table has no <!-- figures: ... --> marker\n" % (page, index + 2))
    return blocks, figures, failures


def default_pages(root):
    pages = []
    if os.path.isfile(os.path.join(root, "README.md")):
        pages.append("README.md")
    pages += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
    pages += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "[0-9][0-9]_*", "README.md")))
    return pages


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        print("check_doc_figures.py: error: " + message, file=sys.stderr)
        sys.exit(2)


def main():
    parser = ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="the checkout (default: this one)")
    parser.add_argument("pages", nargs="*", help="pages relative to the root")
    args = parser.parse_args()
    if not os.path.isdir(args.root):
        parser.error(f"--root {args.root[:200]!r}: no such folder")
    pages = args.pages or default_pages(args.root)
    cache = {}
    blocks = figures = failures = 0
    try:
        for page in pages:
            if not os.path.isfile(os.path.join(args.root, page)):
                raise UsageError("no page %s under %s" % (page, args.root))
            try:
                b, f, x = check_page(args.root, page, cache, sys.stdout)
            except UnicodeDecodeError as error:  # the page or a run file it names
                raise UsageError(f"cannot read {page} or a file it names: not UTF-8 text ({error.reason})")
            blocks, figures, failures = blocks + b, figures + f, failures + x
    except UsageError as error:
        print("check_doc_figures.py: error: %s" % error, file=sys.stderr)
        return 2
    except (OSError, UnicodeDecodeError) as error:  # a page or run file that cannot be read as text
        name = getattr(error, "filename", None)
        if isinstance(error, OSError) and name is None:
            raise  # standard output: doc_check_args.run says so
        print("check_doc_figures.py: error: cannot read %s: %s" % (name or "a page or run file",
              getattr(error, "strerror", None) or error), file=sys.stderr)
        return 2
    print("%d marked blocks in %d pages: %d figures, %d not in their files" % (blocks, len(pages), figures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(doc_check_args.run("check_doc_figures.py", main))
