# The World from Python: the command line's bits, arrays of the right shapes and units, writes
# that change the next step, controller inputs, contacts, save / restore.
import math
import os

import numpy as np
import pytest

import subsim
from conftest import cli_json

G = 9.81
PANDA_HOLD = os.path.join(os.environ.get("SUBSIM_SOURCE_DIR", os.path.join(
    os.path.dirname(__file__), "..", "..")), "scenes", "panda_hold.yaml")


def test_catalogues_name_the_scenes_and_solvers():
    scenes = {s["name"]: s for s in subsim.scenarios()}
    assert "granular" in scenes and "stir" in scenes
    assert any(p["name"] == "spheres" for p in scenes["granular"]["parameters"])
    solvers = {s["name"]: s for s in subsim.solvers()}
    assert {"subadmm", "pgs", "cond", "canal"} <= set(solvers)
    assert any(o["name"] == "delassus" for o in solvers["apgd"]["options"])


def test_the_step_report_splits_the_step_into_its_phases():
    w = subsim.World("granular:spheres=27", iterations=20)
    report = w.step(3)
    d = report.as_dict()
    for name in ("solver_ms", "collision_ms", "assembly_ms", "step_ms"):
        assert d[name] == getattr(report, name) and d[name] >= 0.0
    # Disjoint parts of the step (bookkeeping, not timing).
    assert report.collision_ms + report.assembly_ms + report.solver_ms <= report.step_ms


@pytest.mark.parametrize(
    "scene, args, kwargs",
    [
        ("granular:spheres=27", ["--solver", "pgs", "--iterations", "30"],
         dict(solver="pgs", iterations=30)),
        ("stir:spheres=27", ["--solver-option", "relaxation=1.2"],
         dict(solver_options={"relaxation": 1.2})),
        ("pushedbox", ["--solver", "cond", "--tolerance", "1e-8"],
         dict(solver="cond", tolerance=1e-8)),
    ],
)
def test_stepping_gives_the_command_lines_bits(scene, args, kwargs):
    steps = 15
    ref = cli_json(scene, "--steps", str(steps), *args)
    w = subsim.World(scene, **kwargs)
    assert w.solver == ref["solver"]
    assert w.iterations == ref["iterations_cap"]
    w.step(steps)
    assert w.state_hash() == ref["final_state_hash"]
    assert w.state().hash() == ref["final_state_hash"]
    assert math.isclose(w.time, steps * ref["dt"])


def test_arrays_have_the_right_shapes_and_units():
    w = subsim.World("stack:boxes=1")
    n = w.num_bodies
    assert len(w.body_names) == n
    assert w.positions.shape == (n, 3)
    assert w.orientations.shape == (n, 4)
    assert np.allclose(np.linalg.norm(w.orientations, axis=1), 1.0)
    assert w.linear_velocities.shape == (n, 3)
    assert w.angular_velocities.shape == (n, 3)
    # Lifted 10 m and released: one step of free fall gives v_z = -g dt (m/s) exactly on every
    # body that moves, and the positions move by dt * vhat, vhat = theta v_k + (1 - theta) v_k+1
    # (theta = 0.49: README, "Units and conventions"), -0.51 g dt^2.
    moving = w.masses > 0  # the box, not the ground
    assert moving.any() and not moving.all()
    p = w.positions
    p[moving, 2] += 10.0
    w.positions = p
    w.linear_velocities = np.zeros((n, 3))
    r = w.step()
    assert r.contacts == 0
    vz = w.linear_velocities[moving, 2]
    assert np.allclose(vz, -G * w.dt, rtol=1e-9)
    dz = w.positions[moving, 2] - p[moving, 2]
    assert np.allclose(dz, -0.51 * G * w.dt**2, rtol=1e-9)


def test_fem_nodes_come_out_one_row_per_mesh_node():
    # The soft ball on the floor (radius 4 cm), its fingers still open: one row per mesh node.
    w = subsim.World("softball:cells=4")
    assert w.deformable_names == ["ball"]
    x = w.deformable_nodes(0)
    assert x.shape[1] == 3 and x.shape[0] == 5**3
    assert w.deformable_node_velocities(0).shape == x.shape
    assert abs(x[:, 2].max() - x[:, 2].min() - 0.08) < 1e-3  # its diameter (m)
    w.step(10)
    x = w.deformable_nodes(0)
    assert x[:, 2].min() > -1e-3  # not through the floor
    # A beam cut into 2 pieces: the copies of the cut's nodes are one node, one position.
    b = subsim.World("beam:cells=6,pieces=2,across=2")
    b.step(3)
    nodes = b.deformable_nodes(0)
    assert nodes.shape == (7 * 3 * 3, 3)
    assert np.isfinite(nodes).all()
    with pytest.raises(IndexError, match="deformable 1: expected 0..0"):
        b.deformable_nodes(1)
    with pytest.raises(IndexError, match="the scene has no deformable body"):
        subsim.World("sphere").deformable_nodes(0)


def test_writing_velocities_changes_the_next_step():
    w = subsim.World("stack:boxes=1")
    box = w.body_names.index(next(b for b in w.body_names if "box" in b))
    p = w.positions
    p[box, 2] += 5.0
    w.positions = p
    v = np.zeros((w.num_bodies, 3))
    v[box] = [2.0, -1.0, 0.0]
    w.linear_velocities = v
    x0 = w.positions[box]
    w.step()
    x1 = w.positions[box]
    assert math.isclose(x1[0] - x0[0], 2.0 * w.dt, rel_tol=1e-9)
    assert math.isclose(x1[1] - x0[1], -1.0 * w.dt, rel_tol=1e-9)


def test_a_body_force_accelerates_a_free_body():
    w = subsim.World("stack:boxes=1")
    box = next(i for i, m in enumerate(w.masses) if m > 0)
    p = w.positions
    p[box, 2] += 5.0
    w.positions = p
    w.linear_velocities = np.zeros((w.num_bodies, 3))
    m = w.masses[box]
    w.set_body_force(box, [3.0, 0.0, m * G])  # N: cancels gravity, pushes along x
    w.step(4)
    v = w.linear_velocities[box]
    assert math.isclose(v[0], 3.0 / m * 4 * w.dt, rel_tol=1e-9)
    assert abs(v[2]) < 1e-12
    w.clear_inputs()
    w.step()
    assert math.isclose(w.linear_velocities[box, 2], -G * w.dt, rel_tol=1e-9)


def test_contacts_carry_the_weight_of_a_resting_box():
    w = subsim.World("stack:boxes=1", solver="subadmm", iterations=200, tolerance=1e-10)
    w.step(50)
    c = w.contacts()
    k = len(c["gaps"])
    assert k >= 4
    assert c["bodies"].shape == (k, 2)
    assert c["points"].shape == (k, 3) and c["normals"].shape == (k, 3)
    assert c["impulses"].shape == (k, 3)
    assert (c["impulses"][:, 0] >= -1e-12).all()
    np.testing.assert_allclose(np.linalg.norm(c["normals"], axis=1), 1.0)
    # At rest the floor's normal impulses carry m g dt (N s).
    m = w.masses.sum()
    assert math.isclose(c["impulses"][:, 0].sum(), m * G * w.dt, rel_tol=1e-3)
    assert w.metrics()["accuracy"] > 6


def test_a_restored_state_steps_to_the_same_bits():
    w = subsim.World("granular:spheres=27")
    w.step(5)
    saved = w.state()
    w.step(10)
    first = w.state_hash()
    w.set_state(saved)
    assert math.isclose(w.time, saved.time)
    w.step(10)
    assert w.state_hash() == first
    # Another World of the same scene continues from it too.
    other = subsim.World("granular:spheres=27")
    other.set_state(saved)
    other.step(10)
    assert other.state_hash() == first


def test_a_joint_target_moves_the_arm_and_a_torque_deflects_its_drive():
    # scenes/panda_hold.yaml: the Panda's joint PD (kp 600 N m/rad on the base joint) with
    # gravity compensation.  A target moves the base joint there; a torque tau against the drive
    # holds it tau / kp short of the target (the PD's static equilibrium).
    w = subsim.World(PANDA_HOLD)
    assert w.robot_names == ["arm"]
    q0 = w.robot_q(0)
    nv = len(w.robot_v(0))
    target = q0.copy()
    target[0] += 0.2  # rad
    w.set_joint_target(0, target)
    w.step(150)
    assert abs(w.robot_q(0)[0] - target[0]) < 1e-6
    w.set_joint_torque(0, -20.0 * np.eye(nv)[0])  # N m
    w.step(150)
    assert abs(w.robot_q(0)[0] - (target[0] - 20.0 / 600.0)) < 1e-6
    w.clear_inputs()  # the scene's own target again: hold the initial pose
    w.step(150)
    assert abs(w.robot_q(0)[0] - q0[0]) < 1e-5


def test_set_robot_state_moves_the_links():
    w = subsim.World(PANDA_HOLD)
    hand = w.body_names.index("arm/panda_link7")
    before = w.positions[hand]
    q = w.robot_q(0)
    q[0] += 0.3  # rad about the base's vertical axis
    w.set_robot_state(0, q, np.zeros_like(w.robot_v(0)))
    np.testing.assert_allclose(w.robot_q(0), q)
    w.set_joint_target(0, q)  # the drives hold the new pose
    w.step()
    after = w.positions[hand]
    turned = math.atan2(after[1], after[0]) - math.atan2(before[1], before[0])
    assert abs(turned - 0.3) < 1e-3
    assert abs(after[2] - before[2]) < 1e-3
