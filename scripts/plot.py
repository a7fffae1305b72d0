#!/usr/bin/env python3
"""Draws the course's plots from the JSON files the lessons write (--json). Plots only.

Usage: plot.py RESULT.json|RESULT.json.gz|FOLDER... --out FOLDER

A results file may be gzipped (docs/data keeps its runs' JSON so); a folder gives its *.json files
and its *.json.gz files (a gzipped one only where its plain X.json is not there too).

For each lesson found it writes, as the data allow:
  <lesson>_times.png         median time of every variant that ran (the largest size), CPU vs GPU
  <lesson>_throughput.png    throughput against size, one line per variant, with the ceiling
                             measured in the same runs as a dashed line (needs two sizes or more)
  <lesson>_<name>_sweep.png  each sweep a run made (--sweep NAME, the JSON's "sweeps"):
                             throughput against the sweep's axis, one line per variant (one
                             colour per variant, one line style per group: FP32, FP64), with
                             the points' ceiling as a dashed line (the largest run that has it);
                             e.g. 02_elementwise_add_launch_sweep.png, bandwidth against threads
                             per block, one line per grid size; 04_shared_matmul_size_sweep.png,
                             GFLOP/s against M = N = K; 05_mandelbrot_blocks_sweep.png
  and whatever the lesson's own plot modules draw (LESSON_PLOT_MODULES below: a fixed list, so a
  results file, which is data passed around, never chooses what code runs), each with a
  function plot(reports, out_dir, course) that returns the paths it wrote (course is this
  module, for provenance() and ran()); e.g. 03_streams/plot_timeline.py draws
  03_streams_timeline.png, a Gantt chart of copies and kernels per stream (extra.timeline).
Every plot is labelled with the GPU, CUDA version and date recorded in the JSON.

Run it with any python3: if that one lacks matplotlib, the script starts itself again with one
that has it (another python3 on PATH, or /usr/bin/python3, where Debian's python3-matplotlib is).
Every field of a results file is data: the lesson's name is checked (it names the PNG files) and
only used to look the lesson up; a field of the wrong type is one line naming the file and field.
Exit codes: 0 plots written, 2 bad command line (an --out that is not a writable folder, a results
file or folder named that is missing or cannot be read, a FIFO or a device: as a lesson's input
file) or no course results given, 3 a file read that is not a regular file (in a folder given), is
not JSON or lacks a field, a plot cannot be drawn, or no Python with matplotlib was found. Every
error is one line.
"""
import argparse
import importlib.util
import json
import math
import os
import re
import stat
import subprocess
import sys
import tempfile
import zlib
from collections import defaultdict
from pathlib import Path


def python_with_matplotlib():
    """Another interpreter that can import matplotlib, or None (standard library only)."""
    candidates = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidates.append(os.path.join(folder or ".", "python3"))
    candidates.append("/usr/bin/python3")
    seen = set()
    for candidate in candidates:
        if candidate in seen or not os.access(candidate, os.X_OK) or os.path.isdir(candidate):
            continue
        seen.add(candidate)
        probe = subprocess.run([candidate, "-c", "import matplotlib"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=False)
        if probe.returncode == 0:
            return candidate
    return None


# The course draws into files with Agg whatever the environment says: a bogus MPLBACKEND would
# make the import itself fail with a traceback.
os.environ.pop("MPLBACKEND", None)
try:
    import matplotlib
except ImportError:
    # The first python3 on PATH may be a private one (pyenv, a venv) without matplotlib.
    if os.environ.get("COURSE_PLOT_REEXEC"):
        print("plot.py: error: the interpreter chosen has no matplotlib either", file=sys.stderr)
        sys.exit(3)
    other = python_with_matplotlib()
    if other is None:
        print("plot.py: error: no python3 with matplotlib found (install python3-matplotlib)", file=sys.stderr)
        sys.exit(3)
    os.environ["COURSE_PLOT_REEXEC"] = "1"  # never loop
    os.execv(other, [other, os.path.abspath(__file__)] + sys.argv[1:])

matplotlib.use("Agg")  # files only, no display needed
# Text from a results file is drawn as written: "$...$" in a variant name is not TeX to parse.
matplotlib.rcParams["text.parse_math"] = False
import matplotlib.figure  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402


def _with_tick_math(method):
    """A Figure method (savefig, tight_layout) that first gives matplotlib's own tick labels
    their math parser back.

    A log axis labels its ticks "$\\mathdefault{2^{13}}$", which needs the parser that the line
    above turns off for text from results files. Every figure, the lessons' plot modules' too,
    is laid out and written through here: tick labels made while drawing get the parser, and
    those made earlier get it back if they are such labels; titles and legends (text from the
    files) keep it off.
    """
    def wrapped(figure, *args, **kwargs):
        with matplotlib.rc_context({"text.parse_math": True}):
            figure.canvas.draw()
            for axes in figure.axes:
                for label in axes.get_xticklabels(which="both") + axes.get_yticklabels(which="both"):
                    if label.get_text().startswith("$\\mathdefault{"):
                        label.set_parse_math(True)
            return method(figure, *args, **kwargs)
    return wrapped


matplotlib.figure.Figure.savefig = _with_tick_math(matplotlib.figure.Figure.savefig)
matplotlib.figure.Figure.tight_layout = _with_tick_math(matplotlib.figure.Figure.tight_layout)

CPU_COLOR, GPU_COLOR = "#4c72b0", "#55a868"


class InputError(Exception):
    """A result file that cannot be used: one line, exit code 3."""


class UsageError(Exception):
    """A bad command line: one line, exit code 2."""


MAX_RESULT_BYTES = 64 << 20  # a lesson's JSON is a few hundred KiB at most

# A lesson's name as the lessons write it; it becomes part of the PNG files' names.
LESSON_NAME = re.compile(r"[0-9]{2}_[a-z0-9_]{1,60}")
SWEEP_NAME = re.compile(r"[A-Za-z0-9_-]{1,60}")


def read_regular_file(file, named):
    """The bytes of `file`, refused unread if it is not a regular file (a FIFO would block the
    read for ever, /dev/zero never ends), and read with a bound. A file that cannot be read is a
    bad command line (UsageError) where the command line `named` it, else an InputError."""
    unreadable = UsageError if named else InputError
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then says what it is.
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise unreadable(f"{file} does not exist")
    except OSError as error:
        raise unreadable(f"cannot read {str(file)[:200]}: {error.strerror}")
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise unreadable(f"{file} is not a regular file (a FIFO, a device or a socket)")
        os.set_blocking(fd, True)
        try:
            data = handle.read(MAX_RESULT_BYTES + 1)
        except OSError as error:
            raise unreadable(f"cannot read {file}: {error.strerror}")
    if len(data) > MAX_RESULT_BYTES:
        raise InputError(f"{file} is larger than {MAX_RESULT_BYTES >> 20} MiB: not a lesson's results")
    return data


# Where plot.py may read pictures a results file names (lesson 06's extra.images): the folders
# of the results given and --out, resolved; set by main(). A results file never chooses a path
# outside them, and never a FIFO, a device or an oversized file.
ALLOWED_ROOTS = []
OUT_FOLDER = []  # --out, for an error that names no file
MAX_PICTURE_BYTES = 64 << 20
PICTURE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,120}\.png")


def image_path(folder, file):
    """The picture `file` in `folder`, as a results file names them, checked: a plain PNG name, a
    folder without '..' inside a results folder or --out, a regular file of at most 64 MiB.
    None if it does not exist; InputError for anything else."""
    if not isinstance(folder, str) or not isinstance(file, str) or not PICTURE_NAME.fullmatch(file):
        raise InputError(f"a results file names a picture {file!r}: not a plain PNG file name")
    if not folder or ".." in Path(folder).parts or "\0" in folder:
        raise InputError(f"a results file names the picture folder {folder!r}: refused (empty or with '..')")
    resolved = Path(folder).resolve()
    if not any(resolved == root or root in resolved.parents for root in ALLOWED_ROOTS):
        raise InputError(f"a results file names the picture folder {folder}: outside the results' folders and --out")
    path = resolved / file
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path} is not a regular file (a link, FIFO, device or folder)")
    if info.st_size > MAX_PICTURE_BYTES:
        raise InputError(f"{path} is larger than {MAX_PICTURE_BYTES >> 20} MiB: not a lesson's picture")
    return path


def gunzipped(data, file):
    """`data` itself, or its content where it is gzip (its first two bytes 1f 8b), read with the
    same bound as a plain results file: a small file that would unpack to gigabytes is refused
    after MAX_RESULT_BYTES."""
    if data[:2] != b"\x1f\x8b":
        return data
    unpacker = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        content = unpacker.decompress(data, MAX_RESULT_BYTES + 1)
    except zlib.error as error:
        raise InputError(f"{file} is not valid gzip: {error}")
    if len(content) > MAX_RESULT_BYTES or unpacker.unconsumed_tail:
        raise InputError(f"{file} unpacks to more than {MAX_RESULT_BYTES >> 20} MiB: not a lesson's results")
    if not unpacker.eof:
        raise InputError(f"{file} is not valid gzip: it ends before its last block")
    return content


def safe_name_part(text, limit=40):
    """A piece of a PNG's name from a results file's text: letters, digits and '_' only."""
    return re.sub(r"[^A-Za-z0-9]+", "_", str(text)).strip("_")[:limit]


def reject_constant(name):
    """NaN, Infinity and -Infinity are not JSON (the lessons write null for a missing number)."""
    raise ValueError(f"{name} is not a JSON value")


def is_folder(path):
    """Whether `path` is a folder; False for a name that cannot be looked up (too long, a loop):
    reading it then says why."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def load_reports(paths):
    reports = []
    for path in paths:
        if not path:
            raise UsageError("a results path is empty")
        path = Path(path)
        folder = is_folder(path)
        try:
            plain = set(path.glob("*.json")) if folder else set()
            packed = {file for file in path.glob("*.json.gz") if file.with_suffix("") not in plain} if folder else set()
            files = sorted(plain | packed) if folder else [path]  # X.json.gz only where X.json is not there
        except OSError as error:
            raise UsageError(f"cannot list {path}: {error.strerror}")
        for file in files:
            data = gunzipped(read_regular_file(file, named=not folder), file)
            try:
                report = json.loads(data, parse_constant=reject_constant)
            except RecursionError:
                raise InputError(f"{file} is nested too deeply to be a lesson's results")
            except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
                raise InputError(f"{file} is not valid JSON: {one_line(error)}")
            if isinstance(report, dict) and str(report.get("schema", "")).startswith("cuda-course-report/"):
                check_report(report, file)
                reports.append(report)
    return reports


def one_line(error):
    return " ".join(str(error).split())[:300]


# What the drawing code reads from every report, by JSON pointer, with the type it must have.
# A lesson's own plot module reads its extra fields itself; its errors are caught around it.
def check_report(report, file):
    def wrong(pointer, expected):
        raise InputError(f"{file} lacks a field or has a wrong one: {pointer} is missing or not {expected}")

    def get(value, pointer, kinds, expected):
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
            wrong(pointer, expected)
        if isinstance(value, float) and not math.isfinite(value):
            wrong(pointer, "a finite number")
        return value

    number = (int, float)
    text = str
    lesson = get(report.get("lesson"), "/lesson", text, "a string")
    if not LESSON_NAME.fullmatch(lesson):
        raise InputError(f"{file}: the field /lesson is not a lesson's name (such as 01_vector_exp): {lesson[:80]!r}")
    get(report.get("date"), "/date", text, "a string")
    for key in ("throughput_unit",):
        get(report.get(key), "/" + key, text, "a string")
    get(report.get("extra", {}), "/extra", dict, "an object")
    size = get(report.get("size"), "/size", dict, "an object")
    get(size.get("name"), "/size/name", text, "a string")
    get(size.get("value"), "/size/value", int, "a whole number")
    dims = get(size.get("dims", {}), "/size/dims", dict, "an object")
    for name, value in dims.items():
        get(value, f"/size/dims/{name}", int, "a whole number")
    gpu = get(report.get("gpu"), "/gpu", dict, "an object")
    for key in ("name", "runtime_cuda_version"):
        get(gpu.get(key), f"/gpu/{key}", (str, type(None)), "a string or null")
    host = report.get("host")
    if host:
        get(host, "/host", dict, "an object")
        get(host.get("cpu"), "/host/cpu", text, "a string")
        get(host.get("logical_cpus"), "/host/logical_cpus", int, "a whole number")
    # A sweep's name becomes part of a PNG's name, like the lesson's.
    for i, sweep in enumerate(get(report.get("sweeps", []), "/sweeps", list, "a list")):
        get(sweep, f"/sweeps/{i}", dict, "an object")
        name = get(sweep.get("name"), f"/sweeps/{i}/name", text, "a string")
        if not SWEEP_NAME.fullmatch(name):
            raise InputError(f"{file}: the field /sweeps/{i}/name is not a sweep's name (letters, digits, _ and -): "
                             f"{name[:80]!r}")
    for i, ceiling in enumerate(get(report.get("ceilings"), "/ceilings", list, "a list")):
        where = f"/ceilings/{i}"
        get(ceiling, where, dict, "an object")
        get(ceiling.get("name"), where + "/name", text, "a string")
        get(ceiling.get("unit"), where + "/unit", text, "a string")
        get(ceiling.get("value"), where + "/value", number, "a number")
    for i, row in enumerate(get(report.get("rows"), "/rows", list, "a list")):
        where = f"/rows/{i}"
        get(row, where, dict, "an object")
        for key in ("variant", "target", "role", "status"):
            get(row.get(key), f"{where}/{key}", text, "a string")
        if row.get("unit") is not None:
            get(row["unit"], where + "/unit", text, "a string")
        get(row.get("throughput"), where + "/throughput", (int, float, type(None)), "a number or null")
        time_ms = get(row.get("time_ms"), where + "/time_ms", (dict, type(None)), "an object or null")
        if time_ms is not None:
            median = get(time_ms.get("median"), where + "/time_ms/median", number, "a number")
            if median <= 0:
                wrong(where + "/time_ms/median", "a positive number")


def check_out_folder(out):
    """--out must be a folder in which files can be created: checked before anything is drawn."""
    if not out:
        raise UsageError("--out: the folder name is empty")
    folder = Path(out)
    try:
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"--out {out} is not a folder")
        folder.mkdir(parents=True, exist_ok=True)
        descriptor, probe = tempfile.mkstemp(dir=folder, prefix=".plot-probe-")
        os.close(descriptor)
        os.unlink(probe)
    except OSError as error:
        raise UsageError(f"--out {out[:200]}: cannot create files there: {error.strerror}")
    return folder


def provenance(report):
    gpu = report["gpu"]
    device = gpu["name"] or "no GPU"
    cuda = f", CUDA {gpu['runtime_cuda_version']}" if gpu["runtime_cuda_version"] else ""
    host = report.get("host")  # absent in reports written before the host was recorded
    host = f"\nhost: {host['cpu']} ({host['logical_cpus']} CPUs)" if host else ""
    return f"{device}{cuda}, {report['date'][:10]}{host}"


def ran(row):
    return row["status"] == "ok" and row["time_ms"] is not None


def plot_times(report, out_dir):
    rows = [row for row in report["rows"] if ran(row)]
    if not rows:
        return None
    figure, axes = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.6))
    names = [row["variant"] for row in rows]
    times = [row["time_ms"]["median"] for row in rows]
    colors = [CPU_COLOR if row["target"] == "cpu" else GPU_COLOR for row in rows]
    axes.barh(names, times, color=colors)
    axes.invert_yaxis()
    axes.set_xscale("log")
    axes.set_xlabel("median time (ms, log scale)")
    for y, value in enumerate(times):
        axes.text(value, y, f" {value:.3g} ms", va="center", fontsize=8)
    axes.set_xlim(min(times) / 2, max(times) * 8)  # room for the labels
    size = report["size"]
    axes.set_title(f"{report['lesson']}: {size['name']} = {size['value']:,}\n{provenance(report)}", fontsize=10)
    axes.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=CPU_COLOR), plt.Rectangle((0, 0), 1, 1, color=GPU_COLOR)],
                labels=["CPU", "GPU"], loc="best", fontsize=8)
    figure.tight_layout()
    path = out_dir / f"{report['lesson']}_times.png"
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def plot_throughput(reports, out_dir):
    reports = sorted(reports, key=lambda r: r["size"]["value"])
    if len({r["size"]["value"] for r in reports}) < 2:
        return None
    unit = next((row.get("unit") for r in reports for row in r["rows"] if ran(row) and row.get("unit")),
                reports[0]["throughput_unit"])
    series = defaultdict(list)
    ceilings = defaultdict(list)
    for report in reports:
        size = report["size"]["value"]
        for row in report["rows"]:
            if (ran(row) and row["throughput"] is not None and row["role"] != "gpu_end_to_end"
                    and row.get("unit", unit) == unit):
                series[(row["target"], row["variant"])].append((size, row["throughput"]))
        for ceiling in report["ceilings"]:
            if ceiling["unit"] == unit:
                ceilings[ceiling["name"]].append((size, ceiling["value"]))
    figure, axes = plt.subplots(figsize=(9, 5.5))
    for (target, variant), points in sorted(series.items()):
        xs, ys = zip(*points)
        axes.plot(xs, ys, marker="o", linestyle="-" if target == "gpu" else ":", label=variant)
    for name, points in ceilings.items():
        xs, ys = zip(*points)
        axes.plot(xs, ys, color="black", linestyle="--", linewidth=1.5, label=f"ceiling: {name} (same run)")
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    # A lesson with several dimensions (m, n, k) is swept along its --size shortcut: name them all.
    dims = reports[0]["size"].get("dims") or {reports[0]["size"]["name"]: reports[0]["size"]["value"]}
    axes.set_xlabel(f"{' = '.join(dims) if len(dims) > 1 else reports[0]['size']['name']} (log scale)")
    axes.set_ylabel(f"throughput ({unit}, log scale)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7, loc="best")
    axes.set_title(f"{reports[0]['lesson']}: throughput against size\n{provenance(reports[-1])}", fontsize=10)
    figure.tight_layout()
    path = out_dir / f"{reports[0]['lesson']}_throughput.png"
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def sweeps_of(report):
    """The report's sweeps. Reports written before sweeps were part of the report (docs/data holds
    such runs) kept them in extra: lesson 02's launch sweep (extra.launch_sweep), lesson 04's size
    sweep (extra.sweep) and lesson 05's block sweep (extra.block_sweep); each is read as the same
    shape, under the name its flag has now (--sweep launch, size, blocks)."""
    if "sweeps" in report:
        return report["sweeps"]
    extra = report.get("extra") or {}
    unit = report["throughput_unit"]
    if extra.get("launch_sweep"):
        old = extra["launch_sweep"]
        points = [{"value": p["block"], "variant": p["grid"], "group": "", "status": "ok", "throughput": p["throughput"],
                   "ceiling": "d2d_copy"} for p in old["points"]]
        return [{"name": "launch", "axis": "threads per block",
                 "title": f"{old['kernel']} at every block size and grid size", "unit": unit, "status": "ok",
                 "points": points}]
    if report.get("lesson") == "04_shared_matmul" and isinstance(extra.get("sweep"), list):
        points = [{"value": p["size"], "group": "", "status": "ok", "throughput": p["gflops"], "ceiling": "fp32_fma",
                   "variant": "GPU cuBLAS SGEMM (FP32, TF32 off)" if p["kernel"] == "cublas" else f"GPU {p['kernel']}"}
                  for p in extra["sweep"] if p["verified"]]
        return [{"name": "size", "axis": "M = N = K", "title": "cuBLAS and the kernels at square sizes",
                 "unit": unit, "status": "ok", "points": points}]
    if isinstance(extra.get("block_sweep"), dict):
        points = []
        for group, old in sorted(extra["block_sweep"].items()):
            for p in old:
                width, height = (int(v) for v in p["block"].split("x"))
                grid = f", the classic's grid of {p['grid']} blocks" if p["fixed_grid"] else ""
                points.append({"value": width, "variant": f"{width * height} threads per block{grid}", "group": group,
                               "status": "ok" if p["passed"] else "failed",
                               "throughput": p["pixel_iterations_per_s"] / 1e9,
                               "ceiling": f"{group.lower()}_fma_fast"})
        return [{"name": "blocks", "axis": "block width (threads in x)",
                 "title": "mandel_fast at 11 block shapes and the classic's fixed grid", "unit": unit, "status": "ok",
                 "points": points}]
    return []


def plot_sweep(reports, name, out_dir):
    """One sweep (the JSON's "sweeps" entry called `name`) from the largest run that made it."""
    def points_of(report):
        sweep = next((s for s in sweeps_of(report) if s["name"] == name and s["status"] == "ok"), None)
        return sweep, [p for p in (sweep["points"] if sweep else []) if p["status"] == "ok" and p["throughput"]]
    with_points = [r for r in reports if points_of(r)[1]]
    if not with_points:
        return None
    report = max(with_points, key=lambda r: r["size"]["value"])
    sweep, points = points_of(report)
    series = defaultdict(list)
    for point in points:
        series[(point["group"], point["variant"])].append((point["value"], point["throughput"]))
    # One colour per variant, one line style per group (FP32 solid, FP64 dashed): a variant run in
    # two precisions reads as a pair.
    groups = list(dict.fromkeys(group for group, _ in series))
    variants = list(dict.fromkeys(variant for _, variant in series))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    crowded = len(series) > 8  # the legend goes beside the axes, not over the points
    figure, axes = plt.subplots(figsize=(13, 5.5) if crowded else (9, 5.5))
    for (group, variant), values in series.items():
        xs, ys = zip(*sorted(values))
        axes.plot(xs, ys, marker="o", color=colors[variants.index(variant) % len(colors)],
                  linestyle=("-", "--", ":", "-.")[groups.index(group) % 4],
                  label=f"{group}: {variant}" if group else variant)
    ceiling_names = {point["ceiling"] for point in points if point["ceiling"]}
    for ceiling in report["ceilings"]:
        if ceiling["name"] in ceiling_names and ceiling["unit"] == sweep["unit"]:
            axes.axhline(ceiling["value"], color="black", linestyle="--", linewidth=1.5, alpha=0.6,
                         label=f"ceiling: {ceiling['name']} (same run)")
    values = [point["value"] for point in points]
    if min(values) > 0 and max(values) >= 8 * min(values):
        axes.set_xscale("log", base=2)
        ticks = sorted(set(values))
        axes.set_xticks(ticks, [f"{value:,}" for value in ticks])  # the values swept, not powers of 2
        axes.minorticks_off()
    axes.set_xlabel(sweep["axis"])
    axes.set_ylabel(f"throughput ({sweep['unit']})")
    axes.set_ylim(bottom=0)
    axes.grid(True, alpha=0.3)
    if crowded:
        axes.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    else:
        axes.legend(fontsize=8)
    size = report["size"]
    title = f": {sweep['title']}" if sweep["title"] else ""
    axes.set_title(f"{report['lesson']}, sweep {name}{title}, {size['name']} = {size['value']:,}\n"
                   f"{provenance(report)}", fontsize=10)
    figure.tight_layout()
    path = out_dir / f"{report['lesson']}_{name}_sweep.png"
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


COURSE_ROOT = Path(__file__).resolve().parent.parent

# The lessons' own plot modules, by lesson: <lesson folder>/<module>.py. A fixed list: a results
# file names its lesson, and that name is only looked up here, never used as a path or module name.
LESSON_PLOT_MODULES = {
    "03_streams": ("plot_timeline",),
    "06_fft_convolve": ("plot_fft_convolve",),
}


def lesson_plot_modules(lesson):
    """The lesson's own plot modules (LESSON_PLOT_MODULES), loaded from the course's folders."""
    modules = []
    for name in LESSON_PLOT_MODULES.get(lesson, ()):
        file = COURSE_ROOT / lesson / f"{name}.py"
        spec = importlib.util.spec_from_file_location(f"course_plot_{lesson}_{name}", file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append((name, module))
    return modules


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # one line, as everywhere in the course (argparse prints the usage too)
        raise UsageError(f"{message} (see --help)")


def main():
    parser = ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="JSON files or folders of them")
    parser.add_argument("--out", required=True, help="folder for the PNG files")
    args = parser.parse_args()

    out_dir = check_out_folder(args.out)
    OUT_FOLDER[:] = [str(out_dir)]
    ALLOWED_ROOTS.append(out_dir.resolve())
    for given in args.results:
        if given:
            folder = Path(given) if is_folder(given) else Path(given).parent
            ALLOWED_ROOTS.append(folder.resolve())
    reports = load_reports(args.results)
    if not reports:
        raise UsageError("no course results found in " + " ".join(args.results))
    written = [path for path in draw(reports, out_dir) if path]
    if not written:
        raise InputError("nothing to draw: no row or sweep of these results ran (" + " ".join(args.results) + ")")
    try:
        for path in written:
            print(f"wrote {path}")
        sys.stdout.flush()
    except OSError as error:  # the PNGs are written; the list of them is lost
        sys.stdout = open(os.devnull, "w")  # nothing more to flush into the broken stream at exit
        raise InputError(f"cannot write the list of plots to standard output: {error.strerror or error}")
    return 0


def draw(reports, out_dir):
    by_lesson = defaultdict(list)
    for report in reports:
        by_lesson[report["lesson"]].append(report)
    written = []
    for lesson, lesson_reports in sorted(by_lesson.items()):
        largest = max(lesson_reports, key=lambda r: r["size"]["value"])
        try:
            written.append(plot_times(largest, out_dir))
            written.append(plot_throughput(lesson_reports, out_dir))
            # Reports written before sweeps were part of the report: sweeps_of reads their extra fields.
            for name in sorted({sweep["name"] for r in lesson_reports for sweep in sweeps_of(r)}):
                written.append(plot_sweep(lesson_reports, name, out_dir))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
            raise InputError(f"{lesson}: a result file lacks a field or has a wrong one ({one_line(repr(error))})")
        for name, module in lesson_plot_modules(lesson):
            try:
                written.extend(module.plot(lesson_reports, out_dir, sys.modules[__name__]) or [])
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
                raise InputError(f"{lesson}/{name}.py: a result file lacks a field or has a wrong one "
                                 f"({one_line(repr(error))})")
    return written


def run():
    """main() with every error as one line: 2 for the command line, 3 for the rest; no traceback."""
    try:
        return main()
    except UsageError as error:
        print(f"plot.py: error: {error}", file=sys.stderr)
        return 2
    except InputError as error:
        print(f"plot.py: error: {error}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("plot.py: interrupted", file=sys.stderr)
        return 130
    except OSError as error:  # a PNG that cannot be written (disk full, the folder removed meanwhile)
        # matplotlib's own writes name no file: say which folder it was writing into.
        where = error.filename or (f"a PNG in {OUT_FOLDER[0]}" if OUT_FOLDER else "a file")
        print(f"plot.py: error: {where}: {error.strerror or one_line(error)}", file=sys.stderr)
        return 3
    except Exception as error:  # noqa: BLE001 (the one place that turns any failure into one line)
        print(f"plot.py: error: unexpected {type(error).__name__}: {one_line(error)}", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(run())
