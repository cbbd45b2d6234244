// SubADMM against independent references on the same StepProblem, convergence, warm start,
// determinism and the no-allocation guarantee of its iteration loop.
#include <gtest/gtest.h>

#include "solvers/no_allocation.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/problem/cone_projection.hpp"
#include "subsim/solvers/subadmm_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using test::denseA;
using test::denseJacobian;
using test::makeWorld;

using test::worldAfter;

/// Reference contact solver: projected Gauss-Seidel on the dense Delassus operator
/// W = J A^-1 J^T with the strict cone operator, many sweeps.
VecX referencePgs(const StepProblem& p, int sweeps) {
  const MatX A = denseA(p), J = denseJacobian(p);
  const Eigen::LLT<MatX> llt(A);
  const MatX W = J * llt.solve(J.transpose());
  const VecX c = J * llt.solve(Eigen::Map<const VecX>(p.b.data(), p.numDof())) +
                 Eigen::Map<const VecX>(p.e.data(), p.numRows());
  VecX lambda = VecX::Zero(p.numRows());
  for (int it = 0; it < sweeps; ++it)
    for (const Constraint& con : p.constraints) {
      const int o = con.row_offset;
      const Eigen::Matrix3d Wjj = W.block<3, 3>(o, o);
      const Vec3 g = W.middleRows(o, 3) * lambda + c.segment<3>(o);
      // Block update lambda_j <- Pi(lambda_j - D^-1 g_j) with D the diagonal of W_jj: the
      // standard per-contact PGS step.
      const Vec3 step = g.cwiseQuotient(Wjj.diagonal());
      lambda.segment<3>(o) = projectConeStrict(lambda.segment<3>(o) - step, con.mu);
    }
  return lambda;
}

TEST(Subadmm, AgreesWithReferencePgsOnContactProblem) {
  // Three stacked boxes after settling: a contact-only problem.
  World w = worldAfter("stack:boxes=3", 50, 200);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 8);
  const VecX lambda_ref = referencePgs(p, 20000);
  SubadmmSolver solver;
  SolverSettings s;
  s.max_iterations = 50000;
  s.tolerance = 1e-12;
  StepSolution sol;
  solver.solve(p, s, sol);
  // Four contacts under a box are statically indeterminate: compare what is unique, the net
  // impulse J^T lambda on every body and the resulting vhat.
  const MatX A = denseA(p), J = denseJacobian(p);
  const VecX net_ref = J.transpose() * lambda_ref;
  const VecX net = J.transpose() * sol.lambda;
  const double scale = net_ref.cwiseAbs().maxCoeff();
  EXPECT_LT((net - net_ref).cwiseAbs().maxCoeff(), 1e-6 * scale);
  const VecX v_ref = A.llt().solve(Eigen::Map<const VecX>(p.b.data(), p.numDof()) + net_ref);
  EXPECT_LT((sol.vhat - v_ref).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(Subadmm, ConstraintResidualDecreasesWithIterationsOnGranularScene) {
  World w = worldAfter("granular", 150);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 100);
  SubadmmSolver solver;
  double previous = 0.0;
  for (int iterations : {10, 30, 90, 270}) {
    SolverSettings s;
    s.max_iterations = iterations;
    s.tolerance = 0.0;
    StepSolution sol;  // cold start each time: the iteration count alone differs
    solver.solve(p, s, sol);
    const double accuracy = accuracyOf(evaluateStep(p, sol).constraint_residual);
    EXPECT_GT(accuracy, previous) << iterations << " iterations";
    previous = accuracy;
  }
}

TEST(Subadmm, WarmStartedRestingBoxConvergesInTwoIterations) {
  // Tolerance 1e-5 on theta_p + theta_d for a 1 kg box whose contact impulses are 0.025 N s,
  // with the papers' plain iteration: penalty rule (23) as printed, no relaxation or adaptation
  // (theta_d grows with beta, so the same tolerance is stricter for the default 20x penalty).
  const double tolerance = 1e-5;
  WorldSettings ws;
  ws.solver_options = {{"penalty_rule", "trace"},
                       {"beta_scale", option_text::formatDouble(1.0 / kTracePenaltyFactor)},
                       {"relaxation", "1"},
                       {"adaptive_beta", "false"}};
  World w = makeWorld("stack:boxes=1", 500, tolerance, 1, 0.0, ws);
  for (int k = 0; k < 20; ++k) w.step();
  for (int k = 0; k < 20; ++k) {
    const StepReport r = w.step();
    EXPECT_LE(r.iterations, 2) << "step " << k;
    EXPECT_EQ(r.contacts, 4);
  }
  // The same problem from a cold start takes many more iterations: the warm start is what helps.
  const std::unique_ptr<Solver> solver = makeSolver("subadmm", ws.solver_options);
  EXPECT_EQ(static_cast<SubadmmSolver&>(*solver).options().beta_scale, 1.0 / kTracePenaltyFactor);
  SolverSettings s = ws.solver_settings;
  StepSolution cold;
  solver->solve(w.lastProblem(), s, cold);
  EXPECT_GT(cold.stats.iterations, 4);
}

TEST(Subadmm, IterationLoopDoesNotAllocate) {
  World w = worldAfter("granular:spheres=64", 120);
  ASSERT_GT(w.lastProblem().numContacts(), 10);
  SubadmmSolver solver;
  SolverSettings s;
  s.max_iterations = 30;
  solver.options().adaptive_beta = true;  // penalty changes refactor subsystems inside the loop
  s.threads = 2;
  test::expectIterationsDoNotAllocate(solver, w.lastProblem(), s);
}

TEST(Subadmm, DeterministicAcrossRunsAndThreadCounts) {
  // 200 steps of the 1000-sphere pile (72 s under the sanitizers, where 40 check the same code).
  auto finalHash = [](int threads) {
    World w = makeWorld("granular", 30, 0.0, threads);
    for (int k = 0; k < (test::kSanitized ? 40 : 200); ++k) w.step();
    return w.state().hash();
  };
  const auto h1 = finalHash(1);
  EXPECT_EQ(h1, finalHash(1));
  EXPECT_EQ(h1, finalHash(2));
}

TEST(Subadmm, AdaptivePenaltyReachesTheSameSolution) {
  World w = worldAfter("stack:boxes=3", 50, 200);
  const StepProblem& p = w.lastProblem();
  SubadmmSolver fixed, adaptive;
  SolverSettings s;
  s.max_iterations = 50000;
  s.tolerance = 1e-12;
  StepSolution a, b;
  fixed.options().adaptive_beta = false;  // the default is adaptive: this run keeps the penalty
  fixed.solve(p, s, a);
  ASSERT_TRUE(a.stats.converged()) << a.stats.residual;
  adaptive.options().adaptive_beta = true;
  adaptive.options().beta_scale = 5.0;  // start far from the balanced penalty
  adaptive.solve(p, s, b);
  EXPECT_TRUE(b.stats.converged());
  EXPECT_LT((a.vhat - b.vhat).cwiseAbs().maxCoeff(), 1e-7);
}

TEST(Subadmm, AFreeRigidBodysPenaltyAdaptsWithinTwiceItsInitialValue) {
  // subadmm_solver.cpp, kInertialMaxDrift: a body whose A_i is its inertia alone keeps its
  // penalty within 2x of the initial rule either way (100x drift let jammed spheres go soft and
  // penetrate); the robot holding the rod is not such a body.
  World w = worldAfter("stir:spheres=27", 60);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 20);
  SubadmmSolver solver;
  SolverSettings s;
  s.tolerance = 0.0;
  s.max_iterations = 1;  // no adaptation yet: the initial penalties
  StepSolution first;
  solver.solve(p, s, first);
  const DoubleBuffer initial = solver.beta();
  s.max_iterations = 300;
  StepSolution sol;
  solver.solve(p, s, sol);
  int rigid = 0, adapted = 0;
  for (int i = 0; i < p.numSubsystems(); ++i) {
    if (p.subsystems[i].dof != 6 || p.subsystems[i].tree_offset >= 0) continue;
    ++rigid;
    const double ratio = solver.beta()[i] / initial[i];
    EXPECT_LE(ratio, 2.0 * (1 + 1e-12)) << "subsystem " << i;
    EXPECT_GE(ratio, 0.5 * (1 - 1e-12)) << "subsystem " << i;
    adapted += ratio != 1.0;
  }
  EXPECT_EQ(rigid, 27);
  EXPECT_GT(adapted, 0) << "no rigid body's penalty adapted: the bound was not exercised";
}

}  // namespace
}  // namespace subsim

namespace subsim {
namespace {

TEST(StepProblem, CheckFindsInconsistencies) {
  World w = makeWorld("granular:spheres=27", 30, 0.0);
  for (int k = 0; k < 50; ++k) w.step();
  StepProblem p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 0);
  EXPECT_EQ(p.check(), "");
  StepProblem asymmetric = p;
  asymmetric.A(0)(0, 1) += 1.0;
  EXPECT_NE(asymmetric.check().find("not symmetric"), std::string::npos);
  StepProblem bad_mu = p;
  for (Constraint& c : bad_mu.constraints)
    if (c.type == ConstraintType::Contact) c.mu = -1.0;
  EXPECT_NE(bad_mu.check().find("mu >= 0"), std::string::npos);
  StepProblem nan_e = p;
  nan_e.e.back() = std::nan("");
  EXPECT_NE(nan_e.check().find("e not finite"), std::string::npos);
}

}  // namespace
}  // namespace subsim
