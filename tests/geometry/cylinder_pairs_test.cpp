// Cylinder against plane (rim points) and the GJK/EPA pairs (capsule-, box-, cylinder-cylinder).
#include <gtest/gtest.h>

#include <cmath>

#include "geometry/geometry_test_util.hpp"

namespace subsim {
namespace {

using test::axisAngle;
using test::collide;
using test::expectConsistent;
using test::makePose;
using test::minGap;

const Quat kCylinderAlongX = axisAngle(M_PI / 2, Vec3::UnitY());

TEST(CylinderPlane, StandingGivesFourPoints) {
  const Shape cyl = Shape::cylinder(0.3, 0.5);
  const Quat qp = axisAngle(0.2, Vec3(1, 1, 0));
  const Pose plane = makePose(Vec3(0, 0, -0.2), qp);
  for (const double gap : {0.02, 0.0, -0.01}) {
    const Pose pc = plane * makePose(Vec3(0.3, 0.1, 0.5 + gap), axisAngle(0.9, Vec3::UnitZ()));
    const ContactManifold m = collide(cyl, pc, Shape::plane(), plane, 0.05);
    ASSERT_EQ(m.count, 4);
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(m.points[i].gap, gap, 1e-12);
      EXPECT_TRUE(m.points[i].normal.isApprox(qp * Vec3::UnitZ(), 1e-12));
      EXPECT_EQ(m.points[i].feature, static_cast<std::uint32_t>(i));  // bottom cap, k = 0..3
    }
    // Spread at 90 degrees around the rim: the diagonals are diameters.
    EXPECT_NEAR((m.points[0].point - m.points[2].point).norm(), 0.6, 1e-12);
    EXPECT_NEAR((m.points[1].point - m.points[3].point).norm(), 0.6, 1e-12);
    expectConsistent(cyl, pc, Shape::plane(), plane, 0.05, m);
  }
}

TEST(CylinderPlane, LyingGivesTwoPoints) {
  const Shape cyl = Shape::cylinder(0.3, 0.5);
  const Pose plane = makePose(Vec3::Zero());
  const Pose pc =
      makePose(Vec3(0, 0, 0.3 - 0.005), axisAngle(0.4, Vec3::UnitZ()) * kCylinderAlongX);
  const ContactManifold m = collide(cyl, pc, Shape::plane(), plane, 0.05);
  ASSERT_EQ(m.count, 2);
  EXPECT_NEAR(m.points[0].gap, -0.005, 1e-12);
  EXPECT_NEAR(m.points[1].gap, -0.005, 1e-12);
  EXPECT_NEAR((m.points[0].point - m.points[1].point).norm(), 1.0, 1e-12);
  EXPECT_EQ(m.points[0].feature, 0u);
  EXPECT_EQ(m.points[1].feature, 4u);
  expectConsistent(cyl, pc, Shape::plane(), plane, 0.05, m);
}

TEST(CylinderPlane, TiltedRestsOnItsLowestRimPoint) {
  const Shape cyl = Shape::cylinder(0.3, 0.5);
  const Pose plane = makePose(Vec3::Zero());
  for (const double tilt : {0.5, 0.05}) {  // beyond and within the "flat cap" threshold
    const double low = 0.5 * std::cos(tilt) + 0.3 * std::sin(tilt);
    const Pose pc = makePose(Vec3(0.1, 0.2, low + 0.001), axisAngle(tilt, Vec3(1, 1, 0)));
    const ContactManifold m = collide(cyl, pc, Shape::plane(), plane, 0.01);
    ASSERT_EQ(m.count, 1) << tilt;
    EXPECT_NEAR(m.points[0].gap, 0.001, 1e-12);
    EXPECT_EQ(m.points[0].feature, 0u);
    // With a margin covering the whole cap, the nearly-flat cap has 4 rim points.
    const ContactManifold wide = collide(cyl, pc, Shape::plane(), plane, 0.2);
    EXPECT_EQ(wide.count, tilt < 0.1 ? 4 : 1) << tilt;
    EXPECT_NEAR(minGap(wide), 0.001, 1e-12);
    expectConsistent(cyl, pc, Shape::plane(), plane, 0.2, wide);
  }
}

TEST(CylinderCylinder, SideBySideAndStacked) {
  const Shape a = Shape::cylinder(0.3, 0.5), b = Shape::cylinder(0.2, 0.4);
  const Pose pb = makePose(Vec3(0.1, 0.1, 0.0));
  const Vec3 dir = Vec3(0.6, 0.8, 0.0);
  for (const double gap : {0.03, -0.02}) {
    const Pose pa = makePose(pb.position + (0.5 + gap) * dir + Vec3(0, 0, 0.1));
    const ContactManifold m = collide(a, pa, b, pb, 0.05);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, gap, 1e-8);
    EXPECT_TRUE(m.points[0].normal.isApprox(dir, 1e-6));
    expectConsistent(a, pa, b, pb, 0.05, m, 1e-8);
  }
  for (const double gap : {0.03, -0.02}) {  // a standing on b, offset sideways
    const Pose pa =
        makePose(pb.position + Vec3(0.1, -0.05, 0.9 + gap), axisAngle(0.7, Vec3::UnitZ()));
    const ContactManifold m = collide(a, pa, b, pb, 0.05);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, gap, 1e-8);
    EXPECT_TRUE(m.points[0].normal.isApprox(Vec3::UnitZ(), 1e-6));
    expectConsistent(a, pa, b, pb, 0.05, m, 1e-8);
  }
}

TEST(CapsuleCylinder, LyingAcrossTheCapAndBeside) {
  const Shape cap = Shape::capsule(0.1, 0.4);
  const Shape cyl = Shape::cylinder(0.5, 0.3);
  const Pose pc = makePose(Vec3::Zero());
  for (const double gap : {0.02, -0.01}) {
    const Pose pk =
        makePose(Vec3(0.05, 0.1, 0.3 + 0.1 + gap), axisAngle(0.3, Vec3::UnitZ()) * kCylinderAlongX);
    // Flat on the cap: supported at both ends of the segment (features 0 and 1), not at one
    // point it could pivot about.
    const ContactManifold m = collide(cap, pk, cyl, pc, 0.05);
    ASSERT_EQ(m.count, 2);
    const Vec3 axis = pk.rotate(Vec3::UnitZ());
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR(m.points[i].gap, gap, 1e-8);
      EXPECT_TRUE(m.points[i].normal.isApprox(Vec3::UnitZ(), 1e-6));
      EXPECT_NEAR(std::abs(axis.dot(m.points[i].point - pk.position)), 0.4, 1e-8);
    }
    EXPECT_NE(m.points[0].feature, m.points[1].feature);
    expectConsistent(cap, pk, cyl, pc, 0.05, m, 1e-8);
  }
  // Parallel to the axis, beside the side: both ends again.
  const Pose side = makePose(Vec3(0.0, 0.5 + 0.1 + 0.02, 0.0));
  const ContactManifold m = collide(cap, side, cyl, pc, 0.05);
  ASSERT_EQ(m.count, 2);
  for (int i = 0; i < 2; ++i) {
    EXPECT_NEAR(m.points[i].gap, 0.02, 1e-8);
    EXPECT_TRUE(m.points[i].normal.isApprox(Vec3::UnitY(), 1e-6));
  }
  // Tilted across the side (one end lower): the lower end's contact is the deepest, and the
  // upper end, within the margin, is there too, so the capsule cannot pivot into the side about
  // its lowest point (a net link across a truck's tyre, schur_scenes.cpp).
  const Shape shorter = Shape::capsule(0.1, 0.25);  // its ends beside the side, not the caps
  const Pose tilted = makePose(Vec3(0.0, 0.5 + 0.1 + 0.02, 0.0), axisAngle(0.05, Vec3::UnitX()));
  const ContactManifold t = collide(shorter, tilted, cyl, pc, 0.1);
  ASSERT_EQ(t.count, 2);
  EXPECT_NEAR(std::min(t.points[0].gap, t.points[1].gap), 0.02 - 0.25 * std::sin(0.05), 1e-8);
  EXPECT_NEAR(std::max(t.points[0].gap, t.points[1].gap), 0.02 + 0.25 * std::sin(0.05), 1e-8);
  expectConsistent(shorter, tilted, cyl, pc, 0.1, t, 1e-8);
}

TEST(BoxCylinder, BoxOnCapAndCylinderLyingOnBox) {
  const Shape box = Shape::box(Vec3(0.2, 0.3, 0.1));
  const Shape cyl = Shape::cylinder(0.4, 0.5);
  const Pose pc = makePose(Vec3(1, 1, 1));
  for (const double gap : {0.02, -0.01}) {
    const Pose pb = makePose(Vec3(1.1, 0.9, 1.0 + 0.5 + 0.1 + gap), axisAngle(0.5, Vec3::UnitZ()));
    const ContactManifold m = collide(box, pb, cyl, pc, 0.05);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, gap, 1e-8);
    EXPECT_TRUE(m.points[0].normal.isApprox(Vec3::UnitZ(), 1e-6));
    expectConsistent(box, pb, cyl, pc, 0.05, m, 1e-8);
  }
  const Shape base = Shape::box(Vec3(1.0, 1.0, 0.2));
  const Pose lying = makePose(Vec3(0.0, 0.1, 0.2 + 0.4 + 0.01), kCylinderAlongX);
  const ContactManifold m = collide(cyl, lying, base, makePose(Vec3::Zero()), 0.05);
  ASSERT_EQ(m.count, 1);
  EXPECT_NEAR(m.points[0].gap, 0.01, 1e-8);
  EXPECT_TRUE(m.points[0].normal.isApprox(Vec3::UnitZ(), 1e-6));
}

}  // namespace
}  // namespace subsim
