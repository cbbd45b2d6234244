// boxTetMesh: counts, orientation, volume and conformity of the Kuhn split.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "subsim/fem/box_tet_mesher.hpp"

namespace subsim {
namespace {

// Computed here: the tet_mesh.hpp helpers are another component's.
double volume6(const TetMesh& m, const std::array<int, 4>& t) {
  Mat3 D;
  for (int c = 0; c < 3; ++c) D.col(c) = m.nodes[t[c + 1]] - m.nodes[t[0]];
  return D.determinant();
}

TEST(BoxTetMesher, CountsOrderAndFrame) {
  const Vec3 size(1.0, 2.0, 3.0);
  const int nx = 2, ny = 3, nz = 4;
  const TetMesh m = boxTetMesh(size, nx, ny, nz);
  EXPECT_EQ(m.numNodes(), 3 * 4 * 5);
  EXPECT_EQ(m.numTets(), 6 * nx * ny * nz);
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        const Vec3 expected = Vec3(i * 0.5, j * 2.0 / 3.0, k * 0.75) - 0.5 * size;
        EXPECT_LT((m.nodes[boxNodeIndex(nx, ny, i, j, k)] - expected).norm(), 1e-14);
      }
  // Centred: the corners are exactly at +-size/2.
  EXPECT_EQ(m.nodes.front(), Vec3(-0.5, -1.0, -1.5));
  EXPECT_EQ(m.nodes.back(), Vec3(0.5, 1.0, 1.5));
}

TEST(BoxTetMesher, PositiveTetsFillTheBox) {
  const Vec3 size(0.05, 0.05, 0.5);
  const TetMesh m = boxTetMesh(size, 5, 5, 42);
  EXPECT_EQ(m.numNodes(), 6 * 6 * 43);
  EXPECT_EQ(m.numTets(), 6300);
  double volume = 0.0;
  for (const auto& t : m.tets) {
    const double v6 = volume6(m, t);
    ASSERT_GT(v6, 0.0);
    volume += v6 / 6.0;
  }
  const double box = size.prod();
  EXPECT_NEAR(volume, box, 1e-12 * box);
}

// Every face of every tet, outward by the right-hand rule, keyed by its sorted nodes: interior
// faces must appear exactly twice with opposite orientations, the rest must tile the box surface.
TEST(BoxTetMesher, Conforming) {
  const Vec3 size(1.0, 1.5, 0.7);
  const int nx = 3, ny = 4, nz = 2;
  const TetMesh m = boxTetMesh(size, nx, ny, nz);
  // Outward faces of a positive tet (n0, n1, n2, n3).
  constexpr int kFaces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  std::map<std::array<int, 3>, std::vector<std::array<int, 3>>> faces;
  for (const auto& t : m.tets)
    for (const auto& f : kFaces) {
      std::array<int, 3> tri = {t[f[0]], t[f[1]], t[f[2]]};
      // Rotate (keeping orientation) so the smallest node comes first.
      std::rotate(tri.begin(), std::min_element(tri.begin(), tri.end()), tri.end());
      std::array<int, 3> key = tri;
      std::sort(key.begin(), key.end());
      faces[key].push_back(tri);
    }
  int boundary = 0;
  for (const auto& [key, oriented] : faces) {
    ASSERT_LE(oriented.size(), 2u);
    if (oriented.size() == 2) {
      EXPECT_EQ(oriented[0][1], oriented[1][2]) << "shared face with equal orientations";
      EXPECT_EQ(oriented[0][2], oriented[1][1]);
      continue;
    }
    ++boundary;
    // A face seen once lies in one of the box's 6 planes.
    bool on_plane = false;
    for (int axis = 0; axis < 3; ++axis)
      for (double side : {-0.5, 0.5}) {
        bool all = true;
        for (int v : key) all = all && m.nodes[v][axis] == side * size[axis];
        on_plane = on_plane || all;
      }
    EXPECT_TRUE(on_plane);
  }
  EXPECT_EQ(boundary, 2 * 2 * (nx * ny + ny * nz + nz * nx));
}

void expectThrowNaming(const std::string& name, const Vec3& size, int nx, int ny, int nz) {
  try {
    boxTetMesh(size, nx, ny, nz);
    ADD_FAILURE() << "no throw for " << name;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

TEST(BoxTetMesher, InvalidArguments) {
  expectThrowNaming("size.x", Vec3(0.0, 1.0, 1.0), 1, 1, 1);
  expectThrowNaming("size.y", Vec3(1.0, -1.0, 1.0), 1, 1, 1);
  expectThrowNaming("size.z", Vec3(1.0, 1.0, std::nan("")), 1, 1, 1);
  expectThrowNaming("nx", Vec3(1.0, 1.0, 1.0), 0, 1, 1);
  expectThrowNaming("ny", Vec3(1.0, 1.0, 1.0), 1, -2, 1);
  expectThrowNaming("nz", Vec3(1.0, 1.0, 1.0), 1, 1, 0);
  expectThrowNaming("kMaxBoxMeshNodes", Vec3(1.0, 1.0, 1.0), 1000, 1000, 1000);
}

}  // namespace
}  // namespace subsim
