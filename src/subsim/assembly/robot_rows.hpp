#pragma once
// A robot's subsystem block and joint-limit rows (issue 4).
//
// The theta-method of the AL paper (eq. 2) in generalised coordinates, with g = 1 / (1 - theta):
//   M(q_k) (v_{k+1} - v_k) = h (tau - c(q_k, v_k)) + J^T lambda,   vhat = theta v_k + (1-theta)
//   v_{k+1}, q_{k+1} = q_k (+) h vhat,
// c the RNEA bias (Coriolis, centrifugal, gravity) at the start of the step, explicit as in the
// papers.  The joint drive is implicit in the step:
//   tau = Kp (q_target - q_{k+1}) + Kd (v_target - v_{k+1}) - D v_{k+1} [+ g(q_k)],
// with q_{k+1} = q_k + h vhat and v_{k+1} = g (vhat - theta v_k), which gives
//   A = g M + h^2 Kp + h g (Kd + D)
//   b = g M v_k + h (Kp (q_target - q_k) + Kd v_target + g theta (Kd + D) v_k - c + [g(q_k)])
// (D the URDF joint damping, [.] with gravity compensation).  Stiff gains therefore only add to
// A's diagonal and stay stable at any step.  Effort limits: an implicit gain cannot be clamped
// exactly inside a linear solve; when the explicit estimate Kp (q_target - q_k) + Kd (v_target -
// v_k) exceeds a joint's effort limit, that joint's Kp and Kd are scaled down for the step so the
// estimate equals the limit (the drive saturates smoothly; contact and limit impulses are not
// part of the clamp).
// Joint limits: a unilateral row +-vhat_i + (distance to the limit) / h >= 0 for each limited
// joint whose distance to a limit is within reach this step (speculative, like contacts; erp on
// a violated limit).
#include "subsim/assembly/body_rows.hpp"
#include "subsim/model/robot.hpp"

namespace subsim {

/// Per-step scratch of one robot: its kinematics at q_k and every link's centre-of-mass Jacobian
/// (the link bodies' rows go through them, body_rows.cpp).
struct RobotAssembly {
  RobotKinematics kinematics;
  std::vector<MatX> com_jacobian;  // per link, 6 x nv
  std::vector<int> tree_body;      // per link, its StepProblem::tree_bodies index (-1: welded)
  MatX M;
  VecX bias, gravity, q_target, v_target;
  VecX zero_v;  // nv zeros (the gravity-compensation bias is the bias at rest)
};

/// Fills the robot's kinematics and Jacobians at the state's q.
void prepareRobot(const Model& model, int robot, const State& state, RobotAssembly& out);
/// Writes the robot's A and b into subsystem `subsystem` (already added, nv DOF), and its tree
/// structure: the DOF parents and one tree body per moving link (the centre-of-mass Jacobian).
/// The drives follow `q_target` (nq) and `v_target` (nv; null: zero) when given, else the
/// robot's JointTrajectory.
void addRobotBlock(const Model& model, int robot, const State& state, double h, RobotAssembly& work,
                   int subsystem, StepProblem& problem, const VecX* q_target = nullptr,
                   const VecX* v_target = nullptr);
/// Adds the no-slip row of a wheeled base (Robot::no_slip_base): the lateral velocity in the
/// heading frame, -sin(psi) xdot + cos(psi) ydot = 0, with psi predicted at mid-step
/// (psi_k + h/2 psidot_k) so the row follows the turn.
void addRobotNoSlipConstraint(const AssemblyContext& ctx, int robot, double h,
                              StepProblem& problem);
/// Adds the joint-limit rows of every limited joint near a limit.
void addRobotLimitConstraints(const AssemblyContext& ctx, int robot, double h,
                              StepProblem& problem);
std::uint64_t robotLimitKey(int robot, int link, int side);
std::uint64_t robotNoSlipKey(int robot);

}  // namespace subsim
