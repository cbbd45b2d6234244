#include "subsim/assembly/robot_rows.hpp"

#include <algorithm>
#include <cmath>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/assembly/assembler.hpp"
#include "subsim/assembly/constraint_rows.hpp"
#include "subsim/math/portable_math.hpp"
#include "subsim/model/integrator.hpp"

namespace subsim {

namespace {
// Joint-limit rows are added when the limit is within this reach (rad or m) beyond what the
// joint can travel in the step at its current speed.
constexpr double kLimitReach = 0.02;

bool scalarJoint(const ArticulationLink& link) {
  return link.joint == ArticulationJointType::Revolute ||
         link.joint == ArticulationJointType::Prismatic;
}
}  // namespace

std::uint64_t robotLimitKey(int robot, int link, int side) {
  return structuralKey(0xc000000000000000ull + (static_cast<std::uint64_t>(robot) << 24) +
                       (static_cast<std::uint64_t>(link) << 1) + static_cast<std::uint64_t>(side));
}

std::uint64_t robotNoSlipKey(int robot) {
  return robotLimitKey(robot, 0xffffff, 0);
}

void addRobotNoSlipConstraint(const AssemblyContext& ctx, int robot, double h,
                              StepProblem& problem) {
  const Robot& r = ctx.model.robots[robot];
  if (!r.no_slip_base.enabled()) return;
  const Articulation& art = r.articulation;
  const ArticulationLink& yaw = art.links[r.no_slip_base.yaw_link];
  const VecX& q = ctx.state.robot_q[robot];
  const VecX& v = ctx.state.robot_v[robot];
  const double psi = q[yaw.q_index] + 0.5 * h * v[yaw.v_index];
  problem.addConstraint(ConstraintType::Bilateral, 1, 0.0, robotNoSlipKey(robot));
  auto J = problem.jacobianFor(ctx.partition.robot_subsystem[robot]);
  double sin_psi, cos_psi;
  portableSinCos(psi, sin_psi, cos_psi);
  J(0, art.links[r.no_slip_base.x_link].v_index) = -sin_psi;
  J(0, art.links[r.no_slip_base.y_link].v_index) = cos_psi;
}

void prepareRobot(const Model& model, int robot, const State& state, RobotAssembly& out) {
  const Robot& r = model.robots[robot];
  out.kinematics.update(model, robot, state.robot_q[robot]);
  out.com_jacobian.resize(r.articulation.links.size());
  for (size_t l = 0; l < r.articulation.links.size(); ++l)
    out.kinematics.comJacobian(model, robot, static_cast<int>(l), out.com_jacobian[l]);
}

void addRobotBlock(const Model& model, int robot, const State& state, double h, RobotAssembly& work,
                   int subsystem, StepProblem& problem, const VecX* q_target,
                   const VecX* v_target) {
  const Robot& r = model.robots[robot];
  const Articulation& art = r.articulation;
  const VecX& q = state.robot_q[robot];
  const VecX& v = state.robot_v[robot];
  const double g = thetaFactor(model.theta);
  massMatrix(art, q, work.M);
  biasForces(art, q, v, model.gravity, work.bias);
  if (r.gravity_compensation) {
    work.zero_v.setZero(art.nv());
    biasForces(art, q, work.zero_v, model.gravity, work.gravity);
    work.bias -= work.gravity;
  }
  if (q_target != nullptr) {
    work.q_target = *q_target;
    if (v_target != nullptr)
      work.v_target = *v_target;
    else
      work.v_target.setZero(art.nv());
  } else if (r.target.empty()) {
    work.q_target = r.initial_q;
    work.v_target.setZero(art.nv());
  } else {
    r.target.evaluate(art, state.time + h, work.q_target, work.v_target);
  }

  problem.setDofParents(subsystem, art.dofParents().data());
  work.tree_body.assign(art.links.size(), -1);
  for (size_t l = 0; l < art.links.size(); ++l) {
    const int deepest = art.deepestDof(static_cast<int>(l));
    if (deepest < 0) continue;
    work.tree_body[l] = problem.addTreeBody(subsystem, deepest);
    problem.treeBodyJacobian(work.tree_body[l]) = work.com_jacobian[l];
  }

  problem.M(subsystem) = work.M;
  problem.velocityBlock(subsystem) = v;
  auto A = problem.A(subsystem);
  auto b = problem.bBlock(subsystem);
  A = g * work.M;
  b.noalias() = g * work.M * v;  // into b: a product in a larger expression allocates its temporary
  b -= h * work.bias;
  for (const ArticulationLink& link : art.links) {
    if (!scalarJoint(link)) continue;
    const int i = link.v_index;
    double kp = r.kp[i], kd = r.kd[i];
    const double position_error = work.q_target[link.q_index] - q[link.q_index];
    // Effort clamp on the explicit estimate (robot_rows.hpp).
    const double estimate = std::abs(kp * position_error + kd * (work.v_target[i] - v[i]));
    if (estimate > link.effort_limit) {
      const double scale = link.effort_limit / estimate;
      kp *= scale;
      kd *= scale;
    }
    const double damping = kd + link.damping;
    A(i, i) += h * h * kp + h * g * damping;
    b[i] += h * (kp * position_error + kd * work.v_target[i] + g * model.theta * damping * v[i]);
  }
}

void addRobotLimitConstraints(const AssemblyContext& ctx, int robot, double h,
                              StepProblem& problem) {
  const Robot& r = ctx.model.robots[robot];
  const VecX& q = ctx.state.robot_q[robot];
  const VecX& v = ctx.state.robot_v[robot];
  const int subsystem = ctx.partition.robot_subsystem[robot];
  for (size_t l = 0; l < r.articulation.links.size(); ++l) {
    const ArticulationLink& link = r.articulation.links[l];
    if (!scalarJoint(link) || !link.limited) continue;
    const double qi = q[link.q_index];
    const double reach = h * std::abs(v[link.v_index]) + kLimitReach;
    for (int side = 0; side < 2; ++side) {
      // side 0: q - lower >= 0, side 1: upper - q >= 0; the row is +-vhat_i.
      const double gap = side == 0 ? qi - link.lower : link.upper - qi;
      if (gap > reach) continue;
      const int j = problem.addConstraint(ConstraintType::Unilateral, 1, 0.0,
                                          robotLimitKey(robot, static_cast<int>(l), side));
      auto J = problem.jacobianFor(subsystem);
      J(0, link.v_index) = side == 0 ? 1.0 : -1.0;
      problem.constraints[j].stabilization = Stabilization::Speculative;
      problem.error[problem.constraints[j].row_offset] = gap;
    }
  }
}

}  // namespace subsim
