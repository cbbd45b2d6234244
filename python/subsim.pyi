# Type stubs of the `subsim` module (python/subsim_module.cpp): editors, type checkers, help().
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]

class SimulationDiverged(RuntimeError): ...

def scenarios() -> List[Dict[str, Any]]: ...
def solvers() -> List[Dict[str, Any]]: ...
def read_problems(path: str) -> Tuple[List[Problem], Dict[str, Any]]: ...
def write_problems(path: str, problems: List[Problem], scene: str = "", solver: str = "",
                   dt: float = 0.0) -> None: ...

class State:
    time: float
    def hash(self) -> str: ...

class StepReport:
    contacts: int
    constraints: int
    iterations: int
    residual: float
    status: str
    solver_ms: float
    solver_setup_ms: float
    step_ms: float
    collision_ms: float
    assembly_ms: float
    max_penetration: float
    def as_dict(self) -> Dict[str, Any]: ...

class Solution:
    impulses: Array
    vhat: Array
    iterations: int
    outer_iterations: int
    inner_unconverged: int
    residual: float
    residual_name: str
    status: str
    solve_ms: float
    setup_ms: float
    history: List[float]
    metrics: Dict[str, float]

class Problem:
    num_dof: int
    num_rows: int
    num_constraints: int
    num_contacts: int
    num_subsystems: int
    dt: float
    def hash(self) -> str: ...
    def solve(self, solver: str = "subadmm", iterations: int = 100, tolerance: float = 1e-6,
              threads: int = 1, solver_options: Dict[str, Any] = ..., warm_start: bool = True,
              history: bool = False) -> Solution: ...

class World:
    def __init__(self, scene: str, solver: Optional[str] = None,
                 iterations: Optional[int] = None, tolerance: Optional[float] = None,
                 threads: int = 1, solver_options: Dict[str, Any] = ...,
                 dt: Optional[float] = None) -> None: ...
    scene: str
    solver: str
    iterations: int
    tolerance: float
    default_steps: int
    note: str
    dt: float
    time: float
    dof: int
    num_bodies: int
    body_names: List[str]
    masses: Array
    robot_names: List[str]
    positions: Array
    orientations: Array
    linear_velocities: Array
    angular_velocities: Array
    def step(self, n: int = 1) -> StepReport: ...
    def metrics(self) -> Dict[str, float]: ...
    deformable_names: List[str]
    def deformable_nodes(self, deformable: int = 0) -> Array: ...
    def deformable_node_velocities(self, deformable: int = 0) -> Array: ...
    def robot_q(self, robot: int = 0) -> Array: ...
    def robot_v(self, robot: int = 0) -> Array: ...
    def set_robot_state(self, robot: int, q: Array, v: Optional[Array] = None) -> None: ...
    def set_body_force(self, body: int, force: Array, torque: Optional[Array] = None) -> None: ...
    def set_joint_torque(self, robot: int, tau: Array) -> None: ...
    def set_joint_target(self, robot: int, q: Array, v: Optional[Array] = None) -> None: ...
    def clear_inputs(self) -> None: ...
    def contacts(self) -> Dict[str, Array]: ...
    def state(self) -> State: ...
    def set_state(self, state: State) -> None: ...
    def state_hash(self) -> str: ...
    def kinetic_energy(self) -> float: ...
    def last_problem(self) -> Problem: ...
    def record(self, path: str) -> None: ...
    def stop_recording(self) -> None: ...
