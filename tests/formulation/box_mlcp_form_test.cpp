// The box MLCP of a step (formulation/box_mlcp_form.hpp) against its definition: A = W + C
// with W from the dense J A^-1 J^T, b = J A^-1 b + e, and the bounds of every row kind.
#include <gtest/gtest.h>

#include <limits>

#include "subsim/formulation/box_mlcp_form.hpp"
#include "subsim/metrics/box_natural_residual.hpp"
#include "subsim/solvers/solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(BoxMlcpForm, MatrixAndVectorAreTheDenseDelassusPlusCompliance) {
  World w = test::worldAfter("stack:boxes=3", 20);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 0);
  const MatX A = test::denseA(p), J = test::denseJacobian(p);
  const MatX W = J * A.llt().solve(J.transpose());
  const VecX q = J * A.llt().solve(Eigen::Map<const VecX>(p.b.data(), p.numDof())) +
                 Eigen::Map<const VecX>(p.e.data(), p.numRows());
  BoxMlcpForm form;
  const double c = 1e-7;
  ASSERT_TRUE(form.build(p, nullptr, BoxMlcpSettings{c}));
  const MatX expected = W + c * MatX::Identity(p.numRows(), p.numRows());
  EXPECT_LT((MatX(form.matrix()) - expected).cwiseAbs().maxCoeff(),
            1e-10 * W.cwiseAbs().maxCoeff());
  EXPECT_LT((form.rhs() - q).cwiseAbs().maxCoeff(), 1e-10 * (1.0 + q.cwiseAbs().maxCoeff()));
}

TEST(BoxMlcpForm, BoundsFollowTheRowKindsAndThePreviousNormalImpulse) {
  World w = test::worldAfter("stack:boxes=2", 20);
  const StepProblem& p = w.lastProblem();
  const VecX previous = w.lastSolution().lambda;
  BoxMlcpForm form;
  ASSERT_TRUE(form.build(p, &previous, BoxMlcpSettings()));
  BoxMlcpForm cold;
  ASSERT_TRUE(cold.build(p, nullptr, BoxMlcpSettings()));
  int contacts = 0;
  for (const Constraint& c : p.constraints) {
    ASSERT_EQ(c.type, ConstraintType::Contact);
    ++contacts;
    const int o = c.row_offset;
    EXPECT_EQ(form.lower()[o], 0.0);
    EXPECT_EQ(form.upper()[o], kInf);
    const double bound = c.mu * std::max(previous[o], 0.0);
    for (int r = 1; r < 3; ++r) {
      EXPECT_DOUBLE_EQ(form.upper()[o + r], bound);
      EXPECT_DOUBLE_EQ(form.lower()[o + r], -bound);
      // No previous impulse: no friction (the paper's first contact step).
      EXPECT_EQ(cold.upper()[o + r], 0.0);
      EXPECT_EQ(cold.lower()[o + r], 0.0);
    }
  }
  EXPECT_GT(contacts, 0);

  // Bilateral rows are equalities: a chain's ball joints.
  World chain = test::worldAfter("pendulum:links=3", 2);
  BoxMlcpForm joints;
  ASSERT_TRUE(joints.build(chain.lastProblem(), nullptr, BoxMlcpSettings()));
  for (int r = 0; r < joints.numRows(); ++r) {
    EXPECT_TRUE(joints.equalityRow(r));
    EXPECT_EQ(joints.lower()[r], -kInf);
    EXPECT_EQ(joints.upper()[r], kInf);
  }
}

TEST(BoxMlcpForm, NaturalResidualIsTheRowFormulaStacked) {
  World w = test::worldAfter("stack:boxes=2", 20);
  const StepProblem& p = w.lastProblem();
  BoxMlcpForm form;
  ASSERT_TRUE(form.build(p, nullptr, BoxMlcpSettings()));
  const VecX lambda = VecX::Constant(p.numRows(), 0.01);
  VecX wv;
  form.slack(lambda, wv);
  double max_norm = 0.0, sum = 0.0;
  for (int r = 0; r < p.numRows(); ++r) {
    const double e = naturalResidualRow(lambda[r], wv[r], form.lower()[r], form.upper()[r]);
    max_norm = std::max(max_norm, e);
    sum += e * e;
  }
  double m = 0.0, two = 0.0;
  form.naturalResidual(lambda, m, two);
  EXPECT_DOUBLE_EQ(m, max_norm);
  EXPECT_DOUBLE_EQ(two, std::sqrt(sum));
  EXPECT_GT(m, 0.0);
}

TEST(BoxNaturalResidual, JudgesTheExactSolutionZeroAndAPerturbedOneNot) {
  World w = test::worldAfter("stack:boxes=3", 30);
  const StepProblem& p = w.lastProblem();
  const VecX previous = w.lastWarmStart().lambda;
  StepSolution sol = w.lastWarmStart();
  SolverSettings s;
  s.max_iterations = 200;
  s.tolerance = 1e-12;
  makeSolver("bpp", {{"eta", "1e-12"}})->solve(p, s, sol);
  const BoxNaturalResidual exact = evaluateBoxNaturalResidual(p, &previous, sol.lambda);
  EXPECT_LT(exact.max, 1e-10);
  // A normal impulse pushed below its bound: at least that amount (the row's own term).
  VecX bad = sol.lambda;
  bad[0] = -0.01;
  EXPECT_GE(evaluateBoxNaturalResidual(p, &previous, bad).max, 0.01);
  // Without the previous impulses the friction rows are bounded by zero: a friction impulse is
  // then an error.
  double friction = 0.0;
  for (const Constraint& c : p.constraints)
    friction = std::max(
        {friction, std::abs(sol.lambda[c.row_offset + 1]), std::abs(sol.lambda[c.row_offset + 2])});
  if (friction > 1e-6) {
    EXPECT_GT(evaluateBoxNaturalResidual(p, nullptr, sol.lambda).max, 0.0);
  }
}

}  // namespace
}  // namespace subsim
