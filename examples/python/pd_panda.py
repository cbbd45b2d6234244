"""A joint-space PD controller on the Franka Panda, written in Python.

The Panda of scenes/panda_torque.yaml has gravity compensation and no drives of its own; this
controller sets its joint torques every step, tau = Kp (q_d - q) - Kd v, so that joint 2 (the
shoulder) follows a sine of 0.3 rad and the others hold the ready pose.  It prints the tracking
error and the largest torque.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/pd_panda.py [--steps N]
"""
import argparse
import math
import os

import numpy as np

import subsim

HERE = os.path.dirname(os.path.abspath(__file__))
SCENE = os.path.join(HERE, "..", "..", "scenes", "panda_torque.yaml")

# N m/rad and N m s/rad per joint.  The torques are explicit in the step (dt 2 ms, unlike the
# scene drives' implicit PD), so each joint's damping must stay below about its inertia / dt: the
# joints that turn the arm about its own axis (3, 5, 7) carry little inertia and take small
# gains (Kd 40 on joint 3 diverged within 0.3 s).
KP = np.array([300.0, 300.0, 150.0, 300.0, 60.0, 40.0, 10.0])
KD = np.array([15.0, 15.0, 3.0, 10.0, 2.0, 1.0, 0.3])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=1000, help="steps of 2 ms")
    args = parser.parse_args()

    world = subsim.World(SCENE)
    q_ready = world.robot_q(0)
    errors, torques = [], []
    for _ in range(args.steps):
        t = world.time + world.dt
        q_d = q_ready.copy()
        q_d[1] += 0.3 * math.sin(2.0 * math.pi * 0.5 * t)  # 0.5 Hz on the shoulder
        q, v = world.robot_q(0), world.robot_v(0)
        tau = KP * (q_d - q) - KD * v
        world.set_joint_torque(0, tau)
        world.step()
        errors.append(np.abs(world.robot_q(0) - q_d).max())
        torques.append(np.abs(tau).max())
    print(f"{args.steps} steps ({world.time:.2f} s): largest joint error "
          f"{max(errors[len(errors) // 10:]):.4f} rad after the first tenth, "
          f"largest torque {max(torques):.1f} N m")


if __name__ == "__main__":
    main()
