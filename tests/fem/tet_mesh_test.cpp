// TetMesh checks and boundary extraction: every defect class is named, and the boundary of a
// cube split into tets is a closed, outward surface enclosing the cube's volume.
#include "subsim/fem/tet_mesh.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace subsim {
namespace {

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, needle, haystack)

TetMesh unitCornerTet() {
  TetMesh mesh;
  mesh.nodes = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
  mesh.tets = {{0, 1, 2, 3}};
  return mesh;
}

// Swaps nodes 2 and 3 of negatively oriented tets, so that test meshes can list tets by node
// set without working out each orientation by hand.
TetMesh oriented(TetMesh mesh) {
  for (int t = 0; t < mesh.numTets(); ++t)
    if (signedVolume6(mesh, t) < 0.0) std::swap(mesh.tets[t][2], mesh.tets[t][3]);
  return mesh;
}

// An n x n x n grid of cubes of edge h, each split into 5 tets (alternating mirror images so that
// neighbouring cubes' face diagonals match) or 6 tets (Kuhn: one per path from corner 0 to 7).
TetMesh cubeGrid(int n, double h, bool five) {
  TetMesh mesh;
  auto node = [n](int i, int j, int k) { return i + (n + 1) * (j + (n + 1) * k); };
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i) mesh.nodes.push_back(h * Vec3(i, j, k));
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        // Cube corner c = x + 2y + 4z; a mirrored cube swaps x so its diagonals alternate.
        const bool mirror = five && (i + j + k) % 2 == 1;
        auto v = [&](int c) {
          const int x = c & 1;
          return node(i + (mirror ? 1 - x : x), j + ((c >> 1) & 1), k + ((c >> 2) & 1));
        };
        if (five) {
          for (const auto& t : {std::array<int, 4>{1, 2, 4, 7},
                                {0, 1, 2, 4},
                                {3, 1, 2, 7},
                                {5, 1, 4, 7},
                                {6, 2, 4, 7}})
            mesh.tets.push_back({v(t[0]), v(t[1]), v(t[2]), v(t[3])});
        } else {
          for (const auto& t : {std::array<int, 2>{1, 3}, {1, 5}, {2, 3}, {2, 6}, {4, 5}, {4, 6}})
            mesh.tets.push_back({v(0), v(t[0]), v(t[1]), v(7)});
        }
      }
  return oriented(std::move(mesh));
}

TEST(TetMesh, SignedVolumeOfUnitCornerTetIsOne) {
  const TetMesh mesh = unitCornerTet();
  EXPECT_DOUBLE_EQ(signedVolume6(mesh, 0), 1.0);
  EXPECT_EQ(checkTetMesh(mesh), "");
}

TEST(TetMesh, CheckReportsEmptyMesh) {
  EXPECT_CONTAINS(checkTetMesh(TetMesh{}), "nodes: empty");
  TetMesh no_tets = unitCornerTet();
  no_tets.tets.clear();
  EXPECT_CONTAINS(checkTetMesh(no_tets), "tets: empty");
}

TEST(TetMesh, CheckReportsIndexOutOfRange) {
  TetMesh mesh = unitCornerTet();
  mesh.tets.push_back({0, 1, 2, 4});
  EXPECT_EQ(checkTetMesh(mesh), "tets[1]: node index 4 out of range [0, 3]");
  mesh.tets[1][3] = -1;
  EXPECT_CONTAINS(checkTetMesh(mesh), "tets[1]: node index -1 out of range");
}

TEST(TetMesh, CheckReportsRepeatedNode) {
  TetMesh mesh = unitCornerTet();
  mesh.tets[0] = {0, 1, 1, 3};
  EXPECT_CONTAINS(checkTetMesh(mesh), "tets[0]: node 1 repeated");
}

TEST(TetMesh, CheckReportsInvertedTet) {
  TetMesh mesh = unitCornerTet();
  mesh.tets[0] = {0, 2, 1, 3};
  EXPECT_CONTAINS(checkTetMesh(mesh), "tets[0]: inverted (6V = -1)");
}

TEST(TetMesh, CheckReportsFlatTet) {
  TetMesh mesh = unitCornerTet();
  mesh.nodes[3] = Vec3(0.3, 0.3, 1e-14);  // within 1e-12 of the plane of the other three
  EXPECT_CONTAINS(checkTetMesh(mesh), "tets[0]: degenerate");
  // A tiny but well-shaped tet is not degenerate: the test is relative to its size.
  TetMesh tiny = unitCornerTet();
  for (Vec3& x : tiny.nodes) x *= 1e-6;
  EXPECT_EQ(checkTetMesh(tiny), "");
}

TEST(TetMesh, CheckReportsUnusedNode) {
  TetMesh mesh = unitCornerTet();
  mesh.nodes.push_back(Vec3(5, 5, 5));
  EXPECT_CONTAINS(checkTetMesh(mesh), "nodes[4]: unused");
}

TEST(TetMesh, CheckReportsNonFiniteCoordinate) {
  TetMesh mesh = unitCornerTet();
  mesh.nodes[2].y() = std::numeric_limits<double>::quiet_NaN();
  EXPECT_CONTAINS(checkTetMesh(mesh), "nodes[2]: expected finite coordinates");
}

TEST(TetMesh, BoundaryOfOneTetIsItsFourFacesFacingOut) {
  const TetMesh mesh = unitCornerTet();
  const auto triangles = boundaryTriangles(mesh);
  ASSERT_EQ(triangles.size(), 4u);
  const Vec3 centroid = (mesh.nodes[0] + mesh.nodes[1] + mesh.nodes[2] + mesh.nodes[3]) / 4;
  for (const auto& tri : triangles) {
    const Vec3 &a = mesh.nodes[tri[0]], &b = mesh.nodes[tri[1]], &c = mesh.nodes[tri[2]];
    const Vec3 normal = (b - a).cross(c - a);
    EXPECT_GT(normal.dot((a + b + c) / 3 - centroid), 0.0);
  }
}

// Divergence theorem: the volume enclosed by a closed, outward triangle surface.
double enclosedVolume(const TetMesh& mesh, const std::vector<std::array<int, 3>>& triangles) {
  double volume = 0.0;
  for (const auto& tri : triangles)
    volume += mesh.nodes[tri[0]].dot(mesh.nodes[tri[1]].cross(mesh.nodes[tri[2]])) / 6.0;
  return volume;
}

// Closed and consistently oriented: every directed edge occurs once, and its reverse once.
void expectClosedSurface(const std::vector<std::array<int, 3>>& triangles) {
  std::map<std::pair<int, int>, int> directed;
  for (const auto& tri : triangles)
    for (int e = 0; e < 3; ++e) ++directed[{tri[e], tri[(e + 1) % 3]}];
  for (const auto& [edge, count] : directed) {
    EXPECT_EQ(count, 1) << "edge " << edge.first << "-" << edge.second;
    const auto reverse = directed.find({edge.second, edge.first});
    EXPECT_TRUE(reverse != directed.end() && reverse->second == 1)
        << "edge " << edge.first << "-" << edge.second << " has no single opposite edge";
  }
}

TEST(TetMesh, BoundaryOfCubeIsClosedAndEnclosesItsVolume) {
  for (bool five : {true, false}) {
    SCOPED_TRACE(five ? "5 tets" : "6 tets");
    const TetMesh mesh = cubeGrid(1, 2.0, five);
    ASSERT_EQ(checkTetMesh(mesh), "");
    ASSERT_EQ(mesh.numTets(), five ? 5 : 6);
    const auto triangles = boundaryTriangles(mesh);
    EXPECT_EQ(triangles.size(), 12u);
    EXPECT_NEAR(enclosedVolume(mesh, triangles), 8.0, 1e-12);
    expectClosedSurface(triangles);
  }
}

TEST(TetMesh, BoundaryOfLargeGridIsClosedAndDeterministic) {
  for (bool five : {true, false}) {
    SCOPED_TRACE(five ? "5 tets per cube" : "6 tets per cube");
    const int n = 11;  // 6655 or 7986 tets: the size of the meshes we simulate
    const TetMesh mesh = cubeGrid(n, 0.1, five);
    ASSERT_EQ(checkTetMesh(mesh), "");
    const auto triangles = boundaryTriangles(mesh);
    EXPECT_EQ(triangles.size(), static_cast<std::size_t>(6 * 2 * n * n));
    EXPECT_NEAR(enclosedVolume(mesh, triangles), std::pow(0.1 * n, 3), 1e-12);
    expectClosedSurface(triangles);
    EXPECT_EQ(boundaryTriangles(mesh), triangles);
  }
}

}  // namespace
}  // namespace subsim
