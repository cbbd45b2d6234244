// Anderson acceleration on fixed-point iterations with known solutions: on a linear contraction
// with a window as large as the dimension it is GMRES in disguise (Walker and Ni 2011) and finishes
// in about n + 1 steps where the plain iteration crawls; the safeguard leaves G's plain step.
#include "subsim/solvers/anderson_acceleration.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <vector>

#include "no_allocation.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/solvers/subadmm_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

struct LinearMap {
  Eigen::MatrixXd M;
  Eigen::VectorXd c, fixed_point;
};

// x <- M x + c with M symmetric, eigenvalues spread in [0, 0.99]: the plain iteration's error
// shrinks by at most 0.99 per step.
LinearMap slowContraction(int n) {
  Eigen::MatrixXd Q =
      Eigen::HouseholderQR<Eigen::MatrixXd>(
          Eigen::MatrixXd::NullaryExpr(
              n, n,
              [](Eigen::Index i, Eigen::Index j) { return std::sin(1.0 + 3.0 * i + 7.0 * j * j); }))
          .householderQ();
  Eigen::VectorXd eig(n);
  for (int k = 0; k < n; ++k) eig[k] = 0.99 * k / (n - 1);
  LinearMap map;
  map.M = Q * eig.asDiagonal() * Q.transpose();
  map.c = Eigen::VectorXd::LinSpaced(n, -1.0, 2.0);
  map.fixed_point = (Eigen::MatrixXd::Identity(n, n) - map.M).lu().solve(map.c);
  return map;
}

double errorAfter(const LinearMap& map, int steps, int window) {
  const int n = static_cast<int>(map.c.size());
  AndersonAcceleration aa;
  if (window > 0) aa.resize(n, window);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n), g(n);
  for (int k = 0; k < steps; ++k) {
    g = map.M * x + map.c;
    if (window > 0) aa.step(x.data(), g.data(), 1e300);
    x = g;
  }
  return (x - map.fixed_point).norm() / map.fixed_point.norm();
}

TEST(AndersonAcceleration, ALinearContractionConvergesInAboutNSteps) {
  const LinearMap map = slowContraction(6);
  const double plain = errorAfter(map, 10, 0);
  const double accelerated = errorAfter(map, 10, 6);
  EXPECT_GT(plain, 0.1);  // 0.99^10 on the slowest mode
  EXPECT_LT(accelerated, 1e-9) << "plain " << plain;
  // A short window still helps a lot, without the exactness.
  EXPECT_LT(errorAfter(map, 30, 3), 1e-3 * errorAfter(map, 30, 0));
}

TEST(AndersonAcceleration, TheSafeguardLeavesThePlainStep) {
  const LinearMap map = slowContraction(4);
  AndersonAcceleration aa;
  aa.resize(4, 3);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(4), g(4);
  for (int k = 0; k < 3; ++k) {
    g = map.M * x + map.c;
    aa.step(x.data(), g.data(), 1e300);
    x = g;
  }
  EXPECT_EQ(aa.historySize(), 2);  // the first step only records its pair
  g = map.M * x + map.c;
  const Eigen::VectorXd plain = g;
  const double f2 = aa.step(x.data(), g.data(), 0.0);  // any residual "grew"
  EXPECT_EQ(g, plain);
  EXPECT_EQ(aa.historySize(), 0);
  EXPECT_DOUBLE_EQ(f2, (plain - x).squaredNorm());
}

TEST(AndersonAcceleration, WeightsDefineTheNormAndStepsDoNotAllocate) {
  const LinearMap map = slowContraction(5);
  AndersonAcceleration aa;
  aa.resize(5, 5);
  for (int r = 0; r < 5; ++r) aa.weights()[r] = 4.0;
  Eigen::VectorXd x = Eigen::VectorXd::Zero(5), g = map.M * x + map.c;
  double f2 = 0.0;
  long allocations = test::allocationCount();
  f2 = aa.step(x.data(), g.data(), 1e300);
  allocations = test::allocationCount() - allocations;
  EXPECT_DOUBLE_EQ(f2, 4.0 * map.c.squaredNorm());
  // Scaling every weight alike changes no iterate.
  AndersonAcceleration unit;
  unit.resize(5, 5);
  Eigen::VectorXd xa = Eigen::VectorXd::Zero(5), xb = xa, ga(5), gb(5);
  for (int k = 0; k < 6; ++k) {
    ga = map.M * xa + map.c;
    gb = map.M * xb + map.c;
    const long before = test::allocationCount();
    aa.step(xa.data(), ga.data(), 1e300);
    unit.step(xb.data(), gb.data(), 1e300);
    allocations += test::allocationCount() - before;
    xa = ga;
    xb = gb;
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_LT((xa - xb).norm(), 1e-12 * xa.norm());
}

// SubADMM with the option: the same fixed point, reached faster on a chain of subsystems (the
// structure it is meant for: a Cosserat cable of 8 four-segment subsystems held at both ends),
// deterministic, and still allocation-free.  (It was a chain of four FEM pieces until their
// penalties were fixed on 2026-11-28: the plain iteration then reached 2.4e-6 at 160 iterations
// there, the accelerated one 1.1e-5.)
TEST(AndersonAcceleration, SubadmmReachesTheSameSolutionSoonerOnAChain) {
  World w = test::worldAfter("cable:segments=32", 30);
  const StepProblem& p = w.lastProblem();
  SolverSettings s;
  s.tolerance = 0.0;
  const auto solve = [&](int iterations, int window, int threads) {
    SolverSettings t = s;
    t.max_iterations = iterations;
    t.threads = threads;
    SubadmmSolver solver;
    solver.options().anderson_window = window;
    StepSolution solution;
    solver.solve(p, t, solution);
    return solution;
  };
  // The default adaptive penalty and relaxation.
  const StepSolution plain = solve(40, 0, 1), accelerated = solve(40, 5, 1);
  const double r_plain = evaluateStep(p, plain).constraint_residual;
  const double r_accelerated = evaluateStep(p, accelerated).constraint_residual;
  EXPECT_LT(r_accelerated, 0.05 * r_plain);

  // The same velocities as a long plain run.
  const StepSolution reference = solve(2000, 0, 1);
  ASSERT_LT(evaluateStep(p, reference).constraint_residual, 1e-9);
  const StepSolution converged = solve(600, 5, 1);
  EXPECT_LT(evaluateStep(p, converged).constraint_residual, 1e-10);
  EXPECT_LT((converged.vhat - reference.vhat).norm(), 1e-6 * reference.vhat.norm());

  const StepSolution two_threads = solve(40, 5, 2);
  EXPECT_EQ(two_threads.lambda, accelerated.lambda);
  EXPECT_EQ(two_threads.vhat, accelerated.vhat);

  SubadmmSolver solver;
  solver.options().anderson_window = 5;
  SolverSettings a = s;
  a.max_iterations = 30;
  test::expectIterationsDoNotAllocate(solver, p, a);
}

}  // namespace
}  // namespace subsim
