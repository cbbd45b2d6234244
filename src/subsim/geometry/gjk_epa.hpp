#pragma once
// Signed distance, normal and witness points between two bounded convex shapes by GJK (when
// separated) and EPA (when overlapping), on support mappings.
//
// Why not libccd: its EPA allocates every polytope vertex, edge and face
// on the heap (the narrow phase must not allocate per pair), and its tolerances are absolute
// constants with no control of the result's accuracy.  This implementation keeps everything in
// fixed arrays on the stack.
//
// Each shape is split into a core and a rounding radius: a sphere is a point rounded by its
// radius, a capsule a segment rounded by its radius, boxes and cylinders have radius 0.  The
// margin is a rounding too: a pair closer than the margin is a pair whose margin-grown shapes
// overlap, with gap = margin - (penetration depth of the grown shapes).  Rather than running EPA
// on the grown shapes (whose rounded Minkowski difference EPA only approximates, slowly), the
// roundings are added analytically: GJK gives the exact distance between the cores (finite
// convergence for points, segments and boxes), and only when the cores overlap does EPA measure
// their penetration.  The result is the same quantity, gap = core distance - radius_a - radius_b,
// exact to round-off except on the curved side of a cylinder (relative 1e-12 stopping test).
#include "subsim/geometry/shape.hpp"

namespace subsim::detail {

/// Support mapping of the core of a bounded convex shape (not a plane) at a pose, grown by a
/// ball of radius `inflate`.
class ConvexSupport {
 public:
  ConvexSupport(const Shape& shape, const Pose& pose, double inflate);
  /// A point of the grown core extreme along `dir` (world, any non-zero length).
  Vec3 support(const Vec3& dir) const;
  const Vec3& centre() const { return pose_.position; }
  /// Radius of a ball about the centre containing the grown core.
  double boundingRadius() const;
  /// How much the shape is rounder than its core (sphere and capsule radius, else 0).
  double rounding() const;

 private:
  const Shape& shape_;
  Pose pose_;
  Mat3 rotation_;
  double inflate_;
};

/// Closest approach of two shapes, with the narrow-phase conventions.
struct ConvexContact {
  double gap = 0.0;             // signed distance, negative when penetrating
  Vec3 normal = Vec3::UnitZ();  // unit, from b towards a
  Vec3 point_a = Vec3::Zero();  // on a's surface
  Vec3 point_b = Vec3::Zero();  // on b's surface; point_a - point_b == gap * normal
};

/// Computes the contact of shapes a and b (any type but Plane).  Returns false, leaving
/// `result` unspecified, when the gap is proven to be at least `max_gap` (cheaply, by a
/// separating plane, so far-apart pairs cost a couple of support calls).
bool convexContact(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, double max_gap,
                   ConvexContact& result);

}  // namespace subsim::detail
