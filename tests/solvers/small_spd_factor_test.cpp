// Cholesky factor and solves of small dense SPD subsystem matrices (solvers/small_spd_factor.hpp).
#include "subsim/solvers/small_spd_factor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "no_allocation.hpp"

namespace subsim {
namespace {

/// A random SPD matrix with diagonal entries spread over `decades` decades, like a cable
/// subsystem's masses and rotational inertias with stiff couplings between them.
MatX badlyScaledSpd(int n, double decades, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  MatX B(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) B(i, j) = u(rng);
  MatX S = B * B.transpose() + n * MatX::Identity(n, n);  // well conditioned
  VecX d(n);
  for (int i = 0; i < n; ++i) d[i] = std::pow(10.0, -decades * (0.5 + 0.5 * u(rng)));
  return d.asDiagonal() * S * d.asDiagonal();
}

TEST(SmallSpd, SolvesMatchEigensCholeskyOnBadlyScaledMatrices) {
  for (int n : {1, 2, 7, 24, 48}) {
    const MatX K = badlyScaledSpd(n, 5.0, 7u + n);
    MatX factor(n, n);
    std::vector<int> envelope(2 * n);
    ASSERT_TRUE(factorSmallSpd(K.data(), n, factor.data(), envelope.data()));
    VecX b = VecX::LinSpaced(n, -1.0, 2.0);
    VecX x = b;
    solveSmallSpd(factor.data(), n, envelope.data(), x.data());
    const VecX reference = K.llt().solve(b);
    EXPECT_LT((x - reference).norm(), 1e-9 * reference.norm()) << n;
    // The residual is at round-off relative to the matrix and the solution (backward stable).
    EXPECT_LT((K * x - b).norm(), 1e-12 * K.norm() * x.norm()) << n;
  }
}

/// A chain of `blocks` 6 x 6 blocks coupled to their neighbours (a cable subsystem's K: segments
/// in a row), with the last row of each coupling block zero so that the envelope is ragged.
MatX chainSpd(int blocks, unsigned seed) {
  const int n = 6 * blocks;
  const MatX dense = badlyScaledSpd(n, 2.0, seed);
  MatX K = MatX::Zero(n, n);
  for (int b = 0; b < blocks; ++b) {
    K.block<6, 6>(6 * b, 6 * b) = dense.block<6, 6>(6 * b, 6 * b);
    if (b + 1 < blocks) {
      Mat6 coupling = 0.2 * dense.block<6, 6>(6 * b + 6, 6 * b);
      coupling.row(5).setZero();
      K.block<6, 6>(6 * b + 6, 6 * b) = coupling;
      K.block<6, 6>(6 * b, 6 * b + 6) = coupling.transpose();
    }
  }
  for (int i = 0; i < n; ++i) K(i, i) += K.row(i).cwiseAbs().sum();  // diagonally dominant
  return K;
}

TEST(SmallSpd, ChainsFactorWithinTheirEnvelope) {
  // A chain's factor is block-bidiagonal: the envelope ends in the next block (before its last
  // row, zero in the coupling), the entries outside it are never written, and the solve agrees
  // with Eigen's dense Cholesky.
  for (int blocks : {1, 2, 4, 8}) {
    const int n = 6 * blocks;
    const MatX K = chainSpd(blocks, 11u + blocks);
    MatX factor = MatX::Constant(n, n, std::nan(""));
    std::vector<int> envelope(2 * n);
    ASSERT_TRUE(factorSmallSpd(K.data(), n, factor.data(), envelope.data()));
    for (int j = 0; j < n; ++j) {
      const int block = j / 6;
      EXPECT_EQ(envelope[j], block + 1 < blocks ? 6 * block + 10 : n - 1) << blocks << " " << j;
      for (int i = envelope[j] + 1; i < n; ++i) EXPECT_TRUE(std::isnan(factor(i, j))) << i << j;
    }
    VecX x = VecX::LinSpaced(n, -1.0, 2.0);
    const VecX reference = K.llt().solve(x);
    solveSmallSpd(factor.data(), n, envelope.data(), x.data());
    EXPECT_LT((x - reference).norm(), 1e-12 * reference.norm()) << blocks;
  }
}

TEST(SmallSpd, RefusesMatricesThatAreNotPositiveDefinite) {
  MatX K = MatX::Identity(4, 4), factor(4, 4);
  int envelope[8];
  K(2, 2) = -1.0;
  EXPECT_FALSE(factorSmallSpd(K.data(), 4, factor.data(), envelope));
  K(2, 2) = 1.0;
  K(0, 1) = K(1, 0) = 2.0;  // indefinite with a positive diagonal
  EXPECT_FALSE(factorSmallSpd(K.data(), 4, factor.data(), envelope));
  K(0, 1) = K(1, 0) = 0.0;
  K(3, 3) = 0.0;  // singular
  EXPECT_FALSE(factorSmallSpd(K.data(), 4, factor.data(), envelope));
}

TEST(SmallSpd, DoesNotAllocate) {
  const MatX K = badlyScaledSpd(24, 3.0, 3u);
  MatX factor(24, 24);
  int envelope[48];
  VecX x = VecX::Ones(24);
  const long before = test::allocationCount();
  Eigen::internal::set_is_malloc_allowed(false);
  const bool ok = factorSmallSpd(K.data(), 24, factor.data(), envelope);
  solveSmallSpd(factor.data(), 24, envelope, x.data());
  Eigen::internal::set_is_malloc_allowed(true);
  EXPECT_TRUE(ok);
  EXPECT_EQ(test::allocationCount(), before);
}

}  // namespace
}  // namespace subsim
