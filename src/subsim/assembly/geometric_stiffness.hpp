#pragma once
// Geometric stiffness of rigid joints, made positive definite (Andrews, Teichmann, Kry, "Geometric
// stiffness for real-time constrained multibody dynamics", Comput. Graph. Forum 36(2), 2017; the
// schur paper points to it for stiff chains and cables below its equation (4)).
//
// Why: a constraint force f = lambda / h acting at a lever r turns with its body; the torque
// r x f changes with the rotation dtheta by K dtheta, K = [f]x [r]x.  The velocity-level step
// linearises the constraints at the start of the step and so treats that stiffness explicitly:
// a light link between two heavily loaded joints then has a rotational mode of frequency
// sqrt(|K| / I) that the step amplifies once h sqrt(|K| / I) passes about 2.  Measured
// (bridge:planks=16, bpp's exact solves, h = 1/60 s): the main cables' links leave rest after
// 13 steps and their energy grows 74-fold a step; h = 8 ms was stable, 10 ms was not.
// Treating the stiffness implicitly adds h^2 K to the step matrix (the force at q_{k+1} =
// q_k + h vhat).  K is not symmetric and not definite; Andrews et al. replace it by a positive
// diagonal (the norms of its columns) so that the step matrix stays symmetric positive definite
// with its structure unchanged.  Here the absolute value of K's symmetric part takes its place
// (geometric_stiffness.cpp says why): a 3 x 3 block on the body's angular velocity, where its
// world inertia already is, so every subsystem keeps its structure as well.  lambda is the joint's
// impulse of the last step (the warm start, by key), f = lambda / h, so
//   A_angular += h |sym([lambda]x [r]x)|.
// It acts at O(h) on rotations under load only: the bridge at h = 1/60 s then stays at rest.
#include "subsim/assembly/body_rows.hpp"

namespace subsim {

/// Adds to the angular block of `body` in A (a rigid body of a subsystem; nothing for
/// robots, kinematic and static bodies or the world) the geometric stiffness of a point
/// constraint whose last impulse `impulse` (N s, world) acts at `lever` (m, world, from the
/// body's centre of mass).
void addPointGeometricStiffness(const AssemblyContext& ctx, int body, const Vec3& lever,
                                const Vec3& impulse, double h, StepProblem& problem);

}  // namespace subsim
