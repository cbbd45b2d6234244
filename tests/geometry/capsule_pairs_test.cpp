// Capsule against capsule, plane and box, including the two-point configurations (lying along
// another capsule, on a plane, on a box face).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "geometry/geometry_test_util.hpp"

namespace subsim {
namespace {

using test::axisAngle;
using test::collide;
using test::expectConsistent;
using test::makePose;
using test::minGap;

const Quat kAlongX = axisAngle(M_PI / 2, Vec3::UnitY());   // local z onto world x
const Quat kAlongY = axisAngle(-M_PI / 2, Vec3::UnitX());  // local z onto world y

TEST(CapsuleCapsule, CrossingAxes) {
  const Shape a = Shape::capsule(0.2, 1.0), b = Shape::capsule(0.3, 0.8);
  const Pose pb = makePose(Vec3::Zero(), kAlongY);
  for (const double gap : {0.5, 0.0, -0.1}) {
    const Pose pa = makePose(Vec3(0.1, 0.2, 0.5 + gap), kAlongX);
    // With a 1 m margin the ends of the shorter capsule b, at y = +-0.8, are in it as well.
    const ContactManifold m = collide(a, pa, b, pb, 1.0);
    ASSERT_EQ(m.count, 3);
    EXPECT_NEAR(m.points[0].gap, gap, 1e-12);
    EXPECT_TRUE(m.points[0].normal.isApprox(Vec3::UnitZ(), 1e-12));
    EXPECT_TRUE(m.points[0].point.isApprox(Vec3(0.0, 0.2, 0.3 + 0.5 * gap), 1e-12));
    for (int end = 0; end < 2; ++end) {
      const ManifoldPoint& p = m.points[1 + end];
      EXPECT_EQ(p.feature, 3u + end);
      const double dy = (end == 0 ? -0.8 : 0.8) - 0.2;  // from a's axis to b's end, across
      EXPECT_NEAR(p.gap, std::hypot(dy, 0.5 + gap) - 0.5, 1e-12);
    }
    expectConsistent(a, pa, b, pb, 1.0, m);
    // Within a small margin only the closest point.
    EXPECT_EQ(collide(a, pa, b, pb, 0.01).count, gap < 0.01 ? 1 : 0);
  }
}

TEST(CapsuleCapsule, LinkAcrossABarIsSupportedAtBothEnds) {
  // A chain link (r 0.025, 5 cm segment) lying across a bar (r 0.15, along y) on top of it,
  // touching at its middle: its ends are 1.8 mm above the bar, within a 5 mm margin.  The middle
  // alone would let it pivot and sink an end within one step; both ends are reported too.
  const Shape bar = Shape::capsule(0.15, 0.6), link = Shape::capsule(0.025, 0.025);
  const Pose pb = makePose(Vec3::Zero(), kAlongY);
  const Pose pa = makePose(Vec3(0, 0.1, 0.175), kAlongX);
  const ContactManifold m = collide(link, pa, bar, pb, 0.005);
  ASSERT_EQ(m.count, 3);
  expectConsistent(link, pa, bar, pb, 0.005, m);
  EXPECT_NEAR(m.points[0].gap, 0.0, 1e-12);
  const double end_gap = std::hypot(0.025, 0.175) - 0.175;
  for (int end = 0; end < 2; ++end) {
    EXPECT_NEAR(m.points[1 + end].gap, end_gap, 1e-12);
    // Midway between the surfaces, on the line from the bar's axis to the end's centre.
    const double x = 0.025 * (0.15 + 0.5 * end_gap) / std::hypot(0.025, 0.175);
    EXPECT_NEAR(m.points[1 + end].point.x(), end == 0 ? -x : x, 1e-12);
  }
  // The bar as a, the link as b: the same three contacts, the normal turned round.
  const ContactManifold r = collide(bar, pb, link, pa, 0.005);
  ASSERT_EQ(r.count, 3);
  expectConsistent(bar, pb, link, pa, 0.005, r);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(r.points[i].gap, m.points[i].gap, 1e-12);
    EXPECT_TRUE(r.points[i].normal.isApprox(-m.points[i].normal, 1e-12));
  }
}

TEST(CapsuleCapsule, LyingAlongAnotherGivesTwoPointsAtOverlapEnds) {
  const Shape a = Shape::capsule(0.2, 1.0), b = Shape::capsule(0.3, 1.0);
  const Pose pb = makePose(Vec3::Zero(), kAlongX);
  for (const double gap : {0.01, 0.0, -0.02}) {
    // a spans x in [-0.5, 1.5], b spans [-1, 1]: overlap [-0.5, 1].
    const Pose pa = makePose(Vec3(0.5, 0.0, 0.5 + gap), kAlongX);
    const ContactManifold m = collide(a, pa, b, pb, 0.05);
    ASSERT_EQ(m.count, 2);
    EXPECT_EQ(m.points[0].feature, 1u);
    EXPECT_EQ(m.points[1].feature, 2u);
    EXPECT_NEAR(m.points[0].point.x(), -0.5, 1e-12);
    EXPECT_NEAR(m.points[1].point.x(), 1.0, 1e-12);
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR(m.points[i].gap, gap, 1e-12);
      EXPECT_TRUE(m.points[i].normal.isApprox(Vec3::UnitZ(), 1e-12));
    }
    expectConsistent(a, pa, b, pb, 0.05, m);
  }
}

TEST(CapsuleCapsule, NearlyParallelCrossingKeepsTrueMinimum) {
  const Shape a = Shape::capsule(0.2, 1.0), b = Shape::capsule(0.3, 1.0);
  const Pose pb = makePose(Vec3::Zero(), kAlongX);
  // a's axis crosses b's (in plan) at the origin, 0.004 rad apart, 0.5 + 0.01 above.
  const Pose pa = makePose(Vec3(0.0, 0.0, 0.51), axisAngle(0.004, Vec3::UnitZ()) * kAlongX);
  const ContactManifold m = collide(a, pa, b, pb, 0.05);
  ASSERT_EQ(m.count, 3);
  EXPECT_NEAR(minGap(m), 0.01, 1e-12);
  EXPECT_EQ(m.points[2].feature, 0u);
  EXPECT_NEAR(m.points[2].gap, 0.01, 1e-12);
  expectConsistent(a, pa, b, pb, 0.05, m);
}

TEST(CapsuleCapsule, EndToEnd) {
  const Shape a = Shape::capsule(0.3, 1.0), b = Shape::capsule(0.3, 1.0);
  const Pose pb = makePose(Vec3::Zero(), kAlongX);
  const Pose pa = makePose(Vec3(2.65, 0.0, 0.0), kAlongX);
  const ContactManifold m = collide(a, pa, b, pb, 0.1);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].gap, 0.05, 1e-12);
  EXPECT_TRUE(m.points[0].normal.isApprox(Vec3::UnitX(), 1e-12));
}

TEST(CapsulePlane, LyingFlatGivesTwoPoints) {
  const Shape cap = Shape::capsule(0.25, 0.75);
  const Pose plane = makePose(Vec3(0, 0, 0.1));
  for (const double gap : {0.02, 0.0, -0.03}) {
    const Pose pc =
        makePose(Vec3(0.3, -0.2, 0.1 + 0.25 + gap), axisAngle(0.7, Vec3::UnitZ()) * kAlongX);
    const ContactManifold m = collide(cap, pc, Shape::plane(), plane, 0.05);
    ASSERT_EQ(m.count, 2);
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR(m.points[i].gap, gap, 1e-12);
      EXPECT_TRUE(m.points[i].normal.isApprox(Vec3::UnitZ(), 1e-12));
      EXPECT_EQ(m.points[i].feature, static_cast<std::uint32_t>(i));
    }
    EXPECT_NEAR((m.points[0].point - m.points[1].point).norm(), 1.5, 1e-12);
    expectConsistent(cap, pc, Shape::plane(), plane, 0.05, m);
  }
}

TEST(CapsulePlane, TiltedAndStanding) {
  const Shape cap = Shape::capsule(0.25, 0.75);
  const Pose plane = makePose(Vec3::Zero());
  {  // tilted by 30 degrees: low end 0.01 above touching, high end 0.75 higher
    const Quat q = axisAngle(M_PI / 6, Vec3::UnitY()) * kAlongX;
    const Pose pc = makePose(Vec3(0, 0, 0.25 + 0.01 + 0.375), q);
    const ContactManifold m = collide(cap, pc, Shape::plane(), plane, 0.05);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, 0.01, 1e-12);
    const ContactManifold all = collide(cap, pc, Shape::plane(), plane, 1.0);
    ASSERT_EQ(all.count, 2);
    EXPECT_NEAR(std::max(all.points[0].gap, all.points[1].gap), 0.76, 1e-12);
  }
  {  // standing on its lower end
    const Pose pc = makePose(Vec3(0, 0, 1.0 - 0.01));
    const ContactManifold m = collide(cap, pc, Shape::plane(), plane, 0.05);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, -0.01, 1e-12);
    EXPECT_EQ(m.points[0].feature, 0u);
  }
}

TEST(CapsuleBox, LyingOnFaceGivesTwoPoints) {
  const Shape box = Shape::box(Vec3(1.0, 1.0, 0.5));
  const Shape cap = Shape::capsule(0.1, 0.6);
  const Quat qb = axisAngle(0.3, Vec3(0.2, 0.1, 1.0));
  const Pose pb = makePose(Vec3(0.2, 0.3, -0.4), qb);
  for (const double gap : {0.03, 0.0, -0.02}) {
    const Pose pc =
        pb * makePose(Vec3(0.1, -0.2, 0.5 + 0.1 + gap), axisAngle(0.4, Vec3::UnitZ()) * kAlongX);
    const ContactManifold m = collide(cap, pc, box, pb, 0.05);
    ASSERT_EQ(m.count, 2);
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR(m.points[i].gap, gap, 1e-9);
      EXPECT_TRUE(m.points[i].normal.isApprox(qb * Vec3::UnitZ(), 1e-9));
    }
    EXPECT_NEAR((m.points[0].point - m.points[1].point).norm(), 1.2, 1e-6);
    expectConsistent(cap, pc, box, pb, 0.05, m);
  }
}

TEST(CapsuleBox, OverhangingIsSupportedAtTheEdge) {
  const Shape box = Shape::box(Vec3(1.0, 1.0, 0.5));
  const Shape cap = Shape::capsule(0.1, 0.6);
  const Pose pb = makePose(Vec3::Zero());
  // Spans x in [0.6, 1.8]; the box's top face ends at x = 1.
  const Pose pc = makePose(Vec3(1.2, 0.0, 0.5 + 0.1 + 0.01), kAlongX);
  const ContactManifold m = collide(cap, pc, box, pb, 0.05);
  ASSERT_EQ(m.count, 2);
  double xs[2];
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(m.points[i].gap, 0.01, 1e-9);
    EXPECT_TRUE(m.points[i].normal.isApprox(Vec3::UnitZ(), 1e-6));
    xs[i] = m.points[i].point.x();
  }
  EXPECT_NEAR(std::min(xs[0], xs[1]), 0.6, 1e-9);
  EXPECT_NEAR(std::max(xs[0], xs[1]), 1.0, 1e-5);
  expectConsistent(cap, pc, box, pb, 0.05, m);
}

TEST(CapsuleBox, AcrossAnEdgeUsesTheExactClosestPoint) {
  const Shape box = Shape::box(Vec3(1.0, 1.0, 0.5));
  const Shape cap = Shape::capsule(0.1, 0.5);
  const Pose pb = makePose(Vec3::Zero());
  const Vec3 out = Vec3(1, 0, 1).normalized();
  for (const double gap : {0.02, -0.03}) {
    // Perpendicular to the box edge (x = 1, z = 0.5), at 45 degrees, its middle nearest the edge.
    const Pose pc =
        makePose(Vec3(1.0, 0.3, 0.5) + (0.1 + gap) * out, axisAngle(3 * M_PI / 4, Vec3::UnitY()));
    const ContactManifold m = collide(cap, pc, box, pb, 0.1);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, gap, 1e-9);
    EXPECT_TRUE(m.points[0].normal.isApprox(out, 1e-6));
    expectConsistent(cap, pc, box, pb, 0.1, m);
  }
}

}  // namespace
}  // namespace subsim
