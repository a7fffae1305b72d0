#!/usr/bin/env python3
"""Draws the course's pictures of ideas (docs/images/NN_idea_*.png): boxes, arrows and labels
that show what a kernel does to its data, not results of a run.

Usage: draw_pictures.py [--out FOLDER] [--only NAME]... [--list]
  --out FOLDER  where the PNG files go (default: docs/images beside this script's folder)
  --only NAME   draw only this picture (its file name, with or without .png); may repeat
  --list        print the picture names, one a line, and draw nothing

The pictures, what each shows and its alt text are listed in docs/images/PICTURES.md; the
names are PICTURES below. The output is the same, byte for byte, on every run with the same
matplotlib (no date or version is written into the files).
Needs matplotlib only (the standard library otherwise). Run it with any python3: if that one
lacks matplotlib, the script starts itself again with one that has it (another python3 on PATH,
or /usr/bin/python3, where Debian's python3-matplotlib is).
Exit codes: 0 drawn, 2 bad command line (an unknown --only name, an --out that is not a
writable folder), 3 no Python with matplotlib found or a picture could not be written.
"""
import argparse
import os
import subprocess
import sys


def python_with_matplotlib():
    """Another interpreter that can import matplotlib, or None (standard library only)."""
    candidates = [os.path.join(folder or ".", "python3") for folder in os.environ.get("PATH", "").split(os.pathsep)]
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


try:
    import matplotlib
except ImportError:
    if os.environ.get("COURSE_PICTURES_REEXEC"):
        print("draw_pictures.py: error: the interpreter chosen has no matplotlib either", file=sys.stderr)
        sys.exit(3)
    other = python_with_matplotlib()
    if other is None:
        print("draw_pictures.py: error: no python3 with matplotlib found (install python3-matplotlib)",
              file=sys.stderr)
        sys.exit(3)
    os.environ["COURSE_PICTURES_REEXEC"] = "1"  # never loop
    os.execv(other, [other, os.path.abspath(__file__)] + sys.argv[1:])

matplotlib.use("Agg")
matplotlib.rcParams["text.parse_math"] = False  # "a*b" and "$" are plain text here
matplotlib.rcParams["font.family"] = "DejaVu Sans"  # shipped with matplotlib: the same everywhere
matplotlib.rcParams["svg.hashsalt"] = "course"
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch, Rectangle  # noqa: E402

DPI = 100
WIDTH = 12.0  # inches: 1200 px at DPI

# Okabe-Ito colours (readable with colour-blind vision), light fills for boxes.
BLUE, ORANGE, GREEN, RED, SKY, YELLOW, PURPLE, GREY = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#F0E442", "#CC79A7", "#777777")
LIGHT = {BLUE: "#cfe3f3", ORANGE: "#fbe6c2", GREEN: "#c7ece0", RED: "#f6d3bf", SKY: "#dcefFA",
         YELLOW: "#fbf7c8", PURPLE: "#f2dbe8", GREY: "#e6e6e6"}
INK = "#222222"
CODE = "DejaVu Sans Mono"


# ---------------------------------------------------------------------------- drawing helpers

def new_figure(height, xlim, ylim):
    fig = plt.figure(figsize=(WIDTH, height), dpi=DPI)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.axis("off")
    return fig, ax


def box(ax, x, y, w, h, text="", colour=BLUE, fill=None, size=11, weight="normal", font=None,
        rounded=True, text_colour=INK, lw=1.5, hatch=None, ls="-", alpha=1.0):
    """A box with its lower-left corner at (x, y) and its text centred."""
    face = LIGHT.get(colour, "white") if fill is None else fill
    if rounded:
        patch = FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=%g" % (min(w, h) * 0.12),
                               fc=face, ec=colour, lw=lw, hatch=hatch, ls=ls, alpha=alpha)
    else:
        patch = Rectangle((x, y), w, h, fc=face, ec=colour, lw=lw, hatch=hatch, ls=ls, alpha=alpha)
    ax.add_patch(patch)
    if text:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size, weight=weight,
                family=font or "DejaVu Sans", color=text_colour)
    return patch


def cell(ax, x, y, w, h, text="", fill="white", edge=INK, size=10, text_colour=INK, lw=1.0, hatch=None,
         weight="normal", font=None):
    ax.add_patch(Rectangle((x, y), w, h, fc=fill, ec=edge, lw=lw, hatch=hatch))
    if text != "":
        ax.text(x + w / 2, y + h / 2, str(text), ha="center", va="center", fontsize=size, color=text_colour,
                weight=weight, family=font or "DejaVu Sans")


def arrow(ax, start, end, colour=INK, lw=1.6, style="-|>", rad=0.0, ls="-", label=None, label_at=0.5,
          size=10, label_offset=(0, 0), mutation=14, label_colour=None, ha="center", shrink=2):
    patch = FancyArrowPatch(start, end, arrowstyle=style, mutation_scale=mutation, color=colour, lw=lw,
                            connectionstyle="arc3,rad=%g" % rad, linestyle=ls, shrinkA=shrink, shrinkB=shrink)
    ax.add_patch(patch)
    if label:
        lx = start[0] + (end[0] - start[0]) * label_at + label_offset[0]
        ly = start[1] + (end[1] - start[1]) * label_at + label_offset[1]
        ax.text(lx, ly, label, ha=ha, va="center", fontsize=size, color=label_colour or colour)
    return patch


def text(ax, x, y, words, size=11, ha="left", va="center", colour=INK, weight="normal", font=None, **kw):
    return ax.text(x, y, words, ha=ha, va=va, fontsize=size, color=colour, weight=weight,
                   family=font or "DejaVu Sans", **kw)


def title(ax, x, y, words, size=15):
    return text(ax, x, y, words, size=size, weight="bold")


def legend(ax, items, loc="lower right", size=10, ncol=1, anchor=None):
    handles = [Patch(fc=LIGHT.get(c, c) if fill is None else fill, ec=c, lw=1.5, label=label, hatch=hatch)
               for c, label, fill, hatch in ((it + (None, None))[:4] for it in items)]
    kw = {"bbox_to_anchor": anchor} if anchor else {}
    ax.legend(handles=handles, loc=loc, fontsize=size, ncol=ncol, frameon=True, framealpha=1.0,
              edgecolor="#999999", **kw)


def save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=DPI, metadata={"Software": None}, facecolor="white")
    plt.close(fig)
    return path


# ---------------------------------------------------------------------------- the pictures

def threads_blocks(out_dir, name):
    """Threads and blocks mapped onto array elements, the last block partly past n."""
    n, per_block, blocks = 14, 4, 4
    colours = [BLUE, ORANGE, GREEN, PURPLE]
    fig, ax = new_figure(5.6, (0, 120), (0, 56))
    title(ax, 2, 53, "One thread per element: i = blockIdx.x * blockDim.x + threadIdx.x")
    text(ax, 2, 48.5, "n = 14 elements, blockDim.x = 4 threads per block, gridDim.x = (14 + 4 - 1) / 4 = 4 blocks",
         size=11)
    cw, x0 = 4.9, 12
    # the threads, block by block
    for b in range(blocks):
        bx = x0 + b * per_block * cw
        box(ax, bx - 0.6, 24, per_block * cw + 1.2, 17, colour=colours[b], rounded=True, lw=2)
        text(ax, bx + per_block * cw / 2, 38.3, "block %d" % b, size=10, ha="center",
             weight="bold", colour=colours[b])
        for t in range(per_block):
            i = b * per_block + t
            past = i >= n
            cell(ax, bx + t * cw + 0.4, 27, cw - 0.8, 8, "t%d" % t, fill="white" if not past else "#eeeeee",
                 edge=colours[b] if not past else GREY, size=9, text_colour=INK if not past else GREY)
    text(ax, x0 - 1, 31, "threadIdx.x", size=10, ha="right")
    # the array
    for i in range(blocks * per_block):
        past = i >= n
        b = i // per_block
        cell(ax, x0 + i * cw, 6, cw, 7, "" if past else "x[%d]" % i,
             fill=LIGHT[colours[b]] if not past else "white", edge=INK if not past else GREY,
             size=9, hatch="//" if past else None, lw=1.0 if not past else 0.8)
        text(ax, x0 + i * cw + cw / 2, 3.2, str(i), size=9, ha="center", colour=INK if not past else RED)
        if past:
            arrow(ax, (x0 + i * cw + cw / 2, 27), (x0 + i * cw + cw / 2, 13.4), colour=RED, ls="--", lw=1.3)
        else:
            arrow(ax, (x0 + i * cw + cw / 2, 27), (x0 + i * cw + cw / 2, 13.4), colour=colours[b], lw=1.3)
    text(ax, x0 - 1, 9.5, "array x", size=10, ha="right")
    text(ax, x0 - 1, 3.2, "i", size=10, ha="right")
    text(ax, x0 - 1, 38.3, "blockIdx.x", size=10, ha="right")
    # the worked example and the bounds check
    ex = x0 + blocks * per_block * cw + 3
    box(ax, ex, 28, 120 - ex - 1.5, 14, colour=GREY, fill="white", lw=1)
    text(ax, ex + 1.5, 38.5, "Example: block 2, thread 1", size=10.5, weight="bold")
    text(ax, ex + 1.5, 34.2, "i = 2 * 4 + 1 = 9", size=10.5, font=CODE)
    text(ax, ex + 1.5, 30.4, "so it works on x[9]", size=10.5)
    box(ax, ex, 4, 120 - ex - 1.5, 20, colour=RED, fill=LIGHT[RED], lw=1.2)
    text(ax, ex + 1.5, 20.5, "Last block: partly used", size=10.5, weight="bold", colour=RED)
    text(ax, ex + 1.5, 15.8, "threads 2 and 3 of block 3 get", size=10.5)
    text(ax, ex + 1.5, 12.6, "i = 14 and 15: past the end.", size=10.5)
    text(ax, ex + 1.5, 8.0, "if (i < n) { ... }", size=11, font=CODE, weight="bold")
    text(ax, ex + 1.5, 5.0 + 0.4, "skips them: nothing is written", size=10)
    return save(fig, out_dir, name)


def grid_stride(out_dir, name):
    """The grid-stride loop: a small grid sweeping a long array."""
    per_block, blocks, n = 4, 2, 22
    stride = per_block * blocks
    colours = [BLUE, ORANGE]
    fig, ax = new_figure(5.6, (0, 120), (0, 56))
    title(ax, 2, 53, "The grid-stride loop: a small grid sweeps a long array")
    text(ax, 2, 48.3, "for (i = blockIdx.x * blockDim.x + threadIdx.x;  i < n;  i += gridDim.x * blockDim.x)",
         size=11.5, font=CODE)
    text(ax, 2, 44.0, "2 blocks x 4 threads = 8 threads for n = 22 elements: stride = gridDim.x * blockDim.x = 8",
         size=11)
    cw, x0 = 3.6, 10
    # the threads
    for b in range(blocks):
        bx = x0 + b * per_block * cw
        box(ax, bx - 0.4, 28, per_block * cw + 0.8, 11, colour=colours[b], lw=2)
        text(ax, bx + per_block * cw / 2, 36.8, "block %d" % b, size=10, ha="center", weight="bold",
             colour=colours[b])
        for t in range(per_block):
            g = b * per_block + t
            cell(ax, bx + t * cw + 0.3, 29.2, cw - 0.6, 5.5, "t%d" % t, fill="white", edge=colours[b], size=9)
    text(ax, x0 - 1, 32, "threads", size=10, ha="right")
    # the array, coloured by the thread that handles each element, passes marked
    ay = 8
    for i in range(n):
        g = i % stride
        b = g // per_block
        cell(ax, x0 + i * cw, ay, cw, 6, str(i), fill=LIGHT[colours[b]], edge=INK, size=9)
    for p in range((n + stride - 1) // stride):
        px = x0 + p * stride * cw
        pw = min(stride, n - p * stride) * cw
        ax.plot([px, px + pw], [ay - 1.6, ay - 1.6], color=INK, lw=1.2)
        ax.plot([px, px], [ay - 2.3, ay - 0.9], color=INK, lw=1.2)
        ax.plot([px + pw, px + pw], [ay - 2.3, ay - 0.9], color=INK, lw=1.2)
        text(ax, px + pw / 2, ay - 4.2, "pass %d" % (p + 1), size=10, ha="center")
    text(ax, x0 - 1, ay + 3, "array", size=10, ha="right")
    # one thread's jumps: global thread 5 (block 1, t1)
    g = 5
    src = (x0 + g * cw + cw / 2 - 0.0, 29.2)
    arrow(ax, src, (x0 + g * cw + cw / 2, ay + 6.3), colour=RED, lw=1.8)
    for p in range(2):
        a = x0 + (g + p * stride) * cw + cw / 2
        bpt = x0 + (g + (p + 1) * stride) * cw + cw / 2
        arrow(ax, (a, ay + 6.5), (bpt, ay + 6.5), colour=RED, lw=1.8, rad=-0.35,
              label="+8", label_at=0.5, label_offset=(0, 7.0), size=10)
    text(ax, x0 + 9 * cw, 31.5, "block 1, thread 1 (global thread 5)\nhandles i = 5, 13, 21, then stops at i = 29 >= n",
         size=10, colour=RED, ha="left")
    # the note
    nx = x0 + n * cw + 3
    box(ax, nx, 14, 120 - nx - 1.5, 24, colour=GREY, fill="white", lw=1)
    text(ax, nx + 1.5, 34.5, "Why", size=10.5, weight="bold")
    text(ax, nx + 1.5, 29.5, "Any grid size covers any n:", size=10)
    text(ax, nx + 1.5, 26.3, "launch about as many threads", size=10)
    text(ax, nx + 1.5, 23.1, "as the GPU runs at once, and", size=10)
    text(ax, nx + 1.5, 19.9, "each thread does several", size=10)
    text(ax, nx + 1.5, 16.7, "elements, one stride apart.", size=10)
    legend(ax, [(BLUE, "handled by a block 0 thread"), (ORANGE, "handled by a block 1 thread")],
           loc="lower right", anchor=(0.99, 0.01))
    return save(fig, out_dir, name)


def bounds_check(out_dir, name):
    """n not a multiple of the block size: the last block's threads past n are masked."""
    n, per_block = 10, 4
    blocks = (n + per_block - 1) // per_block
    fig, ax = new_figure(5.0, (0, 120), (0, 50))
    title(ax, 2, 47, "The bounds check: n is rarely a multiple of the block size")
    text(ax, 2, 42.5, "n = 10, blockDim.x = 4:  gridDim.x = (n + blockDim.x - 1) / blockDim.x = 3 blocks = 12 threads",
         size=11, font=None)
    cw, x0 = 5.4, 8
    for b in range(blocks):
        bx = x0 + b * per_block * cw
        box(ax, bx - 0.4, 21, per_block * cw + 0.8, 14, colour=BLUE, lw=2)
        text(ax, bx + per_block * cw / 2, 32.6, "block %d" % b, size=10, ha="center", weight="bold", colour=BLUE)
        for t in range(per_block):
            i = b * per_block + t
            past = i >= n
            cell(ax, bx + t * cw + 0.3, 23, cw - 0.6, 7, "i=%d" % i, fill="#eeeeee" if past else "white",
                 edge=RED if past else BLUE, size=9.5, text_colour=RED if past else INK)
            tx = bx + t * cw + cw / 2
            if past:
                text(ax, tx, 17, "X", size=16, ha="center", colour=RED, weight="bold")
            else:
                arrow(ax, (tx, 23), (tx, 12.4), colour=BLUE, lw=1.3)
    for i in range(blocks * per_block):
        past = i >= n
        cell(ax, x0 + i * cw, 5, cw, 7, "" if past else "x[%d]" % i, fill="white" if past else LIGHT[GREEN],
             edge=GREY if past else INK, hatch="//" if past else None, size=9)
    ex = x0 + n * cw
    ax.plot([ex, ex], [3, 37], color=RED, lw=2.2, ls="--")
    text(ax, ex, 38.5, "n = 10: the end of the array", size=10, ha="center", colour=RED)
    text(ax, ex + cw, 1.8, "not the array's memory", size=9.5, ha="center", colour=GREY)
    text(ax, x0 - 1, 8.5, "x", size=11, ha="right")
    # code and note
    nx = x0 + blocks * per_block * cw + 4
    box(ax, nx, 7, 120 - nx - 1.5, 28, colour=GREY, fill="white", lw=1, rounded=False)
    text(ax, nx + 1.5, 31.5, "__global__ void kernel(float* x, int n) {", size=9.5, font=CODE)
    text(ax, nx + 1.5, 27.8, "  int i = blockIdx.x * blockDim.x", size=9.5, font=CODE)
    text(ax, nx + 1.5, 24.8, "          + threadIdx.x;", size=9.5, font=CODE)
    text(ax, nx + 1.5, 21.1, "  if (i < n) {", size=9.5, font=CODE, colour=RED, weight="bold")
    text(ax, nx + 1.5, 17.7, "    x[i] = ...;   // 10 threads", size=9.5, font=CODE)
    text(ax, nx + 1.5, 14.3, "  }               // 2 do nothing", size=9.5, font=CODE)
    text(ax, nx + 1.5, 10.9, "}", size=9.5, font=CODE)
    legend(ax, [(BLUE, "thread with i < n: works", "white"), (RED, "thread with i >= n: masked", "#eeeeee"),
                (GREEN, "array element")], loc="upper right", anchor=(0.995, 0.90))
    return save(fig, out_dir, name)


def stream_pipeline(out_dir, name):
    """Chunks through the H2D copy engine, the SMs and the D2H copy engine, in several streams."""
    chunks = 4
    colours = [BLUE, ORANGE, GREEN, PURPLE]
    t_copy, t_kernel = 3.0, 3.0
    fig, ax = new_figure(7.2, (-7, 40), (0, 72))
    title(ax, -6.5, 69, "Streams overlap copies and kernels: chunks flow through three engines at once")
    lanes = ["H2D copy\nengine", "kernels\n(the SMs)", "D2H copy\nengine"]
    scale = 37.0 / (chunks * (2 * t_copy + t_kernel))

    def draw_panel(y_top, overlap, heading):
        text(ax, -6.5, y_top, heading, size=12, weight="bold")
        lane_h, gap = 5.2, 1.6
        ys = [y_top - 3 - (k + 1) * (lane_h + gap) + gap for k in range(3)]
        for k, lane in enumerate(lanes):
            text(ax, -0.6, ys[k] + lane_h / 2, lane, size=9.5, ha="right")
            ax.add_patch(Rectangle((0, ys[k]), 37.5, lane_h, fc="#f7f7f7", ec="#dddddd", lw=0.8))
        end = 0.0
        for c in range(chunks):
            if overlap:
                starts = [c * t_copy, c * t_copy + t_copy, c * t_copy + t_copy + t_kernel]
            else:
                base = c * (2 * t_copy + t_kernel)
                starts = [base, base + t_copy, base + t_copy + t_kernel]
            widths = [t_copy, t_kernel, t_copy]
            labels = ["copy in %d" % c, "kernel %d" % c, "copy out %d" % c]
            for k in range(3):
                colour = colours[c] if overlap else BLUE
                box(ax, starts[k] * scale + 0.06, ys[k] + 0.4, widths[k] * scale - 0.12, lane_h - 0.8, labels[k],
                    colour=colour, size=8.5, rounded=False, lw=1.2)
                end = max(end, starts[k] + widths[k])
        ax.plot([end * scale, end * scale], [ys[2] - 0.8, y_top - 2.4], color=RED, lw=1.6, ls="--")
        text(ax, end * scale - 0.3, ys[2] - 1.9, "all done: %g time units" % end, size=10, colour=RED, ha="right")
        return ys[2]

    bottom = draw_panel(63.5, False, "One stream: each step waits for the one before (the engines take turns)")
    bottom = draw_panel(bottom - 5, True, "Four streams, one chunk each: copy in 1 runs while kernel 0 runs, ...")
    arrow(ax, (0, bottom - 3.5), (37.5, bottom - 3.5), colour=INK, lw=1.4)
    text(ax, 37.5, bottom - 5.5, "time", size=10, ha="right")
    legend(ax, [(BLUE, "stream 0 (chunk 0)"), (ORANGE, "stream 1 (chunk 1)"), (GREEN, "stream 2 (chunk 2)"),
                (PURPLE, "stream 3 (chunk 3)")], loc="center right", anchor=(0.985, 0.34), size=9.5)
    text(ax, 0, bottom - 9.5, "Within a stream the steps stay in order; between streams, the two copy engines and the "
         "SMs work on\ndifferent chunks at the same time (with pinned host memory and cudaMemcpyAsync).", size=10,
         va="top")
    return save(fig, out_dir, name)


def tile_walk(out_dir, name):
    """A C tile computed by walking tiles of A along a row and tiles of B down a column."""
    fig, ax = new_figure(7.4, (0, 120), (0, 74))
    title(ax, 2, 71, "Tiled matrix multiply: one block computes one tile of C = A * B")
    s = 5.5  # tile size on the page
    k_tiles = 4
    # B: K x N above C; A: M x K left of C
    ax0, ay0 = 4, 4           # A lower-left
    a_w, a_h = k_tiles * s, 5 * s
    cx0 = ax0 + a_w + 4
    bx0, by0 = cx0, ay0 + a_h + 3
    b_w, b_h = 5 * s, k_tiles * s
    # outlines
    box(ax, ax0, ay0, a_w, a_h, colour=GREY, fill="white", rounded=False, lw=1.2)
    box(ax, bx0, by0, b_w, b_h, colour=GREY, fill="white", rounded=False, lw=1.2)
    box(ax, cx0, ay0, b_w, a_h, colour=GREY, fill="white", rounded=False, lw=1.2)
    text(ax, ax0 + a_w / 2, ay0 + a_h + 1.3, "A  (M x K)", size=11, ha="center", weight="bold")
    text(ax, bx0 - 1.0, by0 + b_h / 2, "B\n(K x N)", size=11, ha="right", weight="bold")
    text(ax, cx0 + b_w / 2, ay0 - 2.2, "C  (M x N)", size=11, ha="center", weight="bold")
    row, colm = 2, 3  # the C tile's tile-row and tile-column
    shades = ["#08519c", "#3182bd", "#6baed6", "#bdd7e7"]
    for t in range(k_tiles):
        cell(ax, ax0 + t * s, ay0 + (4 - row) * s, s, s, "A tile\nt=%d" % t, fill=shades[t], edge=INK, size=8.5,
             text_colour="white" if t < 2 else INK)
        cell(ax, bx0 + colm * s, by0 + (k_tiles - 1 - t) * s, s, s, "B tile\nt=%d" % t, fill=shades[t], edge=INK,
             size=8.5, text_colour="white" if t < 2 else INK)
    cell(ax, cx0 + colm * s, ay0 + (4 - row) * s, s, s, "C tile", fill=ORANGE, edge=INK, size=9, weight="bold")
    yrow = ay0 + (4 - row) * s + s / 2
    arrow(ax, (ax0 + 0.5, yrow - s / 2 - 1.2), (ax0 + a_w - 0.5, yrow - s / 2 - 1.2), colour=BLUE, lw=2,
          label="t = 0, 1, 2, 3 along K", label_offset=(0, -1.8), size=9.5)
    xcol = bx0 + colm * s + s
    arrow(ax, (xcol + 1.2, by0 + b_h - 0.5), (xcol + 1.2, by0 + 0.5), colour=BLUE, lw=2)
    text(ax, bx0 + colm * s + s / 2, by0 + b_h + 2.0, "t = 0, 1, 2, 3 down K", size=9.5, colour=BLUE, ha="center")
    # the loop with its two barriers
    lx = 65
    steps = [
        (BLUE, "1. Load: each thread copies one element of the A tile and\n    one of the B tile from global memory into shared memory"),
        (RED, "2. __syncthreads()  - barrier 1: wait until the whole tile\n    is loaded before anyone reads it"),
        (GREEN, "3. Compute: each thread multiplies its row of the A tile by\n    its column of the B tile (s = tile size FMAs), adds to its sum"),
        (RED, "4. __syncthreads()  - barrier 2: wait until everyone is done\n    reading before the next load overwrites the tile"),
    ]
    text(ax, lx, 63.5, "for each t = 0 .. K/s - 1   (one step of the walk)", size=11.5, weight="bold")
    y = 57
    for colour, words in steps:
        box(ax, lx, y - 5.2, 53, 8.4, colour=colour, lw=1.6 if colour != RED else 2.2)
        text(ax, lx + 1.2, y - 1.0, words, size=9.8, weight="bold" if colour == RED else "normal")
        y -= 11
    arrow(ax, (lx - 0.6, 23.0), (lx - 0.6, 56.0), colour=INK, rad=-0.12, lw=1.6)
    text(ax, lx - 4.4, 39.5, "next t", size=9.5, ha="center", rotation=90)
    text(ax, lx + 1, 9.6, "After the last t each thread writes its one element of the C tile.", size=10)
    text(ax, lx + 1, 5.8, "Each element of A and B is read from global memory M/s or N/s times,\n"
         "not N or M times: the tile is reused s times from shared memory.", size=9.5, va="center")
    return save(fig, out_dir, name)


def mandel_counts(width, y, max_iter):
    counts = []
    for k in range(width):
        cx = -2.0 + 2.6 * (k + 0.5) / width
        zx = zy = 0.0
        it = 0
        while it < max_iter and zx * zx + zy * zy <= 4.0:
            zx, zy = zx * zx - zy * zy + cx, 2 * zx * zy + y
            it += 1
        counts.append(it)
    return counts


def grid_2d(out_dir, name):
    """A 2-D grid of 2-D blocks over the image, and divergence inside one warp."""
    fig, ax = new_figure(6.6, (0, 120), (0, 66))
    title(ax, 2, 63, "A 2-D grid over the image, and divergence inside one warp")
    # left: the image as 4 x 3 blocks of 16 x 16 threads (drawn as 4 x 4 cells)
    gx0, gy0, bw, bh = 4, 8, 11, 11
    bxn, byn = 4, 3
    for by in range(byn):
        for bx in range(bxn):
            x = gx0 + bx * bw
            yy = gy0 + (byn - 1 - by) * bh
            hl = (bx, by) == (2, 1)
            box(ax, x, yy, bw, bh, colour=ORANGE if hl else BLUE, fill=LIGHT[ORANGE] if hl else LIGHT[BLUE],
                rounded=False, lw=2 if hl else 1)
            text(ax, x + bw / 2, yy + bh / 2, "block\n(%d,%d)" % (bx, by), size=8.5, ha="center")
    text(ax, gx0 + bxn * bw / 2, gy0 + byn * bh + 6.5, "the image, W x H pixels: gridDim = (4, 3) blocks", size=10,
         ha="center")
    arrow(ax, (gx0, gy0 + byn * bh + 1.4), (gx0 + bxn * bw, gy0 + byn * bh + 1.4), colour=INK, lw=1.2,
          label="x (columns)", label_offset=(0, 1.5), size=9)
    arrow(ax, (gx0 - 1.4, gy0 + byn * bh), (gx0 - 1.4, gy0), colour=INK, lw=1.2)
    text(ax, gx0 - 2.3, gy0 + byn * bh / 2, "y (rows)", size=9, ha="right", rotation=90)
    # zoom on one block
    zx0, zy0, zs = 54, 11, 4.3
    hx, hy = gx0 + 3 * bw, gy0 + 2 * bh
    ax.plot([hx, zx0], [hy, zy0 + 4 * zs], color=ORANGE, lw=1, ls=":")
    ax.plot([hx, zx0], [hy - bh, zy0], color=ORANGE, lw=1, ls=":")
    for ty in range(4):
        for tx in range(4):
            cell(ax, zx0 + tx * zs, zy0 + (3 - ty) * zs, zs, zs, "%d,%d" % (tx, ty), fill=LIGHT[ORANGE], edge=ORANGE,
                 size=7.5)
    text(ax, zx0 + 2 * zs, zy0 + 4 * zs + 6.8, "block (2,1), its threads", size=10, ha="center", weight="bold")
    text(ax, zx0 + 2 * zs, zy0 + 4 * zs + 3.0, "(threadIdx.x, threadIdx.y)", size=9, ha="center")
    text(ax, 2, 3.8, "x = blockIdx.x * blockDim.x + threadIdx.x;   y = blockIdx.y * blockDim.y + threadIdx.y;"
         "   if (x < W && y < H) ...", size=10, font=CODE)
    # right: divergence in one warp (32 pixels of one row of the Mandelbrot set)
    counts = mandel_counts(32, 0.62, 60)
    top = max(counts)
    wx0, wy0, lw_, hscale = 79, 11, 1.2, 34.0 / top
    for lane, c in enumerate(counts):
        x = wx0 + lane * lw_
        ax.add_patch(Rectangle((x, wy0), lw_ * 0.85, c * hscale, fc=GREEN, ec="none"))
        ax.add_patch(Rectangle((x, wy0 + c * hscale), lw_ * 0.85, (top - c) * hscale, fc="#e4e4e4", ec="#b0b0b0",
                               lw=0, hatch="///"))
    ax.plot([wx0 - 0.5, wx0 + 32 * lw_], [wy0 + top * hscale] * 2, color=RED, lw=1.5, ls="--")
    text(ax, wx0 + 16 * lw_, wy0 + top * hscale + 2.2, "the warp runs until its slowest lane is done (%d iterations)"
         % top, size=9, ha="center", colour=RED)
    text(ax, wx0 + 16 * lw_, wy0 - 2.2, "lanes 0 .. 31 of one warp (32 neighbouring pixels)", size=9.5, ha="center")
    text(ax, wx0 - 1.2, wy0 + top * hscale / 2, "iterations", size=9.5, ha="right", rotation=90)
    text(ax, wx0 + 16 * lw_, 60.0, "Divergence: one instruction stream for 32 lanes", size=10.5, ha="center",
         weight="bold")
    legend(ax, [(GREEN, "lane iterating", GREEN), ("#b0b0b0", "lane done, idle", "#e4e4e4", "///")],
           loc="center", anchor=((wx0 + 16 * lw_) / 120, 53.5 / 66), size=9, ncol=2)
    return save(fig, out_dir, name)


def padding_halo(out_dir, name):
    """Zero padding and wrap-around of circular convolution, and the shared-memory halo tile."""
    fig, ax = new_figure(7.0, (0, 120), (0, 70))
    title(ax, 2, 67, "Convolution at the edges: wrap-around, zero padding, and the halo tile")
    c = 3.4
    # panel 1: circular convolution wraps
    n = 8
    x0, y0 = 4, 22
    text(ax, x0, 60, "1. Circular (FFT at the image's size)", size=11, weight="bold")
    for r in range(n):
        for q in range(n):
            cell(ax, x0 + q * c, y0 + (n - 1 - r) * c, c, c, fill=LIGHT[BLUE], edge="#9ab", lw=0.6)
    # a 3x3 window centred on the right edge pixel (row 3, col 7): column 8 wraps to column 0
    for dr in (-1, 0, 1):
        for dq in (-1, 0, 1):
            r, q = 3 + dr, 7 + dq
            wrapped = q >= n
            q %= n
            cell(ax, x0 + q * c, y0 + (n - 1 - r) * c, c, c, fill=RED if wrapped else ORANGE, edge=INK, lw=1.0)
    arrow(ax, (x0 + n * c - c / 2, y0 + (n - 5) * c + c / 2), (x0 + c / 2, y0 + (n - 5) * c + 0.4), colour=INK,
          rad=-0.45, lw=2.0, mutation=20)
    text(ax, x0 + n * c / 2, y0 + 0.8, "column W wraps to column 0", size=9.5, ha="center", colour=RED,
         bbox={"fc": "white", "ec": "none", "pad": 1.5})
    text(ax, x0 + n * c / 2, y0 - 11.5, "the filter's window at the right edge\nreads the left edge's pixels",
         size=9.5, ha="center", va="center")
    text(ax, x0 + n * c / 2, y0 + n * c + 2.6, "image H x W", size=9.5, ha="center")
    # panel 2: zero padding to (H + K - 1) x (W + K - 1)
    x1 = 42
    text(ax, x1, 60, "2. Zero padding makes it linear", size=11, weight="bold")
    pn = n + 2
    for r in range(pn):
        for q in range(pn):
            inside = r < n and q < n
            cell(ax, x1 + q * c, y0 + (pn - 1 - r) * c - 2 * c + 0.0, c, c, "" if inside else "0",
                 fill=LIGHT[BLUE] if inside else "white", edge="#9ab" if inside else GREY, lw=0.6, size=8,
                 text_colour=GREY)
    for dr in (-1, 0, 1):
        for dq in (-1, 0, 1):
            r, q = 3 + dr, 7 + dq
            cell(ax, x1 + q * c, y0 + (pn - 1 - r) * c - 2 * c, c, c, "0" if q >= n else "", fill=ORANGE if q < n else "#ffd9a0",
                 edge=INK, lw=1.0, size=8)
    text(ax, x1 + pn * c / 2, y0 - 11.5, "padded to (H + K - 1) x (W + K - 1):\nthe window now reads zeros",
         size=9.5, ha="center", va="center")
    text(ax, x1 + pn * c / 2, y0 + n * c + 2.6, "K - 1 = 2 zero rows and columns", size=9.5, ha="center")
    # panel 3: the halo tile in shared memory
    x2 = 84
    text(ax, x2, 60, "3. Direct: a tile plus its halo", size=11, weight="bold")
    t, rad = 4, 1
    full = t + 2 * rad
    c3 = 4.6
    hy = y0 - 2
    for r in range(full):
        for q in range(full):
            core = rad <= r < rad + t and rad <= q < rad + t
            cell(ax, x2 + q * c3, hy + (full - 1 - r) * c3, c3, c3, fill=LIGHT[GREEN] if core else LIGHT[PURPLE],
                 edge=GREEN if core else PURPLE, lw=1.0)
    ax.add_patch(Rectangle((x2 + rad * c3, hy + rad * c3), t * c3, t * c3, fc="none", ec=GREEN, lw=2.5))
    text(ax, x2 + full * c3 / 2, hy + full * c3 / 2, "T x T\noutputs", size=10, ha="center", weight="bold")
    text(ax, x2 + full * c3 / 2, hy + full * c3 + 2.6, "loaded: (T + 2r) x (T + 2r)", size=9.5, ha="center")
    text(ax, x2 + full * c3 / 2, y0 - 11.5, "each block loads its tile and r pixels\nmore on each side into shared memory",
         size=9.5, ha="center", va="center")
    legend(ax, [(BLUE, "image pixel"), (ORANGE, "the filter's window (K = 3, r = 1)", ORANGE),
                (RED, "wrapped read (wrong)", RED), (GREY, "zero padding", "white"),
                (GREEN, "the block's output tile"), (PURPLE, "halo: r pixels, read by the edge outputs")],
           loc="lower center", ncol=3, size=9.5, anchor=(0.5, 0.0))
    return save(fig, out_dir, name)


def dataflow(out_dir, name):
    """Black-Scholes data flow per option, and its bytes."""
    fig, ax = new_figure(5.8, (0, 120), (0, 58))
    title(ax, 2, 55, "Black-Scholes, one option per thread: what is read, computed and written")
    ins = [("S  price", 41), ("K  strike", 31), ("T  years", 21)]
    for label, y in ins:
        box(ax, 3, y - 3, 15, 6.5, label, colour=BLUE, size=10.5)
        arrow(ax, (18.2, y), (29.8, 31 + (y - 31) * 0.35), colour=BLUE)
    text(ax, 10.5, 47.5, "read from global memory", size=9.5, ha="center", colour=BLUE)
    box(ax, 30, 22, 27, 18, "", colour=GREEN)
    text(ax, 43.5, 35.5, "d1 = (ln(S/K) + (r + v*v/2) T)", size=9.5, ha="center", font=CODE)
    text(ax, 43.5, 32.2, "      / (v sqrt(T))", size=9.5, ha="center", font=CODE)
    text(ax, 43.5, 27.5, "d2 = d1 - v sqrt(T)", size=9.5, ha="center", font=CODE)
    text(ax, 43.5, 24.3, "(log, sqrt: registers only)", size=9, ha="center", colour=GREEN)
    box(ax, 3, 4, 15, 8, "r rate, v volatility\n(one value for all)", colour=GREY, size=9)
    arrow(ax, (18.2, 9), (36, 21.8), colour=GREY, ls="--")
    box(ax, 64, 33, 17, 7, "CND(d1)", colour=GREEN, size=10.5)
    box(ax, 64, 22, 17, 7, "CND(d2)", colour=GREEN, size=10.5)
    arrow(ax, (57.2, 34), (63.8, 36.5), colour=GREEN)
    arrow(ax, (57.2, 28), (63.8, 25.5), colour=GREEN)
    text(ax, 72.5, 45, "the normal distribution's CDF\n(exp and a polynomial, or erfc)", size=9, ha="center")
    box(ax, 95, 35, 21, 7, "call", colour=ORANGE, size=10.5, weight="bold")
    box(ax, 95, 20, 21, 7, "put", colour=ORANGE, size=10.5, weight="bold")
    text(ax, 105.5, 46.5, "written to global memory", size=9.5, ha="center", colour=ORANGE)
    text(ax, 105.5, 44.0, "S CND(d1) - K e^(-rT) CND(d2)", size=8.5, ha="center", font=CODE)
    text(ax, 105.5, 17.0, "K e^(-rT) CND(-d2) - S CND(-d1)", size=8.5, ha="center", font=CODE)
    for y in (36.5, 25.5):
        arrow(ax, (81.2, y), (94.8, 38.5), colour=ORANGE)
        arrow(ax, (81.2, y), (94.8, 23.5), colour=ORANGE)
    # bytes per option
    by = 3
    text(ax, 30, by + 9.5, "Bytes per option (memory traffic):", size=10.5, weight="bold")
    unit = 1.4
    for row, (label, size) in enumerate((("float", 4), ("double", 8))):
        y = by + 4.6 - row * 4.6 + 0.2
        text(ax, 30, y + 1.3, label, size=10, ha="left")
        x = 42
        for k in range(3):
            box(ax, x, y, size * unit * 0.5, 2.8, "", colour=BLUE, rounded=False, lw=1)
            x += size * unit * 0.5
        for k in range(2):
            box(ax, x, y, size * unit * 0.5, 2.8, "", colour=ORANGE, rounded=False, lw=1)
            x += size * unit * 0.5
        text(ax, x + 1, y + 1.3, "3 x %d B in + 2 x %d B out = %d B" % (size, size, 5 * size), size=10)
    text(ax, 118, 8.0, "Few operations per byte:\nthe kernel is limited by\nmemory bandwidth.",
         size=9.5, ha="right", va="center", colour=INK)
    return save(fig, out_dir, name)


def driver_objects(out_dir, name):
    """Source text to launch with the driver API and NVRTC."""
    fig, ax = new_figure(6.4, (0, 120), (0, 64))
    title(ax, 2, 61, "The driver API: from source text to a launch")
    # the context frame
    box(ax, 44, 5, 74, 42, colour=PURPLE, fill="#fbf3f8", lw=2, ls="--")
    text(ax, 46, 44.2, "a context on one GPU (cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain or cuCtxCreate)",
         size=9, colour=PURPLE)
    text(ax, 46, 41.4, "owns the loaded code, the memory (cuMemAlloc) and the streams; it is current on the",
         size=9, colour=PURPLE)
    text(ax, 46, 38.6, "calling thread (cuCtxSetCurrent)", size=9, colour=PURPLE)
    items = [
        (3, 38, 17, 12, "source text\n(a string:\nextern \"C\"\n__global__ ...)", GREY),
        (26, 38, 14, 12, "NVRTC\nprogram", BLUE),
        (26, 12, 14, 12, "PTX or\nCUBIN\n(bytes)", BLUE),
        (51, 12, 19, 12, "module\n(CUmodule) or\nlibrary (CUlibrary)", GREEN),
        (78, 12, 15, 12, "function\n(CUfunction)", ORANGE),
        (101, 12, 15, 12, "launch", RED),
    ]
    for x, y, w, h, words, colour in items:
        box(ax, x, y, w, h, words, colour=colour, size=9.5, weight="bold" if words == "launch" else "normal")
    white = {"fc": "white", "ec": "none", "pad": 1.0}
    arrow(ax, (20.2, 44), (25.8, 44))
    text(ax, 23, 53.5, "nvrtcCreateProgram", size=8.5, ha="center")
    arrow(ax, (33, 37.8), (33, 24.2))
    text(ax, 32, 31, "nvrtcCompileProgram,\nnvrtcGetPTX / GetCUBIN  ", size=8.5, ha="right")
    arrow(ax, (40.2, 18), (50.8, 18))
    text(ax, 45.5, 28.5, "cuModuleLoadData /\ncuLibraryLoadData", size=8.5, ha="center", bbox=white)
    arrow(ax, (70.2, 18), (77.8, 18))
    text(ax, 74, 28.5, "cuModuleGetFunction /\ncuLibraryGetKernel", size=8.5, ha="center", bbox=white)
    arrow(ax, (93.2, 18), (100.8, 18))
    text(ax, 104, 28.5, "cuLaunchKernel(f, grid, block,\nshared bytes, stream, args)", size=8.5, ha="center",
         bbox=white)
    text(ax, 3, 26, "compiled at run time,\nfor the GPU in the machine\n(no nvcc needed)", size=9, va="top")
    text(ax, 3, 1.8, "The runtime API (<<< >>>) does all of this for you, hidden; the driver API shows each object.",
         size=9.5)
    legend(ax, [(BLUE, "NVRTC (compiler library)"), (GREEN, "loaded code"), (ORANGE, "one kernel"),
                (PURPLE, "context", "#fbf3f8")], loc="upper right", anchor=(0.995, 0.995), ncol=4, size=9)
    return save(fig, out_dir, name)


def reduction_tree(out_dir, name):
    """A shared-memory tree reduction in one block, the stride halving."""
    values = [3, 1, 7, 0, 4, 1, 6, 3, 2, 5, 1, 4, 0, 2, 3, 1]
    n = len(values)
    fig, ax = new_figure(7.2, (0, 120), (0, 72))
    title(ax, 2, 69, "Tree reduction in shared memory: s[i] += s[i + stride], stride = 8, 4, 2, 1")
    cw, x0 = 4.2, 12
    level_y = 58
    dy = 10.5
    levels = []
    current = list(values)
    stride = n // 2
    rows = [(None, list(current))]
    while stride >= 1:
        nxt = list(current)
        for i in range(stride):
            nxt[i] = current[i] + current[i + stride]
        rows.append((stride, nxt))
        current = nxt
        stride //= 2
    for level, (stride, vals) in enumerate(rows):
        y = level_y - level * dy
        active = n if stride is None else stride
        for i in range(n):
            live = i < (n if stride is None else stride)
            fresh = stride is not None and i < stride
            cell(ax, x0 + i * cw, y, cw, 5, vals[i] if (stride is None or i < stride * 2) else "",
                 fill=(LIGHT[ORANGE] if fresh else (LIGHT[BLUE] if stride is None else "#f2f2f2")),
                 edge=INK if live else "#bbbbbb", size=10, text_colour=INK if live else "#aaaaaa")
        text(ax, x0 - 1.5, y + 2.5, "input" if stride is None else "stride %d" % stride, size=10, ha="right")
        if stride is not None:
            py = y + dy
            for i in range(stride):
                arrow(ax, (x0 + (i + stride) * cw + cw / 2, py), (x0 + i * cw + cw / 2, y + 5.1), colour=BLUE, lw=1.0,
                      mutation=9, shrink=1)
                arrow(ax, (x0 + i * cw + cw / 2, py), (x0 + i * cw + cw / 2, y + 5.1), colour=GREY, lw=0.8,
                      mutation=7, shrink=1)
            text(ax, x0 + n * cw + 2, y + 2.5, ("threads 0..%d add; then __syncthreads()" % (stride - 1)) if stride > 1 else "thread 0 adds", size=9.5)
            ax.plot([x0 - 0.5, x0 + n * cw + 0.5], [y - 2.3, y - 2.3], color=RED, lw=1.2, ls="--")
        else:
            text(ax, x0 + n * cw + 2, y + 2.5, "each thread wrote one value; __syncthreads()", size=9.5)
            ax.plot([x0 - 0.5, x0 + n * cw + 0.5], [y - 2.3, y - 2.3], color=RED, lw=1.2, ls="--")
    text(ax, x0 + cw / 2, level_y - (len(rows) - 1) * dy - 3.2, "s[0] = %d: the block's sum" % sum(values), size=10.5,
         weight="bold", colour=ORANGE)
    legend(ax, [(BLUE, "value in shared memory"), (ORANGE, "just written (a sum)"),
                (RED, "barrier: __syncthreads()", "white")], loc="lower right", anchor=(0.995, 0.01), size=9.5)
    text(ax, 2, 4.5, "log2(16) = 4 steps; half the threads drop out at each step.\n"
         "The barrier makes sure every sum of a step is written before the next step reads it.",
         size=9.5, va="center")
    return save(fig, out_dir, name)


def warp_shuffle(out_dir, name):
    """__shfl_down_sync with offsets 16, 8, 4, 2, 1 inside one warp."""
    fig, ax = new_figure(7.4, (0, 120), (0, 74))
    title(ax, 2, 71, "Warp reduction with shuffles: v += __shfl_down_sync(0xffffffff, v, offset)")
    cw, x0 = 3.3, 12
    vals = [1] * 32
    y = 57
    dy = 9.5
    text(ax, x0 - 1.5, y + 2, "lanes", size=10, ha="right")
    for i in range(32):
        cell(ax, x0 + i * cw, y, cw, 4, vals[i], fill=LIGHT[BLUE], size=8)
    for offset in (16, 8, 4, 2, 1):
        ny = y - dy
        new = [vals[i] + (vals[i + offset] if i + offset < 32 else 0) for i in range(32)]
        for i in range(32):
            useful = i < offset
            cell(ax, x0 + i * cw, ny, cw, 4, new[i] if useful else "", fill=LIGHT[ORANGE] if useful else "#f2f2f2",
                 edge=INK if useful else "#bbbbbb", size=8)
        for i in range(offset):
            arrow(ax, (x0 + (i + offset) * cw + cw / 2, y - 0.1), (x0 + i * cw + cw / 2, ny + 4.1), colour=BLUE,
                  lw=0.9, mutation=8, shrink=0.5)
        text(ax, x0 - 1.5, ny + 2, "offset %d" % offset, size=10, ha="right")
        vals = [new[i] if i < offset else 0 for i in range(32)]
        y = ny
    text(ax, x0, y - 3.0, "lane 0 holds the warp's sum (32 here: every lane started with 1)", size=10.5, weight="bold",
         colour=ORANGE)
    legend(ax, [(BLUE, "a lane's register"), (ORANGE, "a partial sum still needed"),
                (GREY, "ignored (its sum is never used)", "#f2f2f2")], loc="center", anchor=(0.5, 65.0 / 74), size=9.5, ncol=3)
    text(ax, x0, 4.0, "Lanes read each other's registers directly: no shared memory and no __syncthreads(); "
         "the shuffle itself waits for the lanes named in its mask (0xffffffff: all 32).", size=9.5)
    return save(fig, out_dir, name)


def grid_combine(out_dir, name):
    """Per-block partials, then the last block to finish combines them, in one launch."""
    fig, ax = new_figure(6.2, (0, 120), (0, 62))
    title(ax, 2, 59, "One launch, two stages: per-block partial sums, then the last block combines them")
    blocks = 5
    finish_order = [2, 4, 0, 3, 1]  # the order in which the blocks finish (any order is possible)
    bw, gap, x0 = 11.5, 3.2, 9
    for b in range(blocks):
        x = x0 + b * (bw + gap)
        last = finish_order[-1] == b
        box(ax, x, 40, bw, 9, "block %d\nsums its part" % b, colour=ORANGE if last else BLUE, size=9.5,
            weight="bold" if last else "normal")
        cell(ax, x + bw / 2 - 3, 24, 6, 5, "p%d" % b, fill=LIGHT[GREEN], edge=GREEN, size=10)
        arrow(ax, (x + bw / 2, 39.8), (x + bw / 2, 29.2), colour=GREEN, label="1. write\npartial", label_offset=(4.2, 0),
              size=8.5, ha="center")
        order = finish_order.index(b) + 1
        text(ax, x + bw / 2, 51.5, "finishes %s" % ("1st 2nd 3rd 4th 5th".split()[order - 1]), size=9, ha="center",
             colour=ORANGE if last else GREY)
    text(ax, x0 - 1, 26.5, "partials\n(global)", size=9, ha="right")
    # the counter
    cx = x0 + blocks * (bw + gap) + 3
    box(ax, cx, 37, 118.5 - cx, 14, "", colour=RED, fill="white", lw=1.5, rounded=False)
    arrow(ax, (x0 + blocks * (bw + gap) - gap + 0.2, 44.5), (cx - 0.2, 44.5), colour=RED, lw=1.4)
    text(ax, cx + 1.5, 48.0, "2. __threadfence(); then one thread:", size=9.5)
    text(ax, cx + 1.5, 44.4, "n = atomicAdd(&count, 1);", size=9.5, font=CODE)
    text(ax, cx + 1.5, 40.7, "last = (n == gridDim.x - 1);", size=9.5, font=CODE)
    text(ax, cx + 1.5, 33.6, "The fence: this block's partial is\nvisible to all before it is counted.",
         size=9, va="center", colour=RED)
    # the last block reads all partials
    fx = 40
    box(ax, fx, 6, 40, 9, "3. the last block (here block %d) adds p0 .. p4\nand writes the result; resets count to 0"
        % finish_order[-1], colour=ORANGE, size=9.5)
    for b in range(blocks):
        x = x0 + b * (bw + gap) + bw / 2
        arrow(ax, (x, 23.8), (fx + 20 + (b - 2) * 4, 15.2), colour=ORANGE, lw=1.2)
    text(ax, 84, 10.5, "The other blocks saw n < 4 and\nsimply exit: no second launch,\nno waiting between blocks.",
         size=9.5, va="center")
    return save(fig, out_dir, name)


def privatised_histogram(out_dir, name):
    """Per-block private histograms in shared memory merged into the global histogram."""
    bins = 8
    fig, ax = new_figure(6.2, (0, 120), (0, 62))
    title(ax, 2, 59, "A privatised histogram: each block counts into its own copy, then merges once")
    blocks = 3
    hists = [[3, 5, 2, 7, 1, 0, 4, 2], [1, 6, 3, 2, 2, 1, 5, 3], [4, 2, 2, 5, 0, 3, 1, 2]]
    cw = 3.4
    bx0 = 4
    for b in range(blocks):
        x = bx0 + b * 39
        box(ax, x, 27, 34, 24, "", colour=BLUE, fill="#f3f8fc", lw=1.6)
        text(ax, x + 17, 48.4, "block %d" % b, size=10.5, ha="center", weight="bold", colour=BLUE)
        # its pixels / threads
        for t in range(8):
            cell(ax, x + 3 + t * 3.6, 41, 3.1, 3.6, "", fill=LIGHT[SKY], edge=BLUE, lw=0.6)
        text(ax, x + 17, 38.4, "threads: atomicAdd(&local[bin], 1)", size=8.5, ha="center", font=CODE)
        hx = x + (34 - bins * cw) / 2
        for k in range(bins):
            cell(ax, hx + k * cw, 29.5, cw, 5, hists[b][k], fill=LIGHT[ORANGE], edge=ORANGE, size=9)
        text(ax, x + 17, 27.9 - 0.2, "", size=8)
        for k in (0, 3, 6):
            arrow(ax, (x + 4.5 + k * 3.3, 40.8), (hx + k * cw + cw / 2, 34.7), colour=SKY, lw=0.9, mutation=8)
        # merge arrows
        arrow(ax, (x + 17, 29.3), (40 + bins * 5.5 / 2 + (b - 1) * 10, 16.3), colour=GREEN, lw=1.6)
    gx = 40
    total = [sum(h[k] for h in hists) for k in range(bins)]
    for k in range(bins):
        cell(ax, gx + k * 5.5, 10, 5.5, 6, total[k], fill=LIGHT[GREEN], edge=GREEN, size=10, weight="bold")
        text(ax, gx + k * 5.5 + 2.75, 8.3, "bin %d" % k, size=8, ha="center", va="top")
    text(ax, gx - 1, 13, "global\nhistogram", size=9.5, ha="right", va="center")
    text(ax, gx + bins * 5.5 + 2, 13, "after __syncthreads(), each block adds\nits 8 counts: atomicAdd(&global[k], local[k])",
         size=9.5, va="center", font=None)
    text(ax, 4, 21.0, "merge: one atomic per bin per block", size=9.5, colour=GREEN)
    legend(ax, [(SKY, "the block's pixels"), (ORANGE, "the block's private histogram in shared memory:\nfast atomics, contention only within the block"),
                (GREEN, "global histogram")], loc="lower left", anchor=(0.005, 0.0), size=9)
    return save(fig, out_dir, name)


def scan_sweeps(out_dir, name):
    """A work-efficient (Brent-Kung / Blelloch) exclusive scan over 8 elements."""
    data = [3, 1, 7, 0, 4, 1, 6, 3]
    n = len(data)
    fig, ax = new_figure(8.6, (0, 120), (0, 86))
    title(ax, 2, 83, "Work-efficient scan (Brent-Kung): an up-sweep, then a down-sweep (8 elements)")
    cw, x0 = 7.0, 22
    rows = []
    a = list(data)
    rows.append(("input", list(a), [], set()))
    d = 1
    while d < n:  # up-sweep: a[i + 2d - 1] += a[i + d - 1]
        pairs = []
        for i in range(0, n, 2 * d):
            a[i + 2 * d - 1] += a[i + d - 1]
            pairs.append((i + d - 1, i + 2 * d - 1))
        rows.append(("up  d=%d" % d, list(a), pairs, {p[1] for p in pairs}))
        d *= 2
    a[n - 1] = 0
    rows.append(("last := 0", list(a), [], {n - 1}))
    d = n // 2
    while d >= 1:  # down-sweep: t = a[l]; a[l] = a[r]; a[r] += t
        pairs = []
        for i in range(0, n, 2 * d):
            left, right = i + d - 1, i + 2 * d - 1
            t = a[left]
            a[left] = a[right]
            a[right] += t
            pairs.append((left, right))
        rows.append(("down d=%d" % d, list(a), pairs, {p for pr in pairs for p in pr}))
        d //= 2
    dy = 8.6
    y = 72
    prev_y = None
    for k, (label, vals, pairs, changed) in enumerate(rows):
        down = label.startswith("down")
        up = label.startswith("up")
        for i in range(n):
            fill = "white"
            if i in changed:
                fill = LIGHT[ORANGE] if up else (LIGHT[GREEN] if down else LIGHT[RED])
            cell(ax, x0 + i * cw, y, cw, 4.6, vals[i], fill=fill, size=10.5)
        text(ax, x0 - 2, y + 2.3, label, size=10, ha="right", font=CODE)
        if prev_y is not None:
            for left, right in pairs:
                if up:
                    arrow(ax, (x0 + left * cw + cw / 2, prev_y), (x0 + right * cw + cw / 2, y + 4.7), colour=ORANGE,
                          lw=1.3, mutation=10)
                    arrow(ax, (x0 + right * cw + cw / 2, prev_y), (x0 + right * cw + cw / 2, y + 4.7), colour=GREY,
                          lw=0.8, mutation=8)
                else:
                    arrow(ax, (x0 + right * cw + cw / 2, prev_y), (x0 + left * cw + cw / 2, y + 4.7), colour=GREEN,
                          lw=1.3, mutation=10)
                    arrow(ax, (x0 + left * cw + cw / 2, prev_y), (x0 + right * cw + cw / 2, y + 4.7), colour=GREEN,
                          lw=1.3, mutation=10)
                    arrow(ax, (x0 + right * cw + cw / 2, prev_y), (x0 + right * cw + cw / 2, y + 4.7), colour=GREY,
                          lw=0.8, mutation=8)
        prev_y = y - 0.1
        y -= dy
    text(ax, x0 + n * cw + 3, 58, "Up-sweep (reduce): a[r] += a[l]\npartial sums of 2, 4, 8 elements;\n"
         "the last one is the total (%d)." % sum(data), size=10, va="center", colour=INK)
    text(ax, x0 + n * cw + 3, 43.6, "Clear the last element (exclusive scan).", size=10, va="center")
    text(ax, x0 + n * cw + 3, 28, "Down-sweep: t = a[l]; a[l] = a[r];\na[r] = t + a[r]: each element gets\n"
         "the sum of all before it.", size=10, va="center")
    text(ax, x0, y + 3.5, "result: exclusive scan; add the input for the inclusive one "
         "(%s)" % ", ".join(str(v) for v in [sum(data[:i + 1]) for i in range(n)]), size=10, weight="bold")
    text(ax, x0, y - 0.8, "2(n - 1) additions in 2 log2(n) steps with a barrier between steps "
         "(the simple Hillis-Steele scan does about n log2(n)).", size=9.5)
    legend(ax, [(ORANGE, "up-sweep sum"), (RED, "cleared"), (GREEN, "down-sweep result")],
           loc="upper right", anchor=(0.995, 0.93), size=9.5)
    return save(fig, out_dir, name)


def sat_corners(out_dir, name):
    """The summed-area table: a box sum from four reads, D - B - C + A."""
    fig, ax = new_figure(6.4, (0, 120), (0, 64))
    title(ax, 2, 61, "Summed-area table: any box sum from four reads, D - B - C + A")
    n = 9
    c = 5.2
    x0, y0 = 6, 5
    r0, r1, c0, c1 = 3, 6, 3, 7  # the box: rows r0..r1, columns c0..c1 (inclusive)
    for r in range(n):
        for q in range(n):
            inbox = r0 <= r <= r1 and c0 <= q <= c1
            above = r < r0 and q <= c1
            left = q < c0 and r <= r1
            fill = "white"
            if inbox:
                fill = LIGHT[ORANGE]
            elif r < r0 and q < c0:
                fill = "#d9d2e9"
            elif above:
                fill = LIGHT[BLUE]
            elif left:
                fill = LIGHT[GREEN]
            cell(ax, x0 + q * c, y0 + (n - 1 - r) * c, c, c, fill=fill, edge="#bbbbbb", lw=0.6)
    ax.add_patch(Rectangle((x0 + c0 * c, y0 + (n - 1 - r1) * c), (c1 - c0 + 1) * c, (r1 - r0 + 1) * c, fc="none",
                           ec=ORANGE, lw=2.6))
    corners = {"A": (r0 - 1, c0 - 1, PURPLE), "B": (r0 - 1, c1, BLUE), "C": (r1, c0 - 1, GREEN), "D": (r1, c1, RED)}
    for label, (r, q, colour) in corners.items():
        cx, cy = x0 + q * c + c / 2, y0 + (n - 1 - r) * c + c / 2
        ax.add_patch(matplotlib.patches.Circle((cx, cy), c * 0.36, fc="white", ec=colour, lw=2.2))
        text(ax, cx, cy, label, size=12, ha="center", weight="bold", colour=colour)
    text(ax, x0 + n * c / 2, y0 + n * c + 1.8, "the image (S = table of prefix sums)", size=10, ha="center")
    tx = x0 + n * c + 6
    text(ax, tx, 50, "S(y, x) = sum of all pixels above and left of (y, x), itself included", size=10.5)
    text(ax, tx, 45, "Box sum of the orange rectangle:", size=11, weight="bold")
    text(ax, tx, 40, "  D  = everything above-left of its bottom-right corner", size=10)
    text(ax, tx, 35.8, "- B  = the blue strip above it (and the purple corner)", size=10)
    text(ax, tx, 31.6, "- C  = the green strip left of it (and the purple corner)", size=10)
    text(ax, tx, 27.4, "+ A  = the purple corner, taken away twice", size=10)
    text(ax, tx, 20.5, "sum = S(y1, x1) - S(y0-1, x1) - S(y1, x0-1) + S(y0-1, x0-1)", size=10, font=CODE)
    text(ax, tx, 14.0, "Four reads for any box size: a box blur of any radius costs\n"
         "the same. The table itself is a scan of every row, then of\nevery column.", size=10, va="center")
    legend(ax, [(ORANGE, "the box"), (BLUE, "above (in B)"), (GREEN, "left (in C)"), (PURPLE, "corner (in A, B, C, D)", "#d9d2e9")],
           loc="lower right", anchor=(0.995, 0.0), size=9.5, ncol=4)
    return save(fig, out_dir, name)


PICTURES = {
    "01_idea_threads_blocks.png": threads_blocks,
    "01_idea_grid_stride.png": grid_stride,
    "02_idea_bounds_check.png": bounds_check,
    "03_idea_stream_pipeline.png": stream_pipeline,
    "04_idea_tile_walk.png": tile_walk,
    "05_idea_2d_grid.png": grid_2d,
    "06_idea_padding_halo.png": padding_halo,
    "07_idea_dataflow.png": dataflow,
    "08_idea_driver_objects.png": driver_objects,
    "01_idea_reduction_tree.png": reduction_tree,
    "01_idea_warp_shuffle.png": warp_shuffle,
    "01_idea_grid_combine.png": grid_combine,
    "05_idea_privatised_histogram.png": privatised_histogram,
    "06_idea_scan_sweeps.png": scan_sweeps,
    "06_idea_sat_corners.png": sat_corners,
}


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):  # one line, as everywhere in the course
        print("draw_pictures.py: error: " + message, file=sys.stderr)
        sys.exit(2)


def main():
    parser = ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default_out = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "images")
    parser.add_argument("--out", default=default_out, help="folder for the PNG files (default docs/images)")
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="draw only this picture")
    parser.add_argument("--list", action="store_true", help="print the names and draw nothing")
    args = parser.parse_args()
    if args.list:
        for picture in PICTURES:
            print(picture)
        return 0
    chosen = []
    for only in args.only:
        key = only if only.endswith(".png") else only + ".png"
        if key not in PICTURES:
            parser.error("--only: no picture named %r (see --list)" % only)
        chosen.append(key)
    if not os.path.isdir(args.out) or not os.access(args.out, os.W_OK):
        parser.error("--out: '%s' is not a writable folder" % args.out)
    for picture in chosen or list(PICTURES):
        try:
            path = PICTURES[picture](args.out, picture)
        except OSError as error:
            print("draw_pictures.py: error: cannot write %s: %s" % (picture, error.strerror), file=sys.stderr)
            return 3
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
