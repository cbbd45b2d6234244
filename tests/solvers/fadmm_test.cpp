// FADMM (full-system ADMM) against SubADMM and a dense KKT solve on the same StepProblem, the
// adaptive penalty, reuse of the symbolic analysis and the no-allocation guarantee of its loop.
#include <gtest/gtest.h>

#include <string>

#include "solvers/no_allocation.hpp"
#include "subsim/solvers/fadmm_solver.hpp"
#include "subsim/solvers/subadmm_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using test::denseA;
using test::denseJacobian;
using test::makeWorld;

using test::worldAfter;

SolverSettings tightSettings() {
  SolverSettings s;
  s.max_iterations = 50000;
  s.tolerance = 1e-12;
  return s;
}

struct FadmmCase {
  const char* name;
  const char* spec;
  int steps;
  int min_contacts;
};

// Two solvers agree on vhat only where the step problem has one solution.  Frictionless
// contact makes it a convex QP with A SPD (unique vhat; ADMM converges for any penalty and any
// relaxation in (0, 2), Boyd et al. 2011).  With Coulomb friction the NCP may have several
// solutions: on granular:spheres=27 after 80 steps, FADMM and SubADMM both reach residual 1e-12
// at velocities 19 m/s apart (a sphere spinning one way or the other), so a frictional pile is no
// agreement case; the boxes below are, their frictional solutions being unique (a box on a plane,
// a sliding box, a stack: each converges in under 300 iterations from every penalty tried).
class FadmmVsSubadmm : public ::testing::TestWithParam<FadmmCase> {};

TEST_P(FadmmVsSubadmm, SameVelocityAndNetImpulsePerSubsystem) {
  const FadmmCase sc = GetParam();
  World w = worldAfter(sc.spec, sc.steps, 200);
  const StepProblem& p = w.lastProblem();
  ASSERT_GE(p.numContacts(), sc.min_contacts);
  FadmmSolver fadmm;
  SubadmmSolver subadmm;
  const SolverSettings s = tightSettings();
  StepSolution f, r;
  fadmm.solve(p, s, f);
  subadmm.solve(p, s, r);
  EXPECT_TRUE(f.stats.converged())
      << "fadmm residual " << f.stats.residual << " after " << f.stats.iterations;
  EXPECT_TRUE(r.stats.converged()) << "subadmm residual " << r.stats.residual;
  EXPECT_STREQ(f.stats.residual_name, "primal+dual (42), max-norm");
  EXPECT_LT((f.vhat - r.vhat).cwiseAbs().maxCoeff(), 1e-6);
  // Contacts under a box are statically indeterminate: compare the net impulse J^T lambda on
  // each subsystem, relative to that subsystem's own net impulse.
  const MatX J = denseJacobian(p);
  const VecX net_f = J.transpose() * f.lambda;
  const VecX net_r = J.transpose() * r.lambda;
  const double global_scale = net_r.cwiseAbs().maxCoeff();
  for (int i = 0; i < p.numSubsystems(); ++i) {
    const Subsystem& sub = p.subsystems[i];
    const VecX ref = net_r.segment(sub.dof_offset, sub.dof);
    const VecX got = net_f.segment(sub.dof_offset, sub.dof);
    // Floor: a subsystem without contacts has a zero net impulse.
    const double scale = std::max(ref.cwiseAbs().maxCoeff(), 1e-6 * global_scale);
    EXPECT_LT((got - ref).cwiseAbs().maxCoeff(), 1e-6 * scale) << "subsystem " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Fadmm, FadmmVsSubadmm,
                         ::testing::Values(FadmmCase{"box", "stack:boxes=1", 10, 4},
                                           FadmmCase{"stack", "stack:boxes=3", 50, 9},
                                           FadmmCase{"sliding", "incline:angle=40,mu=0.5", 10, 1},
                                           FadmmCase{"frictionless_pile",
                                                     "granular:spheres=27,mu=0", 80, 10}),
                         [](const ::testing::TestParamInfo<FadmmCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

// The convex case converges from every penalty and relaxation (the ADMM theorem), not only the
// tuned defaults; the cap leaves a 5x margin over the slowest setting measured (7426 iterations).
TEST(Fadmm, FrictionlessPileConvergesFromAnyPenaltyAndRelaxation) {
  World w = worldAfter("granular:spheres=27,mu=0", 80, 200);
  const StepProblem& p = w.lastProblem();
  ASSERT_GE(p.numContacts(), 10);
  SubadmmSolver reference;
  StepSolution r;
  reference.solve(p, tightSettings(), r);
  ASSERT_TRUE(r.stats.converged());
  for (const double scale : {0.01, 1.0, 100.0})
    for (const double relaxation : {1.0, 1.5, 1.9}) {
      FadmmSolver fadmm;
      fadmm.options().beta_scale = scale;
      fadmm.options().relaxation = relaxation;
      SolverSettings s = tightSettings();
      StepSolution f;
      fadmm.solve(p, s, f);
      EXPECT_TRUE(f.stats.converged()) << "beta_scale " << scale << " relaxation " << relaxation
                                       << ": residual " << f.stats.residual;
      EXPECT_LT((f.vhat - r.vhat).cwiseAbs().maxCoeff(), 1e-6)
          << "beta_scale " << scale << " relaxation " << relaxation;
    }
}

TEST(Fadmm, AdaptivePenaltyReachesTheSameSolution) {
  World w = worldAfter("stack:boxes=3", 50, 200);
  const StepProblem& p = w.lastProblem();
  FadmmSolver fixed, adaptive;
  SolverSettings s = tightSettings();
  fixed.options().adaptive_beta = false;
  StepSolution a, b;
  fixed.solve(p, s, a);
  EXPECT_TRUE(a.stats.converged());
  adaptive.options().adaptive_beta = true;
  adaptive.options().beta_scale = 5.0;  // start far from the balanced penalty
  adaptive.solve(p, s, b);
  EXPECT_TRUE(b.stats.converged());
  const MatX A = denseA(p), J = denseJacobian(p);
  const double initial = 100.0 * A.trace() / J.squaredNorm();
  EXPECT_NE(adaptive.beta(), initial) << "the penalty never adapted";
  EXPECT_LT((a.vhat - b.vhat).cwiseAbs().maxCoeff(), 1e-7);
}

TEST(Fadmm, FixedIterationsAndWarmStart) {
  World w = worldAfter("stack:boxes=1", 30, 200);
  const StepProblem& p = w.lastProblem();
  FadmmSolver solver;
  SolverSettings s;
  s.max_iterations = 37;
  s.tolerance = 0.0;
  s.record_history = true;
  StepSolution sol;
  solver.solve(p, s, sol);
  EXPECT_EQ(sol.stats.iterations, 37);
  EXPECT_EQ(sol.stats.residual_history.size(), 37u);
  EXPECT_FALSE(sol.stats.converged());
  // The same problem again: the pattern is unchanged, so no new symbolic analysis.
  EXPECT_EQ(solver.analyses(), 1);
  s = tightSettings();
  StepSolution cold;
  solver.solve(p, s, cold);
  EXPECT_EQ(solver.analyses(), 1);
  ASSERT_TRUE(cold.stats.converged());
  StepSolution warm = cold;  // converged lambda and vhat as the warm start
  solver.solve(p, s, warm);
  EXPECT_LT(warm.stats.iterations, cold.stats.iterations / 4 + 2);
}

TEST(Fadmm, IterationLoopDoesNotAllocate) {
  World w = worldAfter("granular:spheres=64", 120);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 10);
  FadmmSolver solver;
  SolverSettings s;
  s.max_iterations = 60;
  solver.options().adaptive_beta = true;
  solver.options().beta_scale = 5.0;  // far from balance: the penalty changes, K is refactored
  const MatX A = denseA(p), J = denseJacobian(p);
  const double initial =
      solver.options().beta_scale * kTracePenaltyFactor * A.trace() / J.squaredNorm();
  test::expectIterationsDoNotAllocate(solver, p, s);
  EXPECT_NE(solver.beta(), initial) << "no refactorisation happened inside the loop";
}

}  // namespace
}  // namespace subsim
