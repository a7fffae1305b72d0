#!/usr/bin/env python3
"""Checks the workshop's agendas against the pages they teach (run by the test docs.agenda).

For every row of the agenda tables in docs/workshop.md (section "Agendas": the tables under
"### Half day" and "### Full day"), it checks that

1. every link of the "teach" column leads into a core path: a heading of a lesson page before
   its "## Deep dive" heading, or a heading of the course index (docs/README.md, a student page
   as a whole). A link after "extra:" in the cell may lead anywhere that exists, and is not
   counted: it is for those who finish early;
2. the row's minutes hold its budget: the words of the sections it links (each from its heading
   to the next heading of the same or a higher level, code included, counted as `wc -w` counts)
   at 100 words a minute, plus the seconds of its commands (the "with a GPU" column of the
   table in section 3, "How long each command runs", in which every command of the "run" column
   must appear), plus the exercise's minutes;
3. the exercise of the "exercise" column, written `NN name` (N min) (several separated by "; "
   in a slot with time for them, their minutes added), is listed in
   scripts/exercises.txt and its starter is as shipped (its SHA-256 is the one recorded there),
   so it fails as shipped: a test of the lesson asserts that (see scripts/exercises.txt). An
   edited starter (a student's work) is a note, and an error only under CI=true;

and that each row's start time is the previous row's start plus its minutes. It prints one
table per agenda: each slot's minutes, its words and their minutes, its commands' seconds, its
exercise's minutes, the total and what is left.

Usage: scripts/check_agenda.py [--root DIR]
Exit codes: 0 every row holds; 1 a row does not (one line each on stderr: what and where);
2 a bad command line, or a page or file that cannot be read or has no agenda.
Standard library only.
"""
import hashlib
import os
import re
import sys
from pathlib import Path

import doc_check_args  # run(): standard output that cannot be written is one line, exit 3

WORDS_PER_MINUTE = 100
PROG = "check_agenda.py"


def usage_error(message):
    print(f"{PROG}: {message} (usage: {PROG} [--root DIR])", file=sys.stderr)
    sys.exit(2)


def read(path):
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        print(f"{PROG}: cannot read {path}: {error}", file=sys.stderr)
        sys.exit(2)


def slug(heading):
    """The anchor GitHub makes from a heading (as scripts/check_doc_links.py does)."""
    text = heading.strip().lower()
    text = re.sub(r"[^a-z0-9_\- ]", "", text)
    return text.replace(" ", "-")


class Page:
    """A page's headings: anchor -> (level, first line, end line, in the core path)."""

    def __init__(self, path, whole_page_is_core):
        self.path = path
        self.lines = read(path).split("\n")
        self.sections = {}
        fence = False
        headings = []
        for number, line in enumerate(self.lines):
            if re.match(r"^\s*(```|~~~)", line):
                fence = not fence
                continue
            match = None if fence else re.match(r"^(#{1,6})\s+(.*[^\s#])[\s#]*$", line)
            if match:
                headings.append((number, len(match.group(1)), match.group(2)))
        deep = next((n for n, level, text in headings if level == 2 and text.startswith("Deep dive")), None)
        seen = {}
        for index, (number, level, text) in enumerate(headings):
            end = next((n for n, lv, _ in headings[index + 1:] if lv <= level), len(self.lines))
            if deep is not None and number < deep:
                end = min(end, deep)
            anchor = slug(text)
            if anchor in seen:
                seen[anchor] += 1
                anchor = f"{anchor}-{seen[anchor]}"
            else:
                seen[anchor] = 0
            core = whole_page_is_core or (deep is not None and number < deep)
            self.sections[anchor] = (number, end, core)

    def words(self, anchor):
        start, end, _ = self.sections[anchor]
        return sum(len(line.split()) for line in self.lines[start:end])


def command_seconds(workshop):
    """Section 3's table: command (the first column's code span) -> seconds with a GPU."""
    start = workshop.find("## 3. How long each command runs")
    end = workshop.find("\n## 4.", start)
    if start < 0 or end < 0:
        print(f"{PROG}: docs/workshop.md has no section 3, \"How long each command runs\"", file=sys.stderr)
        sys.exit(2)
    seconds = {}
    for line in workshop[start:end].split("\n"):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        name = re.match(r"`([^`]*)`", cells[0]).group(1)
        value = re.search(r"(\d+(?:\.\d+)?) s\b", cells[1])
        if value:
            seconds[name] = float(value.group(1))
    return seconds


def exercises(root):
    listed = {}
    for line in read(root / "scripts" / "exercises.txt").split("\n"):
        fields = line.split()
        # lesson name kind needs starter check solution_check sha256, then (kind fast) target ceiling run...
        if len(fields) >= 8 and not line.startswith("#"):
            lesson, name, _kind, _needs, starter, _check, _solution, sha = fields[:8]
            listed[(lesson[:2], name)] = (root / lesson / starter, sha)
    return listed


def minutes_of(clock):
    hours, minutes = clock.split(":")
    return int(hours) * 60 + int(minutes)


def main(argv):
    root = Path(__file__).resolve().parent.parent
    args = list(argv)
    while args:
        flag = args.pop(0)
        if flag == "--root" and args and args[0] and not args[0].startswith("-"):
            root = Path(args.pop(0))
            if not os.path.isdir(root):  # False for a name too long, where Path.is_dir raises
                usage_error(f"--root {str(root)[:200]!r}: no such folder")
        elif flag == "--root":
            usage_error("--root needs a value")
        else:
            usage_error(f"unknown argument {flag!r}")
    docs = root / "docs"
    workshop = read(docs / "workshop.md")
    seconds = command_seconds(workshop)
    listed = exercises(root)
    pages = {}
    errors = []
    notes = []

    def page(name):
        if name not in pages:
            path = docs / name
            if not path.is_file():
                return None
            pages[name] = Page(path, whole_page_is_core=(name == "README.md"))
        return pages[name]

    start = workshop.find("## 2. Agendas")
    end = workshop.find("\n## 3.", start)
    if start < 0 or end < 0:
        print(f"{PROG}: docs/workshop.md has no section \"2. Agendas\"", file=sys.stderr)
        sys.exit(2)
    agenda_lines = workshop[:end].split("\n")
    first_line = workshop[:start].count("\n")
    agendas = []
    current = None
    for number in range(first_line, len(agenda_lines)):
        line = agenda_lines[number]
        if line.startswith("### "):
            current = (line[4:].strip(), [])
            agendas.append(current)
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if current is None or not line.startswith("|") or len(cells) != 6 or not re.match(r"^\d+:\d\d$", cells[0]):
            continue
        current[1].append((number + 1, cells))
    if not any(rows for _, rows in agendas):
        print(f"{PROG}: docs/workshop.md: no agenda rows under \"2. Agendas\"", file=sys.stderr)
        sys.exit(2)

    for title, rows in agendas:
        table = []
        previous_end = None
        for line_number, (clock, minutes_text, part, teach, run, exercise) in rows:
            where = f"docs/workshop.md:{line_number}"
            minutes = int(minutes_text)
            if previous_end is not None and minutes_of(clock) != previous_end:
                errors.append(f"{where}: {part}: starts at {clock}, but the row before it ends at "
                              f"{previous_end // 60}:{previous_end % 60:02d}")
            previous_end = minutes_of(clock) + minutes
            planned, extra = (teach.split("extra:", 1) + [""])[:2]
            words = 0
            for text, target in re.findall(r"\[([^\]]*)\]\(([^)\s]+)\)", teach):
                in_extra = f"]({target})" in extra and f"]({target})" not in planned
                name, _, anchor = target.partition("#")
                linked = page(name)
                if linked is None or (anchor and anchor not in linked.sections):
                    errors.append(f"{where}: {part}: {target}: no such page or section")
                    continue
                if in_extra:
                    continue
                if not anchor:
                    errors.append(f"{where}: {part}: {target}: a whole page, not a section of a core path")
                    continue
                if not linked.sections[anchor][2]:
                    errors.append(f"{where}: {part}: {target}: a deep-dive section, not named as extra")
                    continue
                words += linked.words(anchor)
            run_seconds = 0.0
            for command in re.findall(r"`([^`]+)`", run):
                if command not in seconds:
                    errors.append(f"{where}: {part}: `{command}` has no measured time in section 3's table")
                    continue
                run_seconds += seconds[command]
            exercise_minutes = 0
            # One exercise, or several separated by "; " (a slot with time for a second one).
            for one in [part_text.strip() for part_text in exercise.split(";")] if exercise else []:
                match = re.match(r"^`(\d\d) (\w+)` \((\d+) min\)$", one)
                if not match:
                    errors.append(f"{where}: {part}: exercise {one!r}: write it `NN name` (M min)")
                    continue
                lesson, name, one_minutes = match.group(1), match.group(2), int(match.group(3))
                exercise_minutes += one_minutes
                if (lesson, name) not in listed:
                    errors.append(f"{where}: {part}: exercise {lesson} {name} is not in scripts/exercises.txt")
                    continue
                starter, sha = listed[(lesson, name)]
                try:
                    actual = hashlib.sha256(starter.read_bytes()).hexdigest()
                except OSError as error:
                    errors.append(f"{where}: {part}: {starter}: {error}")
                    actual = sha
                if actual != sha:
                    message = (f"{where}: {part}: exercise {lesson} {name}: its starter is not as shipped "
                               f"(SHA-256 differs from scripts/exercises.txt), so it may not fail")
                    if os.environ.get("CI") == "true":
                        errors.append(message)
                    else:  # a student's edit; CI holds the shipped starter
                        notes.append(message + " (a note: an error under CI=true)")
            total = words / WORDS_PER_MINUTE + run_seconds / 60 + exercise_minutes
            if total > minutes:
                errors.append(f"{where}: {part}: {total:.1f} minutes of work in a {minutes}-minute slot "
                              f"({words} words, {run_seconds:.1f} s of commands, {exercise_minutes} min of exercise)")
            table.append((clock, part, minutes, words, run_seconds, exercise_minutes, total))
        print(f"{title}: budget per slot ({WORDS_PER_MINUTE} words a minute)")
        print(f"  {'time':>5}  {'part':<20} {'slot':>5} {'words':>6} {'read':>6} {'run s':>6} {'exer':>5} {'total':>6} {'left':>6}")
        for clock, part, minutes, words, run_seconds, exercise_minutes, total in table:
            print(f"  {clock:>5}  {part[:20]:<20} {minutes:>5} {words:>6} {words / WORDS_PER_MINUTE:>6.1f} "
                  f"{run_seconds:>6.1f} {exercise_minutes:>5} {total:>6.1f} {minutes - total:>6.1f}")
    for note in notes:
        print(note, file=sys.stderr)
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        print(f"{PROG}: {len(errors)} problem(s) in the agendas", file=sys.stderr)
        return 1
    print(f"{PROG}: every agenda row links into core paths, fits its minutes and names a checked exercise")
    return 0


if __name__ == "__main__":
    sys.exit(doc_check_args.run(PROG, lambda: main(sys.argv[1:])))
