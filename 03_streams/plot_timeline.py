"""Lesson 03's own plot: the timeline of one pipelined run, a Gantt chart of copies and kernels per stream.

Loaded by scripts/plot.py, which calls plot(reports, out_dir, course) with every report of this
lesson; course is scripts/plot.py itself (for provenance()). Draws <lesson>_timeline.png from the
largest run that recorded extra.timeline (03_streams --json), and returns the paths it wrote.

Each bar is one stage of one chunk. An event marks when its stream reached it, not when an engine
took the work, so a copy's bar starts where the previous copy in the same direction ended, if that
is later (infer_copy_starts in pipeline.cpp); a kernel's bar starts where its stream reached it.
"""
import matplotlib.pyplot as plt

STAGE_COLORS = {"h2d": "#4c72b0", "kernel": "#55a868", "d2h": "#c44e52"}


def plot(reports, out_dir, course):
    with_timeline = [r for r in reports if r["extra"].get("timeline")]
    if not with_timeline:
        return []
    report = max(with_timeline, key=lambda r: r["size"]["value"])
    timeline = report["extra"]["timeline"]
    events = timeline["events"]
    if not events:
        return []
    streams = sorted({event["stream"] for event in events})
    figure, axes = plt.subplots(figsize=(10, 0.6 * len(streams) + 1.8))
    for event in events:
        row = streams.index(event["stream"])
        axes.broken_barh([(event["start_ms"], event["end_ms"] - event["start_ms"])], (row - 0.4, 0.8),
                         facecolors=STAGE_COLORS.get(event["stage"], "grey"), edgecolor="white", linewidth=0.5)
    axes.set_yticks(range(len(streams)))
    axes.set_yticklabels([f"stream {s}" for s in streams])
    axes.invert_yaxis()
    axes.set_xlabel("time since the start event recorded before the first copy (ms)")
    axes.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=c) for c in STAGE_COLORS.values()],
                labels=["host to device", "kernel", "device to host"], fontsize=8, loc="upper right")
    axes.set_title(f"{report['lesson']}: {timeline.get('title', 'timeline')}\n{course.provenance(report)}",
                   fontsize=10)
    figure.tight_layout()
    path = out_dir / f"{report['lesson']}_timeline.png"
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return [path]
