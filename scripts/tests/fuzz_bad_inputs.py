#!/usr/bin/env python3
"""A generated fuzz of bad inputs over every binary, tool and script of the course (standard library
only): each flag a program's --help lists (the scripts' flags are listed below, by hand) is given a
missing value, an empty one, a flag for its value, and, by what the flag takes, numbers that are
negative, zero, huge, not numbers or out of the range the help states; paths that do not exist,
FIFOs, folders, /dev/zero, /dev/full, /proc, names too long; two outputs on one path. Every case
runs in a scratch folder of its own with a time limit, and is checked against the course's contract:

  hang       still running at the time limit while using little CPU (blocked: a FIFO, a wait)
  crash      killed by a signal, or an exit code other than 0 to 3 ("terminate called" too)
  traceback  a Python traceback on stderr
  exit 0     a value every such flag must refuse (a missing or empty value, a flag taken for the
             value, a word for a number, a value outside the stated range, an unusable path)
             accepted with exit 0, or a script that went on to configure the build with it; or
             exit 0 with standard output on /dev/full (the answer lost)
  flag file  a file named after a flag (--json -k writing ./-k)
  escape     a file written in the checkout, outside build/ (every output is asked for in the
             scratch folder)
Reported but not failures: "slow" (the time limit reached while busy: an accepted value, such as
--iters 99999999999 where the range allows it, that means a long run) and "long error" (exit 2 or
3 with more than one line on stderr).

Without a GPU (CUDA_VISIBLE_DEVICES=-1), the lessons' CPU path at a small --size. The scripts run
from a stand-in checkout (every top-level entry of this one linked, but a build/ of its own), with
stand-ins for cmake and ctest first on PATH (they build nothing and say they were called) and
stand-in lesson binaries where they take --bin: the scripts that build (run_course.sh, sweep.sh,
reproduce_docs.py, check_exercise.sh, test_course.sh) touch neither this checkout's build/ nor
the machine's packages (COURSE_NO_INSTALL=1).

Usage: scripts/tests/fuzz_bad_inputs.py BIN_DIR [--sample N] [--seed S] [--budget SECONDS]
                                        [--timeout SECONDS] [--jobs N] [--only REGEX] [--list]
  BIN_DIR        a build's bin folder (build/dev/bin, build/release/bin)
  --sample N     run N cases drawn at random (spread over every program) instead of all of them
  --seed S       the draw's seed (default 1), so that a failing sample can be run again
  --budget S     start no case after S seconds (the rest are counted as not run)
  --timeout S    each case's time limit (default 20)
  --jobs N       cases run at once (default 2)
  --only REGEX   only the programs whose name matches
  --list         print the cases and run nothing
The test scripts.bad_input.fuzz_sample (label cpu) runs a sample of 300 within 45 s; the whole set
(about 2,350 cases, a minute or two on two cores):
  python3 scripts/tests/fuzz_bad_inputs.py build/dev/bin
Exit code: 0 nothing found, 1 a finding (each printed with its command line), 2 bad command line.
"""
import concurrent.futures
import os
import random
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROG = "fuzz_bad_inputs.py"
FIXTURE = os.path.join(ROOT, "common", "tests", "fixtures", "01_vector_exp_fixture.json")
LONG_NAME = "x" * 5000
FAILURES = ("hang", "crash", "traceback", "exit 0", "flag file", "escape")

# The scripts: (name, command, arguments always given, [(flag, kind), ...]); a flag of None is a
# positional argument. Kinds as for the binaries below.
SCRIPTS = [
    ("plot.py", ["python3", "scripts/plot.py"], [FIXTURE, "--out", "plots"],
     [("--out", "out_dir"), (None, "in_file")]),
    ("reproduce_docs.py", ["python3", "scripts/reproduce_docs.py"],
     ["--bin", "{stubs}", "--part", "course", "--lessons", "01", "--out", "runs"],
     [("--out", "out_dir"), ("--part", "choice"), ("--lessons", "choice"), ("--skip", "text"),
      ("--deadline", "count"), ("--bin", "in_dir")]),
    ("sweep.sh", ["bash", "scripts/sweep.sh"],
     ["--bin", "{stubs}", "--no-plot", "--lesson", "01_vector_exp", "--sizes", "100", "--out", "sweep"],
     [("--lesson", "choice"), ("--sizes", "count"), ("--out", "out_dir"), ("--bin", "in_dir")]),
    ("run_course.sh", ["bash", "scripts/run_course.sh"], [], [("--results", "out_dir")]),
    ("check_exercise.sh", ["bash", "scripts/check_exercise.sh"], ["01", "--hint"],
     [("--timeout", "count"), (None, "choice")]),
    ("test_course.sh", ["bash", "scripts/test_course.sh"], ["-N"],
     [("-R", "text"), ("-E", "text"), ("-L", "text"), ("-j", "count"), ("--timeout", "count"), ("--repeat", "text")]),
    ("check_doc_quotes.py", ["python3", "scripts/check_doc_quotes.py"], [], [("--root", "in_dir"), (None, "in_file")]),
    ("check_doc_links.py", ["python3", "scripts/check_doc_links.py"], [], [("--root", "in_dir"), (None, "in_file")]),
    ("check_doc_figures.py", ["python3", "scripts/check_doc_figures.py"], [], [("--root", "in_dir"), (None, "in_file")]),
    ("check_agenda.py", ["python3", "scripts/check_agenda.py"], [], [("--root", "in_dir")]),
    ("draw_pictures.py", ["python3", "scripts/draw_pictures.py"], ["--only", "06_idea_sat_corners", "--out", "pictures"],
     [("--out", "out_dir"), ("--only", "text")]),
    ("check_bad_args.py", ["python3", "scripts/check_bad_args.py"],
     ["{bin}/01_vector_exp", "{root}/01_vector_exp/tests/bad_args.tsv"],
     [("--lesson-dir", "in_dir"), ("--probe", "in_file"), ("--timeout", "number")]),
]

# The values each kind of flag is given: (name, value, refused), where value None is no value
# at all (the flag last) and refused says whether every flag of the kind must refuse it. The
# numbers' refusals also follow the range the help states (see must_refuse).
ANY = [("no_value", None, True), ("empty", "", True), ("flag", "--skip-gpu", True), ("short_flag", "-k", True)]
NUMBERS = ANY + [("word", "abc", True), ("nan", "nan", True), ("inf", "inf", True), ("negative", "-1", None),
                 ("zero", "0", None), ("huge", "1e999", True), ("2^64", "18446744073709551616", None),
                 ("big", "99999999999", None), ("hex", "0x10", None), ("fraction", "1.5", None),
                 ("space", " 7", None), ("escape", "1\x1b[31m", True)]
VALUES = {
    "number": NUMBERS,
    "count": NUMBERS,  # a script's whole number
    "text": ANY + [("word", "abc", None), ("escape", "abc\x1b[31m\nnext", None), ("long", LONG_NAME, None)],
    "choice": ANY + [("word", "abc", True), ("escape", "abc\x1b[31m\nnext", True), ("long", LONG_NAME, True),
                     ("path", "../../etc", True)],
    "in_file": ANY + [("absent", "no_such_file.json", True), ("fifo", "@CASE@/fifo", True),
                      ("folder", "@CASE@/folder", True), ("dev_zero", "/dev/zero", True),
                      ("long_name", LONG_NAME, True), ("binary", "@CASE@/binary.bin", None)],
    "out_file": ANY + [("fifo", "@CASE@/fifo", True), ("folder", "@CASE@/folder", True), ("dev_full", "{full}", True),
                       ("proc", "/proc/fuzz/x.json", True), ("no_parent", "no_such_folder/x.json", True),
                       ("long_name", LONG_NAME, True), ("trailing_slash", "x.json/", True)],
    "out_dir": ANY + [("file", "@CASE@/a_file", True), ("fifo", "@CASE@/fifo", True), ("dev_full", "{full}", True),
                      ("proc", "/proc/fuzz", True), ("long_name", LONG_NAME, True)],
    "in_dir": ANY + [("absent", "no_such_folder", True), ("file", "@CASE@/a_file", True),
                     ("fifo", "@CASE@/fifo", True), ("long_name", LONG_NAME, True)],
    "bool": [("with_value", "=abc", True)],
}

# A lesson's CPU path at a small size, first on every lesson's command line.
LESSON_BASE = ["--skip-gpu", "--cpu-reps", "1", "--size", "64"]
HELP_FLAG = re.compile(r"^  (-[^\s,]+(?:,-[^\s,]+)*)(?: ([A-Z][^\n]*?))?(?:\s{2,}(.*))?$")


class Case:
    def __init__(self, program, command, label, refused, stdout_full=False):
        self.program, self.command, self.label, self.refused = program, command, label, refused
        self.stdout_full = stdout_full  # standard output on /dev/full: the answer cannot arrive
        self.result = None

    def shown(self):
        return " ".join(shlex.quote(part if len(part) < 60 else part[:20] + "...") for part in self.command)


def parse_help(text):
    """The flags a CLI11 --help lists: (names, type, description) with type None for a switch."""
    flags, positional, section = [], [], ""
    for line in text.splitlines():
        if re.match(r"^[A-Z][a-z]+:$", line):
            section = line
            continue
        match = HELP_FLAG.match(line)
        if match and section == "Options:":
            names = match.group(1).split(",")
            if "--help" in names:
                continue
            flags.append((names, (match.group(2) or "").strip() or None, match.group(3) or ""))
        elif section == "Positionals:" and re.match(r"^  [a-z]+ [A-Z]+", line):
            positional.append(line.split()[0])
    return flags, positional


def flag_kind(names, kind, description):
    """What a binary's flag takes, from its type and its help."""
    if kind is None:
        return "bool"
    name = names[-1].lstrip("-")
    base = kind.split(":")[0].split("=")[0].split()[0]
    if base in ("INT", "UINT", "FLOAT"):
        return "number"
    about = description.lower()
    if name in ("out-dir",) or "folder" in about:
        return "out_dir" if "write" in about or name.startswith("out") else "in_dir"
    if name in ("json", "image", "kernel-file", "filter-file") or " file" in about:
        return "out_file" if "write" in about else "in_file"
    return "choice" if "{" in kind else "text"


def numeric_range(kind):
    """(low, high) from the help's "in [1 - 1024]" or "in -1 to 1", else None."""
    match = re.search(r"[Ii][Nn] \[(-?[0-9.e+]+) - (-?[0-9.e+]+)\]", kind or "") or \
        re.search(r"in (-?[0-9.e+]+) to (-?[0-9.e+]+)", kind or "")
    return (float(match.group(1)), float(match.group(2))) if match else None


def must_refuse(value_name, value, refused, kind_text):
    if refused is not None:
        return refused
    span = numeric_range(kind_text)
    unsigned = (kind_text or "").startswith("UINT")
    try:
        number = float(value)
    except (TypeError, ValueError):
        return False
    if value_name == "hex":
        return kind_text is not None and kind_text.startswith(("INT", "UINT"))  # decimal whole numbers only
    if value_name == "fraction":
        return kind_text is not None and kind_text.startswith(("INT", "UINT"))
    if value_name == "2^64" and kind_text is not None and kind_text.startswith(("INT", "UINT")):
        return True  # beyond every whole number a flag takes
    if span:
        return not span[0] <= number <= span[1]
    return unsigned and number < 0


def cases_for(program, command, base, flags, work):
    """Every case of one program: each flag with each value of its kind, and two outputs on one path."""
    cases = []
    for names, kind_name, kind_text in flags:
        flag = names[-1] if names[0] is not None else None
        for value_name, value, refused in VALUES[kind_name]:
            if flag is None and value is None:
                continue  # a positional argument cannot be left without its value
            if value == "{full}" and FULL[0] is None:
                continue
            drop = set(names) if flag else set()
            arguments, skip = [], False
            for item in base:  # the base without the flag under test (and its value)
                if skip:
                    skip = False
                    continue
                if item in drop:
                    skip = True
                    continue
                arguments.append(item)
            if kind_name == "bool":
                arguments.append(flag + value)
            elif flag is None:
                arguments.append(value.format(full=FULL[0]))
            else:
                arguments.append(flag)
                if value is not None:
                    arguments.append(value.format(full=FULL[0]))
            refuse = must_refuse(value_name, value, refused, kind_text if kind_name == "number" else None)
            cases.append(Case(program, command + arguments, f"{flag or 'positional'} {value_name}", refuse))
    # The run as given, with standard output on /dev/full: exit 0 would be an answer lost unsaid.
    cases.append(Case(program, command + base, "standard output on /dev/full", True, stdout_full=True))
    outputs = [names[-1] for names, kind_name, _ in flags if kind_name in ("out_file",) and names[0]]
    for first in range(len(outputs)):
        for second in range(first + 1, len(outputs)):
            same = "same.png" if "image" in outputs[first] + outputs[second] else "same.json"
            cases.append(Case(program, command + base + [outputs[first], same, outputs[second], same],
                              f"{outputs[first]} and {outputs[second]} on one path", True))
    return cases


def all_cases(bin_folder, stubs, work, only):
    cases = []
    for name in sorted(os.listdir(bin_folder)):
        path = os.path.join(bin_folder, name)
        if name.endswith("_tests") or not os.path.isfile(path) or not os.access(path, os.X_OK):
            continue
        if only and not re.search(only, name):
            continue
        try:
            text = subprocess.run([path, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30,
                                  check=False, env=environment(work, False)).stdout.decode(errors="replace")
        except (OSError, subprocess.TimeoutExpired):
            continue
        flags, positional = parse_help(text)
        flags = [(names, flag_kind(names, kind, about), kind) for names, kind, about in flags]
        flags += [([None], "in_file", None) for _ in positional[:1]]
        base = LESSON_BASE if re.match(r"[0-9][0-9]_", name) and any("--skip-gpu" in f[0] for f in flags) else []
        if name == "course_summary":
            base = [FIXTURE]
        cases += cases_for(name, [path], base, flags, work)
        if not flags:  # no flag at all (01's first program): an argument it must refuse
            cases.append(Case(name, [path, "--bogus"], "an argument where none is taken", True))
    for name, command, base, flags in SCRIPTS:
        if only and not re.search(only, name):
            continue
        base = [item.format(stubs=stubs, bin=bin_folder, root=ROOT) for item in base]
        flags = [([flag], kind, None) for flag, kind in flags]
        cases += cases_for(name, command, base, flags, work)
    return cases


def environment(work, script):
    env = dict(os.environ)
    env.update({"CUDA_VISIBLE_DEVICES": "-1", "COURSE_REQUIRE_GPU": "0", "TMPDIR": os.path.join(work, "tmp"),
                "MPLBACKEND": "Agg", "COURSE_NO_INSTALL": "1", "OMP_NUM_THREADS": "1", "LC_ALL": "C.UTF-8",
                "PYTHONDONTWRITEBYTECODE": "1"})
    env.pop("COURSE_BUILD_DIR", None)
    if script:
        env["PATH"] = os.path.join(work, "tools") + os.pathsep + env.get("PATH", "")
    return env


# The device a "dev_full" value names: /dev/full, or, run as root, a device node of the same kind
# made in the case's folder. As root, a program that renames a finished file over the path (as
# course_summary --json did) replaces the device itself: the machine's /dev/full must never be it.
FULL = ["/dev/full"]
OWN_DEVICE = "@CASE@/full"


def make_case_fixtures(folder):
    """The paths a case's values name (@CASE@/...), made afresh in its folder: a program that
    replaces one (a rename over the FIFO) cannot change what the next case is given."""
    os.makedirs(os.path.join(folder, "folder"))
    os.mkfifo(os.path.join(folder, "fifo"))
    with open(os.path.join(folder, "a_file"), "w", encoding="utf-8") as file:
        file.write("a file\n")
    with open(os.path.join(folder, "binary.bin"), "wb") as file:
        file.write(bytes(range(256)) * 16)
    if FULL[0] == OWN_DEVICE:
        os.mknod(os.path.join(folder, "full"), 0o666 | stat.S_IFCHR, os.makedev(1, 7))


def make_fixtures(work):
    """The stand-in checkout, cmake and ctest, and stand-in lesson binaries."""
    if os.geteuid() == 0:
        try:
            os.mknod(os.path.join(work, "full"), 0o666 | stat.S_IFCHR, os.makedev(1, 7))
            os.remove(os.path.join(work, "full"))
            FULL[0] = OWN_DEVICE
        except OSError as error:  # no CAP_MKNOD: the device cases are left out, with a line
            print(f"{PROG}: run as root and no device can be made here ({error.strerror}): "
                  "the cases with a device for a path are left out")
            FULL[0] = None
    os.makedirs(os.path.join(work, "tmp"))
    checkout = os.path.join(work, "checkout")
    os.makedirs(os.path.join(checkout, "build"))
    for entry in os.listdir(ROOT):
        if entry != "build":
            os.symlink(os.path.join(ROOT, entry), os.path.join(checkout, entry))
    tools = os.path.join(work, "tools")
    os.makedirs(tools)
    stand_in = ('#!/bin/sh\n[ "$1" = --version ] && { echo "$(basename "$0") version 3.28.3"; exit 0; }\n'
                'echo "FUZZ: $(basename "$0") called with $*" >&2\nexit 1\n')
    for tool in ("cmake", "ctest"):
        write_program(os.path.join(tools, tool), stand_in)
    stubs = os.path.join(work, "stubs")
    os.makedirs(stubs)
    lesson = ('#!/bin/sh\nprevious=""\nfor a in "$@"; do [ "$previous" = --json ] && echo "{}" >"$a"; '
              'previous="$a"; done\nexit 0\n')
    for name in ("01_vector_exp", "02_elementwise_add", "course_device_info", "course_summary"):
        write_program(os.path.join(stubs, name), lesson)
    return stubs


def write_program(path, text):
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def run_case(case, work, index, timeout):
    """Runs one case in a scratch folder of its own; sets case.result = (finding or None, detail)."""
    folder = os.path.join(work, "cases", str(index))
    os.makedirs(folder)
    make_case_fixtures(folder)
    script = not os.path.isabs(case.command[0])
    command = [case.command[0], os.path.join(work, "checkout", case.command[1])] + case.command[2:] if script \
        else case.command
    command = [part.replace("@CASE@", folder) for part in command]
    started = time.monotonic()
    with open(os.path.join(folder, ".stderr"), "wb") as stderr, \
            open("/dev/full" if case.stdout_full else os.devnull, "wb") as stdout:
        process = subprocess.Popen(command, cwd=folder, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                                   env=environment(work, script), start_new_session=True)
    timed_out = False
    deadline = started + timeout
    status = None
    while status is None:
        pid, raw, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            status = raw
            break
        if time.monotonic() > deadline:
            timed_out = True
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status, usage = os.wait4(process.pid, 0)
            break
        time.sleep(0.02)
    process.returncode = 0  # reaped above
    wall = time.monotonic() - started
    with open(os.path.join(folder, ".stderr"), "rb") as file:
        err = file.read().decode(errors="replace")
    err_lines = [line for line in err.splitlines() if line and not line.startswith("libgomp: Invalid value")]
    cpu = usage.ru_utime + usage.ru_stime  # the process's own (its children are only counted once reaped)
    code = os.waitstatus_to_exitcode(status)
    flagged = [name for name in os.listdir(folder) if name.startswith("-")]
    replaced = FULL[0] == OWN_DEVICE and not stat.S_ISCHR(os.lstat(os.path.join(folder, "full")).st_mode)
    if replaced:
        finding, detail = "escape", "the device node it was given was replaced by a file"
    elif timed_out:
        finding = "hang" if cpu < 0.2 * wall else "slow"
        detail = f"killed after {wall:.0f} s ({cpu:.1f} s of CPU)"
    elif code < 0 or code > 3 or "terminate called" in err:
        finding, detail = "crash", f"exit {code}: {' | '.join(err_lines[-3:])}"
    elif "Traceback (most recent call last)" in err:
        finding, detail = "traceback", err_lines[-1] if err_lines else ""
    elif flagged:
        finding, detail = "flag file", f"wrote {flagged}"
    elif case.refused and (code == 0 or "FUZZ: cmake called" in err or "FUZZ: ctest called" in err):
        finding, detail = "exit 0", f"exit {code}" + (": went on to the build" if "FUZZ:" in err else "")
    elif code in (2, 3) and len(err_lines) != 1:
        finding, detail = "long error", f"exit {code}, {len(err_lines)} lines: {' | '.join(err_lines[:3])[:300]}"
    else:
        finding, detail = None, f"exit {code}: {err_lines[0][:200] if err_lines else ''}"
    case.result = (finding, detail, code, wall)
    shutil.rmtree(folder, ignore_errors=True)
    return case


def escaped_files(since):
    """Files in the checkout, outside build/, .git/ and __pycache__/, changed since `since` (epoch
    seconds): a new file, or one written over."""
    found = []
    for top, folders, files in os.walk(ROOT):
        relative = os.path.relpath(top, ROOT)
        if relative == ".":
            folders[:] = [f for f in folders if f not in (".git", "build")]
        folders[:] = [f for f in folders if f != "__pycache__"]  # Python's own, for the scripts it imports
        for name in files:  # not folders: Python's __pycache__ beside a script changes its folder's time
            path = os.path.join(top, name)
            try:
                if os.lstat(path).st_mtime >= since:
                    found.append(f"{os.path.relpath(path, ROOT)} was written in the checkout")
            except OSError:
                pass
    return found


def draw(cases, sample, seed):
    """`sample` cases spread over the programs: each program's cases shuffled, then taken in turn."""
    generator = random.Random(seed)
    by_program = {}
    for case in cases:
        by_program.setdefault(case.program, []).append(case)
    for group in by_program.values():
        generator.shuffle(group)
    chosen, groups = [], [by_program[name] for name in sorted(by_program)]
    generator.shuffle(groups)
    while len(chosen) < sample and any(groups):
        for group in groups:
            if group and len(chosen) < sample:
                chosen.append(group.pop())
    return chosen


def parse_arguments(arguments):
    def usage_error(message):
        print(f"{PROG}: {message}", file=sys.stderr)
        sys.exit(2)

    options = {"sample": None, "seed": 1, "budget": None, "timeout": 20.0, "jobs": 2, "only": None, "list": False}
    numbers = {"--sample": int, "--seed": int, "--budget": float, "--timeout": float, "--jobs": int}
    bin_folder = None
    while arguments:
        argument = arguments.pop(0)
        if argument in ("-h", "--help"):
            print(__doc__.strip())
            sys.exit(0)
        if argument == "--list":
            options["list"] = True
        elif argument in numbers or argument == "--only":
            if not arguments or not arguments[0] or arguments[0].startswith("-"):
                usage_error(f"{argument} needs a value")
            value = arguments.pop(0)
            if argument == "--only":
                try:
                    re.compile(value)
                except re.error as error:
                    usage_error(f"--only {value}: not a regular expression ({error})")
                options["only"] = value
                continue
            try:
                number = numbers[argument](value)
            except ValueError:
                usage_error(f"{argument} {value}: not a number")
            if not 0 < number < 1e7 and argument != "--seed":
                usage_error(f"{argument} {value}: give a positive number")
            options[argument[2:]] = number
        elif argument.startswith("-"):
            usage_error(f"unknown flag {argument} (see --help)")
        elif bin_folder is None:
            bin_folder = argument
        else:
            usage_error(f"one BIN_DIR only, not also '{argument}'")
    if bin_folder is None or not os.path.isdir(bin_folder):
        usage_error(f"give the bin folder of a build (not {bin_folder!r})" if bin_folder else "give the bin folder of a build")
    return os.path.abspath(bin_folder), options


def main(arguments):
    bin_folder, options = parse_arguments(list(arguments))
    work = tempfile.mkdtemp(prefix="fuzz_bad_inputs.")
    try:
        stubs = make_fixtures(work)
        cases = all_cases(bin_folder, stubs, work, options["only"])
        total = len(cases)
        if options["sample"]:
            cases = draw(cases, options["sample"], options["seed"])
        if options["list"]:
            for case in cases:
                print(f"{case.program}\t{case.label}\t{'refuse' if case.refused else '-'}\t{case.shown()}")
            print(f"{len(cases)} of {total} cases")
            return 0
        print(f"== {len(cases)} of {total} cases, {options['jobs']} at once, {options['timeout']:g} s each at most"
              + (f", sample of seed {options['seed']}" if options["sample"] else ""), flush=True)
        started_wall = time.time()
        started = time.monotonic()
        done = []
        with concurrent.futures.ThreadPoolExecutor(options["jobs"]) as pool:
            pending = set()
            for index, case in enumerate(cases):
                if options["budget"] and time.monotonic() - started > options["budget"]:
                    break
                pending.add(pool.submit(run_case, case, work, index, options["timeout"]))
                if len(pending) >= options["jobs"] * 2:
                    finished, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
                    done += [future.result() for future in finished]
            done += [future.result() for future in concurrent.futures.as_completed(pending)]
        escaped = escaped_files(started_wall)
        for device in ("/dev/full", "/dev/null", "/dev/zero"):
            if not stat.S_ISCHR(os.lstat(device).st_mode):
                escaped.append(f"{device} (a device) was replaced by a file")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    counts = {}
    for case in done:
        finding = case.result[0] or "ok"
        counts[finding] = counts.get(finding, 0) + 1
        if case.result[0]:
            print(f"{case.result[0]}: {case.program} {case.label}: {case.result[1]}\n    {case.shown()}")
    for path in escaped:
        print(f"escape: {path}")
    counts["escape"] = counts.get("escape", 0) + len(escaped)
    exit_codes = {}
    for case in done:
        exit_codes[case.result[2]] = exit_codes.get(case.result[2], 0) + 1
    not_run = len(cases) - len(done)
    print(f"== {len(done)} cases ran in {time.monotonic() - started:.0f} s" + (f", {not_run} not run (--budget)" if not_run else "")
          + "; exit codes: " + ", ".join(f"{code}: {n}" for code, n in sorted(exit_codes.items())))
    print("== " + ", ".join(f"{name}: {counts.get(name, 0)}" for name in FAILURES + ("slow", "long error", "ok")))
    return 1 if any(counts.get(name, 0) for name in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
