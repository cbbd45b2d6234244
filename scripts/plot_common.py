"""What every plot script of subsim starts with: its command line (CSV PNG [--title TEXT]) and
matplotlib without a display, or a message naming the package to install."""
import argparse
import sys


def parser(doc):
    """The shared arguments; a script adds its own before parse_args()."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("csv")
    p.add_argument("png")
    p.add_argument("--title", default="")
    return p


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
