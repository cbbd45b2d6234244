// CANAL and its Table II baselines (AL paper, section 3): accuracy to 1e-8 on the common judge,
// the exact line search, the shared sparse Newton matrix against dense algebra, and the
// no-allocation guarantee of CANAL's loop.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "solvers/no_allocation.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/solvers/al_newton_solver.hpp"
#include "subsim/solvers/exact_line_search.hpp"
#include "subsim/solvers/sparse_newton_system.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using test::denseA;
using test::denseJacobian;

// CANAL on the problem of w's last step from its warm start, to `tolerance` within 400 Newton
// iterations; its AL loops in *al_loops when given.
StepSolution solveLastStep(const World& w, double tolerance,
                           const AlNewtonOptions& options = AlNewtonOptions(),
                           int* al_loops = nullptr) {
  AlNewtonSolver canal(AlNewtonSolver::Variant::Canal, options);
  SolverSettings s;
  s.max_iterations = 400;
  s.tolerance = tolerance;
  StepSolution sol = w.lastWarmStart();
  canal.solve(w.lastProblem(), s, sol);
  if (al_loops != nullptr) *al_loops = canal.alLoops();
  return sol;
}

struct CanalCase {
  const char* spec;
  int steps;
};

class CanalAccuracy : public ::testing::TestWithParam<CanalCase> {};

// The AL paper's claim: CANAL reaches a constraint residual (its section 6) below 1e-8.
TEST_P(CanalAccuracy, ReachesConstraintResidualBelow1e8) {
  const CanalCase c = GetParam();
  World w = test::worldAfter(c.spec, c.steps);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numConstraints(), 0);
  AlNewtonSolver canal(AlNewtonSolver::Variant::Canal);
  SolverSettings s;
  s.max_iterations = 400;
  // 100x below the claim; tighter stopping residuals reach round-off on some problems (a
  // granular one stalled at 2.8e-11).
  s.tolerance = 1e-10;
  StepSolution sol = w.lastWarmStart();
  canal.solve(p, s, sol);
  EXPECT_TRUE(sol.stats.converged()) << c.spec << ": residual " << sol.stats.residual << " after "
                                     << sol.stats.iterations << " Newton iterations";
  const StepMetrics m = evaluateStep(p, sol);
  EXPECT_LT(m.constraint_residual, 1e-8) << c.spec;
  EXPECT_LT(m.dynamics_residual, 1e-8) << c.spec;
}

INSTANTIATE_TEST_SUITE_P(Canal, CanalAccuracy,
                         ::testing::Values(CanalCase{"stack:boxes=3", 50},
                                           CanalCase{"incline:angle=40,mu=0.5", 20},
                                           CanalCase{"pendulum", 30}),
                         [](const ::testing::TestParamInfo<CanalCase>& param_info) {
                           std::string name = param_info.param.spec;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

// Granular piles are where our CANAL is weakest: over steps 21-120 of granular:27, 70 of 100
// problems reach the claim within 400 Newton iterations (2026-11-28; the settled pile's friction
// cascade cycles, see FrictionlessGranularProblemsReach1e8InAboutTenAlLoops).  The test holds the
// rate on the early steps (27 of 30 measured before the natural-map stopping residual) so that a
// regression shows.
TEST(Canal, ReachesConstraintResidualBelow1e8OnMostGranularProblems) {
  World w = test::worldAfter("granular:spheres=27", 20);
  int reached = 0;
  for (int k = 0; k < 30; ++k) {
    w.step();
    const StepSolution sol = solveLastStep(w, 1e-10);
    ASSERT_TRUE(sol.vhat.allFinite() && sol.lambda.allFinite());
    reached += evaluateStep(w.lastProblem(), sol).constraint_residual < 1e-8 ? 1 : 0;
  }
  EXPECT_GE(reached, 25);
}

// CANAL's convergence claim holds under the common judge: it stops on the natural-map residual.
// The paper's AL primal residual (42), `paper_stop`, shrinks with the penalty and claims
// convergence on granular problems whose constraint residual is still above 1e-8 (measured on
// steps 21-120: 50 of 100; the natural residual's claims: none, the judge's residual at most
// 3.1e-10 where it claims).
TEST(Canal, ConvergenceClaimsHoldUnderTheJudge) {
  World w = test::worldAfter("granular:spheres=27", 20);
  int claims = 0, paper_false_claims = 0;
  for (int k = 0; k < 10; ++k) {
    w.step();
    const StepProblem& p = w.lastProblem();
    AlNewtonOptions paper_options;
    paper_options.paper_stop = true;
    const StepSolution natural = solveLastStep(w, 1e-8);
    const StepSolution paper = solveLastStep(w, 1e-8, paper_options);
    EXPECT_NE(std::string(natural.stats.residual_name), std::string(paper.stats.residual_name));
    if (natural.stats.converged()) {
      ++claims;
      EXPECT_LT(evaluateStep(p, natural).constraint_residual, 1e-8) << "step " << 21 + k;
    }
    if (paper.stats.converged() && evaluateStep(p, paper).constraint_residual >= 1e-8)
      ++paper_false_claims;
  }
  EXPECT_GE(claims, 7);              // 10 of these 10 measured
  EXPECT_GE(paper_false_claims, 5);  // 10 of these 10 measured
}

// Without friction the same piles converge fast: what stalls CANAL on frictional piles is the
// cascade's outer fixed point (the friction shift), not the AL loop on the contacts.  Measured
// on steps 21-120 of granular:spheres=27,mu=0: all 100 reach 1e-8, 85 within 10 AL loops
// (19.4 Newton iterations on average); with friction 70 reach it, their AL primal and natural
// residuals settling on a constant (a cycle of the shift) while each loop's Newton solve is
// exact.
TEST(Canal, FrictionlessGranularProblemsReach1e8InAboutTenAlLoops) {
  World w = test::worldAfter("granular:spheres=27,mu=0", 20);
  int within_10 = 0;
  for (int k = 0; k < 20; ++k) {
    w.step();
    int loops = 0;
    const StepSolution sol = solveLastStep(w, 1e-8, AlNewtonOptions(), &loops);
    EXPECT_LT(evaluateStep(w.lastProblem(), sol).constraint_residual, 1e-8) << "step " << 21 + k;
    EXPECT_LE(loops, 25) << "step " << 21 + k;
    within_10 += loops <= 10 ? 1 : 0;
  }
  EXPECT_GE(within_10, 13);  // 17 of these 20 measured
}

// Table II's damped semismooth Newton reaches CANAL's solution; the trust-region dogleg on the
// non-smooth merit ||r||^2 / 2 can stall at a kink of r (the paper's reason for CANAL): it is only
// required to stay finite and improve on its start here.
TEST(Canal, BaselinesOnAGranularProblem) {
  // The first problem from step 40 on that CANAL solves (see above: not every one).
  World w = test::worldAfter("granular:spheres=27", 39);
  SolverSettings s;
  s.max_iterations = 400;
  s.tolerance = 1e-10;
  s.record_history = true;
  StepSolution ref;
  for (int k = 0; k < 10; ++k) {
    w.step();
    ref = w.lastWarmStart();
    AlNewtonSolver(AlNewtonSolver::Variant::Canal).solve(w.lastProblem(), s, ref);
    if (ref.stats.converged()) break;
  }
  ASSERT_TRUE(ref.stats.converged());
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 20);

  AlNewtonSolver ssn(AlNewtonSolver::Variant::SemismoothNewton);
  StepSolution sol = w.lastWarmStart();
  ssn.solve(p, s, sol);
  EXPECT_TRUE(sol.stats.converged()) << "ssn residual " << sol.stats.residual;
  // Both meet the 1e-8 constraint residual; a pile's friction problem need not have a unique
  // solution, and the two measured 2e-6 m/s apart on one problem.
  EXPECT_LT((sol.vhat - ref.vhat).cwiseAbs().maxCoeff(), 1e-5);
  EXPECT_LT(evaluateStep(p, sol).constraint_residual, 1e-8);

  AlNewtonSolver dogleg(AlNewtonSolver::Variant::TrustRegionDogleg);
  StepSolution dl = w.lastWarmStart();
  const double start = evaluateStep(p, dl).constraint_residual;
  s.max_iterations = 100;
  dogleg.solve(p, s, dl);
  ASSERT_TRUE(dl.vhat.allFinite() && dl.lambda.allFinite());
  EXPECT_LT(evaluateStep(p, dl).constraint_residual, start);
}

TEST(Canal, FixedIterationsHistoryAndPenaltyIncrease) {
  World w = test::worldAfter("stack:boxes=3", 50);
  const StepProblem& p = w.lastProblem();
  AlNewtonSolver canal(AlNewtonSolver::Variant::Canal);
  SolverSettings s;
  s.max_iterations = 25;
  s.tolerance = 0.0;
  s.record_history = true;
  StepSolution sol = w.lastWarmStart();
  canal.solve(p, s, sol);
  EXPECT_EQ(sol.stats.iterations, 25);
  EXPECT_EQ(static_cast<int>(sol.stats.residual_history.size()), 25);
  EXPECT_FALSE(sol.stats.converged());  // tolerance 0 never claims convergence
  EXPECT_GT(canal.alLoops(), 1);
  EXPECT_EQ(sol.stats.outer_iterations, canal.alLoops());  // what Solution.outer_iterations shows
  // Rule (27) raised the penalty above its start, beta0_scale times the constraints' effective
  // mass.
  EXPECT_GT(canal.beta(), 1.5 * AlNewtonOptions().beta0_scale * test::effectiveMassScale(p));
}

// The AL paper counts CANAL's iterations in AL loops: max_al_loops runs exactly that many
// (tolerance 0), and a loop whose Newton solve runs to max_inner above its threshold is counted.
TEST(Canal, MaxAlLoopsRunsThatManyLoopsAndCountsNewtonSolvesAtTheirCap) {
  World w = test::worldAfter("granular:spheres=27", 30);
  const StepProblem& p = w.lastProblem();
  SolverSettings s;
  s.max_iterations = 100000;
  s.tolerance = 0.0;
  AlNewtonOptions o;
  o.max_al_loops = 4;
  o.inner_ratio = 0.0;  // every loop's Newton solve to round-off: the paper's protocol
  AlNewtonSolver canal(AlNewtonSolver::Variant::Canal, o);
  StepSolution sol = w.lastWarmStart();
  canal.solve(p, s, sol);
  EXPECT_EQ(sol.stats.outer_iterations, 4);
  EXPECT_EQ(sol.stats.inner_unconverged, 0);
  EXPECT_GE(sol.stats.iterations, 4);  // at least one Newton iteration a loop
  EXPECT_LT(sol.stats.iterations, 4 * o.max_inner);
  EXPECT_FALSE(sol.stats.converged());  // tolerance 0 never claims convergence

  // One Newton iteration a loop cannot take every loop to round-off here (measured: none of the
  // four; the 23 Newton iterations above are 5-6 a loop).
  o.max_inner = 1;
  AlNewtonSolver capped(AlNewtonSolver::Variant::Canal, o);
  StepSolution one = w.lastWarmStart();
  capped.solve(p, s, one);
  EXPECT_EQ(one.stats.outer_iterations, 4);
  EXPECT_EQ(one.stats.iterations, 4);
  EXPECT_GT(one.stats.inner_unconverged, 0);
  EXPECT_LE(one.stats.inner_unconverged, 4);

  // Without the loop cap the Newton iterations are the only cap (the default, 0).
  o = AlNewtonOptions();
  s.max_iterations = 25;
  AlNewtonSolver plain(AlNewtonSolver::Variant::Canal, o);
  StepSolution all = w.lastWarmStart();
  plain.solve(p, s, all);
  EXPECT_EQ(all.stats.iterations, 25);
}

// Without the active pattern (whose changes re-analyse the factorisation, and allocate).
TEST(Canal, IterationLoopDoesNotAllocate) {
  World w = test::worldAfter("granular:spheres=27", 40);
  AlNewtonOptions options;
  options.active_pattern = false;
  AlNewtonSolver canal(AlNewtonSolver::Variant::Canal, options);
  SolverSettings s;
  s.max_iterations = 12;
  test::expectIterationsDoNotAllocate(canal, w.lastProblem(), s);
}

// The active pattern changes which entries are factored, not the Newton step: CANAL takes the
// same path with and without it, up to the rounding of two orderings.  To 1e-8: the slow tail
// of these piles to 1e-10 amplifies that rounding (steps 41-50 measured: the same count to 1e-8
// on 9 of 10, to 1e-10 only on the 3 where both run to the 400-iteration cap; step 41: 153
// and 125 Newton iterations).
TEST(Canal, ActivePatternGivesTheSameIterates) {
  World w = test::worldAfter("granular:spheres=27", 44);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 20);
  SolverSettings s;
  s.max_iterations = 400;
  s.tolerance = 1e-8;
  StepSolution with = w.lastWarmStart(), without = w.lastWarmStart();
  AlNewtonOptions full;
  full.active_pattern = false;
  AlNewtonSolver(AlNewtonSolver::Variant::Canal).solve(p, s, with);
  AlNewtonSolver(AlNewtonSolver::Variant::Canal, full).solve(p, s, without);
  ASSERT_TRUE(with.stats.converged() && without.stats.converged());
  EXPECT_LT(evaluateStep(p, with).constraint_residual, 1e-8);
  EXPECT_LT((with.vhat - without.vhat).cwiseAbs().maxCoeff(), 1e-7);
  EXPECT_NEAR(with.stats.iterations, without.stats.iterations, 2);
}

TEST(ExactLineSearch, FindsTheRootOfAPiecewiseLinearDerivative) {
  // g(alpha) = 3 (alpha - 0.3) below 0.5, slope 10 above: root 0.3.
  int calls = 0;
  const auto g = [&calls](double a, double* dg) {
    ++calls;
    *dg = a < 0.5 ? 3.0 : 10.0;
    return a < 0.5 ? 3.0 * (a - 0.3) : 0.6 + 10.0 * (a - 0.5);
  };
  double dg0 = 0.0;
  const double g0 = g(0.0, &dg0);
  const LineSearchResult r = exactLineSearch(g, g0, 1e-12);
  EXPECT_NEAR(r.alpha, 0.3, 1e-10);
  EXPECT_EQ(r.evaluations, calls - 1);
  EXPECT_LT(r.evaluations, 10);
}

TEST(ExactLineSearch, ExpandsTheBracketBeyondTheNewtonStep) {
  const auto g = [](double a, double* dg) {
    *dg = a < 4.0 ? 0.5 : 2.0;  // kink past the root
    return a < 4.0 ? 0.5 * (a - 2.5) : 0.75 + 2.0 * (a - 4.0);
  };
  double dg0 = 0.0;
  const LineSearchResult r = exactLineSearch(g, g(0.0, &dg0), 1e-12);
  EXPECT_NEAR(r.alpha, 2.5, 1e-10);
}

TEST(ExactLineSearch, AcceptsTheFullStepWhenItIsTheRoot) {
  int calls = 0;
  const auto g = [&calls](double a, double* dg) {
    ++calls;
    *dg = 2.0;
    return 2.0 * (a - 1.0);
  };
  const LineSearchResult r = exactLineSearch(g, -2.0);
  EXPECT_EQ(r.alpha, 1.0);
  EXPECT_EQ(calls, 1);
}

// K = A + sum_c J_c^T D_c J_c through the scatter lists, against dense algebra; both solve paths.
TEST(SparseNewtonSystem, MatchesDenseAssemblyAndSolves) {
  World w = test::worldAfter("stack:boxes=3", 50);
  const StepProblem& p = w.lastProblem();
  SparseNewtonSystem sys;
  sys.assemble(p);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  const int n = p.numDof();
  const MatX A = denseA(p), J = denseJacobian(p);
  const VecX rhs = VecX::NullaryExpr(n, [&] { return uni(rng); });
  for (bool symmetric : {true, false}) {
    std::vector<double> blocks(sys.blockStorageSize());
    MatX D = MatX::Zero(p.numRows(), p.numRows());
    for (int j = 0; j < p.numConstraints(); ++j) {
      const Constraint& c = p.constraints[j];
      MatX B = MatX::NullaryExpr(c.rows, c.rows, [&] { return uni(rng); });
      // Symmetric positive semi-definite for the LDL^T path; a general block (still
      // keeping K non-singular) for the LU path.
      B = symmetric ? MatX(B * B.transpose()) : MatX(B + 2.0 * MatX::Identity(c.rows, c.rows));
      D.block(c.row_offset, c.row_offset, c.rows, c.rows) = B;
      for (int r = 0; r < c.rows; ++r)
        for (int s = 0; s < c.rows; ++s) blocks[sys.blockOffset(j) + r * c.rows + s] = B(r, s);
    }
    sys.fill(blocks.data());
    const MatX K = A + J.transpose() * D * J;
    EXPECT_LT((MatX(sys.A()) - A).cwiseAbs().maxCoeff(), 1e-14);
    const VecX expected = K.fullPivLu().solve(rhs);
    VecX x(n);
    if (symmetric) {
      ASSERT_TRUE(sys.factorizeSymmetric());
      sys.solveSymmetric(rhs, x);
    } else {
      ASSERT_TRUE(sys.factorizeGeneral());
      sys.solveGeneral(rhs, x);
    }
    EXPECT_LT((x - expected).norm(), 1e-9 * expected.norm()) << "symmetric " << symmetric;
  }
  // The penalty form A + beta J^T J.
  sys.fillPenalty(3.0);
  ASSERT_TRUE(sys.factorizeSymmetric());
  VecX x(n);
  sys.solveSymmetric(rhs, x);
  const VecX expected = (A + 3.0 * J.transpose() * J).ldlt().solve(rhs);
  EXPECT_LT((x - expected).norm(), 1e-9 * expected.norm());
  EXPECT_EQ(sys.analyses(), 1);
  sys.assemble(p);  // same pattern: no new analysis
  EXPECT_EQ(sys.analyses(), 1);
}

// Constraints with a zero D_c leave the factored pattern: the solve is that of A plus the others,
// a new set of such constraints is analysed once, and the same set again reuses the analysis.
TEST(SparseNewtonSystem, FactorsTheActiveConstraintsPattern) {
  World w = test::worldAfter("stack:boxes=3", 50);
  const StepProblem& p = w.lastProblem();
  ASSERT_GE(p.numConstraints(), 8);
  SparseNewtonSystem sys;
  sys.assemble(p);
  const int n = p.numDof();
  const MatX A = denseA(p), J = denseJacobian(p);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  const VecX rhs = VecX::NullaryExpr(n, [&] { return uni(rng); });
  // Active: the first half of the constraints (the contacts of the lower boxes), then the second
  // half (the upper boxes'), then none, then the first half again.
  const int half = p.numConstraints() / 2;
  const auto solveWith = [&](int parity, int expected_analyses) {
    std::vector<double> blocks(sys.blockStorageSize(), 0.0);
    MatX D = MatX::Zero(p.numRows(), p.numRows());
    int active = 0;
    for (int j = 0; j < p.numConstraints(); ++j) {
      if (parity < 0 || (j < half ? 0 : 1) != parity) continue;
      const Constraint& c = p.constraints[j];
      MatX B = MatX::NullaryExpr(c.rows, c.rows, [&] { return uni(rng); });
      B = B * B.transpose();
      D.block(c.row_offset, c.row_offset, c.rows, c.rows) = B;
      for (int r = 0; r < c.rows; ++r)
        for (int q = 0; q < c.rows; ++q) blocks[sys.blockOffset(j) + r * c.rows + q] = B(r, q);
      ++active;
    }
    sys.fill(blocks.data());
    EXPECT_EQ(sys.activeConstraints(), active);
    ASSERT_TRUE(sys.factorizeSymmetric());
    EXPECT_EQ(sys.analyses(), expected_analyses) << "parity " << parity;
    VecX x(n);
    sys.solveSymmetric(rhs, x);
    const VecX expected = MatX(A + J.transpose() * D * J).ldlt().solve(rhs);
    EXPECT_LT((x - expected).norm(), 1e-9 * expected.norm()) << "parity " << parity;
  };
  solveWith(0, 1);
  solveWith(0, 1);  // other values, same pattern
  solveWith(1, 2);
  solveWith(-1, 3);
  solveWith(0, 4);
  // The whole pattern: the penalty form (every constraint active).
  sys.setActivePattern(false);
  solveWith(0, 5);
  solveWith(1, 5);
}

TEST(SparseNewtonSystem, RejectsAnIndefiniteMatrix) {
  World w = test::worldAfter("stack:boxes=1", 20);
  const StepProblem& p = w.lastProblem();
  SparseNewtonSystem sys;
  sys.assemble(p);
  sys.fillPenalty(-1e9);  // A - 1e9 J^T J is indefinite
  EXPECT_FALSE(sys.factorizeSymmetric());
}

}  // namespace
}  // namespace subsim
