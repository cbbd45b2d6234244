"""What every plot script of subsim starts with: its command line (CSV PNG [--title TEXT]) and
matplotlib without a display, or a message naming the package to install."""
import argparse
import csv
import sys


def parser(doc):
    """The shared arguments; a script adds its own before parse_args()."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("csv")
    p.add_argument("png")
    p.add_argument("--title", default="")
    return p


def read_rows(script, path, expected):
    """The rows of CSV `path` as dicts, or exit naming the `expected` columns it lacks."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = set(expected) - set(reader.fieldnames or [])
        if missing:
            sys.exit(f"{script}: {path}: missing columns {sorted(missing)}")
        return list(reader)


def pyplot(script):
    """matplotlib.pyplot on the Agg backend (files only: no display on a build machine)."""
    try:
        import matplotlib
    except ImportError:
        sys.exit(f"{script}: matplotlib is missing: install python3-matplotlib "
                 "(apt-get install python3-matplotlib)")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig, png, title=""):
    """The figure under `title` (none when empty) to `png`, as every script writes it."""
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=120)
