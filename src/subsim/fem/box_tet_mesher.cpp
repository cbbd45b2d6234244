// Kuhn split of a structured hexahedral grid (box_tet_mesher.hpp).
#include "subsim/fem/box_tet_mesher.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace subsim {

namespace {

void requirePositive(double v, const char* name) {
  if (!(std::isfinite(v) && v > 0.0))
    throw std::invalid_argument(std::string("boxTetMesh: ") + name +
                                " must be positive and finite");
}

void requireCount(int n, const char* name) {
  if (n < 1) throw std::invalid_argument(std::string("boxTetMesh: ") + name + " must be >= 1");
}

// The 6 permutations of the axes.  A Kuhn tet walks from corner (0,0,0) to (1,1,1) along the
// axes in the order of one permutation; its edge matrix [e_p0, e_p0 + e_p1, e_p0 + e_p1 + e_p2]
// has determinant sign(p), so odd permutations swap their last two nodes to be positive.
constexpr std::array<std::array<int, 3>, 6> kAxisOrders = {
    {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}};
constexpr int kFirstOdd = 3;

}  // namespace

TetMesh boxTetMesh(const Vec3& size, int nx, int ny, int nz) {
  requirePositive(size.x(), "size.x");
  requirePositive(size.y(), "size.y");
  requirePositive(size.z(), "size.z");
  requireCount(nx, "nx");
  requireCount(ny, "ny");
  requireCount(nz, "nz");
  const long long nodes = (nx + 1LL) * (ny + 1LL) * (nz + 1LL);
  if (nodes > kMaxBoxMeshNodes)
    throw std::invalid_argument("boxTetMesh: nx, ny, nz give " + std::to_string(nodes) +
                                " nodes, above kMaxBoxMeshNodes");

  TetMesh mesh;
  mesh.nodes.reserve(static_cast<size_t>(nodes));
  const std::array<int, 3> n = {nx, ny, nz};
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i)
        // size * (i / n - 1/2) puts the boundary nodes exactly (bitwise) at +-size / 2, which
        // i * h - size / 2 does not for every n.
        mesh.nodes.emplace_back(size.x() * (static_cast<double>(i) / nx - 0.5),
                                size.y() * (static_cast<double>(j) / ny - 0.5),
                                size.z() * (static_cast<double>(k) / nz - 0.5));

  mesh.tets.reserve(static_cast<size_t>(6) * nx * ny * nz);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (int p = 0; p < 6; ++p) {
          std::array<int, 4> tet;
          std::array<int, 3> c = {i, j, k};
          tet[0] = boxNodeIndex(n[0], n[1], c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            ++c[kAxisOrders[p][s]];
            tet[s + 1] = boxNodeIndex(n[0], n[1], c[0], c[1], c[2]);
          }
          if (p >= kFirstOdd) std::swap(tet[2], tet[3]);
          mesh.tets.push_back(tet);
        }
  return mesh;
}

}  // namespace subsim
