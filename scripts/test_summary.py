#!/usr/bin/env python3
"""Closing lines of scripts/test_course.sh: how many tests passed, were skipped (and why), failed.

Usage: test_summary.py CTEST_JUNIT.xml     (written by `ctest --output-junit FILE`)

ctest alone ends with "100% tests passed" and a list of names marked "(Skipped)": a skipped GPU
test then reads like a pass. This groups the skipped tests by the reason each one printed.
Standard library only: runs on any python3.
"""
import re
import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter, defaultdict


def skip_reason(testcase):
    """The reason a skipped test printed: GoogleTest's line after "file:line: Skipped", a
    "SKIPPED: reason" line (the course's -P scripts), else what ctest recorded."""
    output = (testcase.findtext("system-out") or "").splitlines()
    for index, line in enumerate(output):
        if re.search(r":\d+: Skipped$", line.strip()):
            for following in output[index + 1:]:
                if following.strip():
                    return following.strip()
        match = re.match(r"\s*SKIPPED:\s*(.+)", line)
        if match:
            return match.group(1).strip()
    skipped = testcase.find("skipped")
    message = skipped.get("message", "") if skipped is not None else ""
    return message or "no reason printed"


def main(argv):
    if len(argv) != 2:
        print("test_summary.py: error: usage: test_summary.py CTEST_JUNIT.xml", file=sys.stderr)
        return 2
    try:
        root = ElementTree.parse(argv[1]).getroot()
    except (OSError, ElementTree.ParseError) as error:
        print(f"test_summary.py: error: cannot read {argv[1]}: {error}", file=sys.stderr)
        return 3
    counts = Counter()
    reasons = defaultdict(list)
    failed = []
    for testcase in root.iter("testcase"):
        status = testcase.get("status", "")
        name = testcase.get("name", "?")
        if status == "run":
            counts["passed"] += 1
        elif status == "fail":
            counts["failed"] += 1
            failed.append(name)
        elif status == "disabled":
            counts["disabled"] += 1
        else:  # "notrun": skipped, or not run at all (a missing binary)
            counts["skipped"] += 1
            reasons[skip_reason(testcase)].append(name)
    total = sum(counts.values())
    line = f"== {counts['passed']} passed, {counts['skipped']} skipped, {counts['failed']} failed"
    if counts["disabled"]:
        line += f", {counts['disabled']} disabled"
    print(f"{line} (of {total} tests)")
    for reason, names in sorted(reasons.items(), key=lambda item: -len(item[1])):
        print(f"   {len(names)} skipped because: {reason}  (e.g. {names[0]})")
    for name in failed:
        print(f"   failed: {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
