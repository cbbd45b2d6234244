// APGD (solvers/apgd_solver.hpp) solves the CCP: on an FEM body whose contacts are all on mesh
// nodes it agrees with COND's proximal operator (an independent method for the same problem,
// without virtual-node compliance there), it returns the best iterate, and its iterations do
// not allocate.
#include <gtest/gtest.h>

#include "no_allocation.hpp"
#include "subsim/solvers/apgd_solver.hpp"
#include "subsim/solvers/cond_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

StepProblem slidingFemCube() {
  // A soft cube on a 25 degree slope with mu 0.2: its floor nodes slide.
  World w(test::softCubeModel(1, 0.2, 0.436), WorldSettings());
  for (int k = 0; k < 10; ++k) EXPECT_FALSE(w.step().diverged);
  return w.lastProblem();
}

TEST(Apgd, AgreesWithCondsProximalOperatorOnRealNodes) {
  const StepProblem p = slidingFemCube();
  ASSERT_GT(p.numContacts(), 0);
  SolverSettings s;
  s.max_iterations = 200000;
  s.tolerance = 1e-10;
  StepSolution apgd_sol, cond_sol;
  ApgdSolver apgd;
  apgd.solve(p, s, apgd_sol);
  ASSERT_TRUE(apgd_sol.stats.converged()) << apgd_sol.stats.residual;
  CondSolver cond;
  cond.options().cone = CondCone::Proximal;
  s.tolerance = 1e-11;
  cond.solve(p, s, cond_sol);
  ASSERT_TRUE(cond_sol.stats.converged()) << cond_sol.stats.residual;
  EXPECT_LT((apgd_sol.vhat - cond_sol.vhat).cwiseAbs().maxCoeff(), 1e-6);
  // Some contact slides, so the CCP is not the NCP here: the strict operator differs.
  CondSolver strict;
  StepSolution strict_sol;
  strict.solve(p, s, strict_sol);
  EXPECT_GT((strict_sol.vhat - cond_sol.vhat).cwiseAbs().maxCoeff(), 1e-4);
}

TEST(Apgd, ReturnsItsBestIterate) {
  World w = test::worldAfter("granular:spheres=27", 40);
  SolverSettings s;
  s.max_iterations = 30;
  s.tolerance = 0.0;
  s.record_history = true;
  ApgdSolver apgd;
  StepSolution sol;
  apgd.solve(w.lastProblem(), s, sol);
  double best = sol.stats.residual_history.front();
  for (double r : sol.stats.residual_history) best = std::min(best, r);
  EXPECT_LE(sol.stats.residual, best);
}

TEST(Apgd, IterationsDoNotAllocate) {
  for (const char* spec : {"stack:boxes=3", "softball:cells=3"}) {
    World w = test::worldAfter(spec, 10);
    for (ApgdDelassus d : {ApgdDelassus::Factored, ApgdDelassus::Assembled}) {
      SCOPED_TRACE(std::string(spec) + (d == ApgdDelassus::Factored ? " factored" : " assembled"));
      ApgdSolver solver;
      solver.options().delassus = d;
      SolverSettings s;
      s.max_iterations = 30;
      test::expectIterationsDoNotAllocate(solver, w.lastProblem(), s);
    }
  }
}

// The two products with W are the same operator, so APGD on either converges to the same
// velocities (impulses can differ where contacts are redundant, as on a box's four corners) on
// rigid, soft-row and one-FEM-body problems.
TEST(Apgd, FactoredAndAssembledDelassusReachTheSameSolution) {
  for (const char* spec : {"stack:boxes=3", "cable:segments=8", "softball:cells=3"}) {
    SCOPED_TRACE(spec);
    World w = test::worldAfter(spec, 10);
    const StepProblem& p = w.lastProblem();
    SolverSettings s;
    s.max_iterations = 200000;
    s.tolerance = 1e-8;  // the cable's stiff couplings stall APGD near 4e-9 either way
    StepSolution factored_sol, assembled_sol;
    ApgdSolver factored, assembled;
    assembled.options().delassus = ApgdDelassus::Assembled;
    factored.solve(p, s, factored_sol);
    assembled.solve(p, s, assembled_sol);
    ASSERT_TRUE(factored_sol.stats.converged()) << factored_sol.stats.residual;
    ASSERT_TRUE(assembled_sol.stats.converged()) << assembled_sol.stats.residual;
    EXPECT_LT((factored_sol.vhat - assembled_sol.vhat).cwiseAbs().maxCoeff(), 1e-6);
  }
}

}  // namespace
}  // namespace subsim
