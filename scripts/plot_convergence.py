#!/usr/bin/env python3
"""Plots the CSV of `subsim bench --convergence` the way the AL paper plots its bolt-nut and dish
cases: residual (log scale) against iteration and against cumulative solve time, one line per
solver.

    plot_convergence.py CONVERGENCE.csv OUT.png [--title TEXT] [--all]

By default only the common judge (the AL paper's constraint residual, the same metric for every
solver) is drawn, since the solvers' own stopping residuals are different quantities and do not
share a scale; --all adds them as dashed lines.  A CSV with a `step` column (`--convergence
--replay N`: N steps of the run) draws one thin line per step, in its solver's colour (the RPI
paper's Figure 9b: fifty samples over 400 steps).
"""
import math
import sys
from collections import OrderedDict

import plot_common  # scripts/plot_common.py, beside this script

JUDGE = "constraint (AL sec. 6)"


def main():
    parser = plot_common.parser(__doc__)
    parser.add_argument("--all", action="store_true",
                        help="also draw each solver's own residual (dashed)")
    args = parser.parse_args()

    plt = plot_common.pyplot("plot_convergence")

    # (solver, residual_name) -> lists, in file order so the legend follows the bench's order.
    series = OrderedDict()
    expected = {"solver", "iteration", "residual_name", "residual", "cumulative_ms"}
    rows = plot_common.read_rows("plot_convergence", args.csv, expected)
    sampled = bool(rows) and "step" in rows[0]
    for row in rows:
        if row["residual_name"] != JUDGE and not args.all:
            continue
        residual = float(row["residual"])
        # A log axis cannot show 0 or non-finite values; leaving them out keeps the rest visible.
        if not math.isfinite(residual) or residual <= 0.0:
            continue
        key = (row["solver"], row["residual_name"], row["step"] if sampled else "")
        s = series.setdefault(key, ([], [], []))
        s[0].append(int(row["iteration"]))
        s[1].append(float(row["cumulative_ms"]))
        s[2].append(residual)
    if not series:
        sys.exit(f"plot_convergence: {args.csv}: nothing to plot")

    fig, (ax_it, ax_ms) = plt.subplots(1, 2, figsize=(11, 4.2))
    colours = {}
    labelled = set()
    for (solver, name, _), (its, ms, res) in series.items():
        colour = colours.setdefault(solver, f"C{len(colours) % 10}")
        judge = name == JUDGE
        label = solver if judge else f"{solver}: {name}"
        if (solver, name) in labelled:
            label = None  # one legend entry per solver, however many steps
        labelled.add((solver, name))
        style = dict(color=colour, linestyle="-" if judge else "--",
                     linewidth=0.7 if sampled else 1.4, alpha=0.6 if sampled else 1.0,
                     marker="o" if len(its) <= 12 and not sampled else None, markersize=3)
        ax_it.plot(its, res, label=label, **style)
        ax_ms.plot(ms, res, label=label, **style)
    for ax, xlabel in ((ax_it, "iteration"), (ax_ms, "cumulative solve time (ms)")):
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("residual" + ("" if args.all else f" ({JUDGE})"))
        ax.grid(True, which="both", alpha=0.3)
    ax_ms.legend(fontsize=8)
    plot_common.save(fig, args.png, args.title)


if __name__ == "__main__":
    main()
