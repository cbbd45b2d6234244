# `subsim view`'s page in headless Chromium (Debian's chromium, installed by scripts/setup.sh):
# on a recorded granular run it draws every body, scrubbing moves them, and the contact toggle
# shows and hides the impulse segments.  The page reports what it drew in its status line; a
# screenshot is left in the build folder as the test's artefact (view_granular.png).
import os
import re
import shutil
import subprocess

from conftest import run_cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--use-angle=swiftshader",
         "--enable-unsafe-swiftshader", "--virtual-time-budget=5000", "--window-size=1200,800"]


def status(page, fragment):
    """The page's status line after it loaded at page#fragment."""
    p = subprocess.run([CHROMIUM, *FLAGS, "--dump-dom", "file://" + page + "#" + fragment],
                       capture_output=True, text=True, timeout=300)
    m = re.search(r'<pre id="status">([^<]*)</pre>', p.stdout)
    assert m, p.stderr[-2000:]
    return m.group(1)


def fields(line):
    return dict(re.findall(r"(\w+) (\S+?)(?=\s\s|$)", line))


def test_the_page_draws_scrubs_and_toggles_contacts(tmp_path):
    assert CHROMIUM, "chromium is missing: run scripts/setup.sh"
    rec, page = str(tmp_path / "granular.h5"), str(tmp_path / "granular.html")
    code, _, err = run_cli("run", "granular:spheres=27", "--steps", "30", "--record", rec)
    assert code == 0, err
    code, out, err = run_cli("view", rec, "--output", page)
    assert code == 0, err

    first = status(page, "frame=0")
    last = status(page, "frame=29")
    hidden = status(page, "frame=29&contacts=0")
    f, l, h = fields(first), fields(last), fields(hidden)
    assert f["frame"] == "1/30" and l["frame"] == "30/30"
    assert f["bodies"] == "34"  # as `subsim run` lists them (tests/cli/view_cli_test.cpp
    assert int(f["shapes"]) > 27  # checks the page's data against the recording exactly)
    # Scrubbing moves the bodies: the first free body is elsewhere at the last step.
    where = lambda line: [float(x) for x in line.split(" at ")[1].split(", ")]
    assert max(abs(a - b) for a, b in zip(where(first), where(last))) > 1e-3
    # The contact toggle: one segment per contact when on, none when off.
    assert int(l["contacts"]) > 0 and l["arrows"] == l["contacts"]
    assert h["arrows"] == "0" and h["contacts"] == l["contacts"]

    shot = os.path.join(os.environ.get("SUBSIM_ARTEFACTS", str(tmp_path)), "view_granular.png")
    subprocess.run([CHROMIUM, *FLAGS, "--screenshot=" + shot, "file://" + page + "#frame=29"],
                   capture_output=True, timeout=300)
    assert os.path.getsize(shot) > 10000
