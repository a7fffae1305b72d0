#!/usr/bin/env python3
"""Checks that every code block the docs quote from a source file still matches that source, so
the docs cannot drift from the code (run by the test docs.quotes, label cpu).

A source file marks a named region with two lines, each inside a comment:
  // [docs:NAME]          the region starts on the next line ...
  // [docs:end NAME]      ... and ends on the line before this one
NAME: letters, digits, '_', '-' and '.'; each NAME once per file. Regions may nest; a marker
line is never part of any region's text.
A page quotes a region with an HTML comment (invisible on the rendered page) on the line right
before a fenced code block:
  <!-- quote: PATH#NAME -->          PATH relative to the repository root
  ```cuda
  the region's lines, exactly, less the leading spaces all its non-blank lines share
  ```
Quote comments inside a fenced block are not read (a page may show the syntax).

Usage: scripts/check_doc_quotes.py [--root DIR] [PAGE...]
  PAGEs are relative to the root (default: this checkout); without any, docs/*.md and every
  lesson's README.md.
Exit codes: 0 every quote matches its region; 1 a quote differs from its region, names a
missing file or region, or is malformed (one line each on stderr: page:line: PATH#NAME: what),
or the pages hold no quote at all; 2 a bad command line or a page that cannot be read.
Standard library only.
"""
import glob
import os
import re
import sys

import doc_check_args  # the command line both Markdown checkers take

PROG = "check_doc_quotes.py"
SPACE = r"[ \t\n\r\f\v]"  # [[:space:]]
NAME = r"[A-Za-z0-9_.-]+"
MARKER = re.compile(r"\[docs:(end )?" + NAME + r"\]")
QUOTE = re.compile(r"^" + SPACE + r"*<!-- quote: ([^# \t\n\r\f\v]+)#(" + NAME + r") -->" + SPACE + r"*\Z")
FENCE = re.compile(r"^" + SPACE + r"*(```|~~~)")  # any fence, for knowing what lies inside a block
OPEN_FENCE = re.compile(r"^```")  # the block after a quote comment
CLOSE_FENCE = re.compile(r"^```" + SPACE + r"*\Z")
QUOTE_START = re.compile(r"^" + SPACE + r"*<!--" + SPACE + r"*quote:")
INDENT = re.compile(r"^( *)[^ ]")


def usage_error(message):
    doc_check_args.usage_error(PROG, message)


def readable_file(path):
    return os.path.isfile(path) and os.access(path, os.R_OK)


def read_lines(path):
    """The lines of a file without their newlines; a line ends at a NUL byte, as bash reads it."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as file:
        lines = file.read().split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.split("\0", 1)[0] for line in lines]


class RegionError(Exception):
    pass


def load_region(root, file, name):
    """The lines of region NAME of FILE (relative to the root), their common indentation removed;
    RegionError with the reason when there is none."""
    if file.startswith("/") or "/../" in f"/{file}/":
        raise RegionError("the path must lie inside the repository")
    path = f"{root}/{file}"
    if not readable_file(path):
        raise RegionError("no such file")
    try:
        source_lines = read_lines(path)
    except OSError:
        raise RegionError("no such file")
    start, end = f"[docs:{name}]", f"[docs:end {name}]"
    region, state = [], "before"
    for number, line in enumerate(source_lines, 1):
        if start in line:
            if state != "before":
                raise RegionError(f"region starts twice (line {number})")
            state = "inside"
        elif end in line:
            if state != "inside":
                raise RegionError(f"[docs:end {name}] at line {number} without an open region")
            state = "closed"
        elif state == "inside" and not MARKER.search(line):
            region.append(line)
    if state == "before":
        raise RegionError(f"no region [docs:{name}] in the file")
    if state == "inside":
        raise RegionError(f"region [docs:{name}] never ends ([docs:end {name}] missing)")
    if not region:
        raise RegionError("region is empty")
    leads = [len(match.group(1)) for match in map(INDENT.match, region) if match]  # blank lines do not count
    indent = min(leads, default=0)
    return [line[indent:] for line in region] if indent > 0 else region


def show(text, start_at=0):
    """A line for a message, in quotes so that trailing blanks show: at most 60 characters of it,
    from a little before column start_at (the first difference) where the line is longer."""
    start, prefix = (start_at - 20, "...") if start_at > 40 else (0, "")
    suffix = "..." if len(text) - start > 60 else ""
    return f"'{prefix}{text[start:start + 60]}{suffix}'"


def first_difference(a, b):
    """The first column (0-based) where two lines differ."""
    column = 0
    while column < len(a) and column < len(b) and a[column] == b[column]:
        column += 1
    return column


def count_of(count, word):
    """"1 page", "2 pages"."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


class Checker:
    def __init__(self, root):
        self.root = root
        self.quotes = 0
        self.failures = 0

    def report(self, page, number, what):
        print(f"{page}:{number}: {what}", file=sys.stderr, flush=True)
        self.failures += 1

    def check_page(self, page):
        """Checks every quote of one page."""
        path = f"{self.root}/{page}"
        try:
            if not readable_file(path):
                raise OSError
            lines = read_lines(path)
        except OSError:
            usage_error(f"{page}: no such page under {self.root}")
        count, i, in_fence = len(lines), 0, False
        while i < count:
            if FENCE.match(lines[i]):
                in_fence = not in_fence
                i += 1
                continue
            if in_fence or not QUOTE_START.match(lines[i]):
                i += 1
                continue
            self.quotes += 1
            match = QUOTE.match(lines[i])
            if not match:
                self.report(page, i + 1, f"malformed quote comment {show(lines[i])}, expected '<!-- quote: PATH#NAME -->'")
                i += 1
                continue
            file, name = match.group(1), match.group(2)
            spec = f"{file}#{name}"
            if i + 1 >= count or not OPEN_FENCE.match(lines[i + 1]):
                self.report(page, i + 1, f"{spec}: no fenced code block (```) on the next line")
                i += 1
                continue
            body_start = end = i + 2
            while end < count and not CLOSE_FENCE.match(lines[end]):
                end += 1
            if end >= count:
                self.report(page, i + 1, f"{spec}: the code block never ends")
                return
            body = lines[body_start:end]
            try:
                region = load_region(self.root, file, name)
            except RegionError as problem:
                self.report(page, i + 1, f"{spec}: {problem}")
            else:
                found = next((k for k, (a, b) in enumerate(zip(body, region)) if a != b), None)
                if found is not None:
                    column = first_difference(body[found], region[found])
                    self.report(page, i + 1, f"{spec}: stale quote: page line {body_start + found + 1}, column "
                                f"{column + 1}: the page has {show(body[found], column)}, the source "
                                f"{show(region[found], column)}")
                elif len(body) != len(region):
                    self.report(page, i + 1, f"{spec}: stale quote: the block has {len(body)} lines, the region "
                                f"{len(region)}")
            i = end + 1


def main():
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8", errors="surrogateescape")
    root, pages = doc_check_args.parse_command_line(PROG, __doc__, sys.argv[1:])
    if not pages:
        pages = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(glob.escape(root), "docs", "*.md")))
        pages += sorted(os.path.relpath(p, root)
                        for p in glob.glob(os.path.join(glob.escape(root), "[0-9][0-9]_*", "README.md")))
        if not pages:
            usage_error(f"no docs/*.md and no lesson README.md under {root}")
    checker = Checker(root)
    for page in pages:
        checker.check_page(page)
    if checker.quotes == 0:
        print(f"{PROG}: no quote in {count_of(len(pages), 'page')}: nothing was checked", file=sys.stderr)
        return 1
    if checker.failures > 0:
        print(f"{PROG}: {checker.failures} of {count_of(checker.quotes, 'quote')} in {count_of(len(pages), 'page')} "
              "failed (above)", file=sys.stderr)
        return 1
    print(f"{PROG}: {count_of(checker.quotes, 'quote')} in {count_of(len(pages), 'page')}: each matches its source "
          "region")
    return 0


if __name__ == "__main__":
    sys.exit(doc_check_args.run(PROG, main))
