// PGS and projected Jacobi against SubADMM and dense references on the same StepProblems, the
// block-sparse Delassus operator against the dense J A^-1 J^T, soft rows, warm start, determinism
// and the no-allocation guarantee of the iteration loops.
// (The counting operator new lives in subadmm_test.cpp, linked into the same executable; these
// tests use Eigen's malloc guard and vector capacities instead.)
#include <gtest/gtest.h>

#include <cstdio>
#include <utility>

#include "solvers/no_allocation.hpp"
#include "subsim/formulation/delassus_form.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/solvers/pgs_cg_solver.hpp"
#include "subsim/solvers/pgs_solver.hpp"
#include "subsim/solvers/projected_jacobi_solver.hpp"
#include "subsim/solvers/subadmm_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using test::denseA;
using test::denseJacobian;
using test::makeWorld;

World settledWorld(const std::string& spec, int steps, int iterations = 200) {
  return test::worldAfter(spec, steps, iterations);
}

VecX bOf(const StepProblem& p) {
  return Eigen::Map<const VecX>(p.b.data(), p.numDof());
}
VecX eOf(const StepProblem& p) {
  return Eigen::Map<const VecX>(p.e.data(), p.numRows());
}

StepSolution solveWith(Solver& solver, const StepProblem& p, int iterations, double tolerance) {
  SolverSettings s;
  s.max_iterations = iterations;
  s.tolerance = tolerance;
  StepSolution sol;
  solver.solve(p, s, sol);
  return sol;
}

StepSolution subadmmReference(const StepProblem& p) {
  SubadmmSolver solver;
  StepSolution sol = solveWith(solver, p, 50000, 1e-12);
  EXPECT_TRUE(sol.stats.converged()) << "SubADMM residual " << sol.stats.residual;
  return sol;
}

TEST(PgsDelassus, MatchesDenseOperator) {
  World w = settledWorld("stack:boxes=3", 50);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 8);
  DelassusForm op;
  ASSERT_TRUE(op.build(p, 2));
  const MatX A = denseA(p), J = denseJacobian(p);
  const Eigen::LLT<MatX> llt(A);
  const MatX W = J * llt.solve(J.transpose());
  const VecX c = J * llt.solve(bOf(p)) + eOf(p);
  const MatX Wop = op.dense();
  EXPECT_LT((Wop - W).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + W.cwiseAbs().maxCoeff()));
  const VecX cop = Eigen::Map<const VecX>(op.rhs().data(), p.numRows());
  EXPECT_LT((cop - c).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + c.cwiseAbs().maxCoeff()));
  // vhat(lambda) = A^-1 (b + J^T lambda).
  const VecX lambda = VecX::LinSpaced(p.numRows(), 0.1, 0.7);
  VecX v(p.numDof());
  op.velocity(lambda.data(), v.data());
  const VecX v_ref = llt.solve(bOf(p) + J.transpose() * lambda);
  EXPECT_LT((v - v_ref).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + v_ref.cwiseAbs().maxCoeff()));
}

/// Two 3-DOF subsystems joined by a 2-row soft constraint (one damped row, one c = 0 row) and a
/// bilateral row on the first.
StepProblem softProblem() {
  StepProblem p;
  p.dt = 0.01;
  const int s0 = p.addSubsystem(3), s1 = p.addSubsystem(3);
  p.A(s0) << 4.0, 0.5, 0.1, 0.5, 3.0, 0.2, 0.1, 0.2, 2.0;
  p.A(s1) << 2.0, -0.3, 0.0, -0.3, 5.0, 0.4, 0.0, 0.4, 3.0;
  p.bBlock(s0) << 0.3, -1.0, 0.5;
  p.bBlock(s1) << -0.2, 0.4, 1.5;
  const int soft = p.addConstraint(ConstraintType::Soft, 2);
  p.jacobianFor(s0) << 1.0, 0.2, 0.0, 0.0, 1.0, -0.5;
  p.jacobianFor(s1) << -1.0, 0.0, 0.3, 0.1, -1.0, 0.0;
  const int r = p.constraints[soft].row_offset;
  p.e[r] = 0.02;
  p.e[r + 1] = -0.01;
  p.soft_k[r] = 50.0;
  p.soft_c[r] = 0.8;
  p.soft_k[r + 1] = 20.0;
  p.soft_c[r + 1] = 0.0;  // explicit: lambda = -k e
  const int bil = p.addConstraint(ConstraintType::Bilateral, 1);
  p.jacobianFor(s0) << 0.0, 0.0, 1.0;
  p.e[p.constraints[bil].row_offset] = 0.05;
  return p;
}

TEST(PgsDelassus, SoftRowsAreRegularisedEqualities) {
  const StepProblem p = softProblem();
  ASSERT_EQ(p.check(), "");
  DelassusForm op;
  ASSERT_TRUE(op.build(p));
  const MatX A = denseA(p), J = denseJacobian(p);
  const Eigen::LLT<MatX> llt(A);
  const MatX W = J * llt.solve(J.transpose());
  const VecX c0 = J * llt.solve(bOf(p)) + eOf(p);
  // Row 0: damped soft, diagonal + 1/c, rhs + (k/c - 1) e.  Row 1: fixed.  Row 2: bilateral.
  MatX W_expected = W;
  W_expected(0, 0) += 1.0 / p.soft_c[0];
  EXPECT_LT((op.dense() - W_expected).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_NEAR(op.rhs()[0], c0[0] + (p.soft_k[0] / p.soft_c[0] - 1.0) * p.e[0], 1e-12);
  EXPECT_NEAR(op.rhs()[2], c0[2], 1e-12);
  EXPECT_TRUE(op.fixedRow(1));
  EXPECT_DOUBLE_EQ(op.fixedValue(1), -p.soft_k[1] * p.e[1]);
  EXPECT_EQ(op.inverseScale(1), 0.0);

  // Dense reference of the soft law lambda = -k e - c J vhat with vhat = A^-1 (b + J^T lambda)
  // together with the bilateral row J vhat + e = 0: a linear system M lambda = r.
  const int m = p.numRows();
  MatX M = MatX::Zero(m, m);
  VecX r = VecX::Zero(m);
  const VecX jv_free = J * llt.solve(bOf(p));  // J A^-1 b
  for (int row = 0; row < 2; ++row) {
    M(row, row) = 1.0;
    M.row(row) += p.soft_c[row] * W.row(row);
    r[row] = -p.soft_k[row] * p.e[row] - p.soft_c[row] * jv_free[row];
  }
  M.row(2) = W.row(2);
  r[2] = -c0[2];
  const VecX lambda_ref = M.fullPivLu().solve(r);

  for (int variant = 0; variant < 2; ++variant) {
    PgsSolver pgs;
    ProjectedJacobiSolver pj;
    Solver& solver = variant == 0 ? static_cast<Solver&>(pgs) : static_cast<Solver&>(pj);
    const StepSolution sol = solveWith(solver, p, 100000, 1e-14);
    EXPECT_TRUE(sol.stats.converged()) << solver.name();
    EXPECT_LT((sol.lambda - lambda_ref).cwiseAbs().maxCoeff(), 1e-10) << solver.name();
    // The soft law holds with the returned vhat.
    const VecX jv = J * sol.vhat;
    EXPECT_NEAR(sol.lambda[0], -p.soft_k[0] * p.e[0] - p.soft_c[0] * jv[0], 1e-10);
    EXPECT_NEAR(sol.lambda[1], -p.soft_k[1] * p.e[1], 1e-14);
    EXPECT_NEAR(jv[2] + p.e[2], 0.0, 1e-10);
  }
}

struct Scene {
  const char* spec;
  int steps;
  int min_contacts;
};

class PgsScenes : public ::testing::TestWithParam<Scene> {};

TEST_P(PgsScenes, MatchesSubadmm) {
  const Scene sc = GetParam();
  World w = settledWorld(sc.spec, sc.steps);
  const StepProblem& p = w.lastProblem();
  ASSERT_GE(p.numContacts(), sc.min_contacts);
  const StepSolution ref = subadmmReference(p);
  PgsSolver pgs;
  PgsCgSolver pgs_cg;
  for (Solver* solver : {static_cast<Solver*>(&pgs), static_cast<Solver*>(&pgs_cg)}) {
    SCOPED_TRACE(std::string(solver->name()));
    const StepSolution sol = solveWith(*solver, p, 200000, 1e-14);
    EXPECT_TRUE(sol.stats.converged()) << "residual " << sol.stats.residual;
    EXPECT_STREQ(sol.stats.residual_name, "max |D dlambda| (m/s)");
    // Contacts under a box are statically indeterminate: compare the net impulse per body and
    // vhat.
    const MatX J = denseJacobian(p);
    const VecX net_ref = J.transpose() * ref.lambda;
    const VecX net = J.transpose() * sol.lambda;
    EXPECT_LT((net - net_ref).cwiseAbs().maxCoeff(), 1e-6 * net_ref.cwiseAbs().maxCoeff());
    EXPECT_LT((sol.vhat - ref.vhat).cwiseAbs().maxCoeff(), 1e-6);
    EXPECT_LT(evaluateStep(p, sol).constraint_residual, 1e-8);
    EXPECT_LT(evaluateStep(p, sol).dynamics_residual, 1e-10);
    std::printf("[ info ] %s %s: %d iterations\n", sc.spec, solver->name().data(),
                sol.stats.iterations);
  }
}

INSTANTIATE_TEST_SUITE_P(Pgs, PgsScenes,
                         ::testing::Values(Scene{"stack:boxes=1", 30, 4},
                                           Scene{"incline:angle=10,mu=0.5", 30, 4},
                                           Scene{"incline:angle=40,mu=0.5", 30, 4},
                                           Scene{"stack:boxes=3", 50, 12}));

TEST(PgsScenesPhysics, InclineSticksAtTenDegreesAndSlidesAtForty) {
  for (const double angle : {10.0, 40.0}) {
    World w =
        settledWorld("incline:angle=" + std::to_string(static_cast<int>(angle)) + ",mu=0.5", 30);
    const StepProblem& p = w.lastProblem();
    PgsSolver pgs;
    const StepSolution sol = solveWith(pgs, p, 200000, 1e-14);
    double speed = 0.0;
    for (int i = 0; i < p.numSubsystems(); ++i)
      speed = std::max(speed, sol.vhat.segment(p.subsystems[i].dof_offset, 3).norm());
    if (angle < 20.0)
      EXPECT_LT(speed, 1e-6) << angle;
    else
      EXPECT_GT(speed, 1e-2) << angle;
  }
}

TEST(Pj, ConvergesOnRestingBox) {
  World w = settledWorld("stack:boxes=1", 30);
  const StepProblem& p = w.lastProblem();
  ASSERT_EQ(p.numContacts(), 4);
  const StepSolution ref = subadmmReference(p);
  ProjectedJacobiSolver pj;
  EXPECT_DOUBLE_EQ(pj.options().omega, 0.3);
  const StepSolution sol = solveWith(pj, p, 200000, 1e-12);
  EXPECT_TRUE(sol.stats.converged()) << "PJ residual " << sol.stats.residual;
  EXPECT_LT((sol.vhat - ref.vhat).cwiseAbs().maxCoeff(), 1e-5);
}

TEST(Pj, DeterministicAcrossThreadCounts) {
  World w = settledWorld("granular:spheres=64", 120, 60);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 10);
  ProjectedJacobiSolver pj;
  SolverSettings s;
  s.max_iterations = 50;
  s.tolerance = 0.0;
  StepSolution a, b;
  s.threads = 1;
  pj.solve(p, s, a);
  s.threads = 3;
  pj.solve(p, s, b);
  EXPECT_EQ(a.lambda, b.lambda);
  EXPECT_EQ(a.vhat, b.vhat);
}

TEST(PgsCg, MatchesDirectKktSolveOnBilateralProblemInFewerIterations) {
  World w = settledWorld("pendulum:links=3", 10, 60);
  const StepProblem& p = w.lastProblem();
  PgsSolver pgs;
  PgsCgSolver pgs_cg;
  const StepSolution a = solveWith(pgs, p, 200000, 1e-12);
  const StepSolution b = solveWith(pgs_cg, p, 200000, 1e-12);
  ASSERT_TRUE(a.stats.converged());
  ASSERT_TRUE(b.stats.converged());
  std::printf("[ info ] pendulum:links=3 pgs %d, pgs-cg %d iterations\n", a.stats.iterations,
              b.stats.iterations);
  EXPECT_LT((a.vhat - b.vhat).cwiseAbs().maxCoeff(), 1e-8);
}

TEST(PgsCg, StackInFewerIterationsThanPgs) {
  // On stack:boxes=6 plain PGS stalls near 1.9e-8 m/s: the top box's four corner errors e are
  // not coplanar, so c has a component along the null space of W and lambda drifts along it
  // (J^T lambda and vhat unchanged) at a constant rate; hence the looser tolerance there.
  const std::pair<const char*, double> cases[] = {{"stack:boxes=3", 1e-10},
                                                  {"stack:boxes=6", 1e-7}};
  for (const auto& [spec, tolerance] : cases) {
    World w = settledWorld(spec, 50);
    const StepProblem& p = w.lastProblem();
    PgsSolver pgs;
    PgsCgSolver pgs_cg;
    const StepSolution a = solveWith(pgs, p, 200000, tolerance);
    const StepSolution b = solveWith(pgs_cg, p, 200000, tolerance);
    ASSERT_TRUE(a.stats.converged()) << spec;
    ASSERT_TRUE(b.stats.converged()) << spec;
    std::printf("[ info ] %s pgs %d, pgs-cg %d iterations (%d restarts)\n", spec,
                a.stats.iterations, b.stats.iterations, pgs_cg.restarts());
    EXPECT_LT(b.stats.iterations, a.stats.iterations) << spec;
    EXPECT_LT((a.vhat - b.vhat).cwiseAbs().maxCoeff(), 1e-6) << spec;
  }
}

TEST(Pgs, WarmStartFromSolutionConvergesImmediately) {
  World w = settledWorld("stack:boxes=3", 50);
  const StepProblem& p = w.lastProblem();
  PgsSolver pgs;
  SolverSettings s;
  s.max_iterations = 200000;
  s.tolerance = 1e-12;
  StepSolution sol;
  pgs.solve(p, s, sol);
  ASSERT_TRUE(sol.stats.converged());
  const int cold = sol.stats.iterations;
  pgs.solve(p, s, sol);  // sol carries the converged lambda
  EXPECT_LE(sol.stats.iterations, 2);
  EXPECT_GT(cold, 10);
}

TEST(Pgs, ResidualHistoryIsRecorded) {
  World w = settledWorld("stack:boxes=3", 50);
  PgsSolver pgs;
  SolverSettings s;
  s.max_iterations = 40;
  s.tolerance = 0.0;
  s.record_history = true;
  StepSolution sol;
  pgs.solve(w.lastProblem(), s, sol);
  ASSERT_EQ(sol.stats.residual_history.size(), 40u);
  EXPECT_EQ(sol.stats.iterations, 40);
  EXPECT_LT(sol.stats.residual_history.back(), sol.stats.residual_history.front());
}

template <typename S>
void expectIterationsDoNotAllocate() {
  World w = settledWorld("granular:spheres=64", 120, 60);
  ASSERT_GT(w.lastProblem().numContacts(), 10);
  S solver;
  SolverSettings s;
  s.max_iterations = 30;
  s.threads = 2;
  test::expectIterationsDoNotAllocate(solver, w.lastProblem(), s);
}
TEST(Pgs, IterationLoopDoesNotAllocate) {
  expectIterationsDoNotAllocate<PgsSolver>();
}
TEST(PgsCg, IterationLoopDoesNotAllocate) {
  expectIterationsDoNotAllocate<PgsCgSolver>();
}
TEST(Pj, IterationLoopDoesNotAllocate) {
  expectIterationsDoNotAllocate<ProjectedJacobiSolver>();
}

}  // namespace
}  // namespace subsim
