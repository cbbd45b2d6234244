// Sphere against sphere, capsule, box and cylinder: the closest point of b to the centre of a,
// exact in every configuration including a centre inside b.  One point, feature 0.
#include "subsim/geometry/narrow_phase_pairs.hpp"

namespace subsim::detail {

void collideSphereSphere(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                         double margin, ContactManifold& out) {
  // Concentric spheres have no preferred direction; world up is a deterministic choice.
  addSphereContact(a.radius, closestOnSphere(pb.position, b.radius, pa.position, Vec3::UnitZ()),
                   margin, 0, out);
}

void collideSphereCapsule(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                          double margin, ContactManifold& out) {
  const Vec3 axis = pb.rotate(Vec3::UnitZ());
  const double t = closestParameterOnSegment(pb.position, axis, b.half_length, pa.position);
  const Vec3 q = pb.position + t * axis;
  addSphereContact(a.radius, closestOnSphere(q, b.radius, pa.position, anyPerpendicular(axis)),
                   margin, 0, out);
}

void collideSphereBox(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, double margin,
                      ContactManifold& out) {
  addSphereContact(a.radius, closestOnBox(b.half_extents, pb, pa.position), margin, 0, out);
}

void collideSphereCylinder(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                           double margin, ContactManifold& out) {
  addSphereContact(a.radius, closestOnCylinder(b.radius, b.half_length, pb, pa.position), margin, 0,
                   out);
}

}  // namespace subsim::detail
