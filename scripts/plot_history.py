#!/usr/bin/env python3
"""Plots a convergence history CSV, `solver,problem,iteration,residual_name,residual,cumulative_ms`
(one line per iteration of each solve, as `subsim solve --history` writes it): the residual on a
log scale against iteration and against cumulative solve time, one curve per (solver, problem).

    plot_history.py HISTORY.csv OUT.png [--title TEXT]

Curves share their solver's colour and the legend names each solver once, so that a file with
hundreds of problems still reads; a solver reporting several residual names gets a line style per
name.  Zero and non-finite residuals cannot be shown on a log axis and are left out.
"""
import csv
import math
import sys
from collections import OrderedDict

import plot_common  # scripts/plot_common.py, beside this script

COLUMNS = ["solver", "problem", "iteration", "residual_name", "residual", "cumulative_ms"]
STYLES = ["-", "--", ":", "-."]


def main():
    parser = plot_common.parser(__doc__)
    args = parser.parse_args()

    plt = plot_common.pyplot("plot_history")

    # (solver, problem, residual_name) -> (iterations, ms, residuals), in file order.
    curves = OrderedDict()
    with open(args.csv, newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            sys.exit(f"plot_history: {args.csv}: expected the columns {','.join(COLUMNS)}")
        for row in reader:
            residual = float(row["residual"])
            if not math.isfinite(residual) or residual <= 0.0:
                continue
            c = curves.setdefault((row["solver"], row["problem"], row["residual_name"]),
                                  ([], [], []))
            c[0].append(int(row["iteration"]))
            c[1].append(float(row["cumulative_ms"]))
            c[2].append(residual)
    if not curves:
        sys.exit(f"plot_history: {args.csv}: no positive finite residual to plot")

    colours, styles, labelled = {}, {}, set()
    fig, (ax_it, ax_ms) = plt.subplots(1, 2, figsize=(11, 4.2))
    for (solver, problem, name), (its, ms, res) in curves.items():
        colour = colours.setdefault(solver, f"C{len(colours) % 10}")
        solver_styles = styles.setdefault(solver, {})
        style = solver_styles.setdefault(name, STYLES[len(solver_styles) % len(STYLES)])
        # One legend entry per (solver, residual name): its first curve carries the label.
        label = None
        if (solver, name) not in labelled:
            labelled.add((solver, name))
            label = f"{solver}: {name}"
        kwargs = dict(color=colour, linestyle=style, linewidth=1.0, alpha=0.8,
                      marker="o" if len(its) <= 12 else None, markersize=3)
        ax_it.plot(its, res, label=label, **kwargs)
        ax_ms.plot(ms, res, **kwargs)
    for ax, xlabel in ((ax_it, "iteration"), (ax_ms, "cumulative solve time (ms)")):
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("residual")
        ax.grid(True, which="both", alpha=0.3)
    ax_it.legend(fontsize=8)
    problems = len({(k[0], k[1]) for k in curves})
    title = args.title + (" - " if args.title else "") + f"{problems} solve(s)"
    plot_common.save(fig, args.png, title)


if __name__ == "__main__":
    main()
