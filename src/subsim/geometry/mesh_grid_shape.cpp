#include "subsim/geometry/mesh_grid_shape.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

namespace subsim {

namespace {

// The grid reaches this many cells beyond the surface's bounds, so that contacts within a
// margin of the surface are interpolated rather than extrapolated.
constexpr int kPadCells = 3;
// A bound on the grid, so that a tiny cell is an error rather than an exhausted memory.
constexpr double kMaxNodes = 8e6;

/// Signed solid angle of triangle (a, b, c) seen from p (Van Oosterom and Strackee, 1983):
/// positive when p is behind the triangle's outward side, so that over a closed outward-wound
/// surface the sum is 4 pi inside and 0 outside (the generalized winding number times 4 pi).
double solidAngle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 x = a - p, y = b - p, z = c - p;
  const double lx = x.norm(), ly = y.norm(), lz = z.norm();
  const double numerator = x.dot(y.cross(z));
  const double denominator = lx * ly * lz + x.dot(y) * lz + y.dot(z) * lx + z.dot(x) * ly;
  return 2.0 * std::atan2(numerator, denominator);
}

}  // namespace

double MeshGridShape::exactDistance(const TriangleSurface& s, const Vec3& p) {
  double best2 = std::numeric_limits<double>::infinity();
  double winding = 0.0;
  for (const auto& t : s.triangles) {
    const Vec3& a = s.vertices[static_cast<std::size_t>(t[0])];
    const Vec3& b = s.vertices[static_cast<std::size_t>(t[1])];
    const Vec3& c = s.vertices[static_cast<std::size_t>(t[2])];
    best2 = std::min(best2, (p - closestOnTriangle(p, a, b, c).point).squaredNorm());
    winding += solidAngle(p, a, b, c);
  }
  const double d = std::sqrt(best2);
  return winding > 2.0 * std::numbers::pi ? -d : d;
}

MeshGridShape::MeshGridShape(TriangleSurface surface, double cell) : cell_(cell) {
  requireClosedSurface(surface);
  if (!(cell > 0.0) || !std::isfinite(cell))
    throw std::invalid_argument("cell: expected a positive grid spacing in m");
  // The base computes the bounds and the mass properties the grid and the checks need.
  setSurface(std::move(surface), 2.0 * cell);
  if (!(massProperties().volume > 0.0))
    throw std::invalid_argument(
        "surface: it encloses no volume with its triangles wound outward (counter-clockwise "
        "seen from outside): reverse them");
  const Aabb& box = bounds();
  origin_ = box.lower - Vec3::Constant(kPadCells * cell);
  double total = 1.0;
  for (int a = 0; a < 3; ++a) {
    const double n = std::ceil((box.upper[a] - box.lower[a]) / cell) + 2 * kPadCells + 1;
    total *= n;
    if (!(total <= kMaxNodes))
      throw std::invalid_argument(
          "cell: too small for the surface: the grid would have more "
          "than " +
          std::to_string(static_cast<long long>(kMaxNodes)) + " nodes");
    nodes_[a] = static_cast<int>(n);
  }
  values_.resize(static_cast<std::size_t>(total));
  for (int k = 0; k < nodes_[2]; ++k)
    for (int j = 0; j < nodes_[1]; ++j)
      for (int i = 0; i < nodes_[0]; ++i)
        values_[static_cast<std::size_t>((k * nodes_[1] + j) * nodes_[0] + i)] =
            exactDistance(this->surface(), origin_ + cell * Vec3(i, j, k));
}

double MeshGridShape::distance(const Vec3& p, Vec3& gradient) const {
  // Trilinear interpolation in the cell holding the point clamped to the grid; outside the grid
  // the distance to it is added (an upper bound that keeps the field's sign and slope).
  const Vec3 upper = origin_ + cell_ * Vec3(nodes_[0] - 1, nodes_[1] - 1, nodes_[2] - 1);
  const Vec3 q = p.cwiseMax(origin_).cwiseMin(upper);
  const Vec3 outside = p - q;
  Vec3 u = (q - origin_) / cell_;
  int index[3];
  for (int a = 0; a < 3; ++a) {
    index[a] = std::clamp(static_cast<int>(std::floor(u[a])), 0, nodes_[a] - 2);
    u[a] -= index[a];
  }
  const auto at = [&](int di, int dj, int dk) {
    return node(index[0] + di, index[1] + dj, index[2] + dk);
  };
  const double c00 = at(0, 0, 0) * (1 - u.x()) + at(1, 0, 0) * u.x();
  const double c10 = at(0, 1, 0) * (1 - u.x()) + at(1, 1, 0) * u.x();
  const double c01 = at(0, 0, 1) * (1 - u.x()) + at(1, 0, 1) * u.x();
  const double c11 = at(0, 1, 1) * (1 - u.x()) + at(1, 1, 1) * u.x();
  const double c0 = c00 * (1 - u.y()) + c10 * u.y();
  const double c1 = c01 * (1 - u.y()) + c11 * u.y();
  const double value = c0 * (1 - u.z()) + c1 * u.z();
  // The interpolant's gradient, d/dx of each linear factor.
  const double gx = ((at(1, 0, 0) - at(0, 0, 0)) * (1 - u.y()) * (1 - u.z()) +
                     (at(1, 1, 0) - at(0, 1, 0)) * u.y() * (1 - u.z()) +
                     (at(1, 0, 1) - at(0, 0, 1)) * (1 - u.y()) * u.z() +
                     (at(1, 1, 1) - at(0, 1, 1)) * u.y() * u.z());
  const double gy = ((c10 - c00) * (1 - u.z()) + (c11 - c01) * u.z());
  const double gz = c1 - c0;
  Vec3 g(gx, gy, gz);
  const double outside_distance = outside.norm();
  if (outside_distance > 0.0) {
    gradient = outside / outside_distance;
    return value + outside_distance;
  }
  const double n = g.norm();
  gradient = n > 0.0 ? Vec3(g / n) : Vec3::UnitZ();
  return value;
}

}  // namespace subsim
