"""Sixteen perturbed rollouts of one scene from one saved state.

The granular scene settles; its state (warm start included) is saved; each rollout restores it,
kicks the spheres with a small random velocity and steps on.  Restoring gives the same bits
every time, so the rollouts differ only by their kicks: rollout 0 is run twice to show it.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/rollouts.py [--steps N]
"""
import argparse

import numpy as np

import subsim


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--kick", type=float, default=0.05, help="m/s")
    args = parser.parse_args()

    world = subsim.World("granular:spheres=64")
    world.step(30)
    saved = world.state()
    moving = world.masses > 0
    rng = np.random.default_rng(1)

    def rollout(seed_kick):
        world.set_state(saved)
        v = world.linear_velocities
        v[moving] += seed_kick
        world.linear_velocities = v
        world.step(args.steps)
        return world.state_hash(), world.kinetic_energy(), world.positions[moving, 2].mean()

    kicks = [args.kick * rng.standard_normal((moving.sum(), 3)) for _ in range(args.rollouts)]
    results = [rollout(k) for k in kicks]
    again = rollout(kicks[0])
    energies = np.array([r[1] for r in results])
    heights = np.array([r[2] for r in results])
    print(f"{args.rollouts} rollouts of {args.steps} steps from t = {saved.time:.2f} s")
    print(f"final kinetic energy: mean {energies.mean():.3e} J, spread {energies.std():.3e} J")
    print(f"mean sphere height: {heights.mean() * 1e3:.3f} mm, spread {heights.std() * 1e3:.3f} mm")
    print("rollout 0 again gives the same bits:", again[0] == results[0][0])


if __name__ == "__main__":
    main()
