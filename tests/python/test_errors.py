# Every error path raises a Python exception with the command line's message: bad scenes, scene
# files, solvers, options, settings, arrays and indices, files, and a diverging step.
import numpy as np
import pytest

import subsim


def test_an_unknown_scene_names_itself_and_the_known_ones():
    with pytest.raises(ValueError, match="nosuchscene") as e:
        subsim.World("nosuchscene")
    assert "granular" in str(e.value)


def test_a_bad_scene_parameter_names_the_parameter():
    with pytest.raises(ValueError, match="spheres"):
        subsim.World("granular:spheres=-3")
    with pytest.raises(ValueError, match="colour"):
        subsim.World("granular:colour=3")


def test_an_unknown_solver_lists_the_known_ones():
    with pytest.raises(ValueError, match="subadmm"):
        subsim.World("granular:spheres=27", solver="nosuchsolver")


def test_a_bad_solver_option_names_the_option_and_what_it_expects():
    with pytest.raises(ValueError, match="relaxation"):
        subsim.World("granular:spheres=27", solver_options={"relaxation": 5.0})
    with pytest.raises(ValueError, match="nosuchoption"):
        subsim.World("granular:spheres=27", solver_options={"nosuchoption": 1})


@pytest.mark.parametrize(
    "kwargs, field",
    [(dict(iterations=0), "iterations"), (dict(tolerance=-1.0), "tolerance"),
     (dict(threads=0), "threads"), (dict(dt=0.0), "dt"), (dict(dt=float("nan")), "dt")],
)
def test_bad_settings_name_the_setting(kwargs, field):
    with pytest.raises(ValueError, match=field):
        subsim.World("granular:spheres=27", **kwargs)


def test_a_bad_scene_file_names_the_file_and_the_field(scene_file):
    path = scene_file("bodies:\n  - name: box\n    mass: -1\n    shapes: []\n")
    with pytest.raises(ValueError, match="scene.yaml") as e:
        subsim.World(path)
    assert "mass" in str(e.value)


def test_a_missing_scene_file_is_named():
    with pytest.raises(ValueError, match="missing.yaml"):
        subsim.World("/nonexistent/missing.yaml")


def test_arrays_of_the_wrong_shape_or_values_are_refused():
    w = subsim.World("stack:boxes=2")
    n = w.num_bodies
    with pytest.raises(ValueError, match=r"positions: expected shape \(%d, 3\)" % n):
        w.positions = np.zeros((n, 2))
    with pytest.raises(ValueError, match="finite"):
        bad = w.positions
        bad[0, 0] = np.inf
        w.positions = bad
    with pytest.raises(ValueError, match="orientations"):
        w.orientations = np.zeros((n, 4))
    with pytest.raises(IndexError, match="body"):
        w.set_body_force(n, [0, 0, 1])
    with pytest.raises(ValueError, match="force"):
        w.set_body_force(0, [0, 1])
    with pytest.raises(IndexError, match="no robot"):
        w.robot_q(0)
    with pytest.raises(ValueError, match="at least 1"):
        w.step(0)


def test_robot_inputs_of_the_wrong_size_name_the_size():
    w = subsim.World("stir:spheres=27")
    nv = len(w.robot_v(0))
    with pytest.raises(ValueError, match=r"expected shape \(%d,\)" % nv):
        w.set_joint_torque(0, np.zeros(nv + 1))
    with pytest.raises(IndexError, match="robot 3"):
        w.set_joint_target(3, np.zeros(3))


def test_a_diverging_step_raises_and_the_world_waits_for_a_state():
    w = subsim.World("stack:boxes=1")
    saved = w.state()
    v = w.linear_velocities
    v[:, 2] = -1e4  # m/s: far above the divergence limit
    w.linear_velocities = v
    with pytest.raises(subsim.SimulationDiverged, match="diverged"):
        w.step()
    with pytest.raises(RuntimeError, match="diverged"):
        w.step()
    w.set_state(saved)
    w.step()


def test_problem_files_that_cannot_be_read_are_named(tmp_path):
    with pytest.raises(RuntimeError, match="nothere.h5"):
        subsim.read_problems(str(tmp_path / "nothere.h5"))
    junk = tmp_path / "junk.h5"
    junk.write_text("not an HDF5 file")
    with pytest.raises(RuntimeError, match="junk.h5"):
        subsim.read_problems(str(junk))
    with pytest.raises(RuntimeError, match="cannot create"):
        subsim.World("stack:boxes=1").record(str(tmp_path / "no" / "dir" / "r.h5"))


def test_a_python_without_numpy_is_told_what_to_do():
    # -S leaves out site, and with it the dist-packages where Debian's NumPy is.
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.path.dirname(subsim.__file__))
    p = subprocess.run([sys.executable, "-S", "-c", "import subsim"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert p.returncode != 0
    assert ("ImportError: subsim needs NumPy, which this Python (%s) cannot import: run subsim "
            "with /usr/bin/python3" % sys.executable) in p.stderr
    assert "add /usr/lib/python3/dist-packages to PYTHONPATH" in p.stderr
