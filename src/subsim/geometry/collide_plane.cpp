// Shapes against the half-space plane: the plane is flat and infinite, so the contact set of a
// shape is the part of it below plane + margin, sampled at the shape's extreme features.
#include <cmath>

#include "subsim/geometry/narrow_phase_pairs.hpp"

namespace subsim::detail {

namespace {
// Below this sine between cylinder axis and plane normal a cap counts as lying flat: three more
// rim points keep a standing cylinder from rocking about its single deepest rim point.
constexpr double kCapParallelSin = 0.1;
}  // namespace

void collideSpherePlane(const Shape& a, const Pose& pa, const Shape& /*b*/, const Pose& pb,
                        double margin, ContactManifold& out) {
  addSphereContact(a.radius, closestOnPlane(pb, pa.position), margin, 0, out);
}

void collideCapsulePlane(const Shape& a, const Pose& pa, const Shape& /*b*/, const Pose& pb,
                         double margin, ContactManifold& out) {
  // Signed distance to a plane is linear along the segment, so its minimum is at an endpoint,
  // and a capsule lying flat needs both to be supported.
  const Vec3 axis = pa.rotate(Vec3::UnitZ());
  for (std::uint32_t end = 0; end < 2; ++end) {
    const Vec3 c = pa.position + (end == 0 ? -a.half_length : a.half_length) * axis;
    addSphereContact(a.radius, closestOnPlane(pb, c), margin, end, out);
  }
}

void collideBoxPlane(const Shape& a, const Pose& pa, const Shape& /*b*/, const Pose& pb,
                     double margin, ContactManifold& out) {
  // More than four only with a margin of the order of the box: the deepest four suffice.
  const int first = out.count;
  for (std::uint32_t v = 0; v < 8; ++v) {
    const Vec3 local((v & 1u) ? a.half_extents.x() : -a.half_extents.x(),
                     (v & 2u) ? a.half_extents.y() : -a.half_extents.y(),
                     (v & 4u) ? a.half_extents.z() : -a.half_extents.z());
    addSphereContact(0.0, closestOnPlane(pb, pa.transformPoint(local)), margin, v, out);
  }
  reduceManifold(out, first);
}

void collideCylinderPlane(const Shape& a, const Pose& pa, const Shape& /*b*/, const Pose& pb,
                          double margin, ContactManifold& out) {
  const Vec3 n = pb.rotate(Vec3::UnitZ());
  const Vec3 axis = pa.rotate(Vec3::UnitZ());
  const Vec3 perp = n - n.dot(axis) * axis;
  const double sin_tilt = perp.norm();
  // Deepest rim direction; undefined for an exactly upright cylinder, where the body's own x
  // axis keeps the points fixed to the body.
  const Vec3 u = sin_tilt > 1e-12 ? Vec3(-perp / sin_tilt) : pa.rotate(Vec3::UnitX());
  const Vec3 v = axis.cross(u);
  const int rim_points = sin_tilt < kCapParallelSin ? 4 : 1;
  const Vec3 dirs[4] = {u, v, -u, -v};
  const int first = out.count;
  for (std::uint32_t cap = 0; cap < 2; ++cap) {
    const Vec3 centre = pa.position + (cap == 0 ? -a.half_length : a.half_length) * axis;
    for (int k = 0; k < rim_points; ++k) {
      addSphereContact(0.0, closestOnPlane(pb, centre + a.radius * dirs[k]), margin,
                       cap * 4 + static_cast<std::uint32_t>(k), out);
    }
  }
  reduceManifold(out, first);
}

}  // namespace subsim::detail
