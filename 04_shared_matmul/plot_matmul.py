#!/usr/bin/env python3
"""Lesson 04's plot: GFLOP/s against matrix size for every kernel, cuBLAS and the FMA ceiling.

Usage: plot_matmul.py SWEEP.json --out FOLDER

Reads the JSON that `04_shared_matmul --sweep --json SWEEP.json` writes (extra.sweep: one point
per size and kernel, each verified) and draws 04_shared_matmul_sweep.png: one line per kernel,
cuBLAS SGEMM (FP32, TF32 off) as a thick line, and the FP32 FMA loop measured in the same run
as a dashed horizontal line. Labelled with the GPU, CUDA version and date from the JSON.
Plots only: every number comes from the run. scripts/plot.py calls plot() with the lesson's
reports (the course's convention for a lesson's own plots).
"""
import argparse
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402


def provenance(report):
    gpu = report.get("gpu", {})
    device = gpu.get("name") or "no GPU"
    cuda = f", CUDA {gpu['runtime_cuda_version']}" if gpu.get("runtime_cuda_version") else ""
    host = report.get("host")  # absent in reports written before the host was recorded
    host = f"\nhost: {host['cpu']} ({host['logical_cpus']} CPUs)" if host else ""
    return f"{device}{cuda}, {report.get('date', '')[:10]}{host}"


def draw_sweep(report, out_dir):
    """Draws 04_shared_matmul_sweep.png from one report's extra.sweep; returns its path (or None)."""
    points = report.get("extra", {}).get("sweep")
    if not points:
        return None
    series = {}
    for point in points:
        series.setdefault(point["kernel"], []).append((point["size"], point["gflops"] / 1000.0))

    figure, axes = plt.subplots(figsize=(9, 5.5))
    for kernel, values in series.items():
        values.sort()
        xs, ys = zip(*values)
        if kernel == "cublas":
            axes.plot(xs, ys, color="black", linewidth=3, marker="o", label="cuBLAS SGEMM (FP32, TF32 off)")
        else:
            axes.plot(xs, ys, marker="o", linewidth=1.5, label=kernel)
    for ceiling in report.get("ceilings", []):
        if ceiling.get("name") == "fp32_fma":
            axes.axhline(ceiling["value"] / 1000.0, color="grey", linestyle="--",
                         label=f"FP32 FMA loop ({ceiling['value'] / 1000.0:.1f} TFLOP/s)")
    axes.set_xscale("log", base=2)
    sizes = sorted({point["size"] for point in points})
    axes.set_xticks(sizes)
    axes.set_xticklabels([str(size) for size in sizes])
    axes.set_xlabel("M = N = K")
    axes.set_ylabel("TFLOP/s (2 M N K / median time)")
    axes.set_ylim(bottom=0)
    axes.grid(True, alpha=0.3)
    axes.set_title(f"04_shared_matmul: FP32 matmul kernels against cuBLAS\n{provenance(report)}")
    axes.legend(fontsize=8, loc="upper left", ncol=2)
    figure.tight_layout()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "04_shared_matmul_sweep.png"
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def plot(reports, out_dir, course):
    """Called by scripts/plot.py with every report of this lesson: the sweep of the last run that has one."""
    del course  # provenance comes from the report itself
    with_sweep = [report for report in reports if report.get("extra", {}).get("sweep")]
    return [draw_sweep(with_sweep[-1], out_dir)] if with_sweep else []


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json", help="JSON written by 04_shared_matmul --sweep --json")
    parser.add_argument("--out", default=".", help="folder for the PNG")
    args = parser.parse_args()

    with open(args.json) as handle:
        report = json.load(handle)
    path = draw_sweep(report, args.out)
    if path is None:
        print(f"plot_matmul.py: {args.json} has no extra.sweep (run with --sweep)", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
