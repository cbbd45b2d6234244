#pragma once
// Collision shapes in their local frame.  Capsules and cylinders have their axis along local z;
// a plane is the half-space z <= 0 of its local frame (outward normal +z); a signed distance
// shape is its field's inside (signed_distance_shape.hpp: dishes, bottles), shared, immutable.
#include <cstdint>
#include <memory>

#include <utility>

#include "subsim/math/pose.hpp"

namespace subsim {

enum class ShapeType : std::uint8_t { Sphere, Capsule, Box, Cylinder, Plane, SignedDistance };

class SignedDistanceShape;

const char* shapeTypeName(ShapeType type);

struct Shape {
  ShapeType type = ShapeType::Sphere;
  double radius = 0.0;               // sphere, capsule, cylinder
  double half_length = 0.0;          // capsule (segment half length), cylinder (half height)
  Vec3 half_extents = Vec3::Zero();  // box
  std::shared_ptr<const SignedDistanceShape> field;  // signed distance

  static Shape sphere(double r) { return Shape{ShapeType::Sphere, r, 0.0, Vec3::Zero(), nullptr}; }
  static Shape capsule(double r, double half_len) {
    return Shape{ShapeType::Capsule, r, half_len, Vec3::Zero(), nullptr};
  }
  static Shape box(const Vec3& half) { return Shape{ShapeType::Box, 0.0, 0.0, half, nullptr}; }
  static Shape cylinder(double r, double half_len) {
    return Shape{ShapeType::Cylinder, r, half_len, Vec3::Zero(), nullptr};
  }
  static Shape plane() { return Shape{ShapeType::Plane, 0.0, 0.0, Vec3::Zero(), nullptr}; }
  static Shape signedDistance(std::shared_ptr<const SignedDistanceShape> f) {
    return Shape{ShapeType::SignedDistance, 0.0, 0.0, Vec3::Zero(), std::move(f)};
  }

  /// Smallest dimension (diameter, edge or wall), used for penetration limits; infinity for a
  /// plane.
  double smallestSize() const;
  /// Volume; 0 for a plane.
  double volume() const;
  /// Inertia about the centroid in the local frame of a body of uniform density and mass `mass`
  /// (a signed distance shape's centroid need not be its frame's origin: centroid()).
  Mat3 unitDensityInertia(double mass) const;
  /// Centre of volume in the local frame (the origin for every type but a signed distance one).
  Vec3 centroid() const;
};

struct Aabb {
  Vec3 lower = Vec3::Constant(1e300);
  Vec3 upper = Vec3::Constant(-1e300);
  bool overlaps(const Aabb& o) const {
    return (lower.array() <= o.upper.array()).all() && (o.lower.array() <= upper.array()).all();
  }
  bool contains(const Vec3& p) const {
    return (lower.array() <= p.array()).all() && (p.array() <= upper.array()).all();
  }
  /// The box grown by `margin` on every side.
  Aabb grown(double margin) const {
    return Aabb{lower - Vec3::Constant(margin), upper + Vec3::Constant(margin)};
  }
};

/// World-space bounding box of `shape` at `pose`, grown by `inflate` on every side.  A plane's
/// box is unbounded (+-1e300).
Aabb computeAabb(const Shape& shape, const Pose& pose, double inflate);

}  // namespace subsim
