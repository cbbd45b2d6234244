# Recordings and problem files from Python round-trip through the command line's readers, and a
# recorded problem re-solves with any solver.
import json

import numpy as np

import subsim
from conftest import run_cli


def test_a_recording_is_read_back_by_subsim_replay(tmp_path):
    path = str(tmp_path / "run.h5")
    w = subsim.World("granular:spheres=27")
    w.record(path)
    w.step(7)
    w.stop_recording()
    code, out, err = run_cli("replay", path)
    assert code == 0, err
    assert "1:7 of 7" in out
    assert "granular:spheres=27" in out


def test_problems_round_trip_and_resolve_with_any_solver(tmp_path):
    w = subsim.World("granular:spheres=27")
    problems = []
    for _ in range(3):
        w.step(5)
        problems.append(w.last_problem())
    path = str(tmp_path / "problems.h5")
    subsim.write_problems(path, problems, scene="granular:spheres=27", solver=w.solver, dt=w.dt)
    read, info = subsim.read_problems(path)
    assert info["scene"] == "granular:spheres=27" and info["solver"] == "subadmm"
    assert [p.hash() for p in read] == [p.hash() for p in problems]
    p = read[-1]
    assert p.num_contacts > 0 and p.num_rows >= 3 * p.num_contacts
    tight = p.solve("fadmm", iterations=2000, tolerance=1e-10)
    assert tight.status == "converged"
    assert tight.impulses.shape == (p.num_rows,) and tight.vhat.shape == (p.num_dof,)
    # Independent methods agree on the velocities of the same problem.
    other = p.solve("pgs", iterations=5000, tolerance=1e-10)
    assert np.abs(other.vhat - tight.vhat).max() < 1e-6
    assert tight.metrics["accuracy"] > 7
    # A history has one residual per iteration.
    h = p.solve("pgs", iterations=25, tolerance=0.0, history=True)
    assert len(h.history) == 25 == h.iterations
    # CANAL's AL loops beside its Newton iterations; a one-loop solver has none.
    al = p.solve("canal", iterations=25, tolerance=0.0)
    assert al.iterations == 25 and 1 < al.outer_iterations <= 25
    assert h.outer_iterations == 0 and h.inner_unconverged == 0
    # The paper's unit: a fixed number of AL loops.  On a settled pile (step 30) one Newton
    # iteration a loop leaves every loop's solve above its threshold (measured: 3 of 3); to
    # round-off (max_inner 30) none is (18 Newton iterations).
    w.step(15)
    pile = w.last_problem()
    capped = pile.solve("canal", iterations=100000, tolerance=0.0,
                        solver_options={"max_al_loops": 3, "max_inner": 1, "inner_ratio": 0})
    assert capped.outer_iterations == 3 == capped.iterations
    assert capped.inner_unconverged >= 2
    full = pile.solve("canal", iterations=100000, tolerance=0.0,
                      solver_options={"max_al_loops": 3, "inner_ratio": 0})
    assert full.outer_iterations == 3 < full.iterations
    assert full.inner_unconverged == 0
    # `subsim solve` reads the file Python wrote.
    code, out, err = run_cli("solve", path, "--solvers", "pgs", "--iterations", "50")
    assert code == 0, err
