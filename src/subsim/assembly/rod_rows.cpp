#include <Eigen/Eigenvalues>

#include "subsim/assembly/constraint_rows.hpp"
#include "subsim/math/so3.hpp"

namespace subsim {

namespace {

/// Length that makes the angular rows commensurate with the linear ones: the anchor lever arms
/// (a world clamp counts body a's twice); 1 m when both anchors sit at the centres.
double rowScale(const RodCoupling& r) {
  const double la = r.anchor_a.norm();
  const double l = la + (r.body_b >= 0 ? r.anchor_b.norm() : la);
  return l > 0.0 ? l : 1.0;
}

/// Both segments are rigid bodies of one subsystem (a group of the cable partitioner).
bool foldable(const AssemblyContext& ctx, const RodCoupling& r) {
  if (r.body_b < 0) return false;
  const Model& m = ctx.model;
  if (m.bodies[r.body_a].kind != BodyKind::Dynamic || m.bodies[r.body_b].kind != BodyKind::Dynamic)
    return false;
  return ctx.partition.subsystem_of_body[r.body_a] == ctx.partition.subsystem_of_body[r.body_b];
}

/// A soft coupling inside one subsystem folded into A_i and b_i, as the digest allows for soft
/// constraints (eq. 3: "may be folded into A_i, b_i"; A_i = mass + energy Hessian): with
/// lambda = -K e - C J vhat, A vhat = b + J^T lambda becomes (A + J^T C J) vhat = b - J^T K e,
/// the same solution for every solver, but exact within every SubADMM v-step instead of being
/// negotiated through the z-step.  Without it the digest's 640-segment cable at 30 iterations
/// blows up at dt = 10 ms: the stiff stretch rows (h sqrt(k / m) ~ 50) are then only partly
/// implicit.
void foldIntoSubsystem(const AssemblyContext& ctx, const RodCoupling& r, const TwistRows& Ga,
                       const TwistRows& Gb, const Vec6& e, const Vec6& k_row, const Vec6& c_row,
                       StepProblem& problem) {
  const int sub = ctx.partition.subsystem_of_body[r.body_a];
  const int oa = ctx.partition.offset_in_subsystem[r.body_a];
  const int ob = ctx.partition.offset_in_subsystem[r.body_b];
  const Mat6 ga = Ga, gb = Gb;
  const Mat6 caa = ga.transpose() * c_row.asDiagonal() * ga;
  const Mat6 cbb = gb.transpose() * c_row.asDiagonal() * gb;
  const Mat6 cab = ga.transpose() * c_row.asDiagonal() * gb;
  auto A = problem.A(sub);
  // Symmetrised so that A stays exactly symmetric (a requirement of the Cholesky-based solvers).
  A.block<6, 6>(oa, oa) += 0.5 * (caa + caa.transpose());
  A.block<6, 6>(ob, ob) += 0.5 * (cbb + cbb.transpose());
  A.block<6, 6>(oa, ob) -= cab;
  A.block<6, 6>(ob, oa) -= cab.transpose();
  const Vec6 force = k_row.cwiseProduct(e);
  auto b = problem.bBlock(sub);
  b.segment<6>(oa) -= ga.transpose() * force;
  b.segment<6>(ob) += gb.transpose() * force;
}

/// Rotation vector (world) of a away from its rest orientation relative to b; d/dt = omega_a -
/// omega_b to first order.
Vec3 relativeRotation(const RodCoupling& r, const Pose& a, const Pose& b) {
  return quatLog(a.orientation * (b.orientation * r.rest_relative).conjugate());
}

/// World material axes (columns d1, d2, d3) of the frame halfway along the relative rotation phi
/// from b's material frame to a's.
Mat3 materialAxes(const RodCoupling& r, const Pose& b, const Vec3& phi) {
  return (quatExp(0.5 * phi) * b.orientation * r.rest_relative * r.material_frame)
      .toRotationMatrix();
}

/// The geometric stiffness of a junction force f (world) acting at lever r (world) from a body's
/// centre, linearly implicit in A_i (Andrews, Teichmann and Kry 2017, "Geometric stiffness for
/// real-time constrained multibody dynamics"): the torque r x f changes with the body's rotation
/// d(theta) by [f]x [r]x d(theta), i.e. stiffness K = (f . r) I - r f^T.  Under tension it is
/// restoring, T |r| (I - r r^T / |r|^2), and for the cable's short, thin segments stiff: with
/// T |r| / I_segment ~ (800 rad/s)^2 the explicit lever (rows linearised at the step's start)
/// made the paper's cable spin up at dt = 10 ms within 0.4 s even with an exact solve.  Its
/// symmetric part, with negative eigenvalues (compression: buckling) dropped to keep A_i SPD,
/// enters the body's angular block with the midpoint weight h^2 / 2 of the elastic rows.
void addGeometricStiffness(const AssemblyContext& ctx, int body, const Vec3& lever,
                           const Vec3& force, double h, StepProblem& problem) {
  if (ctx.model.bodies[body].kind != BodyKind::Dynamic) return;
  const Mat3 K = force.dot(lever) * Mat3::Identity() -
                 0.5 * (lever * force.transpose() + force * lever.transpose());
  Eigen::SelfAdjointEigenSolver<Mat3> eig;
  eig.computeDirect(K);
  const Vec3 clamped = eig.eigenvalues().cwiseMax(0.0);
  const Mat3 Kp = eig.eigenvectors() * clamped.asDiagonal() * eig.eigenvectors().transpose();
  const int o = ctx.partition.offset_in_subsystem[body] + 3;
  problem.A(ctx.partition.subsystem_of_body[body]).block<3, 3>(o, o) += 0.5 * h * h * Kp;
}

}  // namespace

void addRodCouplingConstraint(const AssemblyContext& ctx, int index, double h,
                              StepProblem& problem) {
  const RodCoupling& r = ctx.model.rod_couplings[index];
  const Pose pa = poseOf(ctx, r.body_a), pb = poseOf(ctx, r.body_b);
  const Pose ma = midStepPoseOf(ctx, r.body_a, h), mb = midStepPoseOf(ctx, r.body_b, h);

  // Soft rows need k and c before addBodyRows (a kinematic body's velocity enters e scaled by
  // c / k).  setSoftRow integrates the elastic force at the implicit midpoint, which keeps the
  // stiff stretch/shear rows of short segments stable at dt = 10 ms (digest eq. 3 with alpha =
  // c / k + h / 2).
  const int c = problem.addConstraint(ConstraintType::Soft, 6, 0.0, rodKey(index));
  const int row = problem.constraints[c].row_offset;
  // The angular rows are written in units of length: times l (the distance between the two
  // segment centres through the junction) with k / l^2 and c / l^2, which leaves the torque
  // J^T lambda unchanged.  Unscaled, their unit entries dwarf the O(l) lever arms of the linear
  // rows on the same angular velocities, and the per-subsystem penalty of SubADMM (digest eq. 23
  // and its residual balancing) cannot suit both row kinds at once: a thin 16-segment cable
  // diverged within 10 steps at the default settings; scaled, it converges.
  const double l = rowScale(r);
  for (int k = 0; k < 3; ++k) setSoftRow(problem, row + k, r.stiffness(k), r.damping(k), h);
  for (int k = 3; k < 6; ++k)
    setSoftRow(problem, row + k, r.stiffness(k) / (l * l), r.damping(k) / (l * l), h);

  // Material axes d1, d2, d3 halfway between the two segments' frames: at the current poses for
  // the strains, at the mid-step poses for the rows (the linearisation point of joint_rows.cpp).
  // Body a's frame alone would split the junction gap into shear and stretch with a bias towards
  // a, and a chain whose couplings all point the same way then leans: a catenary's lowest point
  // moved 2.4 mm (of a 0.9 m span) towards one support.
  const Vec3 phi = relativeRotation(r, pa, pb);
  const Mat3 D = materialAxes(r, pb, phi);
  const Mat3 Dm = materialAxes(r, mb, relativeRotation(r, ma, mb));
  const Vec3 dirs[3] = {Dm.col(0), Dm.col(1), Dm.col(2)};

  // Shear and stretch strains: the gap between the two segment ends in the material frame.
  const Vec3 gap = pa.transformPoint(r.anchor_a) - pb.transformPoint(r.anchor_b);
  // Bend and twist strains: the relative rotation in the material frame (the same in a's, b's
  // and the mid frame, since a rotation leaves its own axis fixed).
  const Vec3 lin = D.transpose() * gap, ang = D.transpose() * phi;
  Vec6 e;  // (head/tail rather than <<: GCC 12 -O3 warns falsely on the comma initializer)
  e.head<3>() = lin;
  e.tail<3>() = l * ang;

  // The elastic junction force on a (on b: its negative) and its geometric stiffness.
  Vec3 k_lin;
  for (int k = 0; k < 3; ++k) k_lin[k] = r.stiffness(k);
  const Vec3 force = -(D * k_lin.cwiseProduct(lin));
  addGeometricStiffness(ctx, r.body_a, ma.rotate(r.anchor_a), force, h, problem);
  if (r.body_b >= 0)
    addGeometricStiffness(ctx, r.body_b, mb.rotate(r.anchor_b), -force, h, problem);

  TwistRows Ga = TwistRows::Zero(6, 6), Gb = TwistRows::Zero(6, 6);
  Ga.topRows(3) = pointVelocityRows(ma.rotate(r.anchor_a), dirs, 3);
  Gb.topRows(3) = pointVelocityRows(mb.rotate(r.anchor_b), dirs, 3);
  for (int k = 0; k < 3; ++k) {
    Ga.row(3 + k).tail<3>() = l * dirs[k].transpose();
    Gb.row(3 + k).tail<3>() = l * dirs[k].transpose();
  }

  if (foldable(ctx, r)) {
    Vec6 k_row, c_row;
    for (int k = 0; k < 6; ++k) {
      k_row[k] = problem.soft_k[row + k];
      c_row[k] = problem.soft_c[row + k];
    }
    problem.popConstraint();  // no rows attached yet
    foldIntoSubsystem(ctx, r, Ga, Gb, e, k_row, c_row, problem);
    return;
  }
  problem.constraints[c].stabilization = Stabilization::Position;
  for (int k = 0; k < 6; ++k) problem.error[row + k] = e[k];
  addBodyRows(problem, ctx, r.body_a, Ga, 1.0);
  addBodyRows(problem, ctx, r.body_b, Gb, -1.0);
  if (problem.constraints.back().num_attachments == 0) problem.popConstraint();
}

}  // namespace subsim
