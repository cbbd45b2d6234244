// NNewton (non-smooth Newton on the Fischer-Burmeister reformulation) against FADMM solved
// tightly and a dense KKT solve, the physics of sticking and sliding, its local convergence rate,
// warm start, the empty problem and the no-allocation guarantee of its Newton loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "solvers/no_allocation.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/solvers/fadmm_solver.hpp"
#include "subsim/solvers/nnewton_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using test::denseA;
using test::denseJacobian;
using test::worldAfter;

StepSolution solveNnewton(const StepProblem& p, int iterations, double tolerance,
                          bool history = false) {
  NnewtonSolver solver;
  SolverSettings s;
  s.max_iterations = iterations;
  s.tolerance = tolerance;
  s.record_history = history;
  StepSolution sol;
  solver.solve(p, s, sol);
  return sol;
}

StepSolution fadmmReference(const StepProblem& p) {
  FadmmSolver fadmm;
  SolverSettings s;
  s.max_iterations = 50000;
  s.tolerance = 1e-12;
  StepSolution sol;
  fadmm.solve(p, s, sol);
  EXPECT_TRUE(sol.stats.converged()) << "FADMM residual " << sol.stats.residual;
  return sol;
}

struct NnewtonCase {
  const char* spec;
  int steps;
  int min_contacts;
};

class NnewtonVsFadmm : public ::testing::TestWithParam<NnewtonCase> {};

TEST_P(NnewtonVsFadmm, SameVelocityAndNetImpulsePerSubsystem) {
  const NnewtonCase sc = GetParam();
  World w = worldAfter(sc.spec, sc.steps, 200);
  const StepProblem& p = w.lastProblem();
  ASSERT_GE(p.numContacts(), sc.min_contacts);
  const StepSolution ref = fadmmReference(p);
  const StepSolution sol = solveNnewton(p, 30, 1e-10);
  EXPECT_TRUE(sol.stats.converged())
      << "residual " << sol.stats.residual << " after " << sol.stats.iterations;
  EXPECT_STREQ(sol.stats.residual_name, "Fischer-Burmeister ||Phi||_inf (m/s)");
  EXPECT_LT((sol.vhat - ref.vhat).cwiseAbs().maxCoeff(), 1e-6);
  // Contacts under a box are statically indeterminate: compare J^T lambda per subsystem.
  const MatX J = denseJacobian(p);
  const VecX net = J.transpose() * sol.lambda;
  const VecX net_ref = J.transpose() * ref.lambda;
  const double global_scale = net_ref.cwiseAbs().maxCoeff();
  for (int i = 0; i < p.numSubsystems(); ++i) {
    const Subsystem& sub = p.subsystems[i];
    const VecX a = net.segment(sub.dof_offset, sub.dof);
    const VecX b = net_ref.segment(sub.dof_offset, sub.dof);
    const double scale = std::max(b.cwiseAbs().maxCoeff(), 1e-6 * global_scale);
    EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-6 * scale) << "subsystem " << i;
  }
  const StepMetrics metrics = evaluateStep(p, sol);
  EXPECT_LT(metrics.constraint_residual, 1e-8);
  EXPECT_LT(metrics.contact_fb_residual, 1e-8);
  EXPECT_LT(metrics.dynamics_residual, 1e-10);
  std::printf("[ info ] %s: %d Newton iterations\n", sc.spec, sol.stats.iterations);
}

INSTANTIATE_TEST_SUITE_P(Nnewton, NnewtonVsFadmm,
                         ::testing::Values(NnewtonCase{"stack:boxes=1", 30, 4},
                                           NnewtonCase{"sphere", 30, 1},
                                           NnewtonCase{"incline:angle=10,mu=0.5", 30, 4},
                                           NnewtonCase{"incline:angle=40,mu=0.5", 30, 4},
                                           NnewtonCase{"stack:boxes=3", 50, 9},
                                           NnewtonCase{"granular:spheres=27", 40, 10}));

TEST(Nnewton, InclineSticksBelowTheFrictionAngleAndSlidesAbove) {
  // tan(26.6 deg) = 0.5: at 10 deg the box holds, at 40 deg it slides.
  for (const int angle : {10, 40}) {
    World w = worldAfter("incline:angle=" + std::to_string(angle) + ",mu=0.5", 30, 200);
    const StepProblem& p = w.lastProblem();
    const StepSolution sol = solveNnewton(p, 30, 1e-10);
    ASSERT_TRUE(sol.stats.converged()) << angle;
    const double speed = sol.vhat.segment(p.subsystems[0].dof_offset, 3).norm();
    if (angle < 20)
      EXPECT_LT(speed, 1e-6) << angle;
    else
      EXPECT_GT(speed, 1e-2) << angle;
  }
}

TEST(Nnewton, RestingSphereCarriesItsWeight) {
  World w = worldAfter("sphere", 30, 200);
  const StepProblem& p = w.lastProblem();
  ASSERT_EQ(p.numContacts(), 1);
  const StepSolution sol = solveNnewton(p, 30, 1e-12);
  ASSERT_TRUE(sol.stats.converged()) << sol.stats.residual;
  EXPECT_LT(sol.vhat.norm(), 1e-4);
  // 1 kg under 9.81 m/s^2 for one step: the normal impulse is about m g h.
  const double weight_impulse = 9.81 * p.dt;
  const int n = p.constraints[0].row_offset;
  EXPECT_NEAR(sol.lambda[n], weight_impulse, 0.05 * weight_impulse);
  EXPECT_LT(std::hypot(sol.lambda[n + 1], sol.lambda[n + 2]), 1e-9);
}

TEST(Nnewton, ConvergesQuadraticallyOnASingleContact) {
  // A sphere has exactly one contact, so the block-Jacobi preconditioner is the exact inverse of H
  // and every Newton step is exact: near the solution the error must roughly square.
  World w = worldAfter("sphere", 30, 200);
  const StepProblem& p = w.lastProblem();
  const StepSolution sol = solveNnewton(p, 12, 0.0, true);
  const subsim::DoubleBuffer& h = sol.stats.residual_history;
  ASSERT_EQ(h.size(), 12u);
  std::printf("[ info ] sphere residual history:");
  for (const double r : h) std::printf(" %.2e", r);
  std::printf("\n");
  EXPECT_LT(h.back(), 1e-14);
  // Some step from below 1e-3 m/s lands at least three orders of magnitude lower.
  bool fast = false;
  for (size_t k = 0; k + 1 < h.size(); ++k)
    if (h[k] < 1e-3 && h[k] > 1e-13 && h[k + 1] < 1e-3 * h[k]) fast = true;
  EXPECT_TRUE(fast);
  // And the whole descent takes only a few iterations.
  int below = -1;
  for (size_t k = 0; k < h.size(); ++k)
    if (h[k] < 1e-12) {
      below = static_cast<int>(k);
      break;
    }
  EXPECT_GE(below, 0);
  EXPECT_LE(below, 8);
}

TEST(Nnewton, GranularResidualDropsByOrdersOfMagnitude) {
  // (After 80 steps instead of 40 the cold start crawls: see the header's known weakness.)
  World w = worldAfter("granular:spheres=27", 40, 200);
  const StepProblem& p = w.lastProblem();
  const StepSolution sol = solveNnewton(p, 20, 0.0, true);
  const subsim::DoubleBuffer& h = sol.stats.residual_history;
  ASSERT_EQ(h.size(), 20u);
  EXPECT_EQ(sol.stats.iterations, 20);
  EXPECT_FALSE(sol.stats.converged());
  EXPECT_LT(h[19], 1e-9 * h[0]);
  EXPECT_LT(h[19], 1e-12);
  // Past the global phase the steps are full Newton steps: some step gains three orders.
  bool fast = false;
  for (size_t k = 0; k + 1 < h.size(); ++k)
    if (h[k] < 1e-3 && h[k] > 1e-13 && h[k + 1] < 1e-3 * h[k]) fast = true;
  EXPECT_TRUE(fast);
}

TEST(Nnewton, SolvesABilateralProblemInOneNewtonStep) {
  World w = worldAfter("pendulum:links=3", 10, 60);
  const StepProblem& p = w.lastProblem();
  ASSERT_EQ(p.numContacts(), 0);
  const StepSolution sol = solveNnewton(p, 10, 1e-12);
  EXPECT_TRUE(sol.stats.converged()) << "residual " << sol.stats.residual;
  // A linear problem: one Newton step, two if GMRES stopped at the forcing term.
  EXPECT_LE(sol.stats.iterations, 3);
  test::expectMatchesDenseKkt(p, sol, "nnewton");
}

TEST(Nnewton, FixedIterationsHistoryAndWarmStart) {
  World w = worldAfter("stack:boxes=3", 50, 200);
  const StepProblem& p = w.lastProblem();
  NnewtonSolver solver;
  SolverSettings s;
  s.max_iterations = 7;
  s.tolerance = 0.0;
  s.record_history = true;
  StepSolution sol;
  solver.solve(p, s, sol);
  EXPECT_EQ(sol.stats.iterations, 7);
  EXPECT_EQ(sol.stats.residual_history.size(), 7u);
  EXPECT_FALSE(sol.stats.converged());
  EXPECT_EQ(sol.stats.residual, sol.stats.residual_history.back());
  s.max_iterations = 30;
  s.tolerance = 1e-10;
  StepSolution cold;
  solver.solve(p, s, cold);
  ASSERT_TRUE(cold.stats.converged()) << cold.stats.residual;
  StepSolution warm = cold;
  solver.solve(p, s, warm);
  EXPECT_EQ(warm.stats.iterations, 0);
  EXPECT_TRUE(warm.stats.converged());
  EXPECT_EQ(warm.lambda, cold.lambda);
}

TEST(Nnewton, EmptyProblemGivesTheFreeVelocity) {
  StepProblem p;
  p.dt = 0.01;
  const int s0 = p.addSubsystem(3);
  p.A(s0) << 4.0, 0.5, 0.1, 0.5, 3.0, 0.2, 0.1, 0.2, 2.0;
  p.bBlock(s0) << 0.3, -1.0, 0.5;
  ASSERT_EQ(p.check(), "");
  for (const double tolerance : {0.0, 1e-8}) {
    const StepSolution sol = solveNnewton(p, 5, tolerance);
    const VecX expected = denseA(p).llt().solve(Eigen::Map<const VecX>(p.b.data(), 3));
    EXPECT_LT((sol.vhat - expected).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_EQ(sol.lambda.size(), 0);
    EXPECT_EQ(sol.stats.residual, 0.0);
  }
}

TEST(Nnewton, IterationLoopDoesNotAllocate) {
  World w = worldAfter("granular:spheres=64", 120);
  ASSERT_GT(w.lastProblem().numContacts(), 10);
  NnewtonSolver solver;
  SolverSettings s;
  s.max_iterations = 5;
  test::expectIterationsDoNotAllocate(solver, w.lastProblem(), s);
  EXPECT_GT(solver.linearIterations(), 5);
}

}  // namespace
}  // namespace subsim
