# `subsim run --serve` and `subsim view --serve` (apps/subsim/live_view.cpp): the page and its
# steps over HTTP on localhost while a run runs; what the server sends is the recording's data,
# serving changes nothing in the run, Ctrl-C (SIGINT) stops a run with its recording sealed, and
# a port in use is refused.  The served page in headless Chromium: tests at the end.
import base64
import json
import re
import signal
import socket
import subprocess
import time
import urllib.request

import numpy as np

from conftest import CLI, run_cli
from test_viewer import CHROMIUM, FLAGS, fields

SCENE = ["granular:spheres=27", "--steps", "30"]


def start(*args):
    """Starts `subsim ARGS` and waits for the address it serves; returns (process, url)."""
    p = subprocess.Popen([CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in p.stderr:
        lines.append(line)
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        if m:
            return p, m.group(1)
    p.wait(timeout=60)
    raise AssertionError("no address on stderr: " + "".join(lines))


def stop(p, sig=signal.SIGINT):
    """Sends `sig`; returns (exit code, stdout, the rest of stderr)."""
    p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    return p.returncode, out, err


def get(url):
    with urllib.request.urlopen(url, timeout=60) as r:
        return r.status, r.read()


def frames_until_done(url, least=None):
    """Every step the server has, asked for as the page asks (from the first it lacks) until the
    run has ended, or until it has `least` steps."""
    chunks, n = [], 0
    for _ in range(6000):
        _, body = get(url + "frames?from=%d" % n)
        d = json.loads(body)
        assert d["first"] == n
        if d["time"]:
            chunks.append(d)
            n += len(d["time"])
        if d["done"] or (least is not None and n >= least):
            return chunks
        if not d["time"]:
            time.sleep(0.05)
    raise AssertionError("the run never ended")


def decoded(chunks, field, dtype=np.float32):
    return np.concatenate([np.frombuffer(base64.b64decode(c[field]), dtype) for c in chunks])


def page_data(page):
    m = re.search(r'id="subsim-data">(.*?)</script>', page, re.S)
    assert m
    return json.loads(m.group(1))


def test_a_served_run_sends_its_recording_and_changes_nothing(tmp_path):
    rec, page = str(tmp_path / "run.h5"), str(tmp_path / "run.html")
    p, url = start("run", *SCENE, "--serve", "--port", "0", "--record", rec, "--json")
    chunks = frames_until_done(url)
    status, html = get(url)
    assert status == 200
    data = page_data(html.decode())
    assert data["live"] is True and "frames" not in data and len(data["bodies"]) == 34
    code, out, err = stop(p)
    assert code == 0, err
    served = json.loads(out)
    assert served["serve"] == url and served["interrupted"] is False
    assert "its page stays at " + url in err

    # The same run without the server: the same state, bit for bit.
    code, plain, err = run_cli("run", *SCENE, "--json")
    assert code == 0, err
    assert json.loads(plain)["final_state_hash"] == served["final_state_hash"]

    # What the server sent is what the written page of the recording holds.
    code, _, err = run_cli("view", rec, "--output", page)
    assert code == 0, err
    written = page_data(open(page).read())["frames"]
    assert sum(len(c["time"]) for c in chunks) == len(written["time"]) == 30
    assert [t for c in chunks for t in c["time"]] == written["time"]
    assert [e for c in chunks for e in c["energy"]] == written["energy"]
    for field in ("position", "orientation", "contact_point", "contact_normal", "contact_impulse"):
        assert np.array_equal(decoded(chunks, field), decoded([written], field)), field
    # Contacts per step: the chunks' offsets restart at 0.
    per_step = lambda cs: np.concatenate(
        [np.diff(np.frombuffer(base64.b64decode(c["contact_begin"]), np.int32)) for c in cs])
    assert np.array_equal(per_step(chunks), per_step([written]))
    assert per_step(chunks).sum() > 0


def test_the_server_answers_bad_requests(tmp_path):
    p, url = start("run", *SCENE, "--serve", "--port", "0")
    try:
        frames_until_done(url)
        for bad in ("x", "12x", "-1", ""):
            try:
                urllib.request.urlopen(url + "frames?from=" + bad, timeout=60)
                raise AssertionError("from=%s was accepted" % bad)
            except urllib.error.HTTPError as e:
                assert e.code == 400
                assert "from: expected a step index, got '%s'" % bad in e.read().decode()
        # Past the end: no steps, and the run has ended.
        d = json.loads(get(url + "frames?from=1000")[1])
        assert d["time"] == [] and d["done"] is True and d["first"] == 30
    finally:
        code, _, err = stop(p, signal.SIGTERM)
    assert code == 0, err


def test_ctrl_c_stops_the_run_and_seals_its_recording(tmp_path):
    rec = str(tmp_path / "long.h5")
    p, url = start("run", "granular:spheres=27", "--steps", "1000000", "--serve", "--port", "0",
                   "--record", rec, "--json")
    frames_until_done(url, least=3)
    code, out, err = stop(p)
    assert code == 130, err
    j = json.loads(out)
    assert j["interrupted"] is True and 3 <= j["steps_completed"] < 1000000
    assert "interrupted after %d of 1000000 steps" % j["steps_completed"] in err
    code, out, err = run_cli("replay", rec, "--format", "json")
    assert code == 0, err
    assert len(json.loads(out)["steps"]) == j["steps_completed"]


def test_a_port_in_use_is_refused(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        code, out, err = run_cli("run", *SCENE, "--serve", "--port", port)
        assert code == 2 and out == ""
        assert ("--serve: cannot serve the page on 127.0.0.1:%s (is the port in use, or below "
                "1024?): choose another with --port, or --port 0 for any free one" % port) in err
        rec = str(tmp_path / "run.h5")
        assert run_cli("run", *SCENE, "--record", rec)[0] == 0
        code, _, err = run_cli("view", rec, "--serve", "--port", port)
        assert code == 2 and "cannot serve the page on 127.0.0.1:" + port in err


def status(url):
    p = subprocess.run([CHROMIUM, *FLAGS, "--dump-dom", url], capture_output=True, text=True,
                       timeout=300)
    m = re.search(r'<pre id="status">([^<]*)</pre>', p.stdout)
    assert m, p.stderr[-2000:]
    return m.group(1)


def test_the_served_page_draws_the_recording(tmp_path):
    assert CHROMIUM, "chromium is missing: run scripts/setup.sh"
    rec = str(tmp_path / "run.h5")
    assert run_cli("run", *SCENE, "--record", rec)[0] == 0
    p, url = start("view", rec, "--serve", "--port", "0")
    try:
        last = fields(status(url))
        chosen = fields(status(url + "#frame=9&contacts=0"))
    finally:
        code, _, err = stop(p)
    assert code == 0, err
    # The page asked for every step and follows the newest; the address chooses another.
    assert last["frame"] == "30/30" and last["bodies"] == "34" and last["run"] == "ended"
    assert int(last["contacts"]) > 0 and last["arrows"] == last["contacts"]
    assert chosen["frame"] == "10/30" and chosen["arrows"] == "0"
