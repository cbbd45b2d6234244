#include "subsim/geometry/triangle_surface.hpp"

namespace subsim {

SolidMassProperties solidMassProperties(const TriangleSurface& surface) {
  // Each triangle (a, b, c) spans the signed tetrahedron (0, a, b, c) of volume det / 6.  Over a
  // tetrahedron with one vertex at the origin, the integral of x_i x_j is
  // det / 120 * (sum_k v_k,i v_k,j + (sum_k v_k,i) (sum_k v_k,j)), k over a, b, c.
  double volume = 0.0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();
  for (const auto& t : surface.triangles) {
    const Vec3& a = surface.vertices[static_cast<std::size_t>(t[0])];
    const Vec3& b = surface.vertices[static_cast<std::size_t>(t[1])];
    const Vec3& c = surface.vertices[static_cast<std::size_t>(t[2])];
    const double det = a.dot(b.cross(c));
    const Vec3 sum = a + b + c;
    volume += det / 6.0;
    first += det / 24.0 * sum;
    second += det / 120.0 *
              (a * a.transpose() + b * b.transpose() + c * c.transpose() + sum * sum.transpose());
  }
  SolidMassProperties p;
  p.volume = volume;
  if (volume == 0.0) return p;
  p.centroid = first / volume;
  // Second moments about the centroid per unit mass, then I = tr(S) 1 - S.
  const Mat3 s = second / volume - p.centroid * p.centroid.transpose();
  p.inertia_per_mass = Mat3::Identity() * s.trace() - s;
  return p;
}

}  // namespace subsim
