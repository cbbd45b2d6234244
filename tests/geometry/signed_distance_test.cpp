// Signed distance shapes (the AL paper's revolved dishes, Appendix B) and their Frank-Wolfe
// contacts: the field against brute-force distances to its own triangulation and against finite
// differences, the solid's mass properties against Pappus, Frank-Wolfe against the exact
// sphere-in-bowl contact, pair symmetry, clustering, and every bad parameter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "geometry/geometry_test_util.hpp"
#include "subsim/geometry/collide_sdf.hpp"
#include "subsim/geometry/revolved_profile_shape.hpp"
#include "subsim/model/model.hpp"

namespace subsim {
namespace {

using test::makePose;
using test::randomRotation;
using test::uniform;

constexpr double kPi = std::numbers::pi;

std::shared_ptr<const RevolvedProfileShape> bowl(int segments = 64) {
  return std::make_shared<RevolvedProfileShape>(std::vector<Vec2>{{0, 0}, {0.04, 0}, {0.08, 0.05}},
                                                0.002, segments, 0.005);
}

/// Distance from p to triangle (a, b, c), by projection onto the plane when the foot is inside,
/// else the nearest of the three edges (written independently of the library).
double triangleDistance(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 n = (b - a).cross(c - a).normalized();
  const Vec3 foot = p - n.dot(p - a) * n;
  const auto inside = [&](const Vec3& u, const Vec3& v) { return (v - u).cross(foot - u).dot(n); };
  if (inside(a, b) >= 0 && inside(b, c) >= 0 && inside(c, a) >= 0) return (p - foot).norm();
  const auto edge = [&](const Vec3& u, const Vec3& v) {
    const double t = std::clamp((p - u).dot(v - u) / (v - u).squaredNorm(), 0.0, 1.0);
    return (p - (u + t * (v - u))).norm();
  };
  return std::min({edge(a, b), edge(b, c), edge(c, a)});
}

double meshDistance(const TriangleSurface& s, const Vec3& p) {
  double best = 1e300;
  for (const auto& t : s.triangles)
    best =
        std::min(best, triangleDistance(p, s.vertices[t[0]], s.vertices[t[1]], s.vertices[t[2]]));
  return best;
}

TEST(RevolvedProfileShape, FieldMatchesTheDistanceToItsOwnSurface) {
  // |SDF| against the brute-force distance to the triangulation: equal up to the chord error of
  // the revolution (r (1 - cos(pi / 64)) < 0.1 mm here) and of the 30-degree arcs (0.07 mm).
  const auto shape = bowl();
  std::mt19937 rng(3);
  for (int k = 0; k < 300; ++k) {
    const Vec3 p(uniform(rng, -0.1, 0.1), uniform(rng, -0.1, 0.1), uniform(rng, -0.02, 0.07));
    Vec3 g;
    const double d = shape->distance(p, g);
    EXPECT_NEAR(std::abs(d), meshDistance(shape->surface(), p), 2e-4) << p.transpose();
  }
}

TEST(RevolvedProfileShape, GradientIsTheFieldsDerivativeAndUnit) {
  const auto shape = bowl();
  std::mt19937 rng(5);
  const double h = 1e-7;
  for (int k = 0; k < 200; ++k) {
    const Vec3 p(uniform(rng, -0.1, 0.1), uniform(rng, -0.1, 0.1), uniform(rng, -0.02, 0.07));
    Vec3 g, unused;
    shape->distance(p, g);
    EXPECT_NEAR(g.norm(), 1.0, 1e-12);
    Vec3 fd;
    for (int i = 0; i < 3; ++i) {
      const Vec3 e = Vec3::Unit(i) * h;
      fd[i] = (shape->distance(p + e, unused) - shape->distance(p - e, unused)) / (2 * h);
    }
    EXPECT_LT((fd - g).norm(), 1e-5) << p.transpose();
  }
}

TEST(RevolvedProfileShape, AnalyticValuesOfTheDish) {
  const auto shape = bowl();
  Vec3 g;
  // Above the flat bottom on the axis: the distance to the segment O-A less the padding.
  EXPECT_NEAR(shape->distance(Vec3(0, 0, 0.03), g), 0.03 - 0.002, 1e-15);
  EXPECT_TRUE(g.isApprox(Vec3::UnitZ()));
  // Inside the wall at the bottom: -d.
  EXPECT_NEAR(shape->distance(Vec3(0.01, 0.01, 0), g), -0.002, 1e-15);
  // Beyond the rim B = (0.08, 0.05), along x at the rim's height: |p - B| - d.
  EXPECT_NEAR(shape->distance(Vec3(0, 0.1, 0.05 + 0.01), g), std::hypot(0.02, 0.01) - 0.002, 1e-15);
  EXPECT_TRUE(g.isApprox(Vec3(0, 0.02, 0.01).normalized()));
}

TEST(SolidMassProperties, ARevolvedPlateMatchesPappus) {
  // A plate: the segment (0,0)-(R,0) padded by d: a disc of thickness 2d with a half-round rim.
  // Pappus: V = 2 pi R d * R + 2 pi (R + 4 d / (3 pi)) * pi d^2 / 2.
  const double R = 0.1, d = 0.004;
  const RevolvedProfileShape plate({{0, 0}, {R, 0}}, d, 256, 0.002);
  const double exact = 2 * kPi * R * d * R + 2 * kPi * (R + 4 * d / (3 * kPi)) * kPi * d * d / 2;
  const SolidMassProperties& m = plate.massProperties();
  // The rim's half disc is cut every 30 degrees (4.5 % of its area short): 0.3 % of the whole.
  EXPECT_NEAR(m.volume, exact, 5e-3 * exact);
  EXPECT_LT(m.centroid.norm(), 1e-12);
  // A thin disc: I_zz = m R_eff^2 / 2 about the axis, I_xx = I_yy = I_zz / 2 (+ thickness terms).
  EXPECT_NEAR(m.inertia_per_mass(0, 0), m.inertia_per_mass(1, 1), 1e-12);
  EXPECT_NEAR(m.inertia_per_mass(2, 2), 0.5 * R * R, 0.1 * 0.5 * R * R);
  EXPECT_NEAR(m.inertia_per_mass(2, 2), 2.0 * m.inertia_per_mass(0, 0),
              0.02 * m.inertia_per_mass(2, 2));
  // The solid of a box's twelve triangles: volume 8 abc and the box's inertia, exactly.
  TriangleSurface box;
  const Vec3 h(0.1, 0.2, 0.3);
  for (int i = 0; i < 8; ++i)
    box.vertices.push_back(
        Vec3(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z()) +
        Vec3(1, 2, 3));
  box.triangles = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                   {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  const SolidMassProperties b = solidMassProperties(box);
  EXPECT_NEAR(b.volume, 8 * h.prod(), 1e-14);
  EXPECT_TRUE(b.centroid.isApprox(Vec3(1, 2, 3), 1e-12));
  const Mat3 expected = Shape::box(h).unitDensityInertia(1.0);
  EXPECT_TRUE(b.inertia_per_mass.isApprox(expected, 1e-10)) << b.inertia_per_mass;
}

TEST(SignedDistanceContact, FrankWolfeMatchesTheExactSphereInBowlContact) {
  // A sphere resting in the bowl: the exact contact is its centre's field value less its radius
  // (one point); Frank-Wolfe over the bowl's triangles against the sphere's own field must find
  // the same gap (up to the triangulation's chord error) and normal.
  const Shape dish = Shape::signedDistance(bowl(96));
  const Shape ball = Shape::sphere(0.02);
  std::mt19937 rng(11);
  for (int k = 0; k < 40; ++k) {
    const Pose dish_pose = makePose(test::randomVec(rng, -1, 1), randomRotation(rng));
    // On the axis above the bottom, or against the wall.
    const double r = k % 2 == 0 ? 0.0 : uniform(rng, 0.045, 0.055);
    const double phi = uniform(rng, 0, 2 * kPi);
    const Vec3 local(r * std::cos(phi), r * std::sin(phi), uniform(rng, 0.021, 0.04));
    const Pose ball_pose = makePose(dish_pose.transformPoint(local));
    std::vector<ManifoldPoint> points;
    collideSignedDistance(ball, ball_pose, dish, dish_pose, 0.05, 120, points);
    // One point per profile segment within the (wide) margin: the bottom's and the wall's.
    ASSERT_GE(points.size(), 1u);
    ASSERT_LE(points.size(), 2u);
    std::vector<ManifoldPoint> exact = {*std::min_element(
        points.begin(), points.end(),
        [](const ManifoldPoint& a, const ManifoldPoint& b) { return a.gap < b.gap; })};
    Vec3 field_gradient;
    EXPECT_NEAR(exact[0].gap, dish.field->distance(local, field_gradient) - 0.02, 1e-12);
    if (r == 0.0) {
      EXPECT_NEAR(exact[0].gap, local.z() - 0.002 - 0.02, 1e-12);
    }
    // Frank-Wolfe, the dish's triangles in the sphere's field (sphere frame at its centre).
    const TriangleSurface& s = dish.field->surface();
    double best = 1e300;
    Vec3 best_gradient = Vec3::Zero();
    for (const auto& t : s.triangles) {
      Vec3 point, gradient;
      auto inBall = [&](int i) {
        return ball_pose.inverseTransformPoint(dish_pose.transformPoint(s.vertices[t[i]]));
      };
      const double f = frankWolfeTriangle(inBall(0), inBall(1), inBall(2), ball, point, gradient);
      if (f < best) {
        best = f;
        best_gradient = gradient;
      }
    }
    EXPECT_NEAR(best, exact[0].gap, 2e-4) << "case " << k;
    // The sphere's outward normal at the deepest dish point is the contact normal reversed, up
    // to the facets (3.75 degrees around the axis here): within 5 degrees.
    EXPECT_GT(best_gradient.dot(-exact[0].normal), std::cos(5.0 * kPi / 180.0)) << "case " << k;
  }
}

// A sphere in a cup's inner corner touches its floor and its wall: one contact with each, at
// the analytic gaps (centre to the padded plane less the radius) with the floor's and the
// wall's normals.  (One point, the nearer piece's, let particles poured into a bottle sink
// 2.5 mm into its floor.)  Outside a convex rim the two segments meeting there give one point.
TEST(SignedDistanceContact, ASphereInACupsCornerTouchesTheFloorAndTheWall) {
  const double wall = 0.002, radius = 0.005, inner = 0.03 - wall;
  const Shape cup = Shape::signedDistance(std::make_shared<RevolvedProfileShape>(
      std::vector<Vec2>{{0, 0}, {0.03, 0}, {0.03, 0.1}}, wall, 48, 0.01));
  const Shape ball = Shape::sphere(radius);
  std::mt19937 rng(5);
  for (int k = 0; k < 20; ++k) {
    const Pose cup_pose = makePose(test::randomVec(rng, -1, 1), randomRotation(rng));
    const double phi = uniform(rng, 0, 2 * kPi);
    const double from_wall = uniform(rng, 0.0, 5e-4), from_floor = uniform(rng, -2e-4, 5e-4);
    const double r = inner - radius - from_wall, z = wall + radius + from_floor;
    const Vec3 radial(std::cos(phi), std::sin(phi), 0.0);
    const Vec3 local = r * radial + Vec3(0, 0, z);
    std::vector<ManifoldPoint> points;
    collideSignedDistance(ball, makePose(cup_pose.transformPoint(local)), cup, cup_pose, 1e-3, 120,
                          points);
    ASSERT_EQ(points.size(), 2u) << "case " << k;
    // Normals from the cup (b) towards the ball (a): up from the floor, inward from the wall.
    const Vec3 up = cup_pose.rotate(Vec3::UnitZ()), in = cup_pose.rotate(-radial);
    const ManifoldPoint& floor = points[0].normal.dot(up) > 0.9 ? points[0] : points[1];
    const ManifoldPoint& side = points[0].normal.dot(up) > 0.9 ? points[1] : points[0];
    EXPECT_NEAR(floor.gap, from_floor, 1e-12) << "case " << k;
    EXPECT_NEAR(side.gap, from_wall, 1e-12) << "case " << k;
    EXPECT_GT(floor.normal.dot(up), 1.0 - 1e-12);
    EXPECT_GT(side.normal.dot(in), 1.0 - 1e-12);
    // Distinct features: the two contacts keep their own warm starts (keys are pair + feature).
    EXPECT_NE(floor.feature, side.feature);
  }
  // Beside the cup's outer bottom rim (a convex corner of the profile) the floor and the wall
  // segments share the nearest point: one contact.
  std::vector<ManifoldPoint> points;
  const Vec3 outside = Vec3(0.03 + 0.004, 0.0, -0.004);
  collideSignedDistance(ball, makePose(outside), cup, makePose(Vec3::Zero()), 1e-2, 120, points);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_NEAR(points[0].gap, std::sqrt(2.0) * 0.004 - wall - radius, 1e-12);
}

TEST(SignedDistanceContact, PairOrderOnlyFlipsTheNormals) {
  const Shape a = Shape::signedDistance(bowl(32));
  const Shape b = Shape::signedDistance(bowl(32));
  const Pose pa = makePose(Vec3(0.01, 0, 0.008)), pb = makePose(Vec3::Zero());
  std::vector<ManifoldPoint> ab, ba;
  collideSignedDistance(a, pa, b, pb, 0.002, 120, ab);
  collideSignedDistance(b, pb, a, pa, 0.002, 120, ba);
  ASSERT_GT(ab.size(), 3u);
  ASSERT_EQ(ab.size(), ba.size());
  // Both directions are searched either way: the same points, normals reversed (sorted by gap,
  // ties by feature, whose direction bit differs between the orders: compare as sets).
  for (const ManifoldPoint& p : ab) {
    const bool found = std::any_of(ba.begin(), ba.end(), [&](const ManifoldPoint& q) {
      return (q.point - p.point).norm() < 1e-12 && (q.normal + p.normal).norm() < 1e-12 &&
             std::abs(q.gap - p.gap) < 1e-15;
    });
    EXPECT_TRUE(found) << p.point.transpose();
  }
}

TEST(SignedDistanceContact, ADishOnAPlaneRestsOnItsWholeBottomWithinTheCap) {
  const Shape dish = Shape::signedDistance(bowl(64));
  const Shape floor = Shape::plane();
  // The bowl's bottom face lies at z = -d in its frame: 0.1 mm above the floor.
  const Pose pose = makePose(Vec3(0.3, -0.2, 0.0021));
  std::vector<ManifoldPoint> points;
  for (int cap : {120, 8}) {
    collideSignedDistance(dish, pose, floor, Pose(), 0.001, cap, points);
    ASSERT_GE(static_cast<int>(points.size()), 3) << cap;
    EXPECT_LE(static_cast<int>(points.size()), cap);
    Vec3 lo = Vec3::Constant(1e9), hi = Vec3::Constant(-1e9);
    for (const ManifoldPoint& p : points) {
      EXPECT_NEAR(p.gap, 1e-4, 1e-9);
      EXPECT_TRUE(p.normal.isApprox(Vec3::UnitZ()));
      lo = lo.cwiseMin(p.point);
      hi = hi.cwiseMax(p.point);
    }
    // The support spans the bottom disc (radius 4 cm plus the rounded corner) around its centre.
    EXPECT_LT(lo.x(), 0.3 - 0.02);
    EXPECT_GT(hi.x(), 0.3 + 0.02);
    EXPECT_LT(lo.y(), -0.2 - 0.02);
    EXPECT_GT(hi.y(), -0.2 + 0.02);
  }
  // collideShapes (a manifold of 8) gives the clustered points too.
  const ContactManifold m = test::collide(dish, pose, floor, Pose(), 0.001);
  EXPECT_GE(m.count, 3);
  EXPECT_LE(m.count, ContactManifold::kCapacity);
}

TEST(SignedDistanceContact, NestedBowlsAreClusteredToTheCapAndFarApartDishesGiveNothing) {
  const Shape a = Shape::signedDistance(bowl(64));
  const Shape b = Shape::signedDistance(bowl(64));
  std::vector<ManifoldPoint> points;
  // Identical bowls nested 5 mm apart vertically touch along their whole walls.
  collideSignedDistance(a, makePose(Vec3(0, 0, 0.005)), b, Pose(), 0.002, 120, points);
  EXPECT_GT(points.size(), 20u);
  EXPECT_LE(points.size(), 120u);
  for (std::size_t i = 1; i < points.size(); ++i) EXPECT_LE(points[i - 1].gap, points[i].gap);
  collideSignedDistance(a, makePose(Vec3(0.5, 0, 0)), b, Pose(), 0.002, 120, points);
  EXPECT_TRUE(points.empty());
}

TEST(SignedDistanceContact, PointsWithMoreDistinctNormalsThanTheCapEndAtTheCap) {
  // A small box in the bowl with a wide margin: the bowl's triangles around it see the box's
  // faces, edges and corners (26 normals, pairwise over 25 degrees apart), more than a cap of 8.
  const Shape dish = Shape::signedDistance(bowl(32));
  const Shape cube = Shape::box(Vec3::Constant(0.01));
  std::vector<ManifoldPoint> points;
  collideSignedDistance(cube, makePose(Vec3(0, 0, 0.02)), dish, Pose(), 0.06, 8, points);
  EXPECT_EQ(points.size(), 8u);
  collideSignedDistance(cube, makePose(Vec3(0, 0, 0.02)), dish, Pose(), 0.06, 0, points);
  EXPECT_TRUE(points.empty());
}

TEST(SignedDistanceContact, AnalyticShapesMeetTheDishsTriangles) {
  // A box resting on the bowl's rim and a capsule lying in it: contacts with the right sign.
  const Shape dish = Shape::signedDistance(bowl(64));
  std::vector<ManifoldPoint> points;
  const Shape lid = Shape::box(Vec3(0.1, 0.1, 0.01));
  collideSignedDistance(lid, makePose(Vec3(0, 0, 0.05 + 0.002 + 0.01 + 1e-4)), dish, Pose(), 0.001,
                        120, points);
  ASSERT_FALSE(points.empty());
  for (const ManifoldPoint& p : points) {
    // The triangulated rim lies inside the round one by at most its chord error (3.5 % of d).
    EXPECT_GE(p.gap, 1e-4 - 1e-12);
    EXPECT_LE(p.gap, 1e-4 + 0.035 * 0.002);
    EXPECT_GT(p.normal.z(), 0.99);  // pushes the lid up
  }
  const Shape rod = Shape::capsule(0.005, 0.03);
  collideSignedDistance(
      dish, Pose(), rod,
      makePose(Vec3(0, 0, 0.002 + 0.005 - 1e-4), test::axisAngle(kPi / 2, Vec3::UnitX())), 0.001,
      120, points);
  ASSERT_FALSE(points.empty());
  EXPECT_NEAR(points.front().gap, -1e-4, 2e-5);
  EXPECT_LT(points.front().normal.z(), -0.99);  // from the rod towards the dish below it
}

TEST(SignedDistanceShape, AModelsShapeWithoutAFieldIsRefusedNamingIt) {
  Model m;
  Body b = namedBody("dish", BodyKind::Dynamic, 0.1);
  b.inertia = Mat3::Identity() * 1e-4;
  const int body = m.addBody(b);
  m.addShape(body, Shape::signedDistance(bowl(16)));
  EXPECT_NO_THROW(m.validate());
  m.addShape(body, Shape::signedDistance(nullptr));
  try {
    m.validate();
    ADD_FAILURE() << "accepted a signed distance shape without a field";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("shapes[1].field"), std::string::npos) << e.what();
  }
}

TEST(RevolvedProfileShape, RefusesBadParametersNamingThem) {
  const auto expectError = [](std::vector<Vec2> profile, double d, int segments, double edge,
                              const std::string& what) {
    try {
      RevolvedProfileShape shape(std::move(profile), d, segments, edge);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const std::vector<Vec2> ok{{0, 0}, {0.04, 0}, {0.08, 0.05}};
  expectError({{0, 0}}, 0.002, 48, 0.01, "at least two");
  expectError({{0.01, 0}, {0.04, 0}}, 0.002, 48, 0.01, "on the axis");
  expectError({{0, 0}, {0.04, 0.01}}, 0.002, 48, 0.01, "flat bottom");
  expectError({{0, 0}, {0.04, 0}, {0.04, 0}}, 0.002, 48, 0.01, "coincide");
  expectError({{0, 0}, {0.04, 0}, {0.0, 0.05}}, 0.002, 48, 0.01, "r > 0");
  expectError({{0, 0}, {0.04, 0}, {0.001, 0.05}}, 0.002, 48, 0.01, "within the padding");
  expectError({{0, 0}, {0.04, 0}, {NAN, 0.05}}, 0.002, 48, 0.01, "not finite");
  expectError(ok, 0.0, 48, 0.01, "padding");
  expectError(ok, INFINITY, 48, 0.01, "padding");
  expectError(ok, 0.002, 2, 0.01, "segments");
  expectError(ok, 0.002, 48, -1, "max_edge");
  expectError(ok, 0.002, 48, 1e-12, "more than 4000000 triangles");
  expectError({{0, 0}, {0.04, 0}, {0.08, 0.05}, {0.041, 0.002}}, 0.002, 48, 0.01, "turns back");
  expectError({{0, 0}, {0.04, 0}, {0.02, 0}}, 0.002, 48, 0.01, "turns back");
}

}  // namespace
}  // namespace subsim
