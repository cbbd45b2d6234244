#!/usr/bin/env python3
"""Plots the CSV of `subsim bench --front`: accuracy (AA) against mean solve time per problem (log
scale), one panel per scene and one curve per solver, solid on one thread and dashed on more, a
marker per swept iteration count; points on the front (no point of any solver is as fast and as
accurate) are ringed.

    plot_front.py FRONT.csv OUT.png [--title TEXT]
"""
import sys
from collections import OrderedDict

import plot_common  # scripts/plot_common.py, beside this script


def main():
    parser = plot_common.parser(__doc__)
    args = parser.parse_args()
    plt = plot_common.pyplot("plot_front")

    scenes = OrderedDict()  # scene -> (solver, threads) -> [(ms, aa, iterations, on_front)]
    expected = {"scene", "solver", "threads", "iterations", "at_ms", "aa", "failed", "on_front"}
    for row in plot_common.read_rows("plot_front", args.csv, expected):
        if row["failed"] == "true" or not row["at_ms"] or not row["aa"]:
            continue
        curve = scenes.setdefault(row["scene"], OrderedDict()).setdefault(
            (row["solver"], int(row["threads"])), [])
        curve.append((float(row["at_ms"]), float(row["aa"]), int(row["iterations"]),
                      row["on_front"] == "true"))
    if not scenes:
        sys.exit(f"plot_front: {args.csv}: no completed points")

    fig, axes = plt.subplots(1, len(scenes), figsize=(5.5 * len(scenes), 4.4), squeeze=False)
    colours = {}
    for ax, (scene, curves) in zip(axes[0], scenes.items()):
        for (solver, threads), points in curves.items():
            points.sort()
            colour = colours.setdefault(solver, f"C{len(colours) % 10}")
            ax.plot([p[0] for p in points], [p[1] for p in points], color=colour,
                    linestyle="-" if threads == 1 else "--", marker="o", markersize=3,
                    label=f"{solver}, {threads} thr.")
            front = [p for p in points if p[3]]
            ax.plot([p[0] for p in front], [p[1] for p in front], linestyle="none", marker="o",
                    markersize=9, markerfacecolor="none", markeredgecolor=colour)
        ax.set_xscale("log")
        ax.set_xlabel(f"{scene}: mean solve time per problem (ms)")
        ax.set_ylabel("AA (-log10 constraint residual)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    plot_common.save(fig, args.png, args.title)


if __name__ == "__main__":
    main()
