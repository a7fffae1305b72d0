#!/usr/bin/env python3
"""Checks that every relative link of the course's markdown pages leads somewhere: the file or
folder exists, and an anchor (#...) names a heading of the target page (run by the test
docs.links, label cpu), so that renumbered or renamed sections cannot leave dead links.

Anchors are made from headings as GitHub makes them: lower case, every character other than a
letter, a digit, '_', '-' or a space dropped, spaces turned into '-'; a repeated heading gets
-1, -2, ... Links and headings inside fenced code blocks and code spans are not read; links
with a scheme (https:, mailto:) are not checked.

Usage: scripts/check_doc_links.py [--root DIR] [PAGE...]
  PAGEs are relative to the root (default: this checkout); without any, README.md, docs/*.md
  and every lesson's README.md.
Exit codes: 0 every link resolves; 1 a link names a missing file or anchor (one line each on
stderr: page:line: target: what), or the pages hold no link at all; 2 a bad command line or a
page that cannot be read.
Standard library only.
"""
import glob
import os
import re
import sys
import unicodedata

import doc_check_args  # the command line both Markdown checkers take

PROG = "check_doc_links.py"
SPACE = r"[ \t\n\r\f\v]"  # [[:space:]]
FENCE = re.compile(r"^" + SPACE + r"*(```|~~~)")
HEADING = re.compile(r"^#{1,6}" + SPACE + r"+(.*[^# \t\n\r\f\v])[# \t\n\r\f\v]*\Z")
LINK = re.compile(r"\]\(([^() \t\n\r\f\v]+)\)")
CODE_SPAN = re.compile(r"`[^`]*`")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def usage_error(message):
    doc_check_args.usage_error(PROG, message)


def read_lines(path):
    """The lines of a file without their newlines (NUL bytes dropped, as bash reads them)."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as file:
        lines = file.read().replace("\0", "").split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def kept_in_anchor(character):
    """A letter, a digit, '_', '-' or a space."""
    if character.isascii():
        return character.isalnum() or character in "_- "
    return character.isalpha() or unicodedata.category(character) == "Nd"


def slug(heading):
    """The anchor GitHub makes from a heading's text (before the -1, -2, ... of a repeat)."""
    lower = "".join(c.lower() if len(c.lower()) == 1 else c for c in heading)
    return "".join(c for c in lower if kept_in_anchor(c)).replace(" ", "-")


def page_anchors(path):
    """The anchors of one page, as GitHub makes them from its headings."""
    anchors, seen, in_fence = set(), {}, False
    try:
        lines = read_lines(path)
    except OSError:
        return anchors
    for line in lines:
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        match = None if in_fence else HEADING.match(line)
        if not match:
            continue
        anchor = slug(match.group(1))
        if not anchor:
            break  # a heading without any letter or digit: the anchors after it are not made
        if anchor in seen:
            seen[anchor] += 1
            anchors.add(f"{anchor}-{seen[anchor]}")
        else:
            seen[anchor] = 0
            anchors.add(anchor)
    return anchors


def dirname(path):
    """The folder of a path, as dirname(1) gives it."""
    stripped = path.rstrip("/")
    if not stripped:
        return "/" if path else "."
    if "/" not in stripped:
        return "."
    return stripped[:stripped.rindex("/")].rstrip("/") or "/"


class Checker:
    def __init__(self):
        self.anchors_of = {}  # target page -> its anchors
        self.links = 0
        self.failures = 0

    def report(self, page, number, target, what):
        print(f"{page}:{number}: {target}: {what}", file=sys.stderr, flush=True)
        self.failures += 1

    def check_link(self, page, number, target):
        if SCHEME.match(target):
            return  # https:, mailto:, ...
        self.links += 1
        file, _, anchor = target.partition("#")
        if not file:
            path = page
        else:
            path = f"{dirname(page)}/{file}"
            if not os.path.exists(path):
                self.report(page, number, target, "no such file or folder")
                return
        if not anchor or not path.endswith(".md") or os.path.isdir(path):
            return
        if path not in self.anchors_of:
            self.anchors_of[path] = page_anchors(path)
        if anchor not in self.anchors_of[path]:
            shown = os.path.relpath(os.path.realpath(path), os.path.realpath("."))
            self.report(page, number, target, f"no heading of {shown} makes this anchor")

    def check_page(self, page):
        in_fence = False
        for number, line in enumerate(read_lines(page), 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            # Each leftmost match is cut out and the line searched again from its start, so that
            # what a cut joins is read as well.
            match = CODE_SPAN.search(line)
            while match:
                line = line.replace(match.group(0), "", 1)
                match = CODE_SPAN.search(line)
            match = LINK.search(line)
            while match:
                self.check_link(page, number, match.group(1))
                line = line.replace(match.group(0), "", 1)
                match = LINK.search(line)


def main():
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8", errors="surrogateescape")
    root, pages = doc_check_args.parse_command_line(PROG, __doc__, sys.argv[1:])
    try:
        os.chdir(root)
    except OSError:
        usage_error(f"cannot enter {root}")
    if not pages:
        pages = ["README.md"] + sorted(glob.glob("docs/*.md")) + sorted(glob.glob("[0-9][0-9]_*/README.md"))
    for page in pages:
        if not (os.path.isfile(page) and os.access(page, os.R_OK)):
            usage_error(f"{page}: no such page under {root}")
    checker = Checker()
    for page in pages:
        try:
            checker.check_page(page)
        except OSError:
            usage_error(f"{page}: no such page under {root}")
    if checker.links == 0:
        print(f"{PROG}: no relative link in {len(pages)} pages: nothing was checked", file=sys.stderr)
        return 1
    if checker.failures > 0:
        print(f"{PROG}: {checker.failures} of {checker.links} links do not resolve", file=sys.stderr)
        return 1
    print(f"{PROG}: all {checker.links} links in {len(pages)} pages resolve")
    return 0


if __name__ == "__main__":
    sys.exit(doc_check_args.run(PROG, main))
