#!/usr/bin/env python3
"""Reproduces, on a GPU machine and in one session, every run the course pages quote: each lesson's
runs with the command lines the pages show, the size sweeps, the course-wide table, Nsight
Compute on lesson 04, every figure of docs/images, and a description of the machine. Nothing
here edits docs/: compare <out> with docs/data/ and take the numbers from it.

Usage: scripts/reproduce_docs.py [--out DIR] [--part LIST] [--lessons LIST] [--skip LIST]
                                 [--deadline S] [--bin DIR]
  --out DIR       where everything goes (default: docs-runs/<date>)
  --part LIST     parts, comma-separated (e.g. runs,sweeps,course), run in this order:
                  tests   COURSE_REQUIRE_GPU=1 ctest --preset gpu: <out>/tests.log, every test with
                          the documented commands at the pages' full sizes (label docs-full)
                  course  every lesson at its default size, as scripts/run_course.sh runs it, and
                          course_summary: <out>/course/ (the table of docs/contributing.md, as
                          text in summary.txt and as JSON in summary.json)
                  runs    course_device_info and the lesson runs the pages quote:
                          <out>/runs/<name>.txt and .json; a run of a lesson's defaults is
                          copied from course/ when that part ran it in this session
                  sweeps  the size sweeps of lessons 01 and 02: <out>/sweep_<lesson>/ (a point
                          that runs/ made with the same command is copied, not run again)
                  ncu     Nsight Compute on lesson 04's cp_async and stream_k at 4096^3:
                          <out>/ncu/ (left out, with a line, where ncu is not on PATH)
                  exercises  every exercise of scripts/exercises.txt through scripts/check_exercise.sh,
                          the starter as shipped (it must FAIL) and --solution (it must PASS):
                          <out>/exercises/summary.txt, one line each, and each whole output
                  plots   every figure of docs/images, drawn from <out>: <out>/plots/<name>.png
                  all     every part above (the default)
  --lessons LIST  only these lessons' steps, e.g. 01,02,03 (to split the work over two calls)
  --skip LIST     steps left out by name or pattern, e.g. 08_block*,04_tune (listed at the end)
  --deadline S    a step that would start S or more seconds after the start is skipped and
                  listed, for a machine lent for a fixed time (plots are drawn whatever the time)
  --bin DIR       the binaries of a build already made (default: configure and build the release
                  preset, which on a GPU machine compiles for its GPU only)
Every step prints its seconds; <out>/timings.tsv lists them (step, seconds, exit status, command)
and <out>/machine.txt describes the machine (GPU, driver, CUDA, CPU, compilers, date, source).
How long, on an H100 with a 16-core host (estimated from the runs of 2026-11-22 and 23, not yet
measured as a whole): build about 100 s, course 66 s, runs 560 s, sweeps 17 s, ncu about 60 s,
plots 10 s. Lessons 01, 02, 03 and 06 take most of it; split with --lessons, trim with --skip.
On a machine without a package manager, make the course's Debian packages visible through
CMAKE_PREFIX_PATH (and LD_LIBRARY_PATH) and set COURSE_NO_INSTALL=1: nothing is then installed
(scripts/setup.sh, which also does the build), and a missing optional package leaves only its
part out.
Exit status: 0 every step ran and verified; 1 a step failed, was skipped for the deadline or
its program was not built (or the build, or a copy between parts, failed); 2 bad command line.
Standard library only.
"""
import datetime
import fnmatch
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

PROG = "reproduce_docs.py"
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ALL_PARTS = ["tests", "course", "runs", "sweeps", "ncu", "exercises", "plots"]
VALUED_FLAGS = ["--out", "--part", "--lessons", "--skip", "--deadline", "--bin"]


def say(message):
    print(message, file=sys.stderr)


def usage_error(message):
    say(f"{PROG}: {message}")
    sys.exit(2)


def shown(value):
    """A value from the command line as an error shows it: control characters (an escape sequence,
    a newline) written as \\x.. escapes, so that the error stays one line and the terminal plain."""
    return re.sub(r"[\x00-\x1f\x7f]", lambda match: f"\\x{ord(match.group()):02x}", value)


def split_list(value):
    """A comma-separated list as bash's `IFS=, read -ra` splits it: a trailing empty item is
    dropped, any other empty item kept."""
    items = value.split(",")
    if items and items[-1] == "":
        items.pop()
    return items


def parse_command_line(arguments):
    """The options, checked before anything is built or run; a bad one is one line and exit 2."""
    caller = os.getcwd()  # relative paths given by the user are resolved against this
    options = {"out": os.path.join(ROOT, "docs-runs", datetime.date.today().strftime("%Y-%m-%d")),
               "part": "all", "lessons": "", "skip": "", "deadline": "", "bin": ""}
    arguments = list(arguments)
    while arguments:
        argument = arguments.pop(0)
        if argument in VALUED_FLAGS:
            if not arguments or not arguments[0]:
                usage_error(f"{argument} needs a value (see --help)")
            # "--out --part": the next flag is not the value (a folder named -x is written ./-x).
            if arguments[0].startswith("-"):
                usage_error(f"{argument} needs a value, not the flag '{shown(arguments[0])}' (see --help)")
            value = arguments.pop(0)
            if argument in ("--out", "--bin"):
                value = os.path.realpath(os.path.join(caller, value))
            options[argument[2:]] = value
        elif argument in ("-h", "--help"):
            print(__doc__.strip())
            sys.exit(0)
        else:
            usage_error(f"unknown argument '{shown(argument)}' (see --help)")

    parts = set()
    for item in split_list(options["part"]):
        if item == "all":
            parts.update(ALL_PARTS)
        elif item in ALL_PARTS:
            parts.add(item)
        else:
            usage_error(f"--part {shown(options['part'])}: choose from tests, course, runs, sweeps, ncu, exercises, plots "
                        "or all "
                        "(comma-separated)")
    lessons = set()
    if options["lessons"]:
        for item in split_list(options["lessons"]):
            if not re.fullmatch(r"[0-9][0-9]", item) or not glob.glob(os.path.join(ROOT, f"{item}_*", "CMakeLists.txt")):
                usage_error(f"--lessons {shown(options['lessons'])}: '{shown(item)}' is not a lesson (give numbers such as 01,02)")
            lessons.add(item)
    deadline = options["deadline"]
    if deadline and not re.fullmatch(r"[1-9][0-9]{0,5}", deadline):
        usage_error(f"--deadline {shown(deadline)}: give whole seconds, 1 or more")
    if options["bin"] and not os.path.isdir(options["bin"]):
        usage_error(f"--bin {shown(options['bin'])}: no such folder")
    out = options["out"]
    try:
        os.makedirs(out, exist_ok=True)
        writable = os.path.isdir(out) and os.access(out, os.W_OK)
    except OSError:
        writable = False
    if not writable:
        usage_error(f"--out {shown(out)}: not a folder where files can be written")
    options["parts"] = parts
    options["lesson_set"] = lessons
    options["skip_patterns"] = split_list(options["skip"])
    return options


def on_path(tool):
    return shutil.which(tool) is not None


def tenths(seconds):
    """Seconds as the bash version printed them: whole seconds, a point, the tenths (cut, not rounded)."""
    tenth = int(seconds * 10)
    return f"{tenth // 10}.{tenth % 10}"


def exit_status(returncode):
    """A child's exit status as a shell reports it: 128 + N for a child killed by signal N."""
    return 128 - returncode if returncode < 0 else returncode


class Session:
    """One reproduction: the steps run, their timings, what failed or was skipped."""

    def __init__(self, options):
        self.out = options["out"]
        self.bin = options["bin"]
        self.parts = options["parts"]
        self.part_list = options["part"]
        self.lesson_list = options["lessons"]
        self.lesson_set = options["lesson_set"]
        self.skip_list = options["skip"]
        self.skip_patterns = options["skip_patterns"]
        self.deadline = int(options["deadline"]) if options["deadline"] else None
        self.started = time.monotonic()
        self.status = 0
        self.failed = []
        self.skipped = []
        self.last_rc = 0  # an int, or "skipped"
        self.last_seconds = "0"
        self.runs_made = set()
        self.course_made = set()
        self.timings = os.path.join(self.out, "timings.tsv")
        if not (os.path.isfile(self.timings) and os.path.getsize(self.timings) > 0):
            with open(self.timings, "w", encoding="utf-8") as file:
                file.write("step\tseconds\texit\tcommand\n")
        self.work_folder = tempfile.mkdtemp()

    def wants(self, part):
        return part in self.parts

    def lesson_wanted(self, lesson):
        return not self.lesson_list or lesson in self.lesson_set

    def path(self, *names):
        return os.path.join(self.out, *names)

    def program(self, name):
        return os.path.join(self.bin, name)

    def record(self, name, seconds, status, command):
        with open(self.timings, "a", encoding="utf-8") as file:
            file.write(f"{name}\t{seconds}\t{status}\t{command}\n")

    def shown(self, command):
        """The command as printed and logged: the bin folder, <out> and the checkout left out."""
        text = " ".join(command)
        if self.bin:
            text = text.replace(self.bin + "/", "")
        return text.replace(self.out + "/", "<out>/").replace(ROOT + "/", "")

    def step(self, name, log, command, always=False, shown=None):
        """Runs one step: its name, the file its output goes to, then the command (a list of
        arguments, or a function of the open log file that returns an exit status; `shown` is
        then what is printed). Prints the command, then ok or FAILED with the exit status and the
        seconds it took (last_rc and last_seconds keep them). A step named in --skip, or one that
        would start after the deadline, does not run (always=True: the deadline does not apply)."""
        shown = self.shown(command if shown is None else shown)
        self.last_rc = "skipped"
        self.last_seconds = "0"
        for pattern in self.skip_patterns:
            if pattern and fnmatch.fnmatchcase(name, pattern):
                print(f"== {name}: skipped (--skip {pattern})")
                self.skipped.append(f"{name} (--skip)")
                self.record(name, "-", "skipped", shown)
                return
        if self.deadline is not None and not always and time.monotonic() - self.started >= self.deadline:
            print(f"== {name}: skipped (the deadline of {self.deadline} s has passed)")
            self.skipped.append(f"{name} (deadline)")
            self.record(name, "-", "deadline", shown)
            self.status = 1
            return
        print(f"== {name}: {shown}")
        started = time.monotonic()
        with open(log, "wb") as output:
            if callable(command):
                rc = command(output)
            else:
                rc = run_logged(command, output)
        self.last_rc = rc
        self.last_seconds = tenths(time.monotonic() - started)
        if rc == 0:
            print(f"   ok, {self.last_seconds} s")
        else:
            where = log[len(self.out) + 1:] if log.startswith(self.out + "/") else log
            print(f"   FAILED (exit {rc}, {self.last_seconds} s; output in {where})")
            self.failed.append(name)
            self.status = 1
        self.record(name, self.last_seconds, rc, shown)

    def have(self, program):
        """A lesson's program that this build lacks (left out for a missing package) is a failure
        here: the reference run needs every lesson."""
        path = self.program(program)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return True
        print(f"== {program}: not built (see build/release/left-out.txt): its steps are missing")
        self.failed.append(f"{program} (not built)")
        self.status = 1
        return False

    def lesson_run(self, name, program, *arguments):
        """One lesson run: <out>/runs/<name>.txt and .json. runs_made remembers those that wrote their JSON."""
        json_path = self.path("runs", f"{name}.json")
        self.step(name, self.path("runs", f"{name}.txt"), [self.program(program), *arguments, "--json", json_path])
        if self.last_rc != "skipped" and non_empty(json_path):
            self.runs_made.add(name)

    def default_run(self, name, lesson):
        """The run of a lesson at its defaults: the course part's run of this session where there is
        one (the same command: copied), else a run of its own."""
        course_json = self.path("course", f"{lesson}.json")
        # Made by --part course of this run, or of an earlier run into the same --out (a reference
        # run split over several calls on one machine).
        if lesson in self.course_made or (not self.wants("course") and non_empty(course_json)):
            shutil.copyfile(course_json, self.path("runs", f"{name}.json"))
            shutil.copyfile(self.path("course", f"{lesson}.log"), self.path("runs", f"{name}.txt"))
            print(f"== {name}: course/{lesson} of this session (the same command), copied")
            self.record(name, 0, "copied", f"course/{lesson}")
            self.runs_made.add(name)
        else:
            self.lesson_run(name, lesson)


def run_logged(command, output, **keywords):
    """Runs a command with its stdout and stderr into an open file; its exit status as a shell gives it
    (127 for a program not found, 126 for one that cannot be run)."""
    try:
        return exit_status(subprocess.run(command, stdout=output, stderr=subprocess.STDOUT, check=False,
                                          **keywords).returncode)
    except FileNotFoundError:
        output.write(f"{command[0]}: command not found\n".encode())
        return 127
    except OSError as error:
        output.write(f"{command[0]}: {error.strerror}\n".encode())
        return 126


def non_empty(path):
    return os.path.isfile(path) and os.path.getsize(path) > 0


def with_exit_line(label, command):
    """The program's output, then a line with its exit status (the pages quote both)."""
    def run(output):
        rc = run_logged(command, output)
        output.flush()
        output.write(f"{label} {rc}\n".encode())
        return 0
    return run


def list_ublkcp(program):
    """The kernels in a lesson's machine code that use the SM's bulk copy unit (UBLKCP, both ways:
    global to shared and back), with the count of such instructions, names demangled."""
    def run(output):
        try:
            sass = subprocess.run(["cuobjdump", "-sass", program], stdout=subprocess.PIPE, stderr=output,
                                  check=False)
        except OSError as error:
            output.write(f"cuobjdump: {error.strerror}\n".encode())
            return 127
        counts, function = {}, ""
        for line in sass.stdout.decode(errors="replace").splitlines():
            if "Function :" in line:
                words = line.split()
                function = words[2] if len(words) > 2 else ""
            if "UBLKCP" in line:
                counts[function] = counts.get(function, 0) + 1
        listing = "".join(f"{counts[name]} {name}\n" for name in sorted(counts))
        demangled = run_logged(["cu++filt"], output, input=listing.encode())
        return exit_status(sass.returncode) or demangled
    return run


def describe_machine(session, output):
    """What the machine is: the pages name the GPU, driver, CUDA, host CPU and date of every run."""
    def line(text=""):
        output.write(f"{text}\n")
        output.flush()

    def command(arguments, first_line_only=False, last_line_only=False):
        try:
            result = subprocess.run(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        except OSError:
            return None
        text = result.stdout.decode(errors="replace")
        lines = text.splitlines()
        if first_line_only:
            return lines[0] if lines and result.returncode == 0 else None
        if last_line_only:
            return lines[-1] if lines else ""
        return text

    def show(arguments, missing):
        text = command(arguments)
        output.write(text if text is not None else f"{missing}\n")

    line(f"date (UTC): {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M:%S')}")
    extras = "".join(f" {flag} {value}" for flag, value in (("--lessons", session.lesson_list),
                                                              ("--skip", session.skip_list),
                                                              ("--deadline", session.deadline or "")) if value)
    line(f"command: {sys.argv[0]} --out {session.out} --part {session.part_list}{extras}")
    head = command(["git", "-C", ROOT, "rev-parse", "HEAD"])
    if head is not None and re.fullmatch(r"[0-9a-f]{40}\n", head):
        changes = ", with local changes" if command(["git", "-C", ROOT, "status", "--porcelain"]) else ""
        line(f"source: commit {head.strip()}{changes}")
    else:
        line("source: not a git checkout")
    line()
    line("== os")
    try:
        with open("/etc/os-release", encoding="utf-8", errors="replace") as file:
            output.write("".join(text for text in file if "PRETTY_NAME" in text))
    except OSError:
        pass
    uname = os.uname()
    line(f"{uname.sysname} {uname.release} {uname.machine}")
    if on_path("nvidia-smi"):
        line()
        line("== nvidia-smi")
        show(["nvidia-smi"], "")
        line()
        line("== nvidia-smi --query-gpu")
        show(["nvidia-smi", "--query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.max.sm,clocks.max.memory,"
              "power.limit,persistence_mode,compute_mode,mig.mode.current", "--format=csv"], "")
    else:
        line()
        line("== nvidia-smi: not found")
    line()
    line("== driver")
    try:
        with open("/proc/driver/nvidia/version", encoding="utf-8", errors="replace") as file:
            output.write(file.read())
    except OSError:
        line("(no NVIDIA driver loaded)")
    line()
    line("== nvcc --version")
    show(["nvcc", "--version"], "(nvcc: not found)")
    line()
    line("== compilers and tools")
    for tool in ("gcc", "g++", "cmake"):
        first = command([tool, "--version"], first_line_only=True)
        line(first if first is not None else f"{tool}: not found")
    for tool in ("ncu", "compute-sanitizer"):
        line(f"{tool}: {command([tool, '--version'], last_line_only=True)}" if on_path(tool) else f"{tool}: not found")
    line()
    line("== lscpu")
    show(["lscpu"], "")
    line()
    line("== memory")
    show(["free", "-g"], "")
    line()
    line("== environment")
    pattern = re.compile(r"(CMAKE_PREFIX_PATH|LD_LIBRARY_PATH|COURSE_|OMP_|OPENBLAS_|CUDA_|CUDAARCHS)")
    for entry in sorted(f"{key}={value}" for key, value in os.environ.items() if pattern.match(key)):
        line(entry)


def build_release():
    """Configures and builds the release preset as every script does (scripts/setup.sh: installs what
    is missing, or says how); a failure there ends the run with its exit status."""
    result = subprocess.run(["bash", "-c", 'source "$1/scripts/setup.sh" && course_build release', "_", ROOT],
                            check=False)
    if result.returncode != 0:
        sys.exit(exit_status(result.returncode))


# --- runs: every run the pages quote, lesson by lesson -----------------------------------------
# Names follow docs/data; the page and section each serves are in the comment beside it.

def ublkcp_functions(s, lesson):
    """The kernels of a lesson that use the bulk copy unit: the library's transform and the lesson's
    bulk-copy step, read from the SASS rather than assumed."""
    if not on_path("cuobjdump"):
        print(f"== {lesson} ublkcp: left out (cuobjdump is not on PATH)")
        return
    number = lesson[:2]
    s.step(f"{number}_ublkcp", s.path("runs", f"{number}_ublkcp.txt"), list_ublkcp(s.program(lesson)),
           shown=["list_ublkcp", s.program(lesson)])


def runs_01(s):
    if not s.have("01_vector_exp"):
        return
    # 01 section 1: the stand-alone first program.
    if s.have("01_vector_exp_first_contact"):
        s.step("01_first_contact", s.path("runs", "01_first_contact.txt"), [s.program("01_vector_exp_first_contact")])
    s.default_run("01_default", "01_vector_exp")                                   # 01 sections 12, 13
    s.lesson_run("01_warm_l2", "01_vector_exp", "--no-flush-l2", "--skip-cpu")      # 01 section 14 (L2 left warm)
    s.lesson_run("01_2e26", "01_vector_exp", "-l", "67108864")                      # 01 sections 5, 6, 10, 14; sweep point
    s.lesson_run("01_2e26_gpu", "01_vector_exp", "-l", "67108864", "--skip-cpu")    # 01 section 10; workshop section 1
    # 01 section 10, the bulk-copy table: step 5 with one float4 per thread at 2^26.
    s.lesson_run("01_2e26_ilp1", "01_vector_exp", "-l", "67108864", "--skip-cpu", "--kernel", "one_pass",
                 "--kernel", "bulk_copy", "--ilp", "1")
    s.lesson_run("01_2e28", "01_vector_exp", "-l", "268435456")                     # 01 sections 10, 13, 14; sweep point
    for k in ("1", "2", "8"):                                                       # 01 sections 10 and 14, exercise 3
        s.lesson_run(f"01_2e28_ilp{k}", "01_vector_exp", "-l", "268435456", "--ilp", k, "--skip-cpu")
    for t in ("128", "512"):                                                        # 01 section 10, the bulk-copy table
        s.lesson_run(f"01_2e28_b{t}", "01_vector_exp", "-l", "268435456", "--skip-cpu", "--kernel", "one_pass",
                     "--kernel", "bulk_copy", "--block", t)
    for t in ("512", "2048"):                                      # 01 section 10: bulk_copy's tile (default 1024)
        s.lesson_run(f"01_2e28_tile{t}", "01_vector_exp", "-l", "268435456", "--skip-cpu", "--kernel", "bulk_copy",
                     "--tile", t)
    ublkcp_functions(s, "01_vector_exp")                          # 01 section 10: which kernels use the copy unit
    for k in ("10000000", "67108864"):                            # 01 section 14: the CPU rows, 11 repetitions
        s.lesson_run(f"01_cpu_{k}", "01_vector_exp", "-l", k, "--skip-gpu", "--cpu-reps", "11")
    # 01 sections 15 to 17: the reductions (sum, softmax) against CUB and the copy, and their CPU rows.
    for op in ("sum", "softmax"):
        for size, name in (("67108864", "2e26"), ("268435456", "2e28")):
            s.lesson_run(f"01_{op}_{name}", "01_vector_exp", "--op", op, "-l", size, "--skip-cpu")
        s.lesson_run(f"01_{op}_cpu", "01_vector_exp", "--op", op, "-l", "67108864", "--skip-gpu")
    s.lesson_run("01_sum_2e24", "01_vector_exp", "--op", "sum", "-l", "16777216", "--skip-cpu")  # 05's read limit


def runs_02(s):
    if not s.have("02_elementwise_add"):
        return
    s.default_run("02_default", "02_elementwise_add")                               # 02 sections 7, 13, 14
    s.lesson_run("02_2e26_sweep", "02_elementwise_add", "-l", "67108864", "--sweep", "launch")  # 02 sections 13, 15
    s.lesson_run("02_2e26", "02_elementwise_add", "-l", "67108864", "--skip-cpu")   # 02 section 11; workshop
    s.lesson_run("02_2e26_ilp1", "02_elementwise_add", "-l", "67108864", "--skip-cpu", "--kernel", "add_one_pass",
                 "--kernel", "add_bulk_copy", "--ilp", "1")
    s.lesson_run("02_2e28", "02_elementwise_add", "-l", "268435456")               # 02 sections 6, 11, 14; sweep point
    for flag, value, name in (("--ilp", "1", "ilp1"), ("--ilp", "4", "ilp4"), ("--block", "512", "b512")):
        # 02 section 11: add_bulk_copy's settings
        s.lesson_run(f"02_2e28_{name}", "02_elementwise_add", "-l", "268435456", "--skip-cpu", "--kernel",
                     "add_one_pass", "--kernel", "add_bulk_copy", flag, value)
    for t in ("512", "1024"):                                     # 02 section 11: add_bulk_copy's tile (default 768)
        s.lesson_run(f"02_2e28_tile{t}", "02_elementwise_add", "-l", "268435456", "--skip-cpu", "--kernel",
                     "add_bulk_copy", "--tile", t)
    ublkcp_functions(s, "02_elementwise_add")                     # 02 section 11: which kernels use the copy unit
    # 02 section 3: the add without its bounds check, run plainly and under compute-sanitizer.
    if on_path("nvcc"):
        unchecked = os.path.join(s.work_folder, "add_unchecked")
        s.step("02_unchecked_build", s.path("runs", "unchecked_build.txt"),
               ["nvcc", "-arch=native", "-o", unchecked, os.path.join(ROOT, "docs", "snippets", "add_unchecked.cu")])
        if os.path.isfile(unchecked) and os.access(unchecked, os.X_OK):
            s.step("02_unchecked_plain", s.path("runs", "unchecked_plain.txt"), with_exit_line("exit status", [unchecked]),
                   shown=["with_exit_line", "exit status", unchecked])
            if on_path("compute-sanitizer"):
                s.step("02_unchecked_sanitizer", s.path("runs", "unchecked_sanitizer.txt"),
                       with_exit_line("sanitizer exit", ["compute-sanitizer", unchecked]),
                       shown=["with_exit_line", "sanitizer exit", "compute-sanitizer", unchecked])
            else:
                print("== 02_unchecked_sanitizer: left out (compute-sanitizer is not on PATH)")


def runs_03(s):
    if not s.have("03_streams"):
        return
    s.default_run("03_default", "03_streams")                                  # 03 real output, copy baseline, timeline
    s.lesson_run("03_compute_bound", "03_streams", "--intensity", "2000")      # 03 deep dive and its timeline
    s.lesson_run("03_streams1", "03_streams", "--streams", "1")                # workshop agenda (its run time)


def runs_04(s):
    if not s.have("04_shared_matmul"):
        return
    s.default_run("04_4096", "04_shared_matmul")                               # 04 sections 1, 6, 9, 11, 13
    s.lesson_run("04_1600", "04_shared_matmul", "-n", "1600", "--skip-cpu")    # 04 sections 5, 6, 11, 13; workshop
    s.lesson_run("04_4096x4096x1024", "04_shared_matmul", "--m", "4096", "--n", "4096", "--k", "1024",
                 "--skip-cpu")                                                 # 04 section 11
    for n in ("256", "512", "1024", "2048", "8192"):                           # 04: every kernel against cuBLAS by size
        s.lesson_run(f"04_{n}", "04_shared_matmul", "-n", n, "--skip-cpu")
    # 04 section 13: GFLOP/s against size (256 to 8192, 1600 included).
    s.lesson_run("04_sweep", "04_shared_matmul", "-n", "1024", "--skip-cpu", "--sweep", "size", "--kernel", "cp_async",
                 "--kernel", "stream_k")
    if s.have("matmul_tune"):
        s.step("04_tune", s.path("runs", "04_tune.txt"), [s.program("matmul_tune")])  # 04 sections 11, 12


def runs_05(s):
    if not s.have("05_mandelbrot"):
        return
    s.default_run("05_default", "05_mandelbrot")                    # 05 section 4 (the classic view), section 7
    s.lesson_run("05_classic_image", "05_mandelbrot", "--image", s.path("runs", "05_classic.png"), "--gray")  # 05 section 11
    # 05 sections 4, 8, 10: the benchmark and its block-shape sweep.
    s.lesson_run("05_perf", "05_mandelbrot", "--width", "4096", "--height", "4096", "--iters", "1000", "--skip-serial",
                 "--sweep", "blocks")
    s.lesson_run("05_speedup", "05_mandelbrot", "--width", "2048", "--height", "2048", "--iters", "1000",
                 "--cpu-reps", "1")                                 # 05 section 8
    s.lesson_run("05_deep", "05_mandelbrot", "--centre", "-0.743643887037151", "0.131825904205330", "--zoom", "2e8",
                 "--iters", "8000", "--precision", "double", "--skip-serial", "--image", s.path("runs", "05_deep.png"),
                 "--gray")                                          # 05 sections 8, 11
    # 05: the histogram-equalised colouring's histogram and scan steps, at the benchmark and classic sizes.
    s.lesson_run("05_hist_4096", "05_mandelbrot", "--width", "4096", "--height", "4096", "--iters", "1000", "--histogram",
                 "--precision", "float", "--kernel", "mandel_fast", "--skip-cpu")
    s.lesson_run("05_hist_classic", "05_mandelbrot", "--histogram", "--precision", "float", "--kernel", "mandel_fast",
                 "--skip-cpu")
    if on_path("cuobjdump"):                                        # 05 sections 6, 7, 9: the kernels' SASS
        s.step("05_sass", s.path("runs", "05_mandelbrot.sass.txt"), ["cuobjdump", "-sass", s.program("05_mandelbrot")])


def runs_06(s):
    if not s.have("06_fft_convolve"):
        return
    s.default_run("06_default", "06_fft_convolve")
    # 06 section 6 and its picture; 06 section 2, the naive FFT's wrap.
    s.lesson_run("06_pictures", "06_fft_convolve", "--cpu-reps", "11", "--out-dir", s.path("runs", "06_pictures"))
    s.lesson_run("06_wrap", "06_fft_convolve", "--filter", "box", "--filter-size", "31", "--out-dir",
                 s.path("runs", "06_wrap"))
    s.lesson_run("06_4096", "06_fft_convolve", "-n", "4096")                    # 06 sections 6, 9, 11, 13, 14, 17
    s.lesson_run("06_crossover", "06_fft_convolve", "-n", "1024", "--sweep", "filter-size",
                 "--skip-cpu")                                                  # 06 sections 9, 14; workshop
    # 06: the crossover at the benchmark size on the GPU and on every CPU core; its own figure.
    s.lesson_run("06_crossover_4096", "06_fft_convolve", "-n", "4096", "--sweep", "filter-size")
    s.lesson_run("06_crossover_1024_cpu", "06_fft_convolve", "-n", "1024", "--sweep", "filter-size", "--skip-gpu")
    # 06: the large filter and the box filter at the benchmark size; the box filter's sweep.
    s.lesson_run("06_4096_k31", "06_fft_convolve", "-n", "4096", "--filter", "gaussian", "--filter-size", "31",
                 "--skip-cpu")
    s.lesson_run("06_box4096", "06_fft_convolve", "-n", "4096", "--filter", "box", "--filter-size", "9", "--skip-cpu")
    s.lesson_run("06_box1024", "06_fft_convolve", "-n", "1024", "--filter", "box", "--filter-size", "9", "--sweep",
                 "filter-size", "--skip-cpu")
    # 06 section 14: the crossover plot, direct against FFT on one CPU thread (GPU points too).
    s.lesson_run("06_crossover_cpu", "06_fft_convolve", "-n", "1024", "--sweep", "filter-size", "--threads", "1",
                 "--cpu-reps", "5")


def runs_07(s):
    if not s.have("07_black_scholes"):
        return
    s.default_run("07_default", "07_black_scholes")                  # 07 sections 3, 6, 7
    s.lesson_run("07_classic", "07_black_scholes", "--classic")       # 07 section 1 (the classic's run)
    # the workshop agenda's command (its run time)
    s.lesson_run("07_float_1e6", "07_black_scholes", "-n", "1000000", "--precision", "float", "--kernel", "shared_exp",
                 "--kernel", "fast_math")
    # 07 sections 9 and 10: each kernel's worst option in units of u kappa, the cancellation table.
    if s.have("07_black_scholes_tests"):
        s.step("07_accuracy_tests", s.path("runs", "07_accuracy_tests.txt"),
               ["env", "COURSE_REQUIRE_GPU=1", s.program("07_black_scholes_tests"),
                "--gtest_filter=*WorstOption*:*Cancellation*"])


def runs_08(s):
    if not s.have("08_driver_api_saxpy"):
        return
    s.default_run("08_default", "08_driver_api_saxpy")               # 08 sections 7, 12, 13
    # 08 sections 7, 12, 14: the runs the earlier GPU's table holds, on this one.
    s.lesson_run("08_a1.1", "08_driver_api_saxpy", "-a", "1.1", "--skip-cpu")
    s.step("08_cache_disabled", s.path("runs", "08_cache_disabled.txt"),
           ["env", "CUDA_CACHE_DISABLE=1", s.program("08_driver_api_saxpy"), "--skip-cpu", "--json",
            s.path("runs", "08_cache_disabled.json")])
    for t in ("128", "512", "1024"):
        s.lesson_run(f"08_block{t}", "08_driver_api_saxpy", "--skip-cpu", "--block", t)
    s.lesson_run("08_2e24", "08_driver_api_saxpy", "-l", "16777216", "--skip-cpu")    # 08: the one-pass text by size
    s.lesson_run("08_2e26", "08_driver_api_saxpy", "-l", "67108864", "--skip-cpu")    # 08 section 13 (cublasSaxpy); workshop
    s.lesson_run("08_2e28", "08_driver_api_saxpy", "-l", "268435456", "--skip-cpu")   # 08 sections 7, 13


RUNS = {"01": runs_01, "02": runs_02, "03": runs_03, "04": runs_04, "05": runs_05, "06": runs_06, "07": runs_07,
        "08": runs_08}


def part_tests(s):
    log = s.path("tests.log")
    s.step("tests", log, ["env", "COURSE_REQUIRE_GPU=1", "ctest", "--preset", "gpu", "-j", str(os.cpu_count() or 1),
                          "-E", r"^docs\.commands\..*\.quick$"])
    wanted = re.compile(r"tests passed|Label|^ *(cpu|gpu|smoke|sanitizer) *=|Skipped|Failed|Not Run")
    if os.path.isfile(log):
        with open(log, encoding="utf-8", errors="replace") as file:
            for text in file:
                if wanted.search(text):
                    print(text, end="")


def part_course(s):
    """Every lesson at its default size, and the summary table."""
    folder = s.path("course")
    os.makedirs(folder, exist_ok=True)
    run_course = os.path.join(folder, "run_course.txt")

    def note(text):
        with open(run_course, "a", encoding="utf-8") as file:
            file.write(text + "\n")

    note(f"== {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M:%S')} UTC")
    missing = []
    for directory in sorted(glob.glob(os.path.join(ROOT, "[0-9][0-9]_*/"))):
        lesson = os.path.basename(os.path.dirname(directory))
        if not s.lesson_wanted(lesson[:2]):
            continue
        if not s.have(lesson):
            missing += ["--missing", f"{lesson}=not built"]
            continue
        json_path = os.path.join(folder, f"{lesson}.json")
        log = os.path.join(folder, f"{lesson}.log")
        if os.path.lexists(json_path) and not os.path.isdir(json_path):
            os.remove(json_path)
        s.step(f"course/{lesson}", log, [s.program(lesson), "--json", json_path])
        if s.last_rc == "skipped":
            continue
        note(f"== {lesson} exit {s.last_rc}, {s.last_seconds} s")
        if non_empty(json_path):
            s.course_made.add(lesson)
        else:
            missing += ["--missing", f"{lesson}=exit {s.last_rc}: {last_line(log)}"]
    jsons = sorted(glob.glob(os.path.join(folder, "[0-9][0-9]_*.json")))  # the lessons' own, not summary.json
    if s.have("course_summary") and jsons + missing:
        # summary.json: the table's lines as JSON (the CPU rows each column comes from, the cells as
        # printed), which scripts/check_doc_figures.py holds a quoted course table against.
        summary = os.path.join(folder, "summary.txt")
        s.step("course_summary", summary, [s.program("course_summary"), "--json", os.path.join(folder, "summary.json"),
                                           *jsons, *missing], always=True)
        print_file(summary)


def last_line(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            lines = file.read().splitlines()
    except OSError:
        return ""
    return lines[-1] if lines else ""


def print_file(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            sys.stdout.write(file.read())
    except OSError:
        pass


def part_sweeps(s):
    """Lessons 01 and 02 at 4,096 to 2^28 elements, one run per size."""
    for lesson in ("01_vector_exp", "02_elementwise_add"):
        if not s.lesson_wanted(lesson[:2]) or not s.have(lesson):
            continue
        folder = s.path(f"sweep_{lesson}")
        os.makedirs(folder, exist_ok=True)
        sizes = "4096 16384 65536 262144 1048576 4194304 16777216"
        # A size that runs/ measured with this very command (-l N is --size N) is copied.
        for size, name in (("67108864", "2e26"), ("268435456", "2e28")):
            run = f"{lesson[:2]}_{name}"
            if run in s.runs_made:
                shutil.copyfile(s.path("runs", f"{run}.json"), os.path.join(folder, f"{lesson}_{size}.json"))
                shutil.copyfile(s.path("runs", f"{run}.txt"), os.path.join(folder, f"{lesson}_{size}.log"))
                print(f"== sweep_{lesson}, {size}: runs/{run} of this session (the same command), copied")
            else:
                sizes += f" {size}"
        s.step(f"sweep_{lesson}", os.path.join(folder, "sweep.txt"),
               [os.path.join(ROOT, "scripts", "sweep.sh"), "--lesson", lesson, "--sizes", sizes, "--out", folder,
                "--bin", s.bin, "--no-plot"])


def part_ncu(s):
    """What limits lesson 04's two fastest kernels."""
    if not on_path("ncu"):
        print("== ncu: left out (ncu, Nsight Compute, is not on PATH)")
        s.record("ncu", "-", "left out", "ncu is not on PATH")
        return
    if not s.have("04_shared_matmul"):
        return
    folder = s.path("ncu")
    os.makedirs(folder, exist_ok=True)
    for kernel in ("cp_async", "stream_k"):
        # One launch each (the first, the verified one), every section, ncu's default locked clocks.
        report = os.path.join(folder, f"ncu_{kernel}")
        s.step(f"ncu_{kernel}", f"{report}.log",
               ["ncu", "--set", "full", "-k", f"regex:{kernel}_kernel", "-c", "1", "-f", "-o", report,
                s.program("04_shared_matmul"), "-n", "4096", "--skip-cpu", "--kernel", kernel, "--reps", "1",
                "--warmup", "0"])
        if non_empty(f"{report}.ncu-rep"):
            s.step(f"ncu_{kernel}_details", f"{report}.txt", ["ncu", "--import", f"{report}.ncu-rep", "--page", "details"],
                   always=True)


def exercise_rows():
    """(lesson number, name) of every exercise in scripts/exercises.txt, in its order."""
    rows = []
    with open(os.path.join(ROOT, "scripts", "exercises.txt"), encoding="utf-8") as file:
        for text in file:
            words = text.split()
            if words and not words[0].startswith("#"):
                rows.append((words[0][:2], words[1]))
    return rows


def part_exercises(s):
    """Every exercise as a student checks it: the starter as shipped must FAIL (exit 1), the
    solution must PASS (exit 0); summary.txt has the line each printed."""
    folder = s.path("exercises")
    os.makedirs(folder, exist_ok=True)
    summary = os.path.join(folder, "summary.txt")
    open(summary, "w", encoding="utf-8").close()
    environment = dict(os.environ, COURSE_BUILD_DIR=os.path.dirname(s.bin))
    script = os.path.join(ROOT, "scripts", "check_exercise.sh")
    for lesson, name in exercise_rows():
        if not s.lesson_wanted(lesson):
            continue
        for variant, flags, expected in (("starter", [], 1), ("solution", ["--solution"], 0)):
            log = os.path.join(folder, f"ex{lesson}_{name}_{variant}.txt")

            def check(output, flags=flags, expected=expected, variant=variant):
                started = time.monotonic()
                rc = run_logged([script, lesson, name, *flags], output, env=environment)
                output.flush()
                with open(log, encoding="utf-8", errors="replace") as file:
                    verdict = [text.strip() for text in file if text.startswith(("PASS", "FAIL", "NEEDS"))]
                with open(summary, "a", encoding="utf-8") as file:
                    file.write(f"{lesson} {name} {variant}: exit {rc}, {round(time.monotonic() - started)} s: "
                               f"{verdict[-1] if verdict else '(no verdict line)'}\n")
                return 0 if rc == expected else 1
            s.step(f"exercises/{lesson}_{name}_{variant}", log, check,
                   shown=["check_exercise.sh", lesson, name, *flags])
    print_file(summary)


def plot_python():
    """A Python interpreter that has matplotlib (the first python3 on PATH may be a private one
    without it), or None."""
    for candidate in (shutil.which("python3"), "/usr/bin/python3"):
        if not candidate:
            continue
        try:
            found = subprocess.run([candidate, "-c", "import matplotlib"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, check=False).returncode == 0
        except OSError:
            found = False
        if found:
            return candidate
    return None


def part_plots(s):
    """Every figure of docs/images, under the same name."""
    python = plot_python()
    if not python:
        print("== plots: no Python with matplotlib (install python3-matplotlib)")
        s.failed.append("plots")
        s.status = 1
        return
    plots = s.path("plots")
    os.makedirs(plots, exist_ok=True)

    def plot_from(folder, *sources):
        """plot.py on the sources that exist, into plots/FOLDER."""
        existing = [source for source in sources if os.path.lexists(source)]
        if existing:
            s.step(f"plots/{folder}", os.path.join(plots, f"{folder}.txt"),
                   [python, os.path.join(ROOT, "scripts", "plot.py"), *existing, "--out", os.path.join(plots, folder)],
                   always=True)

    def figure(name, source):
        """The figure docs/images/NAME is SOURCE (a file plot_from drew), copied as NAME."""
        if os.path.isfile(os.path.join(plots, source)):
            shutil.copyfile(os.path.join(plots, source), os.path.join(plots, name))

    runs = s.path("runs")
    plot_from("from_runs", *(os.path.join(runs, f"{name}.json") for name in (
        "01_2e28", "02_2e28", "02_2e26_sweep", "03_default", "04_sweep", "05_perf", "06_pictures", "06_wrap",
        "06_crossover_cpu")))
    plot_from("from_03_compute_bound", os.path.join(runs, "03_compute_bound.json"))
    plot_from("from_06_4096", os.path.join(runs, "06_crossover_4096.json"))
    plot_from("from_sweeps", s.path("sweep_01_vector_exp"), s.path("sweep_02_elementwise_add"))
    for name in ("01_vector_exp_times", "02_elementwise_add_times", "02_elementwise_add_launch_sweep",
                 "03_streams_times", "03_streams_timeline", "04_shared_matmul_size_sweep",
                 "05_mandelbrot_blocks_sweep", "06_fft_convolve_side_by_side", "06_fft_convolve_naive_wrap_box_31",
                 "06_fft_convolve_crossover"):
        figure(f"{name}.png", f"from_runs/{name}.png")
    figure("03_streams_timeline_intensity2000.png", "from_03_compute_bound/03_streams_timeline.png")
    figure("06_fft_convolve_crossover_4096.png", "from_06_4096/06_fft_convolve_crossover.png")
    figure("01_vector_exp_throughput.png", "from_sweeps/01_vector_exp_throughput.png")
    figure("02_elementwise_add_throughput.png", "from_sweeps/02_elementwise_add_throughput.png")
    for picture, name in (("classic", "05_mandelbrot_classic"), ("deep", "05_mandelbrot_deep_zoom")):
        source = os.path.join(runs, f"05_{picture}.png")
        if os.path.isfile(source):
            s.step(f"plots/{name}", os.path.join(plots, f"{name}.txt"),
                   [python, os.path.join(ROOT, "05_mandelbrot", "draw_counts.py"), source, "--out",
                    os.path.join(plots, f"{name}.png")], always=True)
    drawn, not_drawn = [], []
    for image in sorted(glob.glob(os.path.join(ROOT, "docs", "images", "*.png"))):
        name = os.path.basename(image)
        (drawn if os.path.isfile(os.path.join(plots, name)) else not_drawn).append(name)
    print(f"== figures of docs/images drawn in plots/: {len(drawn)} of {len(drawn) + len(not_drawn)}")
    if not_drawn:
        print(f"   not drawn (their runs are not in {s.out}): {' '.join(not_drawn)}")


def reproduce(s):
    # --- the build ---------------------------------------------------------------------------
    needs_programs = any(s.wants(part) for part in ("tests", "course", "runs", "sweeps", "ncu", "exercises"))
    if not on_path("nvcc") and os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        os.environ["PATH"] = "/usr/local/cuda/bin:" + os.environ.get("PATH", "")
    if needs_programs and not s.bin:
        build_started = time.monotonic()
        build_release()
        seconds = tenths(time.monotonic() - build_started)
        print(f"   build: {seconds} s")
        s.record("build", seconds, 0, "configure and build the release preset")
        s.bin = os.path.join(ROOT, "build", "release", "bin")
    os.makedirs(s.path("runs"), exist_ok=True)
    if needs_programs:
        with open(s.path("machine.txt"), "w", encoding="utf-8") as output:
            describe_machine(s, output)
        if s.have("course_device_info"):
            s.step("device_info", s.path("runs", "device_info.txt"), [s.program("course_device_info")], always=True)
            print_file(s.path("runs", "device_info.txt"))
    if s.wants("tests"):
        part_tests(s)
    if s.wants("course"):
        part_course(s)
    if s.wants("runs"):
        for lesson, runs in RUNS.items():
            if s.lesson_wanted(lesson):
                runs(s)
    if s.wants("sweeps"):
        part_sweeps(s)
    if s.wants("ncu") and s.lesson_wanted("04"):
        part_ncu(s)
    if s.wants("exercises"):
        part_exercises(s)
    if s.wants("plots"):
        part_plots(s)
    timings = s.timings[len(ROOT) + 1:] if s.timings.startswith(ROOT + "/") else s.timings
    print(f"== {tenths(time.monotonic() - s.started)} s in all; every step's seconds in {timings}")
    if s.failed:
        print(f"== failed: {' '.join(s.failed)}")
    if s.skipped:
        print(f"== skipped: {' '.join(s.skipped)}")
    print(f"== results in {s.out}")
    return s.status


def main(arguments):
    sys.stdout.reconfigure(line_buffering=True)  # each line before the step's own output
    options = parse_command_line(arguments)
    os.chdir(ROOT)  # presets are found in the checkout, as scripts/setup.sh does
    session = None
    try:
        session = Session(options)
        return reproduce(session)
    except OSError as error:  # a copy or a write between steps, or standard output: one line
        if error.filename is None:
            sys.stdout = open(os.devnull, "w")  # nothing more to flush into the broken stream at exit
        where = error.filename or "standard output"
        say(f"{PROG}: error: cannot write to {where}: {error.strerror or error}")
        return 1
    except KeyboardInterrupt:
        say(f"{PROG}: interrupted")
        return 130
    finally:
        if session is not None:
            shutil.rmtree(session.work_folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
