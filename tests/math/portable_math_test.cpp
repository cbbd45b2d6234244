// math/portable_math: agreement with libm to within 2 ulp over the ranges the simulator uses
// (libm's own variants differ from each other by an ulp, so an exact match is not the test), the
// special values of the C standard, the identities that tie the functions together, and the
// quaternion builders against Eigen's AngleAxis.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "subsim/math/portable_math.hpp"
#include "subsim/math/so3.hpp"

namespace subsim {
namespace {

// Distance in units in the last place (floating-point numbers ordered as integers).
std::int64_t ulpDistance(double a, double b) {
  if (a == b) return 0;
  auto ordered = [](double x) {
    std::int64_t i;
    std::memcpy(&i, &x, sizeof i);
    return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
  };
  const std::int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

TEST(PortableMath, SinAndCosWithinTwoUlpOfLibm) {
  std::mt19937_64 rng(7);
  for (const double range : {1.0, 4.0, 100.0, 1e4, 8e5}) {
    std::uniform_real_distribution<double> uniform(-range, range);
    std::int64_t worst_sin = 0, worst_cos = 0;
    for (int i = 0; i < 200000; ++i) {
      const double x = uniform(rng);
      double s, c;
      portableSinCos(x, s, c);
      worst_sin = std::max(worst_sin, ulpDistance(s, std::sin(x)));
      worst_cos = std::max(worst_cos, ulpDistance(c, std::cos(x)));
      ASSERT_EQ(portableSin(x), s);
      ASSERT_EQ(portableCos(x), c);
    }
    EXPECT_LE(worst_sin, 2) << "range " << range;
    EXPECT_LE(worst_cos, 2) << "range " << range;
  }
}

TEST(PortableMath, AtanAndAtan2WithinTwoUlpOfLibm) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> uniform(-10.0, 10.0);
  std::int64_t worst_atan = 0, worst_atan2 = 0;
  for (int i = 0; i < 200000; ++i) {
    const double y = uniform(rng), x = uniform(rng);
    const double t = x * std::exp2(uniform(rng) * 3.0);  // also far from 1 in magnitude
    worst_atan = std::max(worst_atan, ulpDistance(portableAtan(t), std::atan(t)));
    worst_atan2 = std::max(worst_atan2, ulpDistance(portableAtan2(y, x), std::atan2(y, x)));
  }
  EXPECT_LE(worst_atan, 2);
  EXPECT_LE(worst_atan2, 2);
}

TEST(PortableMath, SpecialValuesFollowTheCStandard) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(portableSin(inf)));
  EXPECT_TRUE(std::isnan(portableCos(-inf)));
  EXPECT_TRUE(std::isnan(portableSin(std::nan(""))));
  EXPECT_EQ(portableSin(0.0), 0.0);
  EXPECT_TRUE(std::signbit(portableSin(-0.0)));
  EXPECT_EQ(portableCos(0.0), 1.0);
  EXPECT_EQ(portableSin(1e-300), 1e-300);
  const double values[] = {0.0, -0.0, inf, -inf, 1.0, -1.0, 1e-300, 1e300};
  for (const double y : values)
    for (const double x : values) {
      const double got = portableAtan2(y, x), want = std::atan2(y, x);
      EXPECT_EQ(got, want) << "atan2(" << y << ", " << x << ")";
      EXPECT_EQ(std::signbit(got), std::signbit(want)) << "atan2(" << y << ", " << x << ")";
    }
  EXPECT_TRUE(std::isnan(portableAtan2(std::nan(""), 1.0)));
  EXPECT_TRUE(std::isnan(portableAtan(std::nan(""))));
}

TEST(PortableMath, PythagorasAndOddEvenSymmetry) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> uniform(-50.0, 50.0);
  for (int i = 0; i < 10000; ++i) {
    const double x = uniform(rng);
    double s, c;
    portableSinCos(x, s, c);
    EXPECT_NEAR(s * s + c * c, 1.0, 4e-16);
    EXPECT_EQ(portableSin(-x), -s);
    EXPECT_EQ(portableCos(-x), c);
    // atan2 inverts the pair: the angle comes back modulo 2 pi.
    const double back = portableAtan2(s, c);
    EXPECT_NEAR(std::remainder(back - x, 2.0 * M_PI), 0.0, 1e-13 * std::max(1.0, std::abs(x)));
  }
}

TEST(PortableMath, QuaternionBuildersMatchEigen) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uniform(-4.0, 4.0);
  for (int i = 0; i < 1000; ++i) {
    const Vec3 axis = Vec3(uniform(rng), uniform(rng), uniform(rng)).normalized();
    const double angle = uniform(rng);
    const Quat ours = quatFromAxisAngle(axis, angle);
    const Quat eigen(Eigen::AngleAxisd(angle, axis));
    EXPECT_LT((ours.coeffs() - eigen.coeffs()).cwiseAbs().maxCoeff(), 1e-15);
    // URDF's fixed-axis roll, pitch, yaw: Rz(yaw) Ry(pitch) Rx(roll).
    const double roll = uniform(rng), pitch = uniform(rng), yaw = uniform(rng);
    const Mat3 R =
        (Eigen::AngleAxisd(yaw, Vec3::UnitZ()) * Eigen::AngleAxisd(pitch, Vec3::UnitY()) *
         Eigen::AngleAxisd(roll, Vec3::UnitX()))
            .toRotationMatrix();
    EXPECT_LT((quatFromRpy(roll, pitch, yaw).toRotationMatrix() - R).cwiseAbs().maxCoeff(), 1e-14);
  }
}

}  // namespace
}  // namespace subsim
