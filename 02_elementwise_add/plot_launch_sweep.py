"""Lesson 02's own plot: the launch sweep (--sweep-launch), loaded by scripts/plot.py.

02_elementwise_add_launch_sweep.png: add_grid_stride's bandwidth against threads per block, one
line per grid size, with the device-to-device copy measured in the same run as a dashed line.
Drawn from the largest run whose JSON holds extra.launch_sweep.
"""
from collections import defaultdict

import matplotlib.pyplot as plt


def plot(reports, out_dir, course):
    """Draws the sweep of the largest run that recorded one; returns the paths written."""
    with_sweep = [r for r in reports if r["extra"].get("launch_sweep")]
    if not with_sweep:
        return []
    report = max(with_sweep, key=lambda r: r["size"]["value"])
    sweep = report["extra"]["launch_sweep"]
    by_grid = defaultdict(list)
    for point in sweep["points"]:
        by_grid[point["grid"]].append((point["block"], point["throughput"]))
    figure, axes = plt.subplots(figsize=(9, 5.5))
    for grid, points in by_grid.items():
        xs, ys = zip(*sorted(points))
        axes.plot(xs, ys, marker="o", label=grid)
    for ceiling in report["ceilings"]:
        if ceiling["unit"] == report["throughput_unit"] and ceiling["name"] == "d2d_copy":
            axes.axhline(ceiling["value"], color="black", linestyle="--", linewidth=1.5,
                         label=f"ceiling: {ceiling['name']} (same run)")
    axes.set_xscale("log", base=2)
    axes.set_xlabel("threads per block")
    axes.set_ylabel(f"throughput ({report['throughput_unit']})")
    axes.set_ylim(bottom=0)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8, title="grid", title_fontsize=8)
    size = report["size"]
    axes.set_title(f"{report['lesson']}: launch configuration, {sweep['kernel']}, {size['name']} = "
                   f"{size['value']:,}\n{course.provenance(report)}", fontsize=10)
    figure.tight_layout()
    path = out_dir / f"{report['lesson']}_launch_sweep.png"
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return [path]
