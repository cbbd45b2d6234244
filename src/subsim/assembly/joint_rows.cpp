#include <cmath>

#include "subsim/assembly/constraint_rows.hpp"
#include "subsim/assembly/geometric_stiffness.hpp"
#include "subsim/math/so3.hpp"

namespace subsim {

Pose poseOf(const AssemblyContext& ctx, int body) {
  return body < 0 ? Pose() : ctx.state.pose[body];
}

Pose midStepPoseOf(const AssemblyContext& ctx, int body, double h) {
  if (body < 0) return Pose();
  const Pose& p = ctx.state.pose[body];
  return Pose{p.position + 0.5 * h * ctx.state.midpoint_linear_velocity[body],
              integrateRotation(p.orientation, ctx.state.midpoint_angular_velocity[body], 0.5 * h)};
}

namespace {

/// Rows acting on the angular velocity only: [0, d_k^T].
TwistRows angularRows(const Vec3* directions, int count) {
  TwistRows G = TwistRows::Zero(count, 6);
  for (int k = 0; k < count; ++k) G.row(k).tail<3>() = directions[k].transpose();
  return G;
}

int angularRowCount(JointType type) {
  switch (type) {
    case JointType::Ball:
      return 0;
    case JointType::Universal:
      return 1;
    case JointType::Hinge:
      return 2;
    case JointType::Weld:
      return 3;
  }
  return 0;
}

void dropIfUnattached(StepProblem& problem) {
  if (problem.constraints.back().num_attachments == 0) problem.popConstraint();
}

/// Hinge angle of a relative to b about the hinge axis, zero at the rest configuration.
double hingeAngle(const Joint& j, const Pose& pa, const Pose& pb) {
  const Quat rel = (pb.orientation.conjugate() * pa.orientation) * j.rest_relative.conjugate();
  return quatLog(rel).dot(j.axis_b.normalized());
}

}  // namespace

void addJointConstraints(const AssemblyContext& ctx, int index, double h, StepProblem& problem) {
  const Joint& j = ctx.model.joints[index];
  const Pose pa = poseOf(ctx, j.body_a), pb = poseOf(ctx, j.body_b);
  const Pose ma = midStepPoseOf(ctx, j.body_a, h), mb = midStepPoseOf(ctx, j.body_b, h);
  const Vec3 anchor_a = pa.transformPoint(j.anchor_a);
  const Vec3 anchor_b = pb.transformPoint(j.anchor_b);
  const int angular_rows = angularRowCount(j.type);

  // Point coincidence (3 rows) plus angular rows in one constraint: C = anchor_a - anchor_b and
  // the angular errors below.  Rigid: bilateral with e = C / h.  Compliant: soft with e = C.
  const ConstraintType type = j.compliant() ? ConstraintType::Soft : ConstraintType::Bilateral;
  const int c = problem.addConstraint(type, 3 + angular_rows, 0.0, jointKey(index, 0));
  const int row = problem.constraints[c].row_offset;
  if (j.compliant()) {
    problem.constraints[c].stabilization = Stabilization::Position;
    for (int k = 0; k < 3; ++k) setSoftRow(problem, row + k, j.stiffness, j.damping, h);
    for (int k = 0; k < angular_rows; ++k)
      setSoftRow(problem, row + 3 + k, j.angular_stiffness, j.angular_damping, h);
  }

  const Vec3 axes[3] = {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()};
  Vec3 ang_dirs[3];
  Vec3 ang_error = Vec3::Zero();
  if (j.type == JointType::Universal) {
    // Keep the two pins perpendicular: C = a_w . b_w with dC/dt = (omega_a - omega_b) . (a_w x
    // b_w); |a_w x b_w| = 1 wherever C = 0, so the row never degenerates (the Cardan joint's
    // gimbal lock at a 90 degree bend is the pins' own, not the row's).
    ang_dirs[0] = ma.rotate(j.axis_a).normalized().cross(mb.rotate(j.axis_b).normalized());
    ang_error[0] = pa.rotate(j.axis_a).normalized().dot(pb.rotate(j.axis_b).normalized());
  } else if (j.type == JointType::Hinge) {
    // Keep the two hinge axes aligned: C_k = -(a_w x b_w) . t_k for two directions t_k normal to
    // the axis, with dC_k/dt = (omega_a - omega_b) . t_k.
    const Vec3 aw = pa.rotate(j.axis_a).normalized();
    const Vec3 bw = pb.rotate(j.axis_b).normalized();
    tangentBasis(ma.rotate(j.axis_a).normalized(), ang_dirs[0], ang_dirs[1]);
    const Vec3 mis = aw.cross(bw);
    ang_error = Vec3(-mis.dot(ang_dirs[0]), -mis.dot(ang_dirs[1]), 0.0);
  } else if (j.type == JointType::Weld) {
    // Orientation error C = phi of a from its welded target (b's orientation times the rest
    // offset), with dC/dt = omega_a - omega_b to first order.
    const Vec3 phi = quatLog(pa.orientation * (pb.orientation * j.rest_relative).conjugate());
    for (int k = 0; k < 3; ++k) ang_dirs[k] = axes[k];
    ang_error = phi;
  }
  TwistRows Ga = TwistRows::Zero(3 + angular_rows, 6);
  TwistRows Gb = TwistRows::Zero(3 + angular_rows, 6);
  Ga.topRows(3) = pointVelocityRows(ma.rotate(j.anchor_a), axes, 3);
  Gb.topRows(3) = pointVelocityRows(mb.rotate(j.anchor_b), axes, 3);
  if (angular_rows > 0) {
    Ga.bottomRows(angular_rows) = angularRows(ang_dirs, angular_rows);
    Gb.bottomRows(angular_rows) = angularRows(ang_dirs, angular_rows);
  }
  addBodyRows(problem, ctx, j.body_a, Ga, 1.0);
  addBodyRows(problem, ctx, j.body_b, Gb, -1.0);
  const Vec3 C = anchor_a - anchor_b;
  for (int k = 0; k < 3; ++k) problem.error[row + k] = C[k];
  for (int k = 0; k < angular_rows; ++k) problem.error[row + 3 + k] = ang_error[k];
  if (ctx.model.geometric_stiffness && !j.compliant())
    if (const int last = ctx.state.warm_start.offsetOf(jointKey(index, 0), 3 + angular_rows);
        last >= 0) {
      const Vec3 impulse = ctx.state.warm_start.lambda.segment<3>(last);
      addPointGeometricStiffness(ctx, j.body_a, ma.rotate(j.anchor_a), impulse, h, problem);
      addPointGeometricStiffness(ctx, j.body_b, mb.rotate(j.anchor_b), impulse, h, problem);
    }
  dropIfUnattached(problem);

  if (j.type != JointType::Hinge || !j.limited) return;
  // Hinge limits: unilateral rows on theta - lower >= 0 and upper - theta >= 0 with
  // dtheta/dt = a_w . (omega_a - omega_b), added only near the limit.
  const double theta = hingeAngle(j, pa, pb);
  const Vec3 aw = ma.rotate(j.axis_a).normalized();
  const double near = 0.2;  // rad: rows farther than this from a limit would stay open
  const double sides[2] = {theta - j.lower, j.upper - theta};
  for (int side = 0; side < 2; ++side) {
    if (sides[side] > near) continue;
    const double sign = side == 0 ? 1.0 : -1.0;
    const Vec3 dir = sign * aw;
    // e = (distance to the limit) / h on either side of it (Velocity: no erp, unlike a contact).
    problem.addConstraint(ConstraintType::Unilateral, 1, 0.0, jointKey(index, 1 + side));
    addBodyRows(problem, ctx, j.body_a, angularRows(&dir, 1), 1.0);
    addBodyRows(problem, ctx, j.body_b, angularRows(&dir, 1), -1.0);
    problem.error[problem.constraints.back().row_offset] = sides[side];
    dropIfUnattached(problem);
  }
}

}  // namespace subsim
