// Cholesky factor and solves of small dense SPD subsystem matrices (solvers/small_spd_factor.hpp).
#include "subsim/solvers/small_spd_factor.hpp"

#include <gtest/gtest.h>

#include <random>

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
    ASSERT_TRUE(factorSmallSpd(K.data(), n, factor.data()));
    VecX b = VecX::LinSpaced(n, -1.0, 2.0);
    VecX x = b;
    solveSmallSpd(factor.data(), n, x.data());
    const VecX reference = K.llt().solve(b);
    EXPECT_LT((x - reference).norm(), 1e-9 * reference.norm()) << n;
    // The residual is at round-off relative to the matrix and the solution (backward stable).
    EXPECT_LT((K * x - b).norm(), 1e-12 * K.norm() * x.norm()) << n;
  }
}

TEST(SmallSpd, RefusesMatricesThatAreNotPositiveDefinite) {
  MatX K = MatX::Identity(4, 4), factor(4, 4);
  K(2, 2) = -1.0;
  EXPECT_FALSE(factorSmallSpd(K.data(), 4, factor.data()));
  K(2, 2) = 1.0;
  K(0, 1) = K(1, 0) = 2.0;  // indefinite with a positive diagonal
  EXPECT_FALSE(factorSmallSpd(K.data(), 4, factor.data()));
  K(0, 1) = K(1, 0) = 0.0;
  K(3, 3) = 0.0;  // singular
  EXPECT_FALSE(factorSmallSpd(K.data(), 4, factor.data()));
}

TEST(SmallSpd, DoesNotAllocate) {
  const MatX K = badlyScaledSpd(24, 3.0, 3u);
  MatX factor(24, 24);
  VecX x = VecX::Ones(24);
  const long before = test::allocationCount();
  Eigen::internal::set_is_malloc_allowed(false);
  const bool ok = factorSmallSpd(K.data(), 24, factor.data());
  solveSmallSpd(factor.data(), 24, x.data());
  Eigen::internal::set_is_malloc_allowed(true);
  EXPECT_TRUE(ok);
  EXPECT_EQ(test::allocationCount(), before);
}

}  // namespace
}  // namespace subsim
