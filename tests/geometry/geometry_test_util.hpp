#pragma once
// Helpers for the geometry tests: poses, random configurations, independent signed distance
// functions of every shape (to check that reported points lie on both surfaces).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "subsim/geometry/contact_point.hpp"
#include "subsim/geometry/narrow_phase.hpp"
#include "subsim/geometry/shape.hpp"
#include "subsim/geometry/signed_distance_shape.hpp"

namespace subsim::test {

inline Quat axisAngle(double angle, const Vec3& axis) {
  return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

inline Pose makePose(const Vec3& p, const Quat& q = Quat::Identity()) {
  return Pose{p, q};
}

inline Quat randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Quat q(n(rng), n(rng), n(rng), n(rng));
  q.normalize();
  return q;
}

inline double uniform(std::mt19937& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

inline Vec3 randomVec(std::mt19937& rng, double lo, double hi) {
  return Vec3(uniform(rng, lo, hi), uniform(rng, lo, hi), uniform(rng, lo, hi));
}

/// A random bounded shape of the given type with sizes in [0.2, 1].
inline Shape randomShape(std::mt19937& rng, ShapeType type) {
  switch (type) {
    case ShapeType::Sphere:
      return Shape::sphere(uniform(rng, 0.2, 0.8));
    case ShapeType::Capsule:
      return Shape::capsule(uniform(rng, 0.15, 0.5), uniform(rng, 0.2, 0.8));
    case ShapeType::Box:
      return Shape::box(randomVec(rng, 0.2, 0.8));
    case ShapeType::Cylinder:
      return Shape::cylinder(uniform(rng, 0.2, 0.7), uniform(rng, 0.2, 0.7));
    case ShapeType::Plane:
      return Shape::plane();
    case ShapeType::SignedDistance:
      break;  // signed_distance_test.cpp builds its own
  }
  return Shape::sphere(1.0);
}

inline ContactManifold collide(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                               double margin) {
  ContactManifold m;
  collideShapes(a, pa, b, pb, margin, m);
  return m;
}

inline double minGap(const ContactManifold& m) {
  double g = std::numeric_limits<double>::infinity();
  for (int i = 0; i < m.count; ++i) g = std::min(g, m.points[i].gap);
  return g;
}

/// Signed distance from world point p to a shape, written independently of the narrow phase.
inline double signedDistance(const Shape& s, const Pose& pose, const Vec3& p) {
  const Vec3 l = pose.inverseTransformPoint(p);
  switch (s.type) {
    case ShapeType::Sphere:
      return l.norm() - s.radius;
    case ShapeType::Capsule: {
      const double z = std::clamp(l.z(), -s.half_length, s.half_length);
      return (l - Vec3(0, 0, z)).norm() - s.radius;
    }
    case ShapeType::Box: {
      const Vec3 q = l.cwiseAbs() - s.half_extents;
      return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
    }
    case ShapeType::Cylinder: {
      const double dr = std::hypot(l.x(), l.y()) - s.radius;
      const double dz = std::abs(l.z()) - s.half_length;
      return std::hypot(std::max(dr, 0.0), std::max(dz, 0.0)) + std::min(std::max(dr, dz), 0.0);
    }
    case ShapeType::Plane:
      return l.z();
    case ShapeType::SignedDistance: {
      Vec3 gradient;
      return s.field->distance(l, gradient);
    }
  }
  return 0.0;
}

/// Every point of `m`: unit normal, gap below margin, and point -/+ gap/2 * normal on the
/// surfaces of b / a.  A capsule's contacts are those of spheres on its segment, whose surface
/// point may lie inside the capsule (within its radius) when the normal is not perpendicular
/// to the axis: for capsules only "on or inside" is checked.
inline void expectConsistent(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                             double margin, const ContactManifold& m, double tol = 1e-7) {
  const auto check = [&](const Shape& s, const Pose& ps, const Vec3& p, int i) {
    const double d = signedDistance(s, ps, p);
    const char* what = shapeTypeName(s.type);
    if (s.type == ShapeType::Capsule) {
      EXPECT_LE(d, tol) << "point " << i << " on the " << what;
      EXPECT_GE(d, -s.radius - tol) << "point " << i << " on the " << what;
    } else {
      EXPECT_NEAR(d, 0.0, tol) << "point " << i << " on the " << what << " of "
                               << shapeTypeName(a.type) << "-" << shapeTypeName(b.type);
    }
  };
  for (int i = 0; i < m.count; ++i) {
    const ManifoldPoint& p = m.points[i];
    EXPECT_NEAR(p.normal.norm(), 1.0, 1e-9);
    EXPECT_LT(p.gap, margin);
    check(a, pa, p.point + 0.5 * p.gap * p.normal, i);
    check(b, pb, p.point - 0.5 * p.gap * p.normal, i);
  }
}

}  // namespace subsim::test
