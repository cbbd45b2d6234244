# Shared by the Python module's tests: the command line of the same build (ctest sets SUBSIM_CLI
# and PYTHONPATH; see tests/CMakeLists.txt) and a scene file writer.
import json
import os
import subprocess

import pytest

CLI = os.environ.get("SUBSIM_CLI", "subsim")


def run_cli(*args):
    """Runs the subsim command line; returns (exit code, stdout, stderr)."""
    p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    code, out, err = run_cli("run", *args, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def scene_file(tmp_path):
    """Writes a scene file with the given YAML text; returns its path."""

    def write(text, name="scene.yaml"):
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return write
