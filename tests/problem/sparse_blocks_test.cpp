// Sparse subsystem blocks and sparse J blocks (problem/step_problem.hpp, Subsystem and
// Attachment): the rules, the operations on either storage, and every solver and the metrics giving
// the same answer on one problem stored dense and stored sparse.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "subsim/metrics/step_metrics.hpp"
#include "subsim/model/integrator.hpp"
#include "subsim/problem/block_storage.hpp"
#include "subsim/problem/problem_hash.hpp"
#include "subsim/solvers/solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

// A 3-DOF sparse block [[4, 1, 0], [1, 4, 0], [0, 0, 2]] and a contact on its third DOF.
StepProblem smallSparseProblem() {
  StepProblem p;
  const std::vector<int> begin = {0, 2, 4, 5}, rows = {0, 1, 0, 1, 2};
  const int s = p.addSparseSubsystem(3, begin, rows);
  auto A = p.sparseA(s);
  A.coeffRef(0, 0) = 4.0;
  A.coeffRef(1, 0) = 1.0;
  A.coeffRef(0, 1) = 1.0;
  A.coeffRef(1, 1) = 4.0;
  A.coeffRef(2, 2) = 2.0;
  p.bBlock(s) << 1.0, -2.0, -3.0;
  p.addConstraint(ConstraintType::Contact, 3, 0.5);
  auto J = p.jacobianFor(s);
  J(0, 2) = 1.0;
  J(1, 0) = 1.0;
  J(2, 1) = 1.0;
  return p;
}

TEST(SparseBlocks, AFemPieceIsAssembledSparseAndValid) {
  World w = test::worldAfter("softball:cells=3", 3);
  const StepProblem& p = w.lastProblem();
  ASSERT_TRUE(p.check().empty()) << p.check();
  int sparse = 0;
  for (int i = 0; i < p.numSubsystems(); ++i) {
    if (!p.isSparse(i)) continue;
    ++sparse;
    const int n = p.subsystems[i].dof;
    EXPECT_LT(p.storedValues(i), n * n / 4) << "subsystem " << i;
    // A = g M + h^2 K (no Rayleigh damping here): symmetric positive definite, M its diagonal.
    const MatX A = p.denseA(i), M = MatX(p.sparseM(i));
    EXPECT_TRUE(M.isDiagonal());
    EXPECT_GT(M.diagonal().minCoeff(), 0.0);
    EXPECT_EQ(Eigen::LLT<MatX>(A).info(), Eigen::Success);
    EXPECT_GT((A - thetaFactor(p.theta) * M).norm(), 0.0);  // the stiffness is in it
  }
  EXPECT_EQ(sparse, 1);  // the ball; the pads are rigid
}

TEST(SparseBlocks, EitherStorageGivesTheSameOperations) {
  const StepProblem sparse = test::worldAfter("softball:cells=3", 3).lastProblem();
  const StepProblem dense = withDenseBlocks(sparse);
  ASSERT_TRUE(dense.check().empty()) << dense.check();
  for (int i = 0; i < sparse.numSubsystems(); ++i) {
    EXPECT_FALSE(dense.isSparse(i));
    const int n = sparse.subsystems[i].dof;
    EXPECT_EQ(sparse.denseA(i), MatX(dense.A(i)));
    EXPECT_NEAR(sparse.traceA(i), dense.traceA(i), 1e-12 * std::abs(dense.traceA(i)));
    const VecX x = VecX::LinSpaced(n, -1.0, 2.0);
    VecX ys(n), yd(n);
    sparse.multiplyA(i, x.data(), ys.data());
    dense.multiplyA(i, x.data(), yd.data());
    EXPECT_LT((ys - yd).norm(), 1e-12 * yd.norm());
    int entries = 0;
    sparse.forEachEntryA(i, [&](int r, int c, double v) {
      EXPECT_EQ(v, dense.A(i)(r, c));
      ++entries;
    });
    EXPECT_EQ(entries, sparse.storedValues(i));
  }
  // Dense -> sparse -> dense is exact, bit for bit.
  EXPECT_EQ(problemHash(withDenseBlocks(withSparseBlocks(dense))), problemHash(dense));
  const StepProblem resparsed = withSparseBlocks(dense);
  ASSERT_TRUE(resparsed.check().empty()) << resparsed.check();
  for (int i = 0; i < resparsed.numSubsystems(); ++i) EXPECT_TRUE(resparsed.isSparse(i));
}

TEST(SparseBlocks, FemConstraintsStoreOnlyTheirNodesColumns) {
  const StepProblem sparse = test::worldAfter("softball:cells=3", 3).lastProblem();
  const StepProblem dense = withDenseBlocks(sparse);
  int on_ball = 0;
  for (std::size_t k = 0; k < sparse.attachments.size(); ++k) {
    const Attachment& a = sparse.attachments[k];
    if (!sparse.isSparse(a.subsystem)) {
      EXPECT_FALSE(StepProblem::isSparse(a)) << "attachment " << k;  // the pads' rigid blocks
      continue;
    }
    ++on_ball;
    ASSERT_TRUE(StepProblem::isSparse(a)) << "attachment " << k;
    // A node contact or a triangle's: 1 to 3 nodes, each a triple of columns.
    EXPECT_TRUE(a.width == 3 || a.width == 6 || a.width == 9) << a.width;
    const Attachment& d = dense.attachments[k];
    EXPECT_FALSE(StepProblem::isSparse(d));
    EXPECT_EQ(sparse.denseJ(a), RowMajorMatX(dense.J(d)));
    const VecX v = VecX::LinSpaced(a.dof, -2.0, 1.0), w = VecX::LinSpaced(a.rows, 1.0, 3.0);
    double js[6], jd[6];
    sparse.multiplyJ(a, v.data(), js);
    dense.multiplyJ(d, v.data(), jd);
    for (int r = 0; r < a.rows; ++r) EXPECT_NEAR(js[r], jd[r], 1e-12 * (1.0 + std::abs(jd[r])));
    VecX ts = VecX::Zero(a.dof), td = VecX::Zero(a.dof);
    sparse.addJTransposeTimes(a, w.data(), ts.data());
    dense.addJTransposeTimes(d, w.data(), td.data());
    EXPECT_LT((ts - td).norm(), 1e-12 * (1.0 + td.norm()));
  }
  EXPECT_GE(on_ball, 3);  // floor and pad contacts
  // J blocks are part of the round trip too.
  EXPECT_EQ(problemHash(withSparseBlocks(dense)), problemHash(withSparseBlocks(sparse)));
}

TEST(SparseBlocks, CheckNamesSparseJacobianDefects) {
  StepProblem valid = smallSparseProblem();
  valid.addConstraint(ConstraintType::Bilateral, 2);
  const int columns[2] = {0, 2};
  auto J = valid.sparseJacobianFor(0, columns);
  J << 1.0, 0.0, 0.0, 1.0;
  ASSERT_TRUE(valid.check().empty()) << valid.check();
  EXPECT_THROW(valid.sparseJacobianFor(0, columns), std::logic_error);  // one block per subsystem
  EXPECT_THROW(valid.jacobianFor(0), std::logic_error);                 // written once
  EXPECT_THROW(valid.sparseJacobianFor(0, std::span<const int>()), std::logic_error);
  const auto defect = [&](auto edit) {
    StepProblem p = valid;
    edit(p);
    return p.check();
  };
  EXPECT_EQ(defect([](StepProblem& p) { p.jacobian_columns[1] = 0; }),
            "constraint 1, attachment 0: column 1 is 0, expected increasing indices in 0..2");
  EXPECT_EQ(defect([](StepProblem& p) { p.jacobian_columns[1] = 3; }),
            "constraint 1, attachment 0: column 1 is 3, expected increasing indices in 0..2");
  EXPECT_EQ(defect([](StepProblem& p) { p.attachments.back().column_offset = 1; }),
            "constraint 1, attachment 0: column_offset 1 and width 2 beyond the 2 entries of "
            "jacobian_columns");
  EXPECT_EQ(defect([](StepProblem& p) { p.attachments.back().width = 4; }),
            "constraint 1: bad attachment 0");
  EXPECT_EQ(defect([](StepProblem& p) { p.jacobian_data.back() = NAN; }),
            "constraint 1: bad attachment 0");
}

TEST(SparseBlocks, CheckNamesEveryPatternDefect) {
  const StepProblem valid = smallSparseProblem();
  ASSERT_TRUE(valid.check().empty()) << valid.check();
  const auto defect = [&](auto edit) {
    StepProblem p = valid;
    edit(p);
    return p.check();
  };
  // sparse_pattern: column starts 0 2 4 5, then rows 0 1 | 0 1 | 2.
  EXPECT_EQ(defect([](StepProblem& p) { p.sparse_pattern[4] = 3; }),
            "subsystem 0: sparse column 0: row 3 out of range or out of order");
  EXPECT_EQ(defect([](StepProblem& p) { p.sparse_pattern[2] = 1; }),
            "subsystem 0: sparse column 1 has a bad start");
  EXPECT_EQ(defect([](StepProblem& p) { std::swap(p.sparse_pattern[4], p.sparse_pattern[5]); }),
            "subsystem 0: sparse column 0: row 0 out of range or out of order");
  EXPECT_EQ(defect([](StepProblem& p) { p.sparse_pattern[8] = 1; }),
            "subsystem 0: sparse pattern lacks diagonal entry 2");
  EXPECT_EQ(defect([](StepProblem& p) { p.sparse_pattern[5] = 2; }),
            "subsystem 0: sparse pattern not symmetric at (2, 0)");
  EXPECT_EQ(defect([](StepProblem& p) { p.sparseA(0).coeffRef(1, 0) = 2.0; }),
            "subsystem 0: A not symmetric at (1, 0)");
  EXPECT_EQ(defect([](StepProblem& p) { p.sparseA(0).coeffRef(2, 2) = NAN; }),
            "subsystem 0: A not finite");
  EXPECT_EQ(defect([](StepProblem& p) { p.subsystems[0].pattern_offset = 2; }),
            "subsystem 0: pattern_offset 2 inconsistent");
  EXPECT_EQ(defect([](StepProblem& p) { p.subsystems[0].pattern_offset = -2; }),
            "subsystem 0: pattern_offset -2, expected -1 or more");
  EXPECT_EQ(defect([](StepProblem& p) {
              const int parent[3] = {-1, 0, 1};
              p.setDofParents(0, parent);
            }),
            "subsystem 0: a tree subsystem is stored sparse");
  EXPECT_EQ(defect([](StepProblem& p) { p.sparse_pattern.push_back(0); }),
            "subsystem sizes do not add up");
}

TEST(SparseBlocks, AMissingDiagonalIsNamed) {
  StepProblem p;
  const std::vector<int> begin = {0, 1, 2}, rows = {1, 0};
  p.addSparseSubsystem(2, begin, rows);
  EXPECT_EQ(p.check(), "subsystem 0: sparse pattern lacks diagonal entry 0");
}

TEST(SparseBlocks, ADenseCopyBeyondTheLimitIsRefusedWithAClearError) {
  StepProblem p;
  const int n = kMaxDensifiedDof + 3;
  std::vector<int> begin(n + 1), rows(n);
  for (int k = 0; k <= n; ++k) begin[k] = k;
  for (int k = 0; k < n; ++k) rows[k] = k;
  const int s = p.addSparseSubsystem(n, begin, rows);
  std::fill(p.a_data.begin(), p.a_data.end(), 1.0);
  EXPECT_TRUE(p.check().empty()) << p.check();
  EXPECT_EQ(p.traceA(s), static_cast<double>(n));
  try {
    p.denseA(s);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    for (const char* part : {"subsystem 0 has 4099 DOF stored sparse", "a dense copy of A_i",
                             "up to 4096 DOF", "cond"})
      EXPECT_NE(m.find(part), std::string::npos) << part << " not in: " << m;
  }
  // A solver that would need the dense copy says so instead of allocating it: SubADMM with a
  // constraint on more nodes than its block form takes.
  p.addConstraint(ConstraintType::Bilateral, 1);
  auto J = p.jacobianFor(s);
  J.setOnes();
  StepSolution sol;
  try {
    makeSolver("subadmm")->solve(p, SolverSettings(), sol);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("subadmm needs it dense"), std::string::npos) << e.what();
  }
}

// The same problem, stored dense and stored sparse, through every registered solver at a fixed
// iteration count: the two runs give the same iterates up to round-off.  The problems: the soft
// ball pressed by its pads (one FEM subsystem, contacts on two sides) and a soft cube in two
// pieces on the floor (contacts, and the bilateral interfaces between the pieces).
class SparseAndDense : public ::testing::TestWithParam<std::string> {
 protected:
  struct Pair {
    std::string name;
    StepProblem sparse, dense;
    double lambda_norm;  // of the solution the World found
  };
  // Assembled once for every solver's test.
  static const std::vector<Pair>& problems() {
    static const std::vector<Pair> pairs = [] {
      World ball = test::worldAfter("softball:cells=5", 24);
      World cube(test::softCubeModel(2, 0.5));
      for (int k = 0; k < 4; ++k) cube.step();
      std::vector<Pair> out;
      for (World* w : {&ball, &cube})
        out.push_back({w == &ball ? "softball:cells=5" : "soft cube", w->lastProblem(),
                       withDenseBlocks(w->lastProblem()), w->lastSolution().lambda.norm()});
      return out;
    }();
    return pairs;
  }
};

TEST_P(SparseAndDense, EverySolverGivesTheSameSolution) {
  const std::string& name = GetParam();
  for (const Pair& pair : problems()) {
    // Both are step problems with several loaded contacts on sparse FEM blocks.
    ASSERT_GE(pair.sparse.numContacts(), 8) << pair.name;
    ASSERT_GT(pair.lambda_norm, 0.01) << pair.name;
    ASSERT_TRUE(pair.sparse.isSparse(0)) << pair.name;
    ASSERT_FALSE(pair.sparse.jacobian_columns.empty()) << pair.name;  // sparse J blocks too
    SolverSettings settings;
    settings.max_iterations = isNewtonTypeSolver(name) ? 20 : 60;
    settings.tolerance = 0.0;
    StepSolution a, b;
    makeSolver(name)->solve(pair.sparse, settings, a);
    makeSolver(name)->solve(pair.dense, settings, b);
    const std::string where = name + " on " + pair.name;
    // Failing alike; a stall test that fires one iteration apart (lcp-ip) is round-off.
    const auto failed = [](const SolveStats& st) {
      return st.status == SolveStatus::FactorizationFailed || st.status == SolveStatus::NonFinite;
    };
    EXPECT_EQ(failed(a.stats), failed(b.stats)) << where;
    if (!a.vhat.allFinite() || !b.vhat.allFinite()) continue;  // failed alike (pj on FEM)
    EXPECT_LT((a.vhat - b.vhat).norm(), 1e-6 * (1.0 + b.vhat.norm())) << where;
    EXPECT_LT((a.lambda - b.lambda).norm(), 1e-6 * (1.0 + b.lambda.norm())) << where;
    // The metrics judge one solution alike in either storage.
    const StepMetrics ma = evaluateStep(pair.sparse, a), mb = evaluateStep(pair.dense, a);
    EXPECT_NEAR(ma.dynamics_residual, mb.dynamics_residual, 1e-9 * (1.0 + b.vhat.norm())) << where;
    EXPECT_NEAR(ma.constraint_residual, mb.constraint_residual, 1e-9 * (1.0 + b.vhat.norm()))
        << where;
  }
}

INSTANTIATE_TEST_SUITE_P(SparseBlocks, SparseAndDense, ::testing::ValuesIn(solverNames()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string n = param_info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace subsim
