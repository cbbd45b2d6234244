#include "subsim/geometry/signed_distance_shape.hpp"

#include <algorithm>
#include <utility>

namespace subsim {

void SignedDistanceShape::pieceDistances(const Vec3& p, double limit,
                                         std::vector<PieceDistance>& out) const {
  out.clear();
  Vec3 gradient;
  const double d = distance(p, gradient);
  if (d < limit) out.push_back({d, gradient, 0});
}

void SignedDistanceShape::setSurface(TriangleSurface surface, double thinnest) {
  surface_ = std::move(surface);
  thinnest_ = thinnest;
  bounds_ = Aabb{};
  for (const Vec3& v : surface_.vertices) {
    bounds_.lower = bounds_.lower.cwiseMin(v);
    bounds_.upper = bounds_.upper.cwiseMax(v);
  }
  mass_ = solidMassProperties(surface_);
  triangle_spheres_.clear();
  chunk_spheres_.clear();
  double edges = 0.0;
  const std::size_t n = surface_.triangles.size();
  auto corner = [&](std::size_t t, int i) -> const Vec3& {
    return surface_.vertices[static_cast<std::size_t>(surface_.triangles[t][i])];
  };
  for (std::size_t t = 0; t < n; ++t) {
    const Vec3 centre = (corner(t, 0) + corner(t, 1) + corner(t, 2)) / 3.0;
    double radius = 0.0;
    for (int i = 0; i < 3; ++i) {
      radius = std::max(radius, (corner(t, i) - centre).norm());
      edges += (corner(t, i) - corner(t, (i + 1) % 3)).norm();
    }
    triangle_spheres_.push_back(Sphere{centre, radius});
  }
  for (std::size_t first = 0; first < n; first += kChunk) {
    const std::size_t end = std::min(n, first + kChunk);
    Vec3 centre = Vec3::Zero();
    for (std::size_t t = first; t < end; ++t) centre += triangle_spheres_[t].centre;
    centre /= static_cast<double>(end - first);
    double radius = 0.0;
    for (std::size_t t = first; t < end; ++t)
      for (int i = 0; i < 3; ++i) radius = std::max(radius, (corner(t, i) - centre).norm());
    chunk_spheres_.push_back(Sphere{centre, radius});
  }
  mean_edge_ = n == 0 ? 0.0 : edges / (3.0 * static_cast<double>(n));
}

}  // namespace subsim
