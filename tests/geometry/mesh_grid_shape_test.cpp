// A closed triangle mesh as a signed distance shape (mesh_grid_shape.hpp): the exact field
// against analytic distances, the grid's field against the exact one and its gradient against
// the nearest surface's normal, Frank-Wolfe contacts of a mesh box against the box's own, and
// every bad surface and spacing.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "geometry/geometry_test_util.hpp"
#include "subsim/geometry/collide_sdf.hpp"
#include "subsim/geometry/mesh_grid_shape.hpp"
#include "subsim/geometry/revolved_profile_shape.hpp"

namespace subsim {
namespace {

using test::makePose;
using test::uniform;

/// The twelve outward triangles of the box [-h, h].
TriangleSurface boxSurface(const Vec3& h) {
  TriangleSurface box;
  for (int i = 0; i < 8; ++i)
    box.vertices.push_back(
        Vec3(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z()));
  box.triangles = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                   {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  return box;
}

TEST(MeshGridShape, ExactFieldOfABoxMeshIsTheBoxsSignedDistance) {
  const Vec3 h(0.05, 0.03, 0.02);
  const TriangleSurface box = boxSurface(h);
  const Shape analytic = Shape::box(h);
  std::mt19937 rng(2);
  for (int k = 0; k < 300; ++k) {
    const Vec3 p = test::randomVec(rng, -0.1, 0.1);
    EXPECT_NEAR(MeshGridShape::exactDistance(box, p), test::signedDistance(analytic, Pose(), p),
                1e-12)
        << p.transpose();
  }
}

TEST(MeshGridShape, GridFieldFollowsTheExactFieldAndItsNormal) {
  // A dish's own triangulation as the mesh: inside the grid (the surface's bounds and 3 cells),
  // the grid's value within half a cell of the exact field, and its gradient within 20 degrees
  // of the exact field's where that is smooth over a cell (not next to a medial surface, where
  // the nearest surface point jumps and trilinear interpolation blends the two sides).
  const RevolvedProfileShape dish({{0, 0}, {0.04, 0}, {0.08, 0.05}}, 0.004, 16, 0.02);
  const double cell = 0.004;
  const MeshGridShape mesh(dish.surface(), cell);
  // The exact field's gradient: away from the nearest surface point, outward.
  const auto exactGradient = [&](const Vec3& p) {
    const TriangleSurface& t = dish.surface();
    Vec3 nearest = p;
    double best = 1e300;
    for (const auto& tri : t.triangles) {
      const Vec3 c =
          closestOnTriangle(p, t.vertices[tri[0]], t.vertices[tri[1]], t.vertices[tri[2]]).point;
      if ((p - c).squaredNorm() < best) {
        best = (p - c).squaredNorm();
        nearest = c;
      }
    }
    const double sign = MeshGridShape::exactDistance(t, p) < 0.0 ? -1.0 : 1.0;
    return Vec3(sign * (p - nearest).normalized());
  };
  std::mt19937 rng(4);
  int compared = 0;
  for (int k = 0; k < 200; ++k) {
    const Vec3 p(uniform(rng, -0.09, 0.09), uniform(rng, -0.09, 0.09), uniform(rng, -0.015, 0.065));
    const double exact = MeshGridShape::exactDistance(dish.surface(), p);
    Vec3 g;
    const double value = mesh.distance(p, g);
    EXPECT_NEAR(value, exact, 0.5 * cell) << p.transpose();
    EXPECT_NEAR(g.norm(), 1.0, 1e-12);
    const Vec3 n = exactGradient(p).normalized();
    bool smooth = true;
    for (int i = 0; i < 3 && smooth; ++i)
      for (double side : {-1.0, 1.0})
        smooth =
            smooth && exactGradient(p + side * 1.5 * cell * Vec3::Unit(i)).normalized().dot(n) >
                          std::cos(0.1);
    if (!smooth) continue;
    EXPECT_GT(g.dot(n), std::cos(0.35)) << p.transpose();
    ++compared;
  }
  EXPECT_GT(compared, 60);
  // Beyond the grid: the distance to it added, pointing away.
  Vec3 g, unused;
  const double far = mesh.distance(Vec3(1.0, 0, 0.02), g);
  EXPECT_GT(far, 0.9);
  EXPECT_GT(g.x(), 0.99);
  EXPECT_NEAR(far - mesh.distance(Vec3(0.9, 0, 0.02), unused), 0.1, 1e-12);
}

TEST(MeshGridShape, AMeshBoxRestsOnThePlaneAndOnABoxLikeTheBox) {
  const Vec3 h(0.05, 0.05, 0.02);
  const Shape mesh = Shape::signedDistance(std::make_shared<MeshGridShape>(boxSurface(h), 0.005));
  // The solid's mass properties are the box's.
  EXPECT_NEAR(mesh.volume(), 8 * h.prod(), 1e-15);
  EXPECT_TRUE(mesh.unitDensityInertia(2.0).isApprox(Shape::box(h).unitDensityInertia(2.0), 1e-9));
  std::vector<ManifoldPoint> points;
  collideSignedDistance(mesh, makePose(Vec3(0, 0, 0.02 + 1e-4)), Shape::plane(), Pose(), 0.001, 120,
                        points);
  // The bottom face's four corners (the triangles' deepest points) at 0.1 mm.
  ASSERT_GE(points.size(), 4u);
  for (const ManifoldPoint& p : points) {
    EXPECT_NEAR(p.gap, 1e-4, 1e-12);
    EXPECT_TRUE(p.normal.isApprox(Vec3::UnitZ()));
  }
  // Mesh box on a mesh box, 0.1 mm apart: the contacts' gaps are the field's, within its error.
  collideSignedDistance(mesh, makePose(Vec3(0.01, 0.01, 0.04 + 1e-4)), mesh, Pose(), 0.001, 120,
                        points);
  ASSERT_GE(points.size(), 4u);
  for (const ManifoldPoint& p : points) {
    EXPECT_NEAR(p.gap, 1e-4, 1e-9);
    EXPECT_GT(std::abs(p.normal.z()), 0.99);
  }
}

TEST(MeshGridShape, RefusesWhatIsNotAClosedOutwardSurfaceNamingIt) {
  const auto expectError = [](TriangleSurface s, double cell, const std::string& what) {
    try {
      MeshGridShape shape(std::move(s), cell);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const TriangleSurface box = boxSurface(Vec3::Constant(0.05));
  expectError(TriangleSurface{}, 0.01, "surface: expected triangles");
  TriangleSurface open = box;
  open.triangles.pop_back();
  expectError(open, 0.01, "expected a closed surface");
  TriangleSurface flipped = box;
  std::swap(flipped.triangles[0][1], flipped.triangles[0][2]);
  expectError(flipped, 0.01, "expected a closed surface");
  TriangleSurface inward = box;
  for (auto& t : inward.triangles) std::swap(t[1], t[2]);
  expectError(inward, 0.01, "reverse them");
  TriangleSurface bad_index = box;
  bad_index.triangles[3][1] = 8;
  expectError(bad_index, 0.01, "triangle 3 names vertex 8 of 8");
  TriangleSurface nan = box;
  nan.vertices[2].x() = NAN;
  expectError(nan, 0.01, "not finite");
  expectError(box, 0.0, "cell: expected a positive");
  expectError(box, 1e-6, "more than 8000000 nodes");
}

}  // namespace
}  // namespace subsim
