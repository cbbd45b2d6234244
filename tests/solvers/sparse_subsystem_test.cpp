// SubADMM's sparse form of large deformable subsystems (solvers/sparse_subsystem_factorization.hpp)
// and its compact Jacobian blocks: the same iterates as the dense Cholesky up to round-off, with a
// fixed and an adaptive penalty, the cached analysis, no allocation in the iteration, and the
// penalty rule from the selected inverse against the dense per-row solves on the paper's beam.
#include <gtest/gtest.h>

#include <climits>

#include "solvers/no_allocation.hpp"
#include "subsim/solvers/subadmm_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using test::worldAfter;

int sparseSubsystems(const SubadmmSolver& solver, const StepProblem& p) {
  int n = 0;
  for (int i = 0; i < p.numSubsystems(); ++i) n += solver.usesSparse(i) ? 1 : 0;
  return n;
}

int pieces(const StepProblem& p) {
  int n = 0;
  for (const Subsystem& s : p.subsystems)
    n += s.dof >= SparseSubsystemFactorization::kDefaultMinDof && s.tree_offset < 0 ? 1 : 0;
  return n;
}

// Sparse and dense SubADMM on the same problem (the penalty rule is exact in both).
void expectSparseMatchesDense(const StepProblem& p, bool adaptive, int iterations) {
  ASSERT_EQ(p.check(), "");
  SolverSettings s;
  s.max_iterations = iterations;
  s.tolerance = 0.0;
  SubadmmSolver sparse, dense;
  sparse.options().adaptive_beta = adaptive;
  dense.options().adaptive_beta = adaptive;
  dense.setSparseMinDof(INT_MAX);
  StepSolution a, b;
  sparse.solve(p, s, a);
  dense.solve(p, s, b);
  EXPECT_EQ(sparseSubsystems(sparse, p), pieces(p));
  EXPECT_EQ(sparseSubsystems(dense, p), 0);
  for (int i = 0; i < p.numSubsystems(); ++i)
    EXPECT_NEAR(sparse.beta()[i], dense.beta()[i], 1e-9 * dense.beta()[i]) << "subsystem " << i;
  EXPECT_LT((a.vhat - b.vhat).norm(), 1e-9 * (1e-3 + b.vhat.norm()));
  EXPECT_LT((a.lambda - b.lambda).norm(), 1e-9 * (1e-3 + b.lambda.norm()));
  EXPECT_EQ(a.stats.iterations, b.stats.iterations);
}

TEST(SparseSubsystem, AgreesWithTheDenseFactorisationAtAFixedPenalty) {
  World w = worldAfter("beam:cells=6,pieces=2,across=2", 3, 30);
  ASSERT_EQ(pieces(w.lastProblem()), 2);
  expectSparseMatchesDense(w.lastProblem(), false, 60);
}

TEST(SparseSubsystem, AgreesWithTheDenseFactorisationWithAnAdaptivePenalty) {
  World w = worldAfter("beam:cells=6,pieces=2,across=2", 3, 30);
  expectSparseMatchesDense(w.lastProblem(), true, 60);
}

TEST(SparseSubsystem, AgreesWithTheDenseFactorisationOnMorePieces) {
  World w = worldAfter("beam:cells=8,pieces=4,across=2", 5, 30);
  ASSERT_EQ(pieces(w.lastProblem()), 4);
  expectSparseMatchesDense(w.lastProblem(), true, 60);
  expectSparseMatchesDense(w.lastProblem(), false, 30);
}

TEST(SparseSubsystem, SolvesAreDeterministicAndReuseTheAnalysis) {
  World w = worldAfter("beam:cells=8,pieces=4,across=2", 5, 30);
  const StepProblem& p = w.lastProblem();
  SolverSettings s;
  s.max_iterations = 40;
  s.tolerance = 0.0;
  s.threads = 2;
  SubadmmSolver solver;
  StepSolution a, b;
  solver.solve(p, s, a);
  solver.solve(p, s, b);  // same pattern: the cached analysis
  EXPECT_EQ(sparseSubsystems(solver, p), 4);
  for (int i = 0; i < p.numSubsystems(); ++i) {
    if (solver.usesSparse(i)) {
      EXPECT_TRUE(solver.reusedSparseAnalysis(i)) << "subsystem " << i;
    }
  }
  EXPECT_EQ(a.vhat, b.vhat);
  EXPECT_EQ(a.lambda, b.lambda);
  SubadmmSolver one_thread;
  StepSolution c;
  s.threads = 1;
  one_thread.solve(p, s, c);
  EXPECT_EQ(a.vhat, c.vhat);
  EXPECT_EQ(a.lambda, c.lambda);
}

TEST(SparseSubsystem, IterationLoopDoesNotAllocate) {
  World w = worldAfter("beam:cells=8,pieces=4,across=2", 5, 30);
  SubadmmSolver solver;
  SolverSettings s;
  s.max_iterations = 40;
  solver.options().adaptive_beta = true;  // refactors inside the loop
  s.threads = 2;
  test::expectIterationsDoNotAllocate(solver, w.lastProblem(), s);
  EXPECT_EQ(sparseSubsystems(solver, w.lastProblem()), 4);
}

TEST(SparseSubsystem, PenaltyRuleMatchesTheDensePerRowSolvesOnThePapersBeam) {
  // Pieces of 350-420 DOF with 130-480 interface and contact rows each; one iteration, so the
  // comparison is of the penalty rule and the first v- and z-steps.
  World w = worldAfter("beam", 2, 20);
  ASSERT_EQ(pieces(w.lastProblem()), 20);
  expectSparseMatchesDense(w.lastProblem(), false, 1);
}

}  // namespace
}  // namespace subsim
