#pragma once
// Writing a constraint's rows for one body, whatever the body's kind.
#include "subsim/model/model.hpp"
#include "subsim/model/state.hpp"
#include "subsim/partition/partition.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// Rows of the point velocity v + omega x r along each direction d_k: [d_k^T, (r x d_k)^T].
TwistRows pointVelocityRows(const Vec3& r, const Vec3* directions, int count);

struct RobotAssembly;  // assembly/robot_rows.hpp

struct AssemblyContext {
  const Model& model;
  const Partition& partition;
  const State& state;
  const std::vector<RobotAssembly>& robots;  // per Model::robots, prepared for this step
};

/// Adds sign * G (rows on the twist about the centre of mass, step_problem.hpp's TwistRows) to the
/// last added constraint: for a dynamic body into the J block of its subsystem (at the body's DOF
/// offset); for a robot link as G times the link's centre-of-mass Jacobian into the robot's block,
/// with G as the block's per-body factor (StepProblem::addTreeBodyRows); for a kinematic body as
/// the known term e += sign * G [v; omega] (times c / k on soft rows, whose k and c must be set
/// first); nothing for a static body or the world (body -1).
/// `constraint` names an earlier constraint instead of the last (-1): its J block on a dynamic
/// body's subsystem must exist then (reserved), and it may not be on a robot link; on blocks
/// that exist it writes only the constraint's own entries, so that constraints can be filled in
/// parallel.
void addBodyRows(StepProblem& problem, const AssemblyContext& ctx, int body, const TwistRows& G,
                 double sign, int constraint = -1);

}  // namespace subsim
