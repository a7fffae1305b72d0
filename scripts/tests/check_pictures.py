#!/usr/bin/env python3
"""Test of scripts/draw_pictures.py (standard library only): it redraws every picture of ideas
into a temporary folder and checks that

  - the pictures listed in docs/images/PICTURES.md (the first cell of each table row) and the
    script's own list (--list) are the same names;
  - every one is drawn: a PNG file, 1000 to 1400 pixels wide, at most 250 KB;
  - a second drawing is the same, byte for byte (the pictures can be redrawn without noise);
  - an unknown --only name is a one-line error with exit code 2.

Usage: check_pictures.py [PYTHON]   (PYTHON: the interpreter to run the script with, default python3)
Prints "SKIPPED: ..." and exits 0 where no Python with matplotlib is found; 1 on a failed check.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "draw_pictures.py")
LISTING = os.path.join(ROOT, "docs", "images", "PICTURES.md")
MAX_BYTES = 250 * 1024


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def listed_in_page():
    names = []
    with open(LISTING, encoding="utf-8") as page:
        for line in page:
            match = re.match(r"^\|\s*`([0-9]{2}_idea_[a-z0-9_]+\.png)`\s*\|", line)
            if match:
                names.append(match.group(1))
    return names


def draw(python, out_dir):
    return subprocess.run([python, SCRIPT, "--out", out_dir], capture_output=True, text=True, check=False)


def png_size(path):
    with open(path, "rb") as image:
        head = image.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def main():
    python = sys.argv[1] if len(sys.argv) > 1 else "python3"
    listing = subprocess.run([python, SCRIPT, "--list"], capture_output=True, text=True, check=False)
    if listing.returncode != 0:
        fail("draw_pictures.py --list exited %d: %s" % (listing.returncode, listing.stderr.strip()))
    in_script = listing.stdout.split()
    in_page = listed_in_page()
    if not in_page:
        fail("no picture found in the tables of " + LISTING)
    if len(set(in_page)) != len(in_page):
        fail("a picture is listed twice in " + LISTING)
    if sorted(in_script) != sorted(in_page):
        fail("the script and PICTURES.md list different pictures: only in the script %s, only in the page %s"
             % (sorted(set(in_script) - set(in_page)), sorted(set(in_page) - set(in_script))))

    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        result = draw(python, first)
        if result.returncode == 3 and "no python3 with matplotlib" in result.stderr:
            print("SKIPPED: " + result.stderr.strip())
            return 0
        if result.returncode != 0:
            fail("draw_pictures.py exited %d: %s" % (result.returncode, result.stderr.strip()))
        for name in in_page:
            path = os.path.join(first, name)
            if not os.path.isfile(path):
                fail(name + " was not drawn")
            size = png_size(path)
            if size is None:
                fail(name + " is not a PNG file")
            if not 1000 <= size[0] <= 1400:
                fail("%s is %d pixels wide (1000 to 1400 expected)" % (name, size[0]))
            if os.path.getsize(path) > MAX_BYTES:
                fail("%s is %d bytes (at most %d)" % (name, os.path.getsize(path), MAX_BYTES))
        extra = sorted(set(os.listdir(first)) - set(in_page))
        if extra:
            fail("drawn but not listed: %s" % extra)
        result = draw(python, second)
        if result.returncode != 0:
            fail("the second drawing exited %d: %s" % (result.returncode, result.stderr.strip()))
        for name in in_page:
            with open(os.path.join(first, name), "rb") as a, open(os.path.join(second, name), "rb") as b:
                if a.read() != b.read():
                    fail(name + " differs between two drawings (not deterministic)")
        bad = subprocess.run([python, SCRIPT, "--out", first, "--only", "no_such_picture"], capture_output=True,
                             text=True, check=False)
        if bad.returncode != 2 or bad.stderr.count("\n") != 1 or "no_such_picture" not in bad.stderr:
            fail("--only no_such_picture: expected one line and exit 2, got exit %d: %r"
                 % (bad.returncode, bad.stderr))
    print("%d pictures drawn, each listed, a PNG 1000 to 1400 pixels wide, the same on a second drawing"
          % len(in_page))
    return 0


if __name__ == "__main__":
    sys.exit(main())
