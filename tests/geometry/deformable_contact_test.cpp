// Deformable surface against rigid shapes: hand-computed gaps, normals and weights on a unit cube
// of 6 tets, feature-id stability, and the grid mid phase against brute force on a large slab.
#include "subsim/geometry/deformable_contact.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "geometry/geometry_test_util.hpp"
#include "subsim/fem/tet_mesh.hpp"

namespace subsim {
namespace {

using test::axisAngle;
using test::makePose;
using Kind = DeformableContactKind;

// The box [0, size] cut into nx * ny * nz cells of 6 tets each (Kuhn split along each cell's
// (0,0,0)-(1,1,1) diagonal, conforming across cells), written here so the test depends only on
// tet_mesh.hpp.
TetMesh gridMesh(const Vec3& size, int nx, int ny, int nz) {
  TetMesh m;
  auto id = [&](int i, int j, int k) { return i + (nx + 1) * (j + (ny + 1) * k); };
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i)
        m.nodes.emplace_back(size.x() * i / nx, size.y() * j / ny, size.z() * k / nz);
  const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (const auto& p : perms) {
          // The path (0,0,0) -> +e_p0 -> +e_p1 -> (1,1,1) through the cell's corners.
          std::array<int, 3> c{0, 0, 0};
          std::array<int, 4> tet;
          tet[0] = id(i, j, k);
          for (int s = 0; s < 3; ++s) {
            c[p[s]] = 1;
            tet[s + 1] = id(i + c[0], j + c[1], k + c[2]);
          }
          m.tets.push_back(tet);
          if (signedVolume6(m, m.numTets() - 1) < 0.0)
            std::swap(m.tets.back()[2], m.tets.back()[3]);
        }
  EXPECT_EQ(checkTetMesh(m), "");
  return m;
}

TetMesh unitCube() {
  return gridMesh(Vec3::Ones(), 1, 1, 1);
}

std::vector<DeformableContact> collide(DeformableSurfaceQuery& q, const Shape& s, const Pose& p,
                                       double margin) {
  std::vector<DeformableContact> out;
  q.collide(s, p, margin, out);
  return out;
}

Vec3 deformablePoint(const DeformableContact& c, const std::vector<Vec3>& x) {
  Vec3 p = Vec3::Zero();
  for (int i = 0; i < c.numNodes(); ++i) p += c.weights[i] * x[c.nodes[i]];
  return p;
}

// The documented relations between the fields of every contact.
void expectWellFormed(const DeformableContact& c, const std::vector<Vec3>& x, double margin) {
  EXPECT_NEAR(c.normal.norm(), 1.0, 1e-12);
  EXPECT_LT(c.gap, margin);
  EXPECT_NEAR(c.weights.sum(), 1.0, 1e-12);
  EXPECT_GE(c.weights.minCoeff(), -1e-12);
  for (int i = c.numNodes(); i < 3; ++i) {
    EXPECT_EQ(c.nodes[i], -1);
    EXPECT_EQ(c.weights[i], 0.0);
  }
  // Deformable point = midpoint + half the gap along the normal.
  EXPECT_TRUE((deformablePoint(c, x) - (c.point + 0.5 * c.gap * c.normal)).norm() < 1e-12);
}

struct CubeFixture : ::testing::Test {
  TetMesh mesh = unitCube();
  DeformableSurfaceQuery query{boundaryTriangles(mesh), 0.25};
  void SetUp() override { query.update(mesh.nodes); }
};

TEST_F(CubeFixture, SurfaceTopology) {
  EXPECT_EQ(query.triangles().size(), 12u);
  EXPECT_EQ(query.edges().size(), 18u);  // closed: 3 T / 2
  EXPECT_EQ(query.surfaceNodes().size(), 8u);
  for (const auto& e : query.edges()) EXPECT_GE(e.tri1, 0);
}

TEST_F(CubeFixture, PlaneBelowGivesTheFourBottomNodes) {
  const Pose plane = makePose(Vec3(0, 0, -0.1));
  const auto out = collide(query, Shape::plane(), plane, 0.2);
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) {
    EXPECT_EQ(c.kind, Kind::NodeVsShape);
    EXPECT_NEAR(mesh.nodes[c.nodes[0]].z(), 0.0, 0.0);
    EXPECT_NEAR(c.gap, 0.1, 1e-12);
    EXPECT_TRUE(c.normal.isApprox(Vec3::UnitZ(), 1e-15));  // from the plane up into the cube
    EXPECT_EQ(c.feature, deformableFeatureId(Kind::NodeVsShape, 0, c.nodes[0]));
    expectWellFormed(c, mesh.nodes, 0.2);
  }
  EXPECT_TRUE(collide(query, Shape::plane(), plane, 0.1).empty());  // gap == margin: not below
  // A tilted plane: node (0,0,0) is the lowest.
  const Vec3 n = Vec3(1, 1, 2).normalized();
  const Pose tilted = makePose(Vec3(0, 0, -0.05), Quat::FromTwoVectors(Vec3::UnitZ(), n));
  const auto t = collide(query, Shape::plane(), tilted, 0.2);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].nodes[0], 0);
  EXPECT_NEAR(t[0].gap, 0.05 * n.z(), 1e-12);
  EXPECT_TRUE(t[0].normal.isApprox(n, 1e-12));
}

TEST_F(CubeFixture, SmallSphereOverFaceInteriorBetweenNodes) {
  const double r = 0.1;
  for (const double gap : {0.02, 0.0, -0.03}) {
    const Pose ps = makePose(Vec3(0.6, 0.3, 1.0 + r + gap));
    const auto out = collide(query, Shape::sphere(r), ps, 0.05);
    // No node is near: only the centre-vs-triangle test sees the sphere.
    ASSERT_EQ(out.size(), 1u) << gap;
    const DeformableContact& c = out[0];
    EXPECT_EQ(c.kind, Kind::ShapePointVsTriangle);
    EXPECT_NEAR(c.gap, gap, 1e-12);
    EXPECT_TRUE(c.normal.isApprox(-Vec3::UnitZ(), 1e-15));  // from the sphere down into the cube
    EXPECT_GT(c.weights.minCoeff(), 0.0);                   // strictly inside the triangle
    EXPECT_TRUE((deformablePoint(c, mesh.nodes) - Vec3(0.6, 0.3, 1.0)).norm() < 1e-12);
    EXPECT_TRUE(c.point.isApprox(Vec3(0.6, 0.3, 1.0 + 0.5 * gap), 1e-12));
    expectWellFormed(c, mesh.nodes, 0.05);
  }
  // Beyond the margin: nothing.
  EXPECT_TRUE(collide(query, Shape::sphere(r), makePose(Vec3(0.6, 0.3, 1.16)), 0.05).empty());
}

TEST_F(CubeFixture, SphereOverFaceDiagonalAndOverRidge) {
  // Over the face centre, on the diagonal shared by the face's two triangles: one contact (the
  // lower-index triangle), its weights on the diagonal's two nodes.
  {
    const auto out = collide(query, Shape::sphere(0.1), makePose(Vec3(0.5, 0.5, 1.12)), 0.05);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].kind, Kind::ShapePointVsTriangle);
    EXPECT_NEAR(out[0].gap, 0.02, 1e-12);
    EXPECT_TRUE(out[0].normal.isApprox(-Vec3::UnitZ(), 1e-12));
    EXPECT_NEAR(out[0].weights.minCoeff(), 0.0, 1e-15);
    expectWellFormed(out[0], mesh.nodes, 0.05);
  }
  // Over the middle of the ridge y = 0, z = 1, where face normals do not give the direction.
  {
    const double r = 0.05, d = 0.07;
    const Vec3 dir = Vec3(0, -1, 1).normalized();
    const auto out =
        collide(query, Shape::sphere(r), makePose(Vec3(0.3, 0.0, 1.0) + d * dir), 0.05);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].kind, Kind::ShapePointVsTriangle);
    EXPECT_NEAR(out[0].gap, d - r, 1e-12);
    EXPECT_TRUE(out[0].normal.isApprox(-dir, 1e-12));
    EXPECT_TRUE((deformablePoint(out[0], mesh.nodes) - Vec3(0.3, 0, 1)).norm() < 1e-12);
    expectWellFormed(out[0], mesh.nodes, 0.05);
  }
}

TEST_F(CubeFixture, SphereCentreInsideUsesNearestFace) {
  // Centre 0.1 inside the side face x = 1 (nearer than any other face): gap = -0.1 - r.
  const auto out = collide(query, Shape::sphere(0.05), makePose(Vec3(0.9, 0.4, 0.3)), 0.01);
  std::vector<DeformableContact> tri;
  for (const auto& c : out)
    if (c.kind == Kind::ShapePointVsTriangle) tri.push_back(c);
  ASSERT_EQ(tri.size(), 1u);
  EXPECT_NEAR(tri[0].gap, -0.15, 1e-12);
  EXPECT_TRUE(tri[0].normal.isApprox(-Vec3::UnitX(), 1e-12));
  // Deeper than max_depth (0.25): ignored.
  EXPECT_TRUE(collide(query, Shape::sphere(0.05), makePose(Vec3(0.7, 0.4, 0.5)), 0.01).empty());
}

TEST_F(CubeFixture, SphereNearCornerGivesTheNodeContact) {
  // Nearest to node (1,1,1): the node contact alone (the triangle test leaves mesh vertices to it).
  const Vec3 dir = Vec3(1, 1, 1).normalized();
  const auto out = collide(query, Shape::sphere(0.2), makePose(Vec3::Ones() + 0.23 * dir), 0.05);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, Kind::NodeVsShape);
  EXPECT_TRUE(mesh.nodes[out[0].nodes[0]].isApprox(Vec3::Ones()));
  EXPECT_NEAR(out[0].gap, 0.03, 1e-12);
  EXPECT_TRUE(out[0].normal.isApprox(-dir, 1e-12));
  expectWellFormed(out[0], mesh.nodes, 0.05);
}

TEST_F(CubeFixture, CylinderCapOverTopFace) {
  const auto out = collide(query, Shape::cylinder(1.0, 0.2), makePose(Vec3(0.5, 0.5, 1.21)), 0.05);
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) {
    EXPECT_EQ(c.kind, Kind::NodeVsShape);
    EXPECT_NEAR(c.gap, 0.01, 1e-12);
    EXPECT_TRUE(c.normal.isApprox(-Vec3::UnitZ(), 1e-12));
    expectWellFormed(c, mesh.nodes, 0.05);
  }
}

// A box of half extents (hx, 0.2, 0.2) rotated 45 degrees about x, its lowest edge (along x) at
// height 1 - depth over the line y = y0 of the cube's top face.
Pose edgeDownBox(double x0, double y0, double depth) {
  return makePose(Vec3(x0, y0, 1.0 - depth + 0.2 * std::sqrt(2.0)),
                  axisAngle(M_PI / 4, Vec3::UnitX()));
}

TEST_F(CubeFixture, LongBoxEdgePressingIntoFaceGivesEdgeContacts) {
  const double depth = 0.01, y0 = 0.37;
  const Shape box = Shape::box(Vec3(1.0, 0.2, 0.2));  // x in [-0.5, 1.5]: vertices off the cube
  const auto out = collide(query, box, edgeDownBox(0.5, y0, depth), 0.05);
  // The lowest edge crosses the top face's diagonal and the two ridges x = 0 and x = 1.
  ASSERT_EQ(out.size(), 3u);
  std::set<double> xs;
  for (const auto& c : out) {
    EXPECT_EQ(c.kind, Kind::ShapeEdgeVsTriangleEdge);
    EXPECT_NEAR(c.gap, -depth, 1e-12);
    EXPECT_TRUE(c.normal.isApprox(-Vec3::UnitZ(), 1e-12));
    const Vec3 p = deformablePoint(c, mesh.nodes);
    EXPECT_NEAR(p.y(), y0, 1e-12);
    EXPECT_NEAR(p.z(), 1.0, 1e-12);
    xs.insert(std::round(p.x() * 1e6) / 1e6);
    expectWellFormed(c, mesh.nodes, 0.05);
  }
  EXPECT_EQ(xs, (std::set<double>{0.0, y0, 1.0}));
  // The node-only test misses it entirely: no node is within the margin.
  for (const auto& c : out) EXPECT_NE(c.kind, Kind::NodeVsShape);
  // Lifted above the margin: nothing.
  EXPECT_TRUE(collide(query, box, edgeDownBox(0.5, y0, -0.06), 0.05).empty());
}

TEST_F(CubeFixture, ShortBoxEdgePressingIntoFaceGivesVertexAndEdgeContacts) {
  const double depth = 0.02, y0 = 0.37;
  const Shape box = Shape::box(Vec3(0.3, 0.2, 0.2));  // lowest edge x in [0.2, 0.8]
  const auto out = collide(query, box, edgeDownBox(0.5, y0, depth), 0.05);
  int vertices = 0, edges = 0;
  for (const auto& c : out) {
    EXPECT_NEAR(c.gap, -depth, 1e-12);
    EXPECT_TRUE(c.normal.isApprox(-Vec3::UnitZ(), 1e-12));
    expectWellFormed(c, mesh.nodes, 0.05);
    if (c.kind == Kind::ShapePointVsTriangle) {
      ++vertices;
      const Vec3 p = deformablePoint(c, mesh.nodes);
      EXPECT_NEAR(std::abs(p.x() - 0.5), 0.3, 1e-12);
      EXPECT_NEAR(p.y(), y0, 1e-12);
    } else {
      EXPECT_EQ(c.kind, Kind::ShapeEdgeVsTriangleEdge);
      ++edges;
    }
  }
  EXPECT_EQ(vertices, 2);
  EXPECT_EQ(edges, 1);  // the face diagonal at x = y0
}

TEST_F(CubeFixture, BoxEdgeAcrossRidgeAndValley) {
  // Lowering the top face's corners (1,0,1) and (0,1,1) makes its diagonal a convex ridge;
  // lowering (0,0,1) and (1,1,1) instead makes it a concave valley.  A box edge along (1,-1,0)
  // presses 0.01 into the diagonal's midpoint.
  const double depth = 0.01;
  const Shape box = Shape::box(Vec3(0.3, 0.2, 0.2));
  auto pose = [&](double top) {
    // Local x along (1,-1,0), local y horizontal across it, then 45 degrees about local x.
    const Quat yaw = axisAngle(-M_PI / 4, Vec3::UnitZ());
    return makePose(Vec3(0.5, 0.5, top - depth + 0.2 * std::sqrt(2.0)),
                    yaw * axisAngle(M_PI / 4, Vec3::UnitX()));
  };
  auto corner = [&](double x, double y) {
    for (int i = 0; i < mesh.numNodes(); ++i)
      if (mesh.nodes[i].isApprox(Vec3(x, y, 1.0))) return i;
    return -1;
  };
  {
    std::vector<Vec3> x = mesh.nodes;
    x[corner(1, 0)].z() -= 0.1;
    x[corner(0, 1)].z() -= 0.1;
    query.update(x);
    const auto out = collide(query, box, pose(1.0), 0.05);
    int edges = 0;
    for (const auto& c : out) {
      expectWellFormed(c, x, 0.05);
      if (c.kind != Kind::ShapeEdgeVsTriangleEdge) {
        EXPECT_GT(c.gap, 0.0);  // the box's vertices hang over the sloping faces
        continue;
      }
      ++edges;
      EXPECT_NEAR(c.gap, -depth, 1e-12);
      EXPECT_TRUE(c.normal.isApprox(-Vec3::UnitZ(), 1e-12));
      EXPECT_TRUE(c.weights.isApprox(Vec3(0.5, 0.5, 0.0), 1e-12));
    }
    EXPECT_EQ(edges, 1);
  }
  {
    std::vector<Vec3> x = mesh.nodes;
    x[corner(0, 0)].z() -= 0.1;
    x[corner(1, 1)].z() -= 0.1;
    query.update(x);
    const auto out = collide(query, box, pose(0.9), 0.05);
    // A valley edge has no normal cone: the box's two lowest vertices, inside the sloping
    // faces, carry the contact.
    ASSERT_EQ(out.size(), 2u);
    for (const auto& c : out) {
      expectWellFormed(c, x, 0.05);
      EXPECT_EQ(c.kind, Kind::ShapePointVsTriangle);
      EXPECT_LT(c.gap, 0.0);
    }
  }
}

TEST_F(CubeFixture, BoxCornerIntoFace) {
  // A cube standing on a corner (the diagonal (1,1,1) vertical), its lowest vertex 0.03 into the
  // top face at (0.4, 0.7).
  const Quat q = Quat::FromTwoVectors(Vec3(1, 1, 1).normalized(), Vec3::UnitZ());
  const double h = 0.1, depth = 0.03;
  const Pose pose = makePose(Vec3(0.4, 0.7, 1.0 - depth + h * std::sqrt(3.0)), q);
  const auto out = collide(query, Shape::box(Vec3::Constant(h)), pose, 0.01);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, Kind::ShapePointVsTriangle);
  EXPECT_NEAR(out[0].gap, -depth, 1e-12);
  EXPECT_TRUE(out[0].normal.isApprox(-Vec3::UnitZ(), 1e-12));
  EXPECT_EQ(out[0].feature >> 25 & 0x1F, 0u);  // vertex 0 = (-h,-h,-h), the lowest
  expectWellFormed(out[0], mesh.nodes, 0.01);
}

TEST_F(CubeFixture, BoxFaceOnTopGivesNodeContacts) {
  // A wide box resting 0.01 over the whole top face: the 4 top nodes (the box's vertices are
  // off the cube and its edges parallel to or off the mesh edges).
  const auto out =
      collide(query, Shape::box(Vec3(1, 1, 0.1)), makePose(Vec3(0.5, 0.5, 1.11)), 0.05);
  ASSERT_EQ(out.size(), 4u);
  for (const auto& c : out) {
    EXPECT_EQ(c.kind, Kind::NodeVsShape);
    EXPECT_NEAR(c.gap, 0.01, 1e-12);
    EXPECT_TRUE(c.normal.isApprox(-Vec3::UnitZ(), 1e-12));
  }
}

TEST_F(CubeFixture, CapsuleAcrossFace) {
  const double r = 0.1, gap = 0.02;
  const Quat along_x = axisAngle(M_PI / 2, Vec3::UnitY());
  {  // Long: crosses the diagonal and both ridges, ends off the cube.
    const auto out = collide(query, Shape::capsule(r, 1.0),
                             makePose(Vec3(0.5, 0.3, 1.0 + r + gap), along_x), 0.05);
    ASSERT_EQ(out.size(), 3u);
    for (const auto& c : out) {
      EXPECT_EQ(c.kind, Kind::ShapeEdgeVsTriangleEdge);
      EXPECT_NEAR(c.gap, gap, 1e-12);
      EXPECT_TRUE(c.normal.isApprox(-Vec3::UnitZ(), 1e-12));
      EXPECT_NEAR(deformablePoint(c, mesh.nodes).y(), 0.3, 1e-12);
      expectWellFormed(c, mesh.nodes, 0.05);
    }
  }
  {  // Short: both end spheres over the face, the segment across the diagonal; penetrating.
    const auto out = collide(query, Shape::capsule(r, 0.2),
                             makePose(Vec3(0.5, 0.45, 1.0 + r - gap), along_x), 0.05);
    ASSERT_EQ(out.size(), 3u);
    int ends = 0;
    for (const auto& c : out) {
      EXPECT_NEAR(c.gap, -gap, 1e-12);
      EXPECT_TRUE(c.normal.isApprox(-Vec3::UnitZ(), 1e-12));
      expectWellFormed(c, mesh.nodes, 0.05);
      if (c.kind == Kind::ShapePointVsTriangle) ++ends;
    }
    EXPECT_EQ(ends, 2);
  }
}

TEST_F(CubeFixture, NothingBeyondMargin) {
  const double margin = 0.05;
  const Quat along_x = axisAngle(M_PI / 2, Vec3::UnitY());
  for (const double gap : {0.04, 0.06}) {
    const bool expect = gap < margin;
    EXPECT_EQ(
        !collide(query, Shape::sphere(0.1), makePose(Vec3(0.6, 0.3, 1.1 + gap)), margin).empty(),
        expect);
    EXPECT_EQ(!collide(query, Shape::box(Vec3(0.1, 0.1, 0.1)), makePose(Vec3(0.6, 0.3, 1.1 + gap)),
                       margin)
                   .empty(),
              expect);
    EXPECT_EQ(!collide(query, Shape::capsule(0.1, 0.2),
                       makePose(Vec3(0.5, 0.45, 1.1 + gap), along_x), margin)
                   .empty(),
              expect);
    EXPECT_EQ(
        !collide(query, Shape::cylinder(0.1, 0.1), makePose(Vec3(0.0, 0.0, 1.1 + gap)), margin)
             .empty(),
        expect);
    EXPECT_EQ(!collide(query, Shape::plane(), makePose(Vec3(0, 0, -gap)), margin).empty(), expect);
    EXPECT_EQ(!collide(query, Shape::box(Vec3(1.0, 0.2, 0.2)), edgeDownBox(0.5, 0.37, -gap), margin)
                   .empty(),
              expect);
  }
}

TEST_F(CubeFixture, FeatureIdsStableUnderSmallMotion) {
  const Shape box = Shape::box(Vec3(0.3, 0.2, 0.2));
  const Pose p0 = edgeDownBox(0.5, 0.37, 0.02);
  Pose p1 = p0;
  p1.position += Vec3(1e-3, -2e-3, 1e-3);
  p1.orientation = (axisAngle(2e-3, Vec3(0.3, 1, 0.2).normalized()) * p0.orientation).normalized();
  // The cube deforms a little too.
  std::vector<Vec3> moved = mesh.nodes;
  for (std::size_t i = 0; i < moved.size(); ++i) moved[i] += 1e-3 * Vec3(i % 2, i % 3, 0.5);
  auto ids = [&](const std::vector<DeformableContact>& out) {
    std::set<std::uint32_t> s;
    for (const auto& c : out) s.insert(c.feature);
    EXPECT_EQ(s.size(), out.size());  // distinct within one query
    return s;
  };
  const auto a = ids(collide(query, box, p0, 0.05));
  query.update(moved);
  const auto b = ids(collide(query, box, p1, 0.05));
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a, b);
}

TEST_F(CubeFixture, FlatVectorUpdateMatches) {
  VecX flat(3 * mesh.numNodes());
  for (int i = 0; i < mesh.numNodes(); ++i) flat.segment<3>(3 * i) = mesh.nodes[i];
  DeformableSurfaceQuery other(boundaryTriangles(mesh), 0.25);
  other.update(flat);
  const Pose pose = edgeDownBox(0.5, 0.37, 0.02);
  const Shape box = Shape::box(Vec3(0.3, 0.2, 0.2));
  const auto a = collide(query, box, pose, 0.05), b = collide(other, box, pose, 0.05);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].feature, b[i].feature);
}

TEST_F(CubeFixture, RejectsBadInput) {
  std::vector<Vec3> bad = mesh.nodes;
  bad[3].x() = std::nan("");
  EXPECT_THROW(query.update(bad), std::invalid_argument);
  EXPECT_THROW(query.update(std::vector<Vec3>(3)), std::invalid_argument);
  EXPECT_THROW(DeformableSurfaceQuery({{0, 1, 1}}, 0.1), std::invalid_argument);
  EXPECT_THROW(DeformableSurfaceQuery({{0, 1, 2}}, -1.0), std::invalid_argument);
}

TEST_F(CubeFixture, ReusesOutputCapacity) {
  std::vector<DeformableContact> out;
  out.reserve(64);
  const auto* data = out.data();
  const Pose pose = edgeDownBox(0.5, 0.37, 0.02);
  for (int i = 0; i < 3; ++i) {
    out.clear();
    query.collide(Shape::box(Vec3(0.3, 0.2, 0.2)), pose, 0.05, out);
    EXPECT_EQ(out.size(), 3u);
  }
  EXPECT_EQ(out.data(), data);
}

void expectSameContacts(const std::vector<DeformableContact>& a,
                        const std::vector<DeformableContact>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].feature, b[i].feature);
    EXPECT_EQ(a[i].nodes, b[i].nodes);
    EXPECT_EQ(a[i].gap, b[i].gap);
    EXPECT_EQ(a[i].normal, b[i].normal);
    EXPECT_EQ(a[i].weights, b[i].weights);
  }
}

TEST(DeformableSlab, GridMatchesBruteForce) {
  // A 20 x 20 x 2 slab (1920 surface triangles, spacing 0.1), its nodes jittered so nothing is
  // aligned, against boxes, spheres and capsules of about the mesh spacing touching or pressing
  // into its top face in random poses.
  TetMesh mesh = gridMesh(Vec3(2.0, 2.0, 0.2), 20, 20, 2);
  std::mt19937 rng(7);
  for (auto& x : mesh.nodes) x += test::randomVec(rng, -0.01, 0.01);
  const auto tris = boundaryTriangles(mesh);
  EXPECT_EQ(tris.size(), 1920u);
  DeformableSurfaceQuery grid(tris, 0.05), brute(tris, 0.05);
  brute.setBruteForce(true);
  grid.update(mesh.nodes);
  brute.update(mesh.nodes);
  int total = 0, kinds[3] = {0, 0, 0};
  for (int trial = 0; trial < 600; ++trial) {
    const double s = test::uniform(rng, 0.02, 0.2);
    const Shape shape = trial % 3 == 0   ? Shape::box(s * test::randomVec(rng, 0.3, 1.0))
                        : trial % 3 == 1 ? Shape::sphere(s)
                                         : Shape::capsule(0.3 * s, s);
    Pose pose = makePose(Vec3(test::uniform(rng, -0.1, 2.1), test::uniform(rng, -0.1, 2.1), 0.0),
                         test::randomRotation(rng));
    // Lowest point between 0.04 deep and 0.03 above the (jittered) top face.
    pose.position.z() =
        0.2 - computeAabb(shape, pose, 0.0).lower.z() + test::uniform(rng, -0.04, 0.03);
    const auto a = collide(grid, shape, pose, 0.02), b = collide(brute, shape, pose, 0.02);
    expectSameContacts(a, b);
    for (const auto& c : a) {
      expectWellFormed(c, mesh.nodes, 0.02);
      ++kinds[static_cast<int>(c.kind)];
      // Independently: the rigid point is on the shape's surface (for a capsule's end spheres it
      // may lie inside the capsule), and a node's gap is its signed distance to the shape.
      const double rigid = test::signedDistance(shape, pose, c.point - 0.5 * c.gap * c.normal);
      if (shape.type == ShapeType::Capsule) {
        EXPECT_LT(rigid, 1e-9);
      } else {
        EXPECT_NEAR(rigid, 0.0, 1e-9);
      }
      if (c.kind == Kind::NodeVsShape) {
        EXPECT_NEAR(c.gap, test::signedDistance(shape, pose, mesh.nodes[c.nodes[0]]), 1e-9);
      }
    }
    total += static_cast<int>(a.size());
  }
  // The trials exercise every kind of contact.
  EXPECT_GT(kinds[0], 0);
  EXPECT_GT(kinds[1], 0);
  EXPECT_GT(kinds[2], 0);
  std::printf("slab: %d contacts (node %d, point-triangle %d, edge-edge %d)\n", total, kinds[0],
              kinds[1], kinds[2]);
}

TEST(DeformableSlab, SmallShapesCannotSlipBetweenNodes) {
  // Shapes much smaller than the 0.1 spacing anywhere over the top face (z = 0.2), away from its
  // border: the deepest contact is always the exact gap.
  const TetMesh mesh = gridMesh(Vec3(2.0, 2.0, 0.2), 20, 20, 2);
  DeformableSurfaceQuery query(boundaryTriangles(mesh), 0.05);
  query.update(mesh.nodes);
  std::mt19937 rng(3);
  auto minGap = [](const std::vector<DeformableContact>& out) {
    double g = 1e300;
    for (const auto& c : out) g = std::min(g, c.gap);
    return g;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 at(test::uniform(rng, 0.2, 1.8), test::uniform(rng, 0.2, 1.8), 0.2);
    const double yaw = test::uniform(rng, -M_PI, M_PI);
    {  // sphere 0.01 above
      const auto out = collide(query, Shape::sphere(0.02), makePose(at + Vec3(0, 0, 0.03)), 0.02);
      EXPECT_NEAR(minGap(out), 0.01, 1e-12);
    }
    {  // horizontal capsule 0.01 above
      const Pose p = makePose(at + Vec3(0, 0, 0.03),
                              axisAngle(yaw, Vec3::UnitZ()) * axisAngle(M_PI / 2, Vec3::UnitY()));
      EXPECT_NEAR(minGap(collide(query, Shape::capsule(0.02, 0.03), p, 0.02)), 0.01, 1e-12);
    }
    {  // box standing on a corner, 0.005 deep
      const Quat q = axisAngle(yaw, Vec3::UnitZ()) *
                     Quat::FromTwoVectors(Vec3(1, 1, 1).normalized(), Vec3::UnitZ());
      const Pose p = makePose(at + Vec3(0, 0, 0.02 * std::sqrt(3.0) - 0.005), q);
      EXPECT_NEAR(minGap(collide(query, Shape::box(Vec3::Constant(0.02)), p, 0.02)), -0.005, 1e-12);
    }
    {  // box edge down, 0.005 deep
      const Pose p = makePose(at + Vec3(0, 0, 0.02 * std::sqrt(2.0) - 0.005),
                              axisAngle(yaw, Vec3::UnitZ()) * axisAngle(M_PI / 4, Vec3::UnitX()));
      EXPECT_NEAR(minGap(collide(query, Shape::box(Vec3(0.04, 0.02, 0.02)), p, 0.02)), -0.005,
                  1e-12);
    }
  }
}

TEST(DeformableSlab, QueryCost) {
  // ~2500 triangles (24 x 24 x 2: 2688) against a small box pressing into the top face.
  const TetMesh mesh = gridMesh(Vec3(2.4, 2.4, 0.2), 24, 24, 2);
  const auto tris = boundaryTriangles(mesh);
  DeformableSurfaceQuery grid(tris, 0.05), brute(tris, 0.05);
  brute.setBruteForce(true);
  const Shape box = Shape::box(Vec3(0.15, 0.1, 0.05));
  const Pose pose =
      makePose(Vec3(1.23, 1.17, 0.2 + 0.04), axisAngle(0.3, Vec3(1, 2, 3).normalized()));
  std::vector<DeformableContact> out;
  out.reserve(256);
  auto time = [&](DeformableSurfaceQuery& q, bool with_update) {
    const int reps = 2000;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) {
      if (with_update) q.update(mesh.nodes);
      out.clear();
      q.collide(box, pose, 0.01, out);
    }
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
               .count() /
           reps;
  };
  grid.update(mesh.nodes);
  brute.update(mesh.nodes);
  const double tg = time(grid, false), tb = time(brute, false), tu = time(grid, true);
  EXPECT_FALSE(out.empty());
  // The grid hands the narrow tests a few dozen triangles, not the whole surface.
  EXPECT_LT(grid.lastCandidateCount(), static_cast<int>(tris.size()) / 20);
  std::printf("candidate triangles: %d of %zu\n", grid.lastCandidateCount(), tris.size());
  std::printf(
      "%zu triangles, %zu contacts: grid %.2f us, brute force %.2f us per query; "
      "update + query %.2f us\n",
      tris.size(), out.size(), tg, tb, tu);
}

// ---------------------------------------------------------------------------------------------
// Nodes against a surface (another deformable's, or the body's own: self contact)

std::vector<DeformableContact> collideNode(DeformableSurfaceQuery& q, const Vec3& p, int self,
                                           double margin) {
  std::vector<DeformableContact> out;
  q.collideNode(p, self, margin, out);
  return out;
}

TEST_F(CubeFixture, ANodeOverAFaceOrInsideItTouchesTheFace) {
  for (const double height : {1.05, 0.95}) {
    const Vec3 p(0.3, 0.6, height);
    const auto c = collideNode(query, p, -1, 0.1);
    ASSERT_EQ(c.size(), 1u) << height;
    EXPECT_EQ(c[0].kind, Kind::ShapePointVsTriangle);
    EXPECT_NEAR(c[0].gap, height - 1.0, 1e-12);
    EXPECT_TRUE(c[0].normal.isApprox(Vec3(0, 0, -1), 1e-12));  // from the node to the cube
    EXPECT_TRUE(deformablePoint(c[0], mesh.nodes).isApprox(Vec3(0.3, 0.6, 1.0), 1e-12));
    expectWellFormed(c[0], mesh.nodes, 0.1);
  }
  EXPECT_TRUE(collideNode(query, Vec3(0.3, 0.6, 1.2), -1, 0.1).empty());  // beyond the margin
  EXPECT_TRUE(collideNode(query, Vec3(0.3, 0.6, 0.5), -1, 0.1).empty());  // beyond max_depth
}

TEST_F(CubeFixture, ANodeNearACornerTouchesTheCornerNode) {
  const Vec3 corner(1, 1, 1), p(1.03, 1.04, 1.05);
  const auto c = collideNode(query, p, -1, 0.1);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, Kind::NodeVsShape);
  ASSERT_TRUE(mesh.nodes[c[0].nodes[0]].isApprox(corner));
  EXPECT_NEAR(c[0].gap, (p - corner).norm(), 1e-12);
  EXPECT_TRUE(c[0].normal.isApprox((corner - p).normalized(), 1e-12));
  expectWellFormed(c[0], mesh.nodes, 0.1);
  // Just inside the corner (along its pseudo-normal's reverse): a negative gap.
  const Vec3 q = corner - 0.01 * Vec3::Ones().normalized();
  const auto inside = collideNode(query, q, -1, 0.1);
  ASSERT_EQ(inside.size(), 1u);
  EXPECT_LT(inside[0].gap, 0.0);
  expectWellFormed(inside[0], mesh.nodes, 0.1);
}

TEST(DeformableSelfContact, TwoLayersOfOneBodyTouchOnlyAcrossTheirGap) {
  // One body of two slabs, 10 x 10 cells of 1 x 1 x 0.1, that lie apart at rest (the second 5 m
  // along x) and are stacked now, 5 mm apart: the lower slab's top face and the upper slab's
  // bottom face touch; nothing within a slab does, its own faces being excluded near each node.
  const TetMesh slab = gridMesh(Vec3(1.0, 1.0, 0.1), 10, 10, 1);
  TetMesh body = slab;
  const int n = slab.numNodes();
  for (const Vec3& x : slab.nodes) body.nodes.push_back(x + Vec3(5.0, 0.0, 0.0));
  for (const auto& t : slab.tets) body.tets.push_back({t[0] + n, t[1] + n, t[2] + n, t[3] + n});
  std::vector<Vec3> now = slab.nodes;
  for (const Vec3& x : slab.nodes) now.push_back(x + Vec3(0.0, 0.0, 0.105));
  DeformableSurfaceQuery query(boundaryTriangles(body), 0.025);
  query.setSelfContact(body.nodes, 0.15);
  query.update(now);
  const double margin = 0.01;
  int lower_up = 0, upper_down = 0;
  for (const int node : query.surfaceNodes()) {
    const auto c = collideNode(query, now[node], node, margin);
    const bool upper = node >= n;
    const bool facing = upper ? now[node].z() < 0.1051 : now[node].z() > 0.0999;
    ASSERT_EQ(c.size(), facing ? 1u : 0u) << "node " << node;
    if (!facing) continue;
    EXPECT_NEAR(c[0].gap, 0.005, 1e-12);
    EXPECT_TRUE(c[0].normal.isApprox(Vec3(0, 0, upper ? -1.0 : 1.0), 1e-12));
    for (int k = 0; k < c[0].numNodes(); ++k) EXPECT_EQ(c[0].nodes[k] >= n, !upper);
    expectWellFormed(c[0], now, margin);
    ++(upper ? upper_down : lower_up);
  }
  EXPECT_EQ(lower_up, 121);
  EXPECT_EQ(upper_down, 121);
  // At rest (the slabs apart) no node touches its own body.
  query.update(body.nodes);
  for (const int node : query.surfaceNodes())
    EXPECT_TRUE(collideNode(query, body.nodes[node], node, margin).empty()) << node;
}

}  // namespace
}  // namespace subsim
