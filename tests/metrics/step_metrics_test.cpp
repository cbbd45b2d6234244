// The shared metric against solutions whose residuals are known.
#include <gtest/gtest.h>

#include "subsim/metrics/step_metrics.hpp"

namespace subsim {
namespace {

/// One 6-DOF subsystem (a 2 kg body, A = 2 M) with one contact whose normal is +z at the centre:
/// the body rests on the ground under gravity for one step of 10 ms.
StepProblem restingContact(double mu) {
  StepProblem p;
  p.dt = 0.01;
  const int s = p.addSubsystem(6);
  p.A(s) = 2.0 * Eigen::Matrix<double, 6, 6>::Identity() * 2.0;
  p.bBlock(s) << 0, 0, -2.0 * 9.81 * 0.01, 0, 0, 0;  // h f
  p.addConstraint(ConstraintType::Contact, 3, mu, 1);
  auto J = p.jacobianFor(s);
  J(0, 2) = 1.0;  // n = z
  J(1, 0) = 1.0;  // t1 = x
  J(2, 1) = 1.0;  // t2 = y
  return p;
}

TEST(StepMetrics, ExactSolutionHasZeroResiduals) {
  const StepProblem p = restingContact(0.5);
  StepSolution sol;
  sol.vhat = VecX::Zero(6);
  sol.lambda = VecX::Zero(3);
  sol.lambda[0] = 2.0 * 9.81 * 0.01;  // the weight's impulse: vhat = 0
  const StepMetrics m = evaluateStep(p, sol);
  EXPECT_EQ(m.contacts, 1);
  EXPECT_NEAR(m.constraint_residual, 0.0, 1e-15);
  EXPECT_NEAR(m.contact_fb_residual, 0.0, 1e-15);
  EXPECT_NEAR(m.dynamics_residual, 0.0, 1e-15);
  EXPECT_DOUBLE_EQ(accuracyOf(m.constraint_residual), 16.0);
}

TEST(StepMetrics, MissingImpulseIsMeasured) {
  // lambda = 0: the body would sink at vhat_n = -h g / 2 ... the residual is
  // ||lambda - T(lambda - (J vhat + e))|| = |max(0, h g / 2 * ...)|, computed by hand below.
  const StepProblem p = restingContact(0.5);
  StepSolution sol;
  sol.vhat = VecX::Zero(6);
  sol.lambda = VecX::Zero(3);
  const StepMetrics m = evaluateStep(p, sol);
  const double vn = -2.0 * 9.81 * 0.01 / 4.0;      // A^{-1} b, A = 4
  EXPECT_NEAR(m.constraint_residual, -vn, 1e-15);  // T(-vn) = -vn
  // phi_n = lambda_n + g_n - sqrt(lambda_n^2 + g_n^2) = vn - |vn| = 2 vn; no tangential motion.
  EXPECT_NEAR(m.contact_fb_residual, -2.0 * vn, 1e-15);
  EXPECT_NEAR(m.dynamics_residual, 2.0 * 9.81 * 0.01, 1e-15);  // A vhat - b = -b
}

TEST(StepMetrics, SlidingFrictionAtTheConeIsExact) {
  // The body slides along x at 1 m/s: Coulomb friction is -mu lambda_n along x.
  StepProblem p = restingContact(0.5);
  const double ln = 2.0 * 9.81 * 0.01, lt = -0.5 * ln;
  // Choose b so that vhat = (1, 0, 0, ...) with lambda = (ln, lt, 0): A vhat = b + J^T lambda.
  p.bBlock(0) << 4.0 * 1.0 - lt, 0, -ln, 0, 0, 0;
  StepSolution sol;
  sol.vhat = VecX::Zero(6);
  sol.vhat[0] = 1.0;
  sol.lambda = Vec3(ln, lt, 0.0);
  const StepMetrics m = evaluateStep(p, sol);
  EXPECT_NEAR(m.constraint_residual, 0.0, 1e-14);
  EXPECT_NEAR(m.contact_fb_residual, 0.0, 1e-14);
  // Friction inside the cone while sliding is wrong and must show up.
  sol.lambda[1] = 0.5 * lt;
  p.bBlock(0)[0] = 4.0 - sol.lambda[1];
  EXPECT_GT(evaluateStep(p, sol).constraint_residual, 1e-3);
  EXPECT_GT(evaluateStep(p, sol).contact_fb_residual, 1e-3);
}

TEST(StepMetrics, BilateralResidualIsTheVelocityViolation) {
  StepProblem p;
  p.dt = 0.01;
  const int s = p.addSubsystem(6);
  p.A(s) = Eigen::Matrix<double, 6, 6>::Identity();
  p.addConstraint(ConstraintType::Bilateral, 1);
  p.jacobianFor(s)(0, 0) = 1.0;
  p.e[0] = 0.25;
  StepSolution sol;
  sol.vhat = VecX::Zero(6);
  sol.lambda = VecX::Zero(1);
  EXPECT_NEAR(evaluateStep(p, sol).bilateral_residual, 0.25, 1e-15);
  sol.vhat[0] = -0.25;
  EXPECT_NEAR(evaluateStep(p, sol).bilateral_residual, 0.0, 1e-15);
}

}  // namespace
}  // namespace subsim
