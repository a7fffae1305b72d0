"""Lesson 06: the pictures of a run and the crossover plot (matplotlib; plots only).

scripts/plot.py loads this module and calls plot(reports, out_dir, course). From the run's JSON:
  06_fft_convolve_side_by_side.png   input, CPU result, GPU result and |GPU - CPU|, from the PNGs
                                     the run wrote with --out-dir (extra.images); without a GPU:
                                     input, reference, CPU result and |CPU - reference|
  06_fft_convolve_naive_wrap.png     the pitfall: input, the right answer, the classic's naive
                                     FFT (no padding, filter in the corner) and |naive - right|
  06_fft_convolve_crossover.png      median time against the filter size K (--sweep filter-size),
                                     CPU and GPU side by side: where the FFT starts to win (each
                                     FFT row: FFTW, cuFFT on the whole image, cuFFT in tiles by
                                     overlap-save); given several runs with the sweep, the last
                                     one, and each also as 06_fft_convolve_crossover_<W>x<H>.png
The pictures of a run with another filter than the classic are named after it
(06_fft_convolve_naive_wrap_box_31.png), so several runs in one folder keep theirs apart.

    python3 scripts/plot.py run.json --out plots
"""
import re
from pathlib import Path

LESSON = "06_fft_convolve"


def load_panel(path, image):
    """The image's values in the units of the result (the PNG's grey mapped back to [low, high])."""
    import matplotlib.image as mpimg

    grey = mpimg.imread(str(path))
    if grey.ndim == 3:
        grey = grey[..., 0]
    return image["low"] + grey * (image["high"] - image["low"])


def show(axes, figure, values, title, image, difference=False):
    cmap = "magma" if difference else "gray"
    shown = axes.imshow(values, cmap=cmap, vmin=image["low"], vmax=image["high"] if image["high"] > image["low"] else None,
                        interpolation="nearest")
    axes.set_title(title, fontsize=9)
    axes.set_xticks([])
    axes.set_yticks([])
    colorbar = figure.colorbar(shown, ax=axes, fraction=0.046, pad=0.02)
    colorbar.ax.tick_params(labelsize=7)


def image_figure(plt, report, panels, title, path, course):
    """panels: (image entry name, title, is_difference); entries missing from the run are skipped.
    The pictures' paths are checked by course.image_path (inside the results' folders or --out)."""
    images = report["extra"]["images"]
    by_name = {image["name"]: image for image in images["files"]}
    chosen = [(by_name[name], text, diff) for name, text, diff in panels if name in by_name]
    if len(chosen) < len(panels):
        return None
    files = [course.image_path(images["folder"], image["file"]) for image, _, _ in chosen]
    if not all(files):
        return None
    figure, axes = plt.subplots(1, len(chosen), figsize=(3.6 * len(chosen), 3.6))
    for ax, (image, text, diff), file in zip(axes, chosen, files):
        label = text
        if diff:
            label += f"\nmax {image['high']:.3g}"
        show(ax, figure, load_panel(file, image), label, image, difference=diff)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def filter_tag(name):
    """'' for the classic, else a file-name part: 'gaussian 9 x 9 (sigma 1.5)' -> '_gaussian_9'."""
    words = name.split()
    if not words or words[0] == "classic":
        return ""
    if words[0] == "file":
        return "_file"
    # From a results file: only letters, digits and '_' reach a PNG's name ("gaussian /../x" -> "_gaussian_x").
    return "_" + "_".join(filter(None, (re.sub(r"[^A-Za-z0-9]+", "_", word).strip("_")[:40] for word in words[:2])))


def plot_images(plt, report, out_dir, course):
    extra = report.get("extra", {})
    if "images" not in extra:
        return []
    names = {image["name"] for image in extra["images"]["files"]}
    filt = extra.get("filter", "")
    size = f"{extra['images'].get('width', '?')} x {extra['images'].get('height', '?')}"
    written = []
    if "gpu" in names:
        gpu = extra["images"].get("gpu_method", "GPU")
        panels = [("input", "input", False), ("cpu", "CPU (FFTW)", False), ("gpu", f"GPU ({gpu})", False),
                  ("gpu_difference", "|GPU - CPU|", True)]
    else:
        panels = [("input", "input", False), ("reference", "reference (double, direct)", False),
                  ("cpu", "CPU (FFTW)", False), ("cpu_difference", "|CPU - reference|", True)]
    title = f"{LESSON}: {filt}, {size}\n{course.provenance(report)}"
    tag = filter_tag(filt)
    path = image_figure(plt, report, panels, title, out_dir / f"{LESSON}_side_by_side{tag}.png", course)
    if path:
        written.append(path)
    naive = "gpu_naive" if "gpu_naive" in names else "naive"
    where = "GPU cuFFT" if naive == "gpu_naive" else "CPU FFTW"
    panels = [("input", "input", False), ("reference", "right: padded, centred", False),
              (naive, f"naive C2C ({where}): wrapped", False), (f"{naive}_difference", "|naive - right|", True)]
    path = image_figure(plt, report, panels, f"{LESSON}: the classic's naive FFT, {filt}, {size}\n"
                        f"{course.provenance(report)}", out_dir / f"{LESSON}_naive_wrap{tag}.png", course)
    if path:
        written.append(path)
    return written


def is_fft(variant):
    """An FFT row: FFTW, the cuFFT methods (fft_*), and overlap-save (cuFFT in tiles)."""
    return "FFT" in variant or "fft" in variant or "overlap_save" in variant


def crossover(points, fft_name, direct_names):
    """The smallest K at which the FFT variant is faster than every direct variant measured there."""
    by_value = {}
    for point in points:
        by_value.setdefault(point["value"], {})[point["variant"]] = point["time"]["median"]
    for value in sorted(by_value):
        times = by_value[value]
        directs = [times[name] for name in direct_names if name in times]
        if fft_name in times and directs and times[fft_name] < min(directs):
            return value
    return None


def plot_crossover(plt, report, out_dir, course, name_by_size=False):
    sweep = next((s for s in report.get("sweeps", []) if s["name"] == "filter-size" and s["status"] == "ok"), None)
    if not sweep:
        return None
    points = [p for p in sweep["points"] if p["status"] == "ok" and p["time"]]
    sides = {"CPU": [p for p in points if p["variant"].startswith("CPU")],
             "GPU": [p for p in points if p["variant"].startswith("GPU")]}
    sides = {side: pts for side, pts in sides.items() if pts}
    if not sides:
        return None
    figure, axes = plt.subplots(1, len(sides), figsize=(7.0 * len(sides), 5.0), squeeze=False, layout="constrained")
    for ax, (side, pts) in zip(axes[0], sides.items()):
        variants = sorted({p["variant"] for p in pts})
        # One colour per row (a panel may hold a dozen rows: tab20 has 20 distinct colours); FFT
        # rows solid with circles, direct ones dashed with squares.
        colours = plt.get_cmap("tab20").colors[0::2] + plt.get_cmap("tab20").colors[1::2]  # dark ones first
        for index, variant in enumerate(variants):
            mine = sorted((p for p in pts if p["variant"] == variant), key=lambda p: p["value"])
            style = "-o" if is_fft(variant) else "--s"
            ax.plot([p["value"] for p in mine], [p["time"]["median"] for p in mine], style, markersize=4, label=variant,
                    color=colours[index % len(colours)])
        ax.set_yscale("log")
        fft = [v for v in variants if ("FFTW" in v or "fft_r2c" in v or "fft_fused" in v or "overlap_save" in v)]
        direct = [v for v in variants if "direct" in v or "separable" in v]
        for name in fft:
            k = crossover(pts, name, [d for d in direct if "separable" not in d])
            if k is not None:
                which = name.removeprefix("GPU ").removeprefix("CPU ")  # fft_fused, overlap_save, FFTW, ...
                # Named in the legend: several FFT rows may cross at the same K.
                ax.axvline(k, color="grey", linestyle=":", linewidth=1, label=f"{which} faster from K = {k}")
        ax.set_xlabel("filter size K (K x K)")
        ax.set_ylabel("median time (ms, log scale)")
        ax.set_title(side, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2 if len(variants) > 6 else 1, loc="upper left")
    size = report["size"]
    dims = size.get("dims", {})
    shown = f"{dims['width']} x {dims['height']}" if "width" in dims and "height" in dims else f"{size['value']:,}"
    figure.suptitle(f"{LESSON}: direct against FFT convolution, image {shown}\n{course.provenance(report)}", fontsize=10)
    tag = f"_{dims['width']}x{dims['height']}" if name_by_size and "width" in dims and "height" in dims else ""
    path = out_dir / f"{LESSON}_crossover{tag}.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def plot(reports, out_dir, course):
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    written = []
    for report in reports:
        written.extend(plot_images(plt, report, out_dir, course))
    with_sweep = [r for r in reports if any(s["name"] == "filter-size" and s["status"] == "ok" for s in r.get("sweeps", []))]
    if with_sweep:
        path = plot_crossover(plt, with_sweep[-1], out_dir, course)
        if path:
            written.append(path)
    if len(with_sweep) > 1:  # the 1024 and the 4096 sweeps, say: one figure each, named by size
        for report in with_sweep:
            path = plot_crossover(plt, report, out_dir, course, name_by_size=True)
            if path and path not in written:
                written.append(path)
    return written
