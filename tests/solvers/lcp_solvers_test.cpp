// The LCP solvers of the RPI simulator paper's Table 1 on LCPs with a known solution: Lemke, the
// two nonsmooth Newton methods, the interior-point method and the block projected methods agree
// with it on P-matrices, reach a solution of solvable monotone (PSD) problems, Lemke ends on
// degenerate ones, and eliminating free variables gives the mixed problem's solution.
#include <gtest/gtest.h>

#include <random>

#include "subsim/formulation/mixed_lcp.hpp"
#include "subsim/solvers/lcp_fixed_point.hpp"
#include "subsim/solvers/lcp_free_elimination.hpp"
#include "subsim/solvers/lcp_interior_point.hpp"
#include "subsim/solvers/lcp_newton.hpp"
#include "subsim/solvers/lcp_projected.hpp"
#include "subsim/solvers/lemke.hpp"

namespace subsim {
namespace {

/// A random LCP whose solution is z*: M = B B^T (rank `rank`) + shift I + S (S skew, so M is
/// positive definite for shift > 0: a P-matrix; monotone for shift = 0), and q = w* - M z* for a
/// complementary pair (z*, w*) with about a third of the rows active, a third inactive and, when
/// `degenerate`, a third with z* = w* = 0.
struct KnownLcp {
  MixedLcp lcp;
  VecX z;
};

KnownLcp randomLcp(int n, int rank, double shift, bool degenerate, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto random = [&](int r, int c) {
    MatX m(r, c);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < c; ++j) m(i, j) = u(gen);
    return m;
  };
  const MatX b = random(n, rank), s = random(n, n);
  KnownLcp k;
  k.lcp.m = b * b.transpose() + 0.5 * (s - s.transpose()) + shift * MatX::Identity(n, n);
  k.z.setZero(n);
  VecX w = VecX::Zero(n);
  for (int i = 0; i < n; ++i) {
    const int kind = i % 3;
    if (kind == 0) k.z[i] = 0.1 + std::abs(u(gen));
    if (kind == 1 || (kind == 2 && !degenerate)) w[i] = 0.1 + std::abs(u(gen));
  }
  k.lcp.q = w - k.lcp.m * k.z;
  return k;
}

LcpNewtonSettings newtonSettings(int iterations, double tolerance, int memory = 1) {
  LcpNewtonSettings s;
  s.max_iterations = iterations;
  s.tolerance = tolerance;
  s.nonmonotone_memory = memory;
  return s;
}

double natural(const MixedLcp& lcp, const VecX& z) {
  return lcp.naturalResidualMax(z);
}

TEST(Lemke, SolvesPMatrixLcpsExactly) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const KnownLcp k = randomLcp(40, 20, 0.5, false, seed);
    Lemke lemke;
    VecX z(40);
    const LemkeResult r = lemke.solve(k.lcp.m, k.lcp.q, z);
    ASSERT_EQ(r.status, LemkeStatus::Solved) << seed;
    EXPECT_LT((z - k.z).norm(), 1e-10 * k.z.norm()) << seed;
    EXPECT_LT(natural(k.lcp, z), 1e-12);
  }
}

TEST(Lemke, ZeroIsTheSolutionWhenQIsNonNegative) {
  MixedLcp lcp;
  lcp.m = RowMajorMatX::Identity(3, 3);
  lcp.q = VecX::Constant(3, 0.5);
  Lemke lemke;
  VecX z = VecX::Ones(3);
  const LemkeResult r = lemke.solve(lcp.m, lcp.q, z);
  EXPECT_EQ(r.status, LemkeStatus::Solved);
  EXPECT_EQ(r.pivots, 0);
  EXPECT_EQ(z, VecX::Zero(3));
}

TEST(Lemke, EndsOnDegenerateProblems) {
  // Degenerate complementarity (z* = w* = 0 on a third of the rows), on P-matrices and on
  // monotone ones.
  for (unsigned seed = 1; seed <= 5; ++seed) {
    for (const double shift : {0.5, 0.0}) {
      const KnownLcp k = randomLcp(30, 12, shift, true, seed);
      Lemke lemke;
      VecX z(30);
      const LemkeResult r = lemke.solve(k.lcp.m, k.lcp.q, z);
      ASSERT_EQ(r.status, LemkeStatus::Solved) << seed << " " << shift;
      EXPECT_LT(natural(k.lcp, z), 1e-10) << seed << " " << shift;
    }
  }
  // Every ratio tied at every step: M = 1 1^T + I, q = -1 (z = 1 / (n + 1) each), and a column
  // of the identity repeated (w - z0 ties at the first pivot).
  const int n = 12;
  MixedLcp tied;
  tied.m = RowMajorMatX::Ones(n, n) + RowMajorMatX::Identity(n, n);
  tied.q = VecX::Constant(n, -1.0);
  Lemke lemke;
  VecX z(n);
  ASSERT_EQ(lemke.solve(tied.m, tied.q, z).status, LemkeStatus::Solved);
  EXPECT_LT((z - VecX::Constant(n, 1.0 / (n + 1))).norm(), 1e-12);
}

TEST(Lemke, RayTerminationOnAnInfeasibleLcp) {
  // w = -z - 1 >= 0 has no solution with z >= 0.
  MixedLcp lcp;
  lcp.m = -RowMajorMatX::Identity(2, 2);
  lcp.q = VecX::Constant(2, -1.0);
  Lemke lemke;
  VecX z(2);
  EXPECT_EQ(lemke.solve(lcp.m, lcp.q, z).status, LemkeStatus::RayTermination);
  EXPECT_EQ(z, VecX::Zero(2));
}

TEST(LcpNewton, BothReformulationsConvergeOnPMatrices) {
  for (const LcpReformulation f : {LcpReformulation::FischerBurmeister, LcpReformulation::MinMap}) {
    for (unsigned seed = 1; seed <= 5; ++seed) {
      const KnownLcp k = randomLcp(40, 20, 0.5, false, seed);
      LcpNewton newton;
      VecX z = VecX::Zero(40);
      const LcpNewtonResult r = newton.solve(k.lcp, z, f, newtonSettings(100, 1e-11));
      EXPECT_FALSE(r.stalled) << seed;
      EXPECT_LT(r.residual, 1e-11) << seed;
      EXPECT_LT((z - k.z).norm(), 1e-9 * k.z.norm()) << seed;
    }
  }
}

TEST(LcpNewton, NonMonotoneSearchReachesMonotoneProblemsSolutions) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const KnownLcp k = randomLcp(30, 15, 0.0, true, seed);
    LcpNewton newton;
    VecX z = VecX::Zero(30);
    const LcpNewtonResult r =
        newton.solve(k.lcp, z, LcpReformulation::FischerBurmeister, newtonSettings(200, 1e-9, 5));
    EXPECT_LT(r.residual, 1e-9) << seed;
    EXPECT_LT(natural(k.lcp, z), 1e-9) << seed;
  }
}

TEST(LcpInteriorPoint, ConvergesOnPMatricesAndMonotoneProblems) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    for (const double shift : {0.5, 0.0}) {
      const KnownLcp k = randomLcp(40, 20, shift, false, seed);
      VecX z;
      const LcpInteriorPointResult r = solveLcpInteriorPoint(k.lcp.m, k.lcp.q, z, 100, 1e-9);
      EXPECT_LT(r.residual, 1e-9) << seed << " " << shift;
      EXPECT_LT(natural(k.lcp, z), 1e-9) << seed << " " << shift;
      EXPECT_LT(r.iterations, 60) << seed << " " << shift;
      if (shift > 0.0) {
        EXPECT_LT((z - k.z).norm(), 1e-7 * k.z.norm()) << seed;
      }
    }
  }
}

TEST(LcpBlockProjection, GaussSeidelAndJacobiConvergeOnASymmetricPositiveDefiniteLcp) {
  // Symmetric positive definite (no skew part), blocks of three: both sweeps contract.
  KnownLcp k = randomLcp(30, 30, 2.0, false, 7);
  k.lcp.m = 0.5 * (k.lcp.m + k.lcp.m.transpose()).eval();
  k.lcp.q = VecX::Zero(30);
  for (int i = 0; i < 30; ++i) k.lcp.q[i] = (i % 3 == 1 ? 0.3 : 0.0) - k.lcp.m.row(i).dot(k.z);
  for (int b = 0; b <= 10; ++b) k.lcp.block_begin.push_back(3 * b);
  for (const auto order :
       {LcpBlockProjection::Order::GaussSeidel, LcpBlockProjection::Order::Jacobi}) {
    LcpBlockProjection projection;
    projection.prepare(k.lcp);
    VecX z = VecX::Zero(30);
    double first = 0.0;
    for (int sweep = 0; sweep < 3000; ++sweep) {
      ASSERT_TRUE(projection.sweep(k.lcp, z, order, 0.3));
      if (sweep == 0) first = natural(k.lcp, z);
    }
    EXPECT_LT(natural(k.lcp, z), 1e-8 * first);
    EXPECT_LT((z - k.z).norm(), 1e-6 * k.z.norm());
  }
}

TEST(LcpFixedPoint, ReachesTheSolutionAndNeverRaisesTheResidual) {
  // The same kind of symmetric positive definite LCP, with a free row in each block and started
  // from an omega too large to contract (1): rejected sweeps halve it, so the residual's 2-norm
  // never rises, and the iteration ends at the known solution.
  KnownLcp k = randomLcp(30, 30, 2.0, false, 11);
  k.lcp.m = 0.5 * (k.lcp.m + k.lcp.m.transpose()).eval();
  k.lcp.free.assign(30, 0);
  for (int i = 0; i < 30; i += 3) k.lcp.free[i] = 1;  // z* > 0 there: w* = 0 holds as an equality
  k.lcp.q = VecX::Zero(30);
  for (int i = 0; i < 30; ++i) k.lcp.q[i] = (i % 3 == 1 ? 0.3 : 0.0) - k.lcp.m.row(i).dot(k.z);
  for (int b = 0; b <= 10; ++b) k.lcp.block_begin.push_back(3 * b);
  LcpFixedPoint fp;
  VecX z = VecX::Zero(30);
  fp.prepare(k.lcp, z, 1.0);
  double last2 = 1e300, r = 0.0;
  bool shrunk = false;
  for (int sweep = 0; sweep < 20000; ++sweep) {
    r = fp.sweep(k.lcp, z);
    EXPECT_NEAR(r, natural(k.lcp, z), 1e-12 * (1.0 + r));
    double max_norm = 0.0, two_norm = 0.0;
    k.lcp.naturalResidual(z, max_norm, two_norm);
    EXPECT_LE(two_norm, last2 * (1.0 + 1e-12) + 1e-13);  // w recomputed: round-off
    last2 = two_norm;
    shrunk = shrunk || fp.omega() < 0.5;
  }
  EXPECT_TRUE(shrunk);
  EXPECT_LT(r, 1e-10);
  EXPECT_LT((z - k.z).norm(), 1e-8 * k.z.norm());
}

TEST(FreeVariableElimination, MixedProblemsSolutionAgreesWithNewtonOnTheMixedProblem) {
  // The first 10 variables free (equations), the other 30 complementary.
  KnownLcp k = randomLcp(40, 20, 0.5, false, 11);
  k.lcp.free.assign(40, 0);
  for (int i = 0; i < 10; ++i) k.lcp.free[i] = 1;
  FreeVariableElimination elimination;
  ASSERT_TRUE(elimination.reduce(k.lcp));
  EXPECT_EQ(elimination.rhs().size(), 30);
  VecX zc(30), z;
  Lemke lemke;
  ASSERT_EQ(lemke.solve(elimination.matrix(), elimination.rhs(), zc).status, LemkeStatus::Solved);
  elimination.expand(zc, z);
  EXPECT_LT(natural(k.lcp, z), 1e-10);

  LcpNewton newton;
  VecX zn = VecX::Zero(40);
  EXPECT_LT(newton.solve(k.lcp, zn, LcpReformulation::MinMap, newtonSettings(100, 1e-12)).residual,
            1e-12);
  EXPECT_LT((z - zn).norm(), 1e-9 * z.norm());

  MixedLcp singular = k.lcp;
  singular.m.topRows(10).setZero();
  EXPECT_FALSE(elimination.reduce(singular));
}

}  // namespace
}  // namespace subsim
