#include "subsim/assembly/geometric_stiffness.hpp"

#include <Eigen/Eigenvalues>

#include "subsim/math/so3.hpp"

namespace subsim {

void addPointGeometricStiffness(const AssemblyContext& ctx, int body, const Vec3& lever,
                                const Vec3& impulse, double h, StepProblem& problem) {
  if (body < 0) return;
  const int sub = ctx.partition.subsystem_of_body[body];
  if (sub < 0 || ctx.partition.offset_in_subsystem[body] < 0) return;  // not a rigid body's
  // h^2 K with K = [lambda / h]x [r]x, made symmetric positive semi-definite by the absolute
  // values of its symmetric part's eigenvalues (Andrews et al. take the norms of K's columns on
  // the diagonal: with them the main cables of the 128-plank bridge still left rest after 100
  // steps, their off-axis stiffness under-estimated and an axial one added; this form is exact
  // for a taut link, lambda parallel to r: |lambda| |r| (I - e e^T)).  The sign of lambda drops
  // out.  A full 3 x 3 block, like the body's world inertia it is added to.
  const Mat3 K = skew(impulse) * skew(lever);
  // compute(), not computeDirect(): the latter's trigonometry is the C library's, whose bits
  // differ between machines (docs/determinism.md).
  Eigen::SelfAdjointEigenSolver<Mat3> eigen(0.5 * (K + K.transpose()));
  const int o = ctx.partition.offset_in_subsystem[body] + 3;
  problem.A(sub).block<3, 3>(o, o) += h * eigen.eigenvectors() *
                                      eigen.eigenvalues().cwiseAbs().asDiagonal() *
                                      eigen.eigenvectors().transpose();
}

}  // namespace subsim
