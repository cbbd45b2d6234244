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

// FCLib's natural-map error on hand-worked cases of one point mass (A = I) on a contact with
// mu = 1/2 and b = (2, 0, -1) in (x, y, z): pushed along x, it must slide with lambda_n = 1 and
// lambda_t = -1/2.  All values below are exact in binary.
StepProblem pushedPointMass() {
  StepProblem p;
  p.dt = 0.01;
  const int s = p.addSubsystem(3);
  p.A(s).setIdentity();
  p.bBlock(s) << 2.0, 0.0, -1.0;
  p.addConstraint(ConstraintType::Contact, 3, 0.5, 1);
  auto J = p.jacobianFor(s);
  J(0, 2) = 1.0;  // n = z
  J(1, 0) = 1.0;  // t1 = x
  J(2, 1) = 1.0;  // t2 = y
  return p;
}

TEST(StepMetrics, NaturalMapErrorIsZeroAtTheSlidingSolution) {
  const StepProblem p = pushedPointMass();
  StepSolution sol;
  sol.lambda = Vec3(1.0, -0.5, 0.0);
  sol.vhat = Vec3(1.5, 0.0, 0.0);  // b + J^T lambda
  const StepMetrics m = evaluateStep(p, sol);
  // u = (0, 1.5, 0), u~ = (0.75, 1.5, 0), r - u~ = (0.25, -2, 0), whose projection onto the cone
  // is (1, -0.5, 0) = r.
  EXPECT_EQ(m.contact_natural_map_error, 0.0);
  EXPECT_NEAR(m.constraint_residual, 0.0, 1e-15);
}

TEST(StepMetrics, NaturalMapErrorOfAStickingGuessByHand) {
  const StepProblem p = pushedPointMass();
  StepSolution sol;
  sol.lambda = Vec3(1.0, 0.0, 0.0);  // no friction: wrong, the mass slides at 2 m/s
  sol.vhat = Vec3(2.0, 0.0, 0.0);
  // u = (0, 2, 0), u~ = (1, 2, 0), r - u~ = (0, -2, 0) projects to (0.8, -0.4, 0): the natural map
  // is (0.2, 0.4, 0), of norm sqrt(0.2); the scale is max(|q| = |(-1, 2, 0)|, |r| = 1, |u| = 2)
  // = sqrt(5): error sqrt(0.2 / 5) = 0.2.
  EXPECT_NEAR(evaluateStep(p, sol).contact_natural_map_error, 0.2, 1e-15);
}

TEST(StepMetrics, NaturalMapErrorIsZeroWithoutContacts) {
  StepProblem p;
  p.addSubsystem(1);
  p.A(0)(0, 0) = 1.0;
  StepSolution sol;
  sol.vhat = VecX::Zero(1);
  sol.lambda = VecX::Zero(0);
  EXPECT_EQ(evaluateStep(p, sol).contact_natural_map_error, 0.0);
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
