#include "subsim/geometry/triangle_surface.hpp"

#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace subsim {

TriangleClosest closestOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0.0 && d2 <= 0.0) return {a, Vec3(1, 0, 0), 4};
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0.0 && d4 <= d3) return {b, Vec3(0, 1, 0), 5};
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    const double v = d1 / (d1 - d3);
    return {a + v * ab, Vec3(1.0 - v, v, 0.0), 1};
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0.0 && d5 <= d6) return {c, Vec3(0, 0, 1), 6};
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    const double w = d2 / (d2 - d6);
    return {a + w * ac, Vec3(1.0 - w, 0.0, w), 3};
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return {b + w * (c - b), Vec3(0.0, 1.0 - w, w), 2};
  }
  const double denom = 1.0 / (va + vb + vc);
  const double v = vb * denom, w = vc * denom;
  return {a + v * ab + w * ac, Vec3(1.0 - v - w, v, w), 0};
}

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

void requireClosedSurface(const TriangleSurface& s) {
  if (s.triangles.empty()) throw std::invalid_argument("surface: expected triangles, got none");
  const int nv = static_cast<int>(s.vertices.size());
  for (const Vec3& v : s.vertices)
    if (!v.allFinite()) throw std::invalid_argument("surface: a vertex is not finite");
  // Each directed edge once, and its reverse once: closed and consistently wound.
  std::map<std::pair<int, int>, int> directed;
  for (std::size_t t = 0; t < s.triangles.size(); ++t) {
    const auto& tri = s.triangles[t];
    for (int i = 0; i < 3; ++i) {
      if (tri[i] < 0 || tri[i] >= nv)
        throw std::invalid_argument("surface: triangle " + std::to_string(t) + " names vertex " +
                                    std::to_string(tri[i]) + " of " + std::to_string(nv));
      ++directed[{tri[i], tri[(i + 1) % 3]}];
    }
  }
  for (const auto& [edge, count] : directed) {
    const auto reverse = directed.find({edge.second, edge.first});
    if (count != 1 || reverse == directed.end() || reverse->second != 1)
      throw std::invalid_argument("surface: edge (" + std::to_string(edge.first) + ", " +
                                  std::to_string(edge.second) +
                                  ") is not shared by exactly two consistently wound triangles: "
                                  "expected a closed surface");
  }
}

}  // namespace subsim
