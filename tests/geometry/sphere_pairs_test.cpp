// Sphere against every shape: gaps, normals and points against hand-computed distances.
#include <gtest/gtest.h>

#include <cmath>

#include "geometry/geometry_test_util.hpp"

namespace subsim {
namespace {

using test::axisAngle;
using test::collide;
using test::expectConsistent;
using test::makePose;

TEST(SphereSphere, SeparatedTouchingPenetrating) {
  const Shape a = Shape::sphere(0.5), b = Shape::sphere(0.25);
  const Vec3 dir = Vec3(1.0, 2.0, -2.0) / 3.0;
  for (const double gap : {0.3, 0.0, -0.1}) {
    const Pose pb = makePose(Vec3(1.0, -1.0, 0.5));
    const Pose pa = makePose(pb.position + (0.75 + gap) * dir);
    const ContactManifold m = collide(a, pa, b, pb, 0.5);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, gap, 1e-12);
    EXPECT_TRUE(m.points[0].normal.isApprox(dir, 1e-12));
    // Midway between b's surface point and a's.
    EXPECT_TRUE(m.points[0].point.isApprox(pb.position + (0.25 + 0.5 * gap) * dir, 1e-12));
    EXPECT_EQ(m.points[0].feature, 0u);
    expectConsistent(a, pa, b, pb, 0.5, m);
  }
}

TEST(SphereSphere, ConcentricGivesDeterministicNormal) {
  const Shape s = Shape::sphere(0.5);
  const ContactManifold m = collide(s, makePose(Vec3::Zero()), s, makePose(Vec3::Zero()), 0.0);
  ASSERT_EQ(m.count, 1);
  EXPECT_DOUBLE_EQ(m.points[0].gap, -1.0);
  EXPECT_NEAR(m.points[0].normal.norm(), 1.0, 1e-12);
}

TEST(SphereCapsule, BesideMiddleBeyondEndAndOnAxis) {
  // Capsule along world x (local z rotated), half length 1, radius 0.2.
  const Shape cap = Shape::capsule(0.2, 1.0);
  const Pose pc = makePose(Vec3(0, 0, 1), axisAngle(M_PI / 2, Vec3::UnitY()));
  const Shape s = Shape::sphere(0.3);
  {  // beside the middle: distance to the axis 0.7
    const Pose ps = makePose(Vec3(0.4, 0.7, 1.0));
    const ContactManifold m = collide(s, ps, cap, pc, 1.0);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, 0.7 - 0.5, 1e-12);
    EXPECT_TRUE(m.points[0].normal.isApprox(Vec3::UnitY(), 1e-12));
    expectConsistent(s, ps, cap, pc, 1.0, m);
  }
  {  // beyond the +x end: distance to the end centre (1,0,1)
    const Pose ps = makePose(Vec3(1.3, 0.0, 1.4));
    const ContactManifold m = collide(s, ps, cap, pc, 1.0);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, 0.5 - 0.5, 1e-12);
    EXPECT_TRUE(m.points[0].normal.isApprox(Vec3(0.6, 0.0, 0.8), 1e-12));
  }
  {  // centre on the axis: pushed out perpendicular to it
    const Pose ps = makePose(Vec3(0.2, 0.0, 1.0));
    const ContactManifold m = collide(s, ps, cap, pc, 0.0);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, -0.5, 1e-12);
    EXPECT_NEAR(m.points[0].normal.dot(Vec3::UnitX()), 0.0, 1e-12);
    expectConsistent(s, ps, cap, pc, 0.0, m);
  }
}

TEST(SphereBox, FaceEdgeCornerAndInside) {
  const Shape box = Shape::box(Vec3(1.0, 0.5, 0.25));
  const Quat q = axisAngle(0.3, Vec3(1, 2, 3));
  const Pose pb = makePose(Vec3(0.5, -0.2, 2.0), q);
  const Shape s = Shape::sphere(0.1);
  const auto at = [&](const Vec3& local) { return makePose(pb.transformPoint(local)); };
  struct Case {
    Vec3 local;
    double gap;
    Vec3 normal_local;
  };
  const Case cases[] = {
      {Vec3(0.3, 0.1, 0.25 + 0.4), 0.3, Vec3::UnitZ()},       // over the top face
      {Vec3(1.3, 0.9, 0.0), 0.5 - 0.1, Vec3(0.6, 0.8, 0.0)},  // beside an edge
      {Vec3(1.2, -0.7, -0.45), std::sqrt(0.12) - 0.1, Vec3(1, -1, -1) / std::sqrt(3.0)},  // corner
      {Vec3(0.9, 0.0, 0.0), -(0.1 + 0.1), Vec3::UnitX()},     // inside, nearest +x
      {Vec3(0.0, 0.1, -0.2), -(0.05 + 0.1), -Vec3::UnitZ()},  // inside, nearest -z
  };
  for (const Case& c : cases) {
    const Pose ps = at(c.local);
    const ContactManifold m = collide(s, ps, box, pb, 1.0);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, c.gap, 1e-12);
    if (c.normal_local.norm() > 0.0) {
      EXPECT_TRUE(m.points[0].normal.isApprox(q * c.normal_local, 1e-12));
    }
    expectConsistent(s, ps, box, pb, 1.0, m);
  }
}

TEST(SphereCylinder, SideCapRimAndInside) {
  const Shape cyl = Shape::cylinder(0.5, 1.0);
  const Quat q = axisAngle(1.1, Vec3(0.3, -1, 0.2));
  const Pose pc = makePose(Vec3(-1.0, 2.0, 0.3), q);
  const Shape s = Shape::sphere(0.2);
  struct Case {
    Vec3 local;
    double gap;
    Vec3 normal_local;
  };
  const Case cases[] = {
      {Vec3(0.6, 0.8, 0.3), 1.0 - 0.5 - 0.2, Vec3(0.6, 0.8, 0.0)},  // beside the side
      {Vec3(0.1, -0.2, 1.5), 0.5 - 0.2, Vec3::UnitZ()},             // over the top cap
      {Vec3(0.0, -0.8, -1.4), 0.5 - 0.2, Vec3(0.0, -0.6, -0.8)},    // off the bottom rim
      {Vec3(0.0, 0.45, 0.2), -(0.05 + 0.2), Vec3::UnitY()},         // inside, nearest the side
      {Vec3(0.1, 0.0, -0.9), -(0.1 + 0.2), -Vec3::UnitZ()},         // inside, nearest a cap
      {Vec3(0.0, 0.0, 0.0), -(0.5 + 0.2), Vec3::Zero()},            // on the axis
  };
  for (const Case& c : cases) {
    const Pose ps = makePose(pc.transformPoint(c.local));
    const ContactManifold m = collide(s, ps, cyl, pc, 1.0);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, c.gap, 1e-12);
    if (c.normal_local.norm() > 0.0) {
      EXPECT_TRUE(m.points[0].normal.isApprox(q * c.normal_local, 1e-12));
    }
    expectConsistent(s, ps, cyl, pc, 1.0, m);
  }
}

TEST(SpherePlane, TiltedPlane) {
  const Quat q = axisAngle(0.4, Vec3(1, 1, 0));
  const Pose pp = makePose(Vec3(0.0, 0.0, -1.0), q);
  const Vec3 n = q * Vec3::UnitZ();
  const Shape s = Shape::sphere(0.3);
  for (const double height : {1.0, 0.3, 0.1, -0.5}) {
    const Pose ps = makePose(pp.position + Vec3(0.2, -0.4, 0.0).cross(n) + height * n);
    const ContactManifold m = collide(s, ps, Shape::plane(), pp, 0.5);
    if (height - 0.3 >= 0.5) {
      EXPECT_EQ(m.count, 0);
      continue;
    }
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].gap, height - 0.3, 1e-12);
    EXPECT_TRUE(m.points[0].normal.isApprox(n, 1e-12));
    expectConsistent(s, ps, Shape::plane(), pp, 0.5, m);
  }
}

}  // namespace
}  // namespace subsim
