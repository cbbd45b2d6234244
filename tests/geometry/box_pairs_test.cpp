// Box against plane and box: resting manifolds, edge-edge, corner-corner, feature stability.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "geometry/geometry_test_util.hpp"

namespace subsim {
namespace {

using test::axisAngle;
using test::collide;
using test::expectConsistent;
using test::makePose;
using test::minGap;

std::set<std::uint32_t> features(const ContactManifold& m) {
  std::set<std::uint32_t> f;
  for (int i = 0; i < m.count; ++i) f.insert(m.points[i].feature);
  return f;
}

TEST(BoxPlane, RestingFlatGivesFourPointsAtItsHeight) {
  const Shape box = Shape::box(Vec3(0.5, 0.3, 0.2));
  const Quat qp = axisAngle(0.25, Vec3(1, -2, 0));
  const Pose plane = makePose(Vec3(0.1, 0.2, -0.3), qp);
  for (const double gap : {0.04, 0.0, -0.01}) {
    // Box aligned with the plane frame, yawed about the plane normal.
    const Pose pb = plane * makePose(Vec3(0.4, -0.7, 0.2 + gap), axisAngle(0.6, Vec3::UnitZ()));
    const ContactManifold m = collide(box, pb, Shape::plane(), plane, 0.05);
    ASSERT_EQ(m.count, 4);
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(m.points[i].gap, gap, 1e-12);
      EXPECT_TRUE(m.points[i].normal.isApprox(qp * Vec3::UnitZ(), 1e-12));
    }
    EXPECT_EQ(features(m), (std::set<std::uint32_t>{0, 1, 2, 3}));  // the -z vertices
    expectConsistent(box, pb, Shape::plane(), plane, 0.05, m);
  }
}

TEST(BoxPlane, MarginFiltersAndTiltSelectsVertices) {
  const Shape box = Shape::box(Vec3(0.5, 0.5, 0.5));
  const Pose plane = makePose(Vec3::Zero());
  EXPECT_EQ(collide(box, makePose(Vec3(0, 0, 0.56)), Shape::plane(), plane, 0.05).count, 0);
  EXPECT_EQ(collide(box, makePose(Vec3(0, 0, 0.55)), Shape::plane(), plane, 0.05).count, 0);
  EXPECT_EQ(collide(box, makePose(Vec3(0, 0, 0.549)), Shape::plane(), plane, 0.05).count, 4);
  // Balanced on an edge (45 degrees about x): the two vertices of the lowest edge.
  const double h = 0.5 * std::sqrt(2.0);
  const Pose edge = makePose(Vec3(0, 0, h - 0.01), axisAngle(M_PI / 4, Vec3::UnitX()));
  const ContactManifold m = collide(box, edge, Shape::plane(), plane, 0.05);
  ASSERT_EQ(m.count, 2);
  EXPECT_NEAR(m.points[0].gap, -0.01, 1e-12);
  EXPECT_NEAR(m.points[1].gap, -0.01, 1e-12);
  // A corner down: one vertex at the depth of the body diagonal.
  const Vec3 diag = Vec3(1, 1, 1).normalized();
  const Quat corner = axisAngle(std::acos(-diag.z()), diag.cross(-Vec3::UnitZ()));
  const Pose pc = makePose(Vec3(0, 0, 0.5 * std::sqrt(3.0) + 0.02), corner);
  const ContactManifold c = collide(box, pc, Shape::plane(), plane, 0.05);
  ASSERT_EQ(c.count, 1);
  EXPECT_NEAR(c.points[0].gap, 0.02, 1e-12);
  EXPECT_EQ(c.points[0].feature, 7u);
}

TEST(BoxPlane, FeaturesStableUnderSmallMotion) {
  const Shape box = Shape::box(Vec3(0.5, 0.3, 0.2));
  const Pose plane = makePose(Vec3::Zero());
  const ContactManifold m0 = collide(box, makePose(Vec3(0, 0, 0.2)), Shape::plane(), plane, 0.01);
  const ContactManifold m1 =
      collide(box, makePose(Vec3(0.01, -0.02, 0.199), axisAngle(0.003, Vec3(1, 2, 3))),
              Shape::plane(), plane, 0.01);
  ASSERT_EQ(m0.count, 4);
  EXPECT_EQ(features(m0), features(m1));
}

// Box a sits on box b with a's bottom face on b's top face.
TEST(BoxBox, FaceToFaceGivesFourPoints) {
  const Shape big = Shape::box(Vec3(1.0, 0.8, 0.5));
  const Shape small = Shape::box(Vec3(0.4, 0.3, 0.25));
  const Quat qb = axisAngle(0.3, Vec3(-1, 2, 0.5));
  const Pose pb = makePose(Vec3(0.3, -0.1, 0.2), qb);
  for (const double gap : {0.03, 0.0, -0.02}) {
    const Pose pa = pb * makePose(Vec3(0.2, 0.1, 0.5 + 0.25 + gap), axisAngle(0.5, Vec3::UnitZ()));
    for (const bool small_on_top : {true, false}) {
      // Small on big, and big on small (the big one's face overhangs: the reference face flips).
      const Shape& top = small_on_top ? small : big;
      const Shape& bottom = small_on_top ? big : small;
      const Pose pt = small_on_top ? pa : pb * makePose(Vec3(0.2, 0.1, 0.25 + 0.5 + gap));
      const ContactManifold m = collide(top, pt, bottom, pb, 0.05);
      ASSERT_EQ(m.count, 4) << small_on_top;
      for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(m.points[i].gap, gap, 1e-12);
        EXPECT_TRUE(m.points[i].normal.isApprox(qb * Vec3::UnitZ(), 1e-12));
      }
      expectConsistent(top, pt, bottom, pb, 0.05, m);
    }
  }
}

TEST(BoxBox, EqualBoxesYawedReduceTheOctagonToFour) {
  const Shape box = Shape::box(Vec3(0.5, 0.5, 0.5));
  const Pose pb = makePose(Vec3::Zero());
  const Pose pa = makePose(Vec3(0, 0, 1.0 - 0.01), axisAngle(M_PI / 4, Vec3::UnitZ()));
  const ContactManifold m = collide(box, pa, box, pb, 0.05);
  ASSERT_EQ(m.count, 4);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(m.points[i].gap, -0.01, 1e-12);
  // Area spanned by the four kept points: at least half the octagon's.
  const Vec3 d1 = m.points[2].point - m.points[0].point, d2 = m.points[3].point - m.points[1].point;
  EXPECT_GT(0.5 * d1.cross(d2).norm(), 0.4);
  expectConsistent(box, pa, box, pb, 0.05, m);
}

TEST(BoxBox, SlightlyTiltedGivesVertexHeights) {
  const Shape box = Shape::box(Vec3(0.3, 0.3, 0.3));
  const Shape base = Shape::box(Vec3(2.0, 2.0, 0.5));
  const Pose pb = makePose(Vec3::Zero());
  const double tilt = 0.02;
  const Pose pa = makePose(Vec3(0.1, 0.2, 0.5 + 0.3 + 0.001), axisAngle(tilt, Vec3::UnitY()));
  const ContactManifold m = collide(box, pa, base, pb, 0.05);
  ASSERT_EQ(m.count, 4);
  // Vertex heights: centre height -/+ the rotated offsets.
  for (int i = 0; i < 4; ++i) {
    const double vertex_z = m.points[i].point.z() + 0.5 * m.points[i].gap;
    EXPECT_NEAR(m.points[i].gap, vertex_z - 0.5, 1e-12);
  }
  const double low = 0.801 - 0.3 * std::cos(tilt) - 0.3 * std::sin(tilt) - 0.5;
  EXPECT_NEAR(minGap(m), low, 1e-12);
  expectConsistent(box, pa, base, pb, 0.05, m);
}

TEST(BoxBox, CrossedEdgesGiveOnePoint) {
  const Shape lower = Shape::box(Vec3(0.5, 0.5, 0.5));
  const Shape upper = Shape::box(Vec3(0.4, 0.4, 0.4));
  const double s2 = std::sqrt(2.0);
  // lower's top edge runs along x at height 0.5 sqrt2; upper's bottom edge runs along y.
  const Pose pb = makePose(Vec3::Zero(), axisAngle(M_PI / 4, Vec3::UnitX()));
  for (const double gap : {0.02, 0.0, -0.03}) {
    const Pose pa = makePose(Vec3(0.05, -0.1, 0.9 * s2 + gap), axisAngle(M_PI / 4, Vec3::UnitY()));
    const ContactManifold m = collide(upper, pa, lower, pb, 0.05);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, gap, 1e-12);
    EXPECT_TRUE(m.points[0].normal.isApprox(Vec3::UnitZ(), 1e-12));
    // Where the edges cross: lower's edge at y = 0, upper's at x = 0.05.
    EXPECT_TRUE(m.points[0].point.isApprox(Vec3(0.05, 0.0, 0.5 * s2 + 0.5 * gap), 1e-12));
    EXPECT_GE(m.points[0].feature, 1u << 13);
    expectConsistent(upper, pa, lower, pb, 0.05, m);
  }
}

TEST(BoxBox, CornerToCornerWithinMarginUsesExactDistance) {
  const Shape box = Shape::box(Vec3(0.5, 0.5, 0.5));
  const Pose pb = makePose(Vec3::Zero());
  const Pose pa = makePose(Vec3(1.1, 1.1, 1.1));
  const ContactManifold m = collide(box, pa, box, pb, 0.2);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].gap, 0.1 * std::sqrt(3.0), 1e-9);
  EXPECT_TRUE(m.points[0].normal.isApprox(Vec3(1, 1, 1).normalized(), 1e-6));
  expectConsistent(box, pa, box, pb, 0.2, m, 1e-8);
  EXPECT_EQ(collide(box, pa, box, pb, 0.17).count, 0);
}

TEST(BoxBox, FeaturesStableUnderSmallMotion) {
  const Shape box = Shape::box(Vec3(0.4, 0.3, 0.25));
  const Shape base = Shape::box(Vec3(1.0, 1.0, 0.5));
  const Pose pb = makePose(Vec3::Zero());
  const ContactManifold m0 = collide(box, makePose(Vec3(0, 0, 0.75)), base, pb, 0.01);
  const ContactManifold m1 = collide(
      box, makePose(Vec3(0.01, -0.01, 0.749), axisAngle(0.002, Vec3(2, 1, 0))), base, pb, 0.01);
  ASSERT_EQ(m0.count, 4);
  ASSERT_EQ(m1.count, 4);
  EXPECT_EQ(features(m0), features(m1));
}

}  // namespace
}  // namespace subsim
