// The cone operators and their generalised Jacobians, region by region, against finite
// differences away from the kinks.
#include <gtest/gtest.h>

#include <random>

#include "subsim/problem/cone_projection.hpp"

namespace subsim {
namespace {

enum class Region { Open, Stick, Slip };

/// A random lambda* strictly inside one region of the given operator's partition (margins keep
/// finite differences away from the kinks).
Vec3 sample(std::mt19937& rng, Region region, double mu, bool prox) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (;;) {
    const Vec3 x(u(rng), u(rng), u(rng));
    const double n = x[0], tn = x.tail<2>().norm();
    if (tn < 1e-3) continue;
    bool ok = false;
    if (prox) {
      if (region == Region::Stick) ok = tn < mu * n - 1e-3;
      if (region == Region::Open) ok = mu * tn < -n - 1e-3;
      if (region == Region::Slip) ok = tn > mu * n + 1e-3 && mu * tn > -n + 1e-3;
    } else {
      if (region == Region::Open) ok = n < -1e-3;
      if (region == Region::Stick) ok = n > 1e-3 && tn < mu * n - 1e-3;
      if (region == Region::Slip) ok = n > 1e-3 && tn > mu * n + 1e-3;
    }
    if (ok) return x;
  }
}

template <typename Projection>
Mat3 finiteDifference(Projection project, const Vec3& x) {
  Mat3 G;
  const double h = 1e-7;
  for (int k = 0; k < 3; ++k) {
    Vec3 dx = Vec3::Zero();
    dx[k] = h;
    G.col(k) = (project(x + dx) - project(x - dx)) / (2.0 * h);
  }
  return G;
}

class ConeJacobian : public ::testing::TestWithParam<Region> {};

TEST_P(ConeJacobian, StrictMatchesFiniteDifferences) {
  std::mt19937 rng(7);
  for (double mu : {0.2, 0.5, 1.3}) {
    for (int trial = 0; trial < 200; ++trial) {
      const Vec3 x = sample(rng, GetParam(), mu, false);
      const Mat3 fd = finiteDifference([mu](const Vec3& y) { return projectConeStrict(y, mu); }, x);
      EXPECT_LT((jacobianConeStrict(x, mu) - fd).cwiseAbs().maxCoeff(), 1e-6)
          << "mu " << mu << " at " << x.transpose();
    }
  }
}

TEST_P(ConeJacobian, ProxMatchesFiniteDifferences) {
  std::mt19937 rng(11);
  for (double mu : {0.2, 0.5, 1.3}) {
    for (int trial = 0; trial < 200; ++trial) {
      const Vec3 x = sample(rng, GetParam(), mu, true);
      const Mat3 fd = finiteDifference([mu](const Vec3& y) { return projectConeProx(y, mu); }, x);
      EXPECT_LT((jacobianConeProx(x, mu) - fd).cwiseAbs().maxCoeff(), 1e-6)
          << "mu " << mu << " at " << x.transpose();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Regions, ConeJacobian,
                         ::testing::Values(Region::Open, Region::Stick, Region::Slip));

TEST(ConeProjection, ProxIsTheEuclideanProjection) {
  // Result in the cone, idempotent, and the residual is normal to the cone at the result:
  // (x - p) . p = 0 and (x - p) . (q - p) <= 0 for cone points q.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double mu = 0.6;
  for (int trial = 0; trial < 1000; ++trial) {
    const Vec3 x(u(rng), u(rng), u(rng));
    const Vec3 p = projectConeProx(x, mu);
    EXPECT_LE(p.tail<2>().norm(), mu * p[0] + 1e-12);
    EXPECT_LT((projectConeProx(p, mu) - p).norm(), 1e-12);
    EXPECT_NEAR((x - p).dot(p), 0.0, 1e-12);
    const Vec3 q(std::abs(u(rng)), 0.0, 0.0);
    const Vec3 q2 = Vec3(1.0, mu * 0.99, 0.0) * std::abs(u(rng));
    EXPECT_LE((x - p).dot(q - p), 1e-12);
    EXPECT_LE((x - p).dot(q2 - p), 1e-12);
  }
}

TEST(ConeProjection, StrictOperatorSatisfiesSignoriniCoulomb) {
  // The strict operator clamps the normal first: lambda_n = max(n*, 0) exactly and the
  // tangential part is t* or its scaling onto the disc of radius mu lambda_n.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double mu = 0.4;
  for (int trial = 0; trial < 1000; ++trial) {
    const Vec3 x(u(rng), u(rng), u(rng));
    const Vec3 l = projectConeStrict(x, mu);
    EXPECT_DOUBLE_EQ(l[0], std::max(x[0], 0.0));
    EXPECT_LE(l.tail<2>().norm(), mu * l[0] + 1e-15);
    // Same direction as t* (or zero).
    EXPECT_NEAR(l[1] * x[2] - l[2] * x[1], 0.0, 1e-15);
    EXPECT_GE(l.tail<2>().dot(x.tail<2>()), -1e-15);
  }
}

}  // namespace
}  // namespace subsim
