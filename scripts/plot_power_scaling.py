#!/usr/bin/env python3
"""Plots the scaling CSV of `subsim bench --paper cond` like the COND paper's Fig. 11: solve time
per step against the soft mat's node count on log-log axes, one line per solver, each with its
fitted power law ST = a n^b.

    plot_power_scaling.py SCALING.csv OUT.png [--title TEXT]
"""
import math
import sys
from collections import OrderedDict

import plot_common  # scripts/plot_common.py, beside this script


def main():
    parser = plot_common.parser(__doc__)
    args = parser.parse_args()
    plt = plot_common.pyplot("plot_power_scaling")

    lines = OrderedDict()  # solver -> [(nodes, ms)]
    expected = {"solver", "nodes", "steps", "solver_ms", "failure"}
    for row in plot_common.read_rows("plot_power_scaling", args.csv, expected):
        if int(row["steps"]) == 0 or row["failure"] or float(row["solver_ms"]) <= 0.0:
            continue
        lines.setdefault(row["solver"], []).append((float(row["nodes"]), float(row["solver_ms"])))
    if not lines:
        sys.exit(f"plot_power_scaling: {args.csv}: no completed points")

    fig, ax = plt.subplots(figsize=(6.5, 4.8))
    for solver, points in lines.items():
        xs = [math.log(p[0]) for p in points]
        ys = [math.log(p[1]) for p in points]
        n = len(xs)
        mx, my = sum(xs) / n, sum(ys) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
        a = my - b * mx
        line, = ax.plot([p[0] for p in points], [p[1] for p in points], "o",
                        label=f"{solver}: b = {b:.3f}")
        lo, hi = min(p[0] for p in points), max(p[0] for p in points)
        ax.plot([lo, hi], [math.exp(a + b * math.log(lo)), math.exp(a + b * math.log(hi))], "-",
                color=line.get_color())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("soft mat: number of nodes")
    ax.set_ylabel("solve time per step (ms)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(title="ST = a n^b")
    plot_common.save(fig, args.png, args.title)


if __name__ == "__main__":
    main()
