// The box-MLCP kernels (solvers/box_mlcp_pivoting.hpp) against an independent exact method: the
// enumeration of every index set of a small box MLCP (3^n linear solves), whose unique feasible
// set is the solution when A is symmetric positive definite.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "subsim/solvers/box_mlcp_pivoting.hpp"

namespace subsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct BoxProblem {
  MatX a;
  VecX b, lower, upper;
};

/// A random box MLCP of n rows: A = B B^T + 0.1 I, b ~ U(-1, 1), and rows of every kind:
/// equality, [0, inf), [-c, c], [l, u] with l < 0 < u, fixed (l = u).
BoxProblem randomProblem(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  BoxProblem p;
  MatX b(n, n);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) b(i, k) = u(rng);
  p.a = b * b.transpose() + 0.1 * MatX::Identity(n, n);
  p.b.resize(n);
  p.lower.resize(n);
  p.upper.resize(n);
  for (int i = 0; i < n; ++i) {
    p.b[i] = u(rng);
    switch (i % 5) {
      case 0:
        p.lower[i] = -kInf, p.upper[i] = kInf;
        break;
      case 1:
        p.lower[i] = 0.0, p.upper[i] = kInf;
        break;
      case 2:
        p.upper[i] = 0.2 + 0.3 * std::abs(u(rng)), p.lower[i] = -p.upper[i];
        break;
      case 3:
        p.lower[i] = -0.5 * std::abs(u(rng)), p.upper[i] = 0.1 + std::abs(u(rng));
        break;
      default:
        p.lower[i] = p.upper[i] = 0.3 * u(rng);
    }
  }
  return p;
}

/// Every index set in turn; the one whose solution is feasible (to 1e-12) is the solution.
VecX enumerateSolution(const BoxProblem& p) {
  const int n = static_cast<int>(p.b.size());
  int combos = 1;
  for (int i = 0; i < n; ++i) combos *= 3;
  std::vector<BoxIndex> sets(n);
  for (int code = 0; code < combos; ++code) {
    int c = code;
    bool admissible = true;
    for (int i = 0; i < n; ++i, c /= 3) {
      sets[i] = static_cast<BoxIndex>(c % 3);
      if ((sets[i] == BoxIndex::Lower && p.lower[i] == -kInf) ||
          (sets[i] == BoxIndex::Upper && p.upper[i] == kInf) ||
          (p.lower[i] == p.upper[i] && sets[i] != BoxIndex::Lower))
        admissible = false;
    }
    if (!admissible) continue;
    std::vector<int> free;
    VecX x(n);
    for (int i = 0; i < n; ++i) {
      x[i] = sets[i] == BoxIndex::Lower ? p.lower[i] : sets[i] == BoxIndex::Upper ? p.upper[i] : 0;
      if (sets[i] == BoxIndex::Free) free.push_back(i);
    }
    const int nf = static_cast<int>(free.size());
    MatX aff(nf, nf);
    VecX rhs(nf);
    const VecX ax = p.a * x;
    for (int i = 0; i < nf; ++i) {
      rhs[i] = -(p.b[free[i]] + ax[free[i]]);
      for (int k = 0; k < nf; ++k) aff(i, k) = p.a(free[i], free[k]);
    }
    const VecX xf = aff.ldlt().solve(rhs);
    for (int i = 0; i < nf; ++i) x[free[i]] = xf[i];
    const VecX w = p.a * x + p.b;
    bool feasible = true;
    for (int i = 0; i < n && feasible; ++i)
      feasible = naturalResidualRow(x[i], w[i], p.lower[i], p.upper[i]) < 1e-12 &&
                 x[i] >= p.lower[i] - 1e-12 && x[i] <= p.upper[i] + 1e-12;
    if (feasible) return x;
  }
  ADD_FAILURE() << "no index set solves the problem";
  return VecX::Zero(n);
}

double residualOf(const BoxProblem& p, const VecX& x) {
  const VecX w = p.a * x + p.b;
  double r = 0.0;
  for (int i = 0; i < w.size(); ++i)
    r = std::max(r, naturalResidualRow(x[i], w[i], p.lower[i], p.upper[i]));
  return r;
}

TEST(NaturalResidualRow, IsZeroExactlyWhereTheRowIsSolved) {
  // (29): lambda at the lower bound with w >= 0, at the upper with w <= 0, inside with w = 0.
  EXPECT_EQ(naturalResidualRow(0.0, 2.0, 0.0, kInf), 0.0);
  EXPECT_EQ(naturalResidualRow(1.0, -2.0, -1.0, 1.0), 0.0);
  EXPECT_EQ(naturalResidualRow(0.3, 0.0, -1.0, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(naturalResidualRow(0.3, 0.5, -1.0, 1.0), 0.5);     // inside, w != 0
  EXPECT_DOUBLE_EQ(naturalResidualRow(0.0, -0.25, 0.0, kInf), 0.25);  // at 0, pulled below
  EXPECT_DOUBLE_EQ(naturalResidualRow(2.0, 0.0, -kInf, kInf), 0.0);   // equality: |w|
  EXPECT_DOUBLE_EQ(naturalResidualRow(2.0, -3.0, -kInf, kInf), 3.0);
  EXPECT_EQ(naturalResidualRow(0.5, 4.0, 0.5, 0.5), 0.0);  // a fixed row, w of either sign
  EXPECT_EQ(naturalResidualRow(0.5, -4.0, 0.5, 0.5), 0.0);
}

TEST(BlockPrincipalPivoting, SolvesRandomBoxMlcpsExactlyDenseAndSparse) {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const BoxProblem p = randomProblem(4 + static_cast<int>(seed % 4), seed);
    const VecX reference = enumerateSolution(p);
    const double scale = 1.0 + reference.cwiseAbs().maxCoeff();

    BoxMlcpPivoting<DenseBoxMatrix> dense;
    std::vector<BoxIndex> sets;
    VecX x;
    PivotingSettings ps;
    ps.eta = 1e-12;
    const PivotingResult rd =
        dense.blockPivoting(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, sets, x);
    EXPECT_TRUE(rd.solved) << "seed " << seed;
    EXPECT_LT((x - reference).cwiseAbs().maxCoeff(), 1e-10 * scale) << "seed " << seed;

    const SparseMatrixCsc sparse = p.a.sparseView();
    BoxMlcpPivoting<SparseBoxMatrix> sp;
    std::vector<BoxIndex> sets2;
    VecX x2;
    const PivotingResult rs =
        sp.blockPivoting(SparseBoxMatrix{&sparse}, p.b, p.lower, p.upper, ps, sets2, x2);
    EXPECT_TRUE(rs.solved) << "seed " << seed;
    EXPECT_LT((x2 - reference).cwiseAbs().maxCoeff(), 1e-10 * scale) << "seed " << seed;
    EXPECT_EQ(sets, sets2) << "seed " << seed;
  }
}

TEST(PgsSubspaceMinimization, ReachesTheExactSolutionOfRandomBoxMlcps) {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const BoxProblem p = randomProblem(4 + static_cast<int>(seed % 4), seed);
    const VecX reference = enumerateSolution(p);
    BoxMlcpPivoting<DenseBoxMatrix> k;
    std::vector<BoxIndex> sets;
    VecX x;
    PivotingSettings ps;
    ps.epsilon = 1e-11;
    ps.eta = 1e-9;
    ps.max_pivots = 200;
    const PivotingResult r =
        k.pgsSubspace(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, sets, x);
    EXPECT_TRUE(r.solved) << "seed " << seed;
    EXPECT_LT(residualOf(p, x), 1e-11) << "seed " << seed;
    EXPECT_LT((x - reference).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + reference.norm()))
        << "seed " << seed;
  }
}

TEST(ProjectedNewton, ReachesTheExactSolutionOfRandomBoxMlcpsDenseAndSparse) {
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const BoxProblem p = randomProblem(4 + static_cast<int>(seed % 4), seed);
    const VecX reference = enumerateSolution(p);
    PivotingSettings ps;
    ps.epsilon = 1e-11;
    BoxMlcpPivoting<DenseBoxMatrix> dense;
    std::vector<BoxIndex> sets;
    VecX x;
    const PivotingResult rd =
        dense.projectedNewton(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, sets, x);
    EXPECT_TRUE(rd.solved) << "seed " << seed;
    EXPECT_LT(residualOf(p, x), 1e-11) << "seed " << seed;
    EXPECT_LT((x - reference).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + reference.norm()))
        << "seed " << seed;
    // Newton: a handful of steps on 4-7 rows, not a sweep count.
    EXPECT_LE(rd.pivots, 20) << "seed " << seed;

    const SparseMatrixCsc sparse = p.a.sparseView();
    BoxMlcpPivoting<SparseBoxMatrix> sp;
    std::vector<BoxIndex> sets2;
    VecX x2;
    const PivotingResult rs =
        sp.projectedNewton(SparseBoxMatrix{&sparse}, p.b, p.lower, p.upper, ps, sets2, x2);
    EXPECT_TRUE(rs.solved) << "seed " << seed;
    EXPECT_LT((x2 - reference).cwiseAbs().maxCoeff(), 1e-8 * (1.0 + reference.norm()))
        << "seed " << seed;
  }
}

/// Contacts outnumbering the DOF, as on a chain wound on a bar or a pile of boxes: A = J J^T +
/// C I with J of `rows` random normals on `dof` DOF (W rank-deficient, only C = 1e-10 keeping A
/// definite), every row a contact normal [0, inf), and b = J v0 + s with gaps s >= 0 so that
/// some velocity satisfies every row (the limit C -> 0 has a bounded solution).
BoxProblem redundantContacts(int dof, int rows, unsigned seed) {
  std::mt19937 rng(seed);
  const auto uniform = [&rng] {
    return 2.0 * (static_cast<double>(rng()) + 0.5) / 4294967296.0 - 1.0;
  };
  MatX j(rows, dof);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < dof; ++c) j(r, c) = uniform();
  VecX v0(dof);
  for (int c = 0; c < dof; ++c) v0[c] = uniform();
  BoxProblem p;
  p.a = j * j.transpose() + 1e-10 * MatX::Identity(rows, rows);
  p.b = j * v0;
  for (int r = 0; r < rows; ++r) p.b[r] += std::max(uniform(), 0.0);
  p.lower = VecX::Zero(rows);
  p.upper = VecX::Constant(rows, kInf);
  return p;
}

TEST(ProjectedNewton, SolvesRedundantContactsWhereBlockPivotingRunsOut) {
  // A wrong index set's free block is conditioned 1e10 here: its solve is far outside the box,
  // every sign is noise, and the pivots wander; the projected Newton steps decrease the
  // objective every time and end at the solution.
  int pivoting_failed = 0;
  for (unsigned seed = 1; seed <= 10; ++seed) {
    const BoxProblem p = redundantContacts(12, 40, seed);
    const SparseMatrixCsc a = p.a.sparseView();
    PivotingSettings ps;
    ps.fallback = false;
    BoxMlcpPivoting<SparseBoxMatrix> k;
    std::vector<BoxIndex> sets;
    VecX x;
    if (!k.blockPivoting(SparseBoxMatrix{&a}, p.b, p.lower, p.upper, ps, sets, x).solved)
      ++pivoting_failed;

    x = VecX::Zero(40);
    const PivotingResult r =
        k.projectedNewton(SparseBoxMatrix{&a}, p.b, p.lower, p.upper, ps, sets, x);
    EXPECT_TRUE(r.solved) << "seed " << seed;
    EXPECT_LT(residualOf(p, x), 1e-9) << "seed " << seed;
    // Every contact's condition: no pulling impulse, no approach.
    const VecX w = p.a * x + p.b;
    EXPECT_GE(x.minCoeff(), 0.0) << "seed " << seed;
    EXPECT_GT(w.minCoeff(), -1e-9) << "seed " << seed;

    // As BPP's fallback it turns the pivoting's failure into the solution.
    ps.fallback = true;
    x.resize(0);
    sets.clear();
    const PivotingResult b =
        k.blockPivoting(SparseBoxMatrix{&a}, p.b, p.lower, p.upper, ps, sets, x);
    EXPECT_TRUE(b.solved) << "seed " << seed;
    EXPECT_LT(residualOf(p, x), 1e-9) << "seed " << seed;
  }
  // The cases are the ones pivoting cannot do (they would not test the fallback otherwise).
  EXPECT_GE(pivoting_failed, 3);  // 8 of the 10 here
}

TEST(ProjectedNewton, DampsTheNewtonStepOfANearlySingularFreeBlock) {
  // A warm start with every contact pressing (chaindrop's steps after landing): every row is
  // free, the free block is definite by C alone, and the undamped Newton step is far too long
  // along its near-null space, so the arc search cuts it to a sliver step after step.  The
  // damped steps (A_FF + mu diag A_FF, mu adapted) reach the solution within 50 steps; undamped,
  // 5 of these 10 did not.
  for (unsigned seed = 1; seed <= 10; ++seed) {
    const BoxProblem p = redundantContacts(12, 40, seed);
    const SparseMatrixCsc a = p.a.sparseView();
    std::mt19937 rng(seed + 100);
    VecX x(40);
    for (int r = 0; r < 40; ++r) x[r] = 0.5 + (static_cast<double>(rng()) + 0.5) / 4294967296.0;
    PivotingSettings ps;
    ps.newton_steps = 50;
    BoxMlcpPivoting<SparseBoxMatrix> k;
    std::vector<BoxIndex> sets;
    const PivotingResult r =
        k.projectedNewton(SparseBoxMatrix{&a}, p.b, p.lower, p.upper, ps, sets, x);
    EXPECT_TRUE(r.solved) << "seed " << seed << ": " << r.pivots << " steps";
    EXPECT_LT(residualOf(p, x), 1e-9) << "seed " << seed;
    EXPECT_GE(x.minCoeff(), 0.0) << "seed " << seed;
  }
}

TEST(BlockPrincipalPivoting, WarmIndexSetsFinishInOneSolveAndReuseTheFactor) {
  const BoxProblem p = randomProblem(7, 99);
  BoxMlcpPivoting<DenseBoxMatrix> k;
  std::vector<BoxIndex> sets;
  VecX x;
  const PivotingSettings ps;
  const PivotingResult first =
      k.blockPivoting(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, sets, x);
  ASSERT_TRUE(first.solved);
  // The solution's sets, given back: one solve, with the factor kept from the last one.
  const PivotingResult again =
      k.blockPivoting(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, sets, x);
  EXPECT_TRUE(again.solved);
  EXPECT_EQ(again.pivots, 1);
  EXPECT_EQ(again.factorizations, 0);
  // After invalidate() (a new matrix) the factor is recomputed.
  k.invalidate();
  const PivotingResult fresh =
      k.blockPivoting(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, sets, x);
  EXPECT_EQ(fresh.factorizations, 1);
}

TEST(BlockPrincipalPivoting, TerminatesOnDegenerateProblems) {
  // x = 0 and w = 0 at once on every row (A = I, b = 0, bounds [0, inf)): a degenerate solution.
  BoxProblem p;
  p.a = MatX::Identity(5, 5);
  p.b = VecX::Zero(5);
  p.lower = VecX::Zero(5);
  p.upper = VecX::Constant(5, kInf);
  BoxMlcpPivoting<DenseBoxMatrix> k;
  std::vector<BoxIndex> sets(5, BoxIndex::Free);
  VecX x;
  PivotingResult r =
      k.blockPivoting(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, PivotingSettings(), sets, x);
  EXPECT_TRUE(r.solved);
  EXPECT_EQ(x, VecX::Zero(5));

  // Redundant rows (three copies of one contact's normal: A singular but for a tiny
  // compliance), pushed apart: the impulse is shared, the velocity condition met.
  BoxProblem q;
  const VecX row = (VecX(3) << 1.0, 1.0, 1.0).finished();
  q.a = row * row.transpose() * 2.0 + 1e-10 * MatX::Identity(3, 3);
  q.b = VecX::Constant(3, -1.0);
  q.lower = VecX::Zero(3);
  q.upper = VecX::Constant(3, kInf);
  std::vector<BoxIndex> qs;
  r = k.blockPivoting(DenseBoxMatrix{&q.a}, q.b, q.lower, q.upper, PivotingSettings(), qs, x);
  EXPECT_TRUE(r.solved);
  EXPECT_NEAR(x.sum(), 0.5, 1e-8);
  EXPECT_LT(residualOf(q, x), 1e-8);
}

TEST(BlockPrincipalPivoting, PivotsRunningOutFallBackOnProjectedNewtonFromTheWarmStart) {
  int fell_back = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const BoxProblem p = randomProblem(7, seed);
    const VecX reference = enumerateSolution(p);
    // One pivot from an all-free guess rarely solves; the warm start given is the solution.
    PivotingSettings ps;
    ps.max_pivots = 1;
    ps.fallback = false;
    BoxMlcpPivoting<DenseBoxMatrix> k;
    std::vector<BoxIndex> sets(7, BoxIndex::Free);
    VecX x = reference;
    const PivotingResult plain =
        k.blockPivoting(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, sets, x);
    if (plain.solved) continue;
    const double pivoted = residualOf(p, x);

    ps.fallback = true;
    sets.assign(7, BoxIndex::Free);
    x = reference;
    const PivotingResult r =
        k.blockPivoting(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, sets, x);
    ++fell_back;
    EXPECT_TRUE(r.fell_back) << "seed " << seed;
    // Projected Newton from the solution stops there before its first step: the fallback's
    // answer, solved, never worse than the pivoting's best iterate, and no solve added.
    EXPECT_TRUE(r.solved) << "seed " << seed;
    EXPECT_LT(residualOf(p, x), 1e-9) << "seed " << seed;
    EXPECT_LE(residualOf(p, x), pivoted) << "seed " << seed;
    EXPECT_EQ(r.pivots, plain.pivots) << "seed " << seed;
  }
  EXPECT_GE(fell_back, 10);
}

TEST(BlockPrincipalPivoting, TheFallbackKeepsTheBestOfPivotingNewtonAndPgsSubspace) {
  // A zero warm start far from the solution and one Newton step: projected Newton may end
  // unsolved, PGS-SM is then tried from the warm start as well, and whichever of the three ends
  // with the least natural residual comes back.
  int newton_unsolved = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const BoxProblem p = randomProblem(7, seed);
    PivotingSettings ps;
    ps.max_pivots = 2;
    ps.newton_steps = 1;
    BoxMlcpPivoting<DenseBoxMatrix> k;
    std::vector<BoxIndex> sets(7, BoxIndex::Free);
    VecX x;
    ps.fallback = false;
    if (k.blockPivoting(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, sets, x).solved) continue;
    double best = residualOf(p, x);
    VecX newton = VecX::Zero(7);
    std::vector<BoxIndex> other_sets;
    const bool newton_solved =
        k.projectedNewton(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, other_sets, newton)
            .solved;
    best = std::min(best, residualOf(p, newton));
    if (!newton_solved) {
      ++newton_unsolved;
      VecX pgs = VecX::Zero(7);
      k.pgsSubspace(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, other_sets, pgs);
      best = std::min(best, residualOf(p, pgs));
    }

    ps.fallback = true;
    sets.assign(7, BoxIndex::Free);
    x = VecX::Zero(7);
    k.blockPivoting(DenseBoxMatrix{&p.a}, p.b, p.lower, p.upper, ps, sets, x);
    EXPECT_DOUBLE_EQ(residualOf(p, x), best) << "seed " << seed;
  }
  EXPECT_GE(newton_unsolved, 3);
}

}  // namespace
}  // namespace subsim
