// DelassusOperator (formulation/delassus_operator.hpp) applies, through the factors of A, the
// same regularised operator and right-hand side that DelassusForm assembles: rigid bodies, soft
// rows (a Cosserat cable's couplings) and one sparse FEM subsystem.  The factor's one-vector
// solve, which its products use, matches the many-column solve and allocates nothing.
#include <gtest/gtest.h>

#include "subsim/formulation/delassus_form.hpp"
#include "subsim/formulation/delassus_operator.hpp"
#include "support/allocation_count.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

void expectSameOperator(const std::string& spec, int steps) {
  SCOPED_TRACE(spec);
  World w = test::worldAfter(spec, steps);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numRows(), 0);
  DelassusForm assembled;
  ASSERT_TRUE(assembled.build(p, 1));
  DelassusOperator op;
  ASSERT_TRUE(op.build(p, 2));
  const int m = p.numRows();
  const MatX W = assembled.dense();
  const double scale = 1.0 + W.cwiseAbs().maxCoeff();
  VecX x = VecX::Zero(m), y(m);
  for (int k = 0; k < m; ++k) {
    x[k] = 1.0;
    op.multiply(x.data(), y.data());
    x[k] = 0.0;
    ASSERT_LT((y - W.col(k)).cwiseAbs().maxCoeff(), 1e-10 * scale) << "column " << k;
  }
  for (int r = 0; r < m; ++r) {
    EXPECT_NEAR(op.rhs()[r], assembled.rhs()[r], 1e-10 * (1.0 + std::abs(assembled.rhs()[r])));
    EXPECT_EQ(op.fixedRow(r), assembled.fixedRow(r));
    EXPECT_EQ(op.fixedValue(r), assembled.fixedValue(r));
  }
  const VecX lambda = VecX::LinSpaced(m, -0.2, 0.5);
  VecX v(p.numDof()), v_ref(p.numDof());
  op.velocity(lambda.data(), v.data());
  assembled.velocity(lambda.data(), v_ref.data());
  EXPECT_LT((v - v_ref).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + v_ref.cwiseAbs().maxCoeff()));
}

TEST(DelassusOperator, AppliesTheAssembledOperatorOnRigidBodies) {
  expectSameOperator("stack:boxes=3", 20);
}

TEST(DelassusOperator, AppliesTheAssembledOperatorWithSoftRows) {
  expectSameOperator("cable:segments=8", 10);
}

TEST(DelassusOperator, AppliesTheAssembledOperatorOnOneSparseFemBody) {
  expectSameOperator("softball:cells=3", 5);
}

TEST(SubsystemFactor, OneVectorSolveMatchesAndDoesNotAllocate) {
  for (const char* spec : {"softball:cells=3", "stack:boxes=3"}) {
    SCOPED_TRACE(spec);
    World w = test::worldAfter(spec, 2);
    const StepProblem& p = w.lastProblem();
    const int i = 0;
    const int n = p.subsystems[i].dof;
    EXPECT_EQ(p.isSparse(i), std::string(spec).rfind("softball", 0) == 0);
    SubsystemFactor f;
    ASSERT_TRUE(f.compute(p, i));
    const VecX b = VecX::LinSpaced(n, -1.0, 2.0);
    VecX ref = b;
    f.solveInPlace(ref);
    VecX out(n), scratch(n);
    const long before = test::allocationCount();
    Eigen::internal::set_is_malloc_allowed(false);  // Eigen asserts on its own allocations
    f.solve(b.data(), out.data(), scratch.data());
    Eigen::internal::set_is_malloc_allowed(true);
    EXPECT_EQ(test::allocationCount(), before);
    EXPECT_LT((out - ref).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + ref.cwiseAbs().maxCoeff()));
    VecX in_place = b;  // in and out the same vector
    f.solve(in_place.data(), in_place.data(), scratch.data());
    EXPECT_EQ(in_place, out);
  }
}

}  // namespace
}  // namespace subsim
