// PEG's candidate contacts of two boxes (box_box_subcontacts.hpp): a vertex over a face is one
// contact, over an edge a set of two planes, over a corner a set of three; crossing edges give
// their common normal; every gap is the plane distance, checked against the independent signed
// distance; the detectors take this path only when an object asks for it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "geometry/geometry_test_util.hpp"
#include "subsim/geometry/box_box_subcontacts.hpp"
#include "subsim/geometry/collision_detector.hpp"

namespace subsim {
namespace {

using test::axisAngle;
using test::makePose;

std::vector<ContactPoint> candidates(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                                     double margin) {
  std::vector<ContactPoint> out;
  collideBoxBoxSubcontacts(a, pa, b, pb, margin, 0, 1, out);
  return out;
}

/// The contacts of each subcontact set.
std::map<int, std::vector<ManifoldPoint>> bySet(const std::vector<ContactPoint>& contacts) {
  std::map<int, std::vector<ManifoldPoint>> sets;
  for (const ContactPoint& c : contacts)
    if (c.geometry.subcontact_set >= 0) sets[c.geometry.subcontact_set].push_back(c.geometry);
  return sets;
}

const Shape kUnitCube = Shape::box(Vec3::Constant(0.5));

TEST(BoxSubcontacts, AVertexOverAFaceIsOneContactOverAnEdgeTwoPlanesOverACornerThree) {
  // A small cube turned 45 degrees about z and tilted so one vertex points down, over a static
  // unit cube whose top is at z = 0.5.  The lowest vertex sits at height 0.5 + gap.
  const Shape small = Shape::box(Vec3::Constant(0.1));
  const Quat tilt = axisAngle(std::atan(std::sqrt(2.0)), Vec3(1, -1, 0));  // a vertex down
  const double reach = 0.1 * std::sqrt(3.0);                               // centre to vertex
  const double gap = 0.004;
  const auto at = [&](double x, double y) {
    return candidates(small, makePose(Vec3(x, y, 0.5 + gap + reach), tilt), kUnitCube,
                      makePose(Vec3::Zero()), 0.01);
  };
  // Over the middle of the top face: one contact along +z with the gap.
  {
    const std::vector<ContactPoint> c = at(0.0, 0.0);
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].geometry.subcontact_set, -1);
    EXPECT_NEAR(c[0].geometry.gap, gap, 1e-12);
    EXPECT_TRUE(c[0].geometry.normal.isApprox(Vec3::UnitZ(), 1e-12));
  }
  // 3 mm beyond the +x edge: the top plane (gap) and the +x plane (3 mm), the set of the small
  // cube's vertex 0 (its lowest).
  {
    const auto sets = bySet(at(0.503, 0.0));
    ASSERT_EQ(sets.count(0), 1u);
    const std::vector<ManifoldPoint>& s = sets.at(0);
    ASSERT_EQ(s.size(), 2u);
    std::map<double, Vec3> plane;  // gap -> normal
    for (const ManifoldPoint& m : s) plane[m.gap] = m.normal;
    EXPECT_NEAR(plane.begin()->first, 0.003, 1e-9);
    EXPECT_TRUE(plane.begin()->second.isApprox(Vec3::UnitX(), 1e-12));
    EXPECT_NEAR(plane.rbegin()->first, gap, 1e-9);
    EXPECT_TRUE(plane.rbegin()->second.isApprox(Vec3::UnitZ(), 1e-12));
  }
  // Beyond the (+x, -y) corner: three planes.  (The big cube's corner, a few mm from two faces
  // of the tilted cube, is a set of its own.)
  {
    const auto sets = bySet(at(0.502, -0.503));
    ASSERT_EQ(sets.count(0), 1u);
    EXPECT_EQ(sets.at(0).size(), 3u);
    EXPECT_EQ(sets.size(), 2u);
  }
  // Out of the margin beyond the corner: nothing.
  EXPECT_TRUE(at(0.509, -0.509).empty());
}

TEST(BoxSubcontacts, OneEndIsAVertexAndTheGapIsItsPlaneDistance) {
  // The peg of the paper 5 um beside the hole's edge, its bottom 2 mm above the top: every
  // vertex-face candidate joins a vertex of one box (on its surface) to the plane of a face of the
  // other, the gap apart along the normal.
  const Shape peg = Shape::box(Vec3::Constant(0.499995));
  const Pose pa = makePose(Vec3(0.0, 0.0, 1.499995 + 0.002));
  const Pose east = makePose(Vec3(1.0, 0.0, 0.5));
  const std::vector<ContactPoint> c = candidates(peg, pa, kUnitCube, east, 0.01);
  ASSERT_FALSE(c.empty());
  for (const ContactPoint& p : c) {
    const Vec3 on_b = p.geometry.point - 0.5 * p.geometry.gap * p.geometry.normal;
    const Vec3 on_a = p.geometry.point + 0.5 * p.geometry.gap * p.geometry.normal;
    const double vertex_end = std::min(std::abs(test::signedDistance(kUnitCube, east, on_b)),
                                       std::abs(test::signedDistance(peg, pa, on_a)));
    EXPECT_LE(vertex_end, 1e-12) << p.geometry.feature;
  }
  // The peg's two bottom vertices within the east cube's y range see its top plane (2 mm) and
  // its -x plane (5 um), a set of two each; the cube's two top vertices at the hole see the
  // peg's bottom plane (2 mm), its +x plane and one side plane (5 um each), a set of three each.
  const auto sets = bySet(c);
  int top = 0, side = 0, twos = 0, threes = 0;
  for (const auto& [id, members] : sets) {
    twos += members.size() == 2 ? 1 : 0;
    threes += members.size() == 3 ? 1 : 0;
    for (const ManifoldPoint& m : members) {
      top += m.normal.isApprox(Vec3::UnitZ(), 1e-12) && std::abs(m.gap - 0.002) < 1e-9;
      side += m.normal.isApprox(-Vec3::UnitX(), 1e-12) && std::abs(m.gap - 5e-6) < 1e-9;
    }
  }
  EXPECT_EQ(top, 4);
  EXPECT_EQ(side, 4);
  EXPECT_EQ(twos, 2);
  EXPECT_EQ(threes, 2);
}

TEST(BoxSubcontacts, CrossingEdgesGiveTheirCommonNormal) {
  // Box a on an edge along x (45 degrees about x), box b on an edge along y, b's top edge under
  // a's bottom edge: one edge-edge contact along +z (from b to a) with the gap between the edges.
  const Shape box_a = Shape::box(Vec3(0.4, 0.3, 0.3)), box_b = Shape::box(Vec3(0.3, 0.4, 0.3));
  const double edge = 0.3 * std::sqrt(2.0);
  const double gap = 0.003;
  const Pose pa = makePose(Vec3(0, 0, edge + gap), axisAngle(M_PI / 4, Vec3::UnitX()));
  const Pose pb = makePose(Vec3(0, 0, -edge), axisAngle(M_PI / 4, Vec3::UnitY()));
  const std::vector<ContactPoint> c = candidates(box_a, pa, box_b, pb, 0.01);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].geometry.subcontact_set, -1);
  EXPECT_NEAR(c[0].geometry.gap, gap, 1e-12);
  EXPECT_TRUE(c[0].geometry.normal.isApprox(Vec3::UnitZ(), 1e-12));
  EXPECT_TRUE(c[0].geometry.point.isApprox(Vec3(0, 0, 0.5 * gap), 1e-12));
  // The order of the pair reverses the normal.
  const std::vector<ContactPoint> r = candidates(box_b, pb, box_a, pa, 0.01);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].geometry.normal.isApprox(-Vec3::UnitZ(), 1e-12));
  EXPECT_NEAR(r[0].geometry.gap, gap, 1e-12);
  // Penetrating by 2 mm: the same contact with gap -2 mm.
  const Pose deeper = makePose(Vec3(0, 0, edge - 0.002), pa.orientation);
  const std::vector<ContactPoint> d = candidates(box_a, deeper, box_b, pb, 0.01);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NEAR(d[0].geometry.gap, -0.002, 1e-12);
}

TEST(BoxSubcontacts, ARestingBoxGivesItsFourBottomVerticesAtTheirGap) {
  const Shape small = Shape::box(Vec3(0.2, 0.1, 0.05));
  for (double gap : {0.001, 0.0, -0.0005}) {
    const Pose pa = makePose(Vec3(0.1, -0.2, 0.5 + 0.05 + gap), axisAngle(0.3, Vec3::UnitZ()));
    const std::vector<ContactPoint> c =
        candidates(small, pa, kUnitCube, makePose(Vec3::Zero()), 0.01);
    ASSERT_EQ(c.size(), 4u) << gap;
    for (const ContactPoint& p : c) {
      EXPECT_EQ(p.geometry.subcontact_set, -1);
      EXPECT_NEAR(p.geometry.gap, gap, 1e-12);
      EXPECT_TRUE(p.geometry.normal.isApprox(Vec3::UnitZ(), 1e-12));
    }
  }
}

TEST(BoxSubcontacts, TheDetectorsTakeThemOnlyWhenAnObjectAsksForThem) {
  std::vector<CollisionObject> objects(2);
  objects[0].shape = Shape::box(Vec3::Constant(0.1));
  objects[0].pose =
      makePose(Vec3(0.603, 0.0, 0.601));  // its -x bottom edge 3 mm beyond b's +x edge
  objects[0].margin = 0.005;
  objects[1].shape = kUnitCube;
  objects[1].movable = false;
  objects[1].margin = 0.005;
  const auto allow = [](int, int) { return true; };
  for (auto make : {makeSweepAndPruneDetector, makeBruteForceDetector}) {
    std::vector<ContactPoint> manifold, peg;
    make()->detect(objects, allow, manifold);
    for (CollisionObject& o : objects) o.subcontacts = true;
    make()->detect(objects, allow, peg);
    for (CollisionObject& o : objects) o.subcontacts = false;
    const bool has_set = std::any_of(peg.begin(), peg.end(), [](const ContactPoint& c) {
      return c.geometry.subcontact_set >= 0;
    });
    EXPECT_TRUE(has_set);
    EXPECT_TRUE(std::none_of(manifold.begin(), manifold.end(),
                             [](const ContactPoint& c) { return c.geometry.subcontact_set >= 0; }));
    EXPECT_EQ(peg.size(),
              candidates(objects[0].shape, objects[0].pose, objects[1].shape, objects[1].pose, 0.01)
                  .size());
  }
}

}  // namespace
}  // namespace subsim
