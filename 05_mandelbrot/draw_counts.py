#!/usr/bin/env python3
"""Lesson 05: render an escape-count image written by 05_mandelbrot as a PNG (matplotlib).

The lesson writes the counts as an 8-bit PNG (grey with --gray, else colour), PGM (grey) or PPM
(colour) whose comment (PNG: its "Comment" text; PGM/PPM: header lines) says where the image sits
in the complex plane:
    # mandelbrot view X_MIN X_MAX Y_MIN Y_MAX iters N precision FP32 counts LOW HIGH
and which counts the grey levels stand for ("counts LOW HIGH": 0 = interior, else a log scale
from LOW at grey 1 to HIGH at grey 255).
This script draws the grey levels through a colour map, with the real and imaginary axes
labelled in the complex plane, and a colour bar in escape counts.

    05_mandelbrot --image counts.png --gray
    python3 05_mandelbrot/draw_counts.py counts.png --out set.png [--cmap magma] [--title TEXT]

The block-shape sweep of a run (--sweep blocks) is in the run's JSON ("sweeps"): scripts/plot.py
draws it (05_mandelbrot_blocks_sweep.png), like every lesson's sweeps.
"""
import argparse
import math
import sys


def read_pnm(path):
    """Returns (width, height, channels, pixel bytes, comment lines) of a binary PGM/PPM."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    tokens, comments = [], []
    while len(tokens) < 4:
        if pos >= len(data):
            raise ValueError(f"{path}: truncated header")
        c = data[pos:pos + 1]
        if c == b"#":
            end = data.find(b"\n", pos)
            end = len(data) if end < 0 else end
            comments.append(data[pos + 1:end].decode("utf-8", "replace").strip())
            pos = end + 1
        elif c.isspace():
            pos += 1
        else:
            start = pos
            while pos < len(data) and not data[pos:pos + 1].isspace() and data[pos:pos + 1] != b"#":
                pos += 1
            tokens.append(data[start:pos].decode("ascii", "replace"))
    pos += 1  # the single whitespace byte after maxval
    magic, width, height, maxval = tokens[0], int(tokens[1]), int(tokens[2]), int(tokens[3])
    if magic not in ("P5", "P6") or maxval != 255:
        raise ValueError(f"{path}: not an 8-bit binary PGM/PPM")
    channels = 1 if magic == "P5" else 3
    pixels = data[pos:pos + width * height * channels]
    if len(pixels) != width * height * channels:
        raise ValueError(f"{path}: truncated pixels")
    return width, height, channels, pixels, comments


def read_png(path):
    """The same as read_pnm, for an 8-bit grey or RGB PNG (through Pillow, matplotlib's own
    dependency); the comment lines come from its "Comment" text chunk."""
    from PIL import Image

    with Image.open(path) as image:
        image.load()
        if image.mode not in ("L", "RGB"):
            raise ValueError(f"{path}: an 8-bit grey or RGB PNG is expected, not mode {image.mode}")
        channels = 1 if image.mode == "L" else 3
        comments = image.info.get("Comment", "").splitlines()
        return image.width, image.height, channels, image.tobytes(), comments


def read_image(path):
    """PNG, or binary PGM/PPM, told by the file's first bytes."""
    with open(path, "rb") as f:
        if f.read(8) == b"\x89PNG\r\n\x1a\n":
            return read_png(path)
    return read_pnm(path)


def parse_view(comments):
    """The view, iteration limit, precision and shaded count range from the lesson's header."""
    for line in comments:
        parts = line.split()
        if len(parts) >= 13 and parts[0] == "mandelbrot" and parts[1] == "view":
            x0, x1, y0, y1 = (float(v) for v in parts[2:6])
            return (x0, x1, y0, y1), int(parts[7]), parts[9], (int(parts[11]), int(parts[12]))
    return None, None, None, None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("image", help="a .png, .pgm or .ppm written by 05_mandelbrot --image")
    parser.add_argument("--out", required=True, help="the PNG to write")
    parser.add_argument("--cmap", default="magma", help="matplotlib colour map for grey images (default magma)")
    parser.add_argument("--scale", choices=("equalized", "log"), default="equalized",
                        help="colours by histogram equalisation (default) or by the lesson's log scale of counts")
    parser.add_argument("--title", default=None)
    parser.add_argument("--dpi", type=int, default=150)
    args = parser.parse_args(argv)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np  # matplotlib's own dependency
    from matplotlib.ticker import FixedFormatter, FixedLocator

    width, height, channels, pixels, comments = read_image(args.image)
    view, iters, precision, count_range = parse_view(comments)
    # Row 0 is the top of the image (the largest imaginary part), as imshow expects.
    rows = np.frombuffer(pixels, dtype=np.uint8).reshape((height, width) if channels == 1 else (height, width, 3))

    aspect = height / width
    fig_w = 8.0
    fig, ax = plt.subplots(figsize=(fig_w, fig_w * 0.8 * aspect + 0.9))
    extent = None
    deep = False
    if view is not None:
        x0, x1, y0, y1 = view
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        deep = x1 - x0 < 1e-3  # deep zooms: axes as offsets from the centre, not 15-digit ticks
        extent = (x0 - cx, x1 - cx, y0 - cy, y1 - cy) if deep else (x0, x1, y0, y1)
    if channels == 1:
        # Histogram equalisation (default): each grey level's colour is the fraction of outside
        # pixels at or below it, so every colour covers about as many pixels. A deep zoom, whose
        # counts crowd into a narrow band, then shows its structure instead of one flat colour.
        if args.scale == "equalized":
            hist = np.bincount(rows.ravel(), minlength=256).astype(float)
            hist[0] = 0  # the interior stays black
            cdf = np.cumsum(hist)
            curve = 1 + 254 * cdf / cdf[-1] if cdf[-1] > 0 else np.arange(256, dtype=float)
            curve[0] = 0
        else:
            curve = np.arange(256, dtype=float)
        image = ax.imshow(curve[rows], cmap=args.cmap, vmin=0, vmax=255, extent=extent, interpolation="nearest")
        if iters:
            # Colour bar ticks in escape counts. The lesson's grey level of count n is
            # 1 + 254 (ln(1 + n) - ln(1 + low)) / (ln(1 + high) - ln(1 + low)); the curve above maps it on.
            bar = fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
            low, high = count_range
            span = math.log1p(high) - math.log1p(low)
            scale = 254.0 / span if span > 0 else 0.0
            candidates = [m * 10 ** e for e in range(0, 9) for m in (1, 2, 5)]
            counts = sorted({low, high} | {n for n in candidates if low < n < high})

            def position(n):
                return float(curve[int(round(1 + scale * (math.log1p(n) - math.log1p(low))))])

            ticks = []
            for n in counts:  # at least 14 colour steps between labels, and above the interior's 0
                if n != high and (position(n) < 14 or (ticks and position(n) - ticks[-1][1] < 14) or
                                  position(high) - position(n) < 14):
                    continue
                ticks.append((n, position(n)))
            levels = [0] + [p for _, p in ticks]
            labels = [f"{iters} (in the set)"] + [str(n) for n, _ in ticks]
            bar.ax.yaxis.set_major_locator(FixedLocator(levels))
            bar.ax.yaxis.set_major_formatter(FixedFormatter(labels))
            bar.set_label("escape count" + (" (colours equalised)" if args.scale == "equalized" else " (log scale)"))
    else:
        ax.imshow(rows, extent=extent, interpolation="nearest")
    if view is not None:
        ax.set_xlabel(f"Re(c) - ({cx:.15g})" if deep else "Re(c)")
        ax.set_ylabel(f"Im(c) - ({cy:.15g})" if deep else "Im(c)")
        if deep:
            plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    else:
        ax.set_axis_off()
    title = args.title
    if title is None:
        title = f"Mandelbrot set, {width} x {height}"
        if iters:
            title += f", {iters} iterations, {precision}"
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=args.dpi)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
