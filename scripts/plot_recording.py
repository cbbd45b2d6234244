#!/usr/bin/env python3
"""Plots the per-step CSV that `subsim plot RECORDING.h5 --kind KIND` writes: every column after
step and time_s against simulated time, one panel each, stacked over a shared time axis.

    plot_recording.py STEPS.csv OUT.png [--title TEXT]

The columns say what is drawn (subsim writes them per kind): max_penetration_mm, energy_j,
joint_error, contacts and normal_force_n, residual (log scale) and aa.  An empty field (a step
without constraints has no AA) leaves a gap.
"""
import csv
import math
import sys

import plot_common  # scripts/plot_common.py, beside this script

# Column -> (axis label, log scale).
COLUMNS = {
    "max_penetration_mm": ("max penetration (mm)", False),
    "energy_j": ("kinetic + gravitational energy (J)", False),
    "joint_error": ("max |bilateral row error| (m or rad)", False),
    "contacts": ("contacts", False),
    "normal_force_n": ("total normal force (N)", False),
    "residual": ("solver's own residual", True),
    "aa": ("AA = -log10 constraint residual", False),
}


def read_columns(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        names = reader.fieldnames or []
        if names[:2] != ["step", "time_s"] or len(names) < 3:
            sys.exit(f"plot_recording: {path}: expected the columns step,time_s,... "
                     f"that subsim plot writes, got {','.join(names)}")
        series = {name: ([], []) for name in names[2:]}
        for row in reader:
            t = float(row["time_s"])
            for name in names[2:]:
                if row[name] == "":
                    continue
                value = float(row[name])
                if math.isfinite(value) and (value > 0.0 or not COLUMNS.get(name, ("", False))[1]):
                    series[name][0].append(t)
                    series[name][1].append(value)
        return series


def main():
    parser = plot_common.parser(__doc__)
    args = parser.parse_args()

    plt = plot_common.pyplot("plot_recording")

    series = read_columns(args.csv)
    fig, axes = plt.subplots(len(series), 1, figsize=(8, 2.6 + 1.8 * len(series)), sharex=True,
                             squeeze=False)
    for ax, (name, (t, values)) in zip(axes[:, 0], series.items()):
        label, log = COLUMNS.get(name, (name, False))
        # Hundreds of steps read better as a line; a few are shown as points too.
        ax.plot(t, values, color="C0", linewidth=1.2, marker="o" if len(t) <= 30 else None,
                markersize=3)
        if log and values:
            ax.set_yscale("log")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[-1, 0].set_xlabel("simulated time (s)")
    plot_common.save(fig, args.png, args.title)


if __name__ == "__main__":
    main()
