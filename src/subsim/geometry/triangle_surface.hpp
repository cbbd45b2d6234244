#pragma once
// A closed triangulated surface (vertices and outward-wound triangles) and the mass properties
// of the solid it bounds.
#include <array>
#include <vector>

#include "subsim/math/types.hpp"

namespace subsim {

struct TriangleSurface {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> triangles;  // counter-clockwise seen from outside
};

/// Volume, centroid and inertia of a solid of uniform density bounded by a closed surface.
struct SolidMassProperties {
  double volume = 0.0;
  Vec3 centroid = Vec3::Zero();
  /// Inertia about the centroid divided by the mass (multiply by a body's mass for kg m^2).
  Mat3 inertia_per_mass = Mat3::Zero();
};

/// Closest point of triangle (a, b, c) to p (Ericson, Real-Time Collision Detection 5.1.5), with
/// its barycentric weights and Voronoi region: 0 inside, 1 + k on edge k (corners k, k+1), 4 + k
/// at corner k.
struct TriangleClosest {
  Vec3 point = Vec3::Zero();
  Vec3 weights = Vec3::Zero();
  int region = 0;
};
TriangleClosest closestOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

/// By the divergence theorem over the triangles (a signed tetrahedron from the origin per
/// triangle), exact for the polyhedron.  A surface wound inward gives a negative volume.
SolidMassProperties solidMassProperties(const TriangleSurface& surface);

/// std::invalid_argument ("surface: ...") unless every vertex is finite, every triangle names
/// vertices of the surface, and every edge is shared by exactly two triangles wound consistently
/// (a closed, oriented surface).
void requireClosedSurface(const TriangleSurface& surface);

}  // namespace subsim
