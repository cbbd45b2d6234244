#!/usr/bin/env python3
"""Plots the CSV of `subsim bench --scaling` like the ICRA SubADMM paper's Fig. 2: solver time per
step against the system's size, one panel per scene, with the least-squares line and its R^2.

    plot_scaling.py SCALING.csv OUT.png [--title TEXT]
"""
import sys
from collections import OrderedDict

import plot_common  # scripts/plot_common.py, beside this script


def main():
    parser = plot_common.parser(__doc__)
    args = parser.parse_args()
    plt = plot_common.pyplot("plot_scaling")

    panels = OrderedDict()  # (scene, parameter) -> [(size, ms)]
    expected = {"scene", "parameter", "size", "steps", "solver_ms"}
    for row in plot_common.read_rows("plot_scaling", args.csv, expected):
        if int(row["steps"]) == 0:
            continue
        panels.setdefault((row["scene"], row["parameter"]), []).append(
            (float(row["size"]), float(row["solver_ms"])))
    if not panels:
        sys.exit(f"plot_scaling: {args.csv}: no completed points")

    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False)
    for ax, ((scene, parameter), points) in zip(axes[0], panels.items()):
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        n = len(xs)
        mx, my = sum(xs) / n, sum(ys) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
        intercept = my - slope * mx
        syy = sum((y - my) ** 2 for y in ys)
        ss_res = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys))
        r2 = 1.0 - ss_res / syy if syy > 0 else 1.0
        ax.plot(xs, ys, "o", label="measured")
        ax.plot([min(xs), max(xs)], [intercept + slope * min(xs), intercept + slope * max(xs)],
                "-", label=f"linear fit, $R^2$ = {r2:.4f}")
        ax.set_xlabel(f"{scene}: number of {parameter}")
        ax.set_ylabel("solver time per step (ms)")
        ax.grid(True, alpha=0.3)
        ax.legend()
    plot_common.save(fig, args.png, args.title)


if __name__ == "__main__":
    main()
