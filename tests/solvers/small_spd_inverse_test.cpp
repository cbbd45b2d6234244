// The explicit inverse of small SPD subsystem matrices (solvers/small_spd_inverse.hpp).
#include "subsim/solvers/small_spd_inverse.hpp"

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

TEST(SmallSpdInverse, InvertsBadlyScaledMatricesToRoundOff) {
  SmallSpdInverse inverter;
  for (int n : {1, 6, 24, 48}) {
    const MatX K = badlyScaledSpd(n, 5.0, 7u + n);
    MatX inverse(n, n);
    ASSERT_TRUE(inverter.invert(K.data(), n, inverse.data()));
    // K^-1 K = I entry by entry relative to the scaling (cond(K) is ~1e10 here).
    const MatX residual = inverse * K - MatX::Identity(n, n);
    EXPECT_LT(residual.cwiseAbs().maxCoeff(), 1e-10) << n;
    // And it matches a Cholesky solve of the unscaled matrix.
    const MatX reference = K.llt().solve(MatX::Identity(n, n));
    EXPECT_LT(((inverse - reference).array() / reference.cwiseAbs().maxCoeff()).abs().maxCoeff(),
              1e-8)
        << n;
  }
}

TEST(SmallSpdInverse, RefusesMatricesThatAreNotPositiveDefinite) {
  SmallSpdInverse inverter;
  MatX K = MatX::Identity(4, 4);
  K(2, 2) = -1.0;
  MatX inverse = MatX::Constant(4, 4, 7.0);
  EXPECT_FALSE(inverter.invert(K.data(), 4, inverse.data()));
  EXPECT_EQ(inverse, MatX::Constant(4, 4, 7.0));
  K(2, 2) = 1.0;
  K(0, 1) = K(1, 0) = 2.0;  // indefinite with a positive diagonal
  EXPECT_FALSE(inverter.invert(K.data(), 4, inverse.data()));
}

TEST(SmallSpdInverse, DoesNotAllocate) {
  SmallSpdInverse inverter;
  const MatX K = badlyScaledSpd(24, 3.0, 3u);
  MatX inverse(24, 24);
  const long before = test::allocationCount();
  Eigen::internal::set_is_malloc_allowed(false);
  const bool ok = inverter.invert(K.data(), 24, inverse.data());
  Eigen::internal::set_is_malloc_allowed(true);
  EXPECT_TRUE(ok);
  EXPECT_EQ(test::allocationCount(), before);
}

}  // namespace
}  // namespace subsim
