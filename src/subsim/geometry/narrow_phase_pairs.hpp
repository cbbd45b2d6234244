#pragma once
// Internal to the narrow phase: one function per unordered pair of shape types, called by
// collideShapes with the arguments in canonical order (ShapeType of `a` <= ShapeType of `b`),
// plus the closest-point queries they share.  Every pair function appends to `out` (it does not
// clear it) points with normals from b towards a and gap < margin.
#include <cstdint>

#include "subsim/geometry/contact_point.hpp"
#include "subsim/geometry/shape.hpp"

namespace subsim::detail {

/// The point of a shape's surface closest to a query point, in world coordinates.  `distance` is
/// signed (negative when the query point is inside) and `normal` is the outward unit normal at
/// `point`, oriented so that query == point + distance * normal whenever the query is not on the
/// surface itself.
struct SurfacePoint {
  Vec3 point;
  Vec3 normal;
  double distance;
};

/// Some unit vector perpendicular to `v` (unit), chosen deterministically from `v` alone.
Vec3 anyPerpendicular(const Vec3& v);

/// Closest point to `p` on the segment [centre - half_length * axis, centre + half_length * axis],
/// as its signed parameter along `axis` (unit) in [-half_length, half_length].
double closestParameterOnSegment(const Vec3& centre, const Vec3& axis, double half_length,
                                 const Vec3& p);

/// Parameters (s along axis_a, t along axis_b) of the closest points of two segments given by
/// centre, unit axis and half length.  Parallel segments take the midpoint of their overlap.
void closestParametersSegmentSegment(const Vec3& centre_a, const Vec3& axis_a, double half_a,
                                     const Vec3& centre_b, const Vec3& axis_b, double half_b,
                                     double& s, double& t);

/// Sphere surface (centre, radius); `fallback_normal` is used when p is at the centre.
SurfacePoint closestOnSphere(const Vec3& centre, double radius, const Vec3& p,
                             const Vec3& fallback_normal);
/// Box surface; a point inside is pushed out through the nearest face.
SurfacePoint closestOnBox(const Vec3& half_extents, const Pose& pose, const Vec3& p);
/// Signed distance from a point given in the box's local frame (no normal or point: the inner
/// loop of the capsule-box line search).
double signedDistanceBoxLocal(const Vec3& half_extents, const Vec3& p_local);
/// Cylinder surface (axis local z); a point inside leaves through the nearer of side and cap.
SurfacePoint closestOnCylinder(double radius, double half_length, const Pose& pose, const Vec3& p);
/// Boundary plane of the half-space local z <= 0.
SurfacePoint closestOnPlane(const Pose& pose, const Vec3& p);
/// The surface point of any shape closest to `p`, with its outward normal and signed distance
/// (a signed distance shape: its field's value and gradient).
SurfacePoint closestOnShape(const Shape& shape, const Pose& pose, const Vec3& p);

/// Contact of a sphere of `radius` standing for (part of) shape a against `s`, the surface point
/// of shape b closest to the sphere's centre.  Vertices are spheres of radius 0.  Adds nothing
/// when the gap is not below the margin; returns the gap.
inline double addSphereContact(double radius, const SurfacePoint& s, double margin,
                               std::uint32_t feature, ContactManifold& out) {
  const double gap = s.distance - radius;
  // Midway between b's surface point and a's (centre - radius * normal = s.point + gap * normal).
  if (gap < margin) out.add(s.point + (0.5 * gap) * s.normal, s.normal, gap, feature);
  return gap;
}

/// Keeps at most 4 of points[first, count) of a face manifold: the deepest and those spanning
/// the largest area, in their original order.
void reduceManifold(ContactManifold& m, int first);

// Pair functions, canonical order.  Sphere first:
void collideSphereSphere(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                         double margin, ContactManifold& out);
void collideSphereCapsule(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                          double margin, ContactManifold& out);
void collideSphereBox(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, double margin,
                      ContactManifold& out);
void collideSphereCylinder(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                           double margin, ContactManifold& out);
void collideSpherePlane(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                        double margin, ContactManifold& out);
// Capsule first:
void collideCapsuleCapsule(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                           double margin, ContactManifold& out);
void collideCapsuleBox(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                       double margin, ContactManifold& out);
void collideCapsuleCylinder(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                            double margin, ContactManifold& out);
void collideCapsulePlane(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                         double margin, ContactManifold& out);
// Box first:
void collideBoxBox(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, double margin,
                   ContactManifold& out);
void collideBoxPlane(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, double margin,
                     ContactManifold& out);
// Cylinder first:
void collideCylinderPlane(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                          double margin, ContactManifold& out);

/// Generic single-point contact between two bounded convex shapes (any type but Plane) by GJK
/// distance and EPA penetration (see gjk_epa.hpp), gap < margin as for every pair.  Used for
/// capsule-cylinder, box-cylinder and cylinder-cylinder, as a fallback of box-box, and by tests
/// as an independent check of the analytic pairs.  Appends at most one point (feature 0).
void collideConvexGjk(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, double margin,
                      ContactManifold& out);

}  // namespace subsim::detail
