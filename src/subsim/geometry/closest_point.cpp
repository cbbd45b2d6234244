// Closest-point queries shared by the analytic narrow-phase pairs.
#include <algorithm>
#include <cmath>

#include "subsim/geometry/narrow_phase_pairs.hpp"
#include "subsim/geometry/signed_distance_shape.hpp"

namespace subsim::detail {

Vec3 anyPerpendicular(const Vec3& v) {
  // Crossing with the world axis least aligned with v keeps the result well conditioned.
  Vec3 other = Vec3::UnitX();
  const Vec3 a = v.cwiseAbs();
  if (a.y() < a.x() && a.y() <= a.z()) {
    other = Vec3::UnitY();
  } else if (a.z() < a.x() && a.z() < a.y()) {
    other = Vec3::UnitZ();
  }
  return v.cross(other).normalized();
}

double closestParameterOnSegment(const Vec3& centre, const Vec3& axis, double half_length,
                                 const Vec3& p) {
  return std::clamp(axis.dot(p - centre), -half_length, half_length);
}

void closestParametersSegmentSegment(const Vec3& centre_a, const Vec3& axis_a, double half_a,
                                     const Vec3& centre_b, const Vec3& axis_b, double half_b,
                                     double& s, double& t) {
  // Ericson, Real-Time Collision Detection 5.1.9, with unit directions and centred parameters.
  const Vec3 r = centre_a - centre_b;
  const double b = axis_a.dot(axis_b);
  const double c = axis_a.dot(r);
  const double f = axis_b.dot(r);
  const double denom = 1.0 - b * b;
  if (denom > 1e-12) {
    s = std::clamp((b * f - c) / denom, -half_a, half_a);
  } else {
    // Parallel: every point of the overlap is closest; its midpoint is the one that moves
    // continuously with the segments.
    const double m = -c;  // b's centre projected on a's axis
    const double lo = std::max(-half_a, m - half_b);
    const double hi = std::min(half_a, m + half_b);
    s = lo <= hi ? 0.5 * (lo + hi) : (m > 0.0 ? half_a : -half_a);
  }
  t = std::clamp(b * s + f, -half_b, half_b);
  s = std::clamp(b * t - c, -half_a, half_a);
}

SurfacePoint closestOnSphere(const Vec3& centre, double radius, const Vec3& p,
                             const Vec3& fallback_normal) {
  const Vec3 d = p - centre;
  const double len = d.norm();
  const Vec3 n =
      (len > 1e-14 * std::max(radius, 1e-300) && len > 0.0) ? Vec3(d / len) : fallback_normal;
  return SurfacePoint{centre + radius * n, n, len - radius};
}

SurfacePoint closestOnBox(const Vec3& half_extents, const Pose& pose, const Vec3& p) {
  const Vec3 l = pose.inverseTransformPoint(p);
  const Vec3 q = l.cwiseMax(-half_extents).cwiseMin(half_extents);
  const Vec3 diff = l - q;
  if (diff.x() != 0.0 || diff.y() != 0.0 || diff.z() != 0.0) {
    const double dist = diff.norm();
    return SurfacePoint{pose.transformPoint(q), pose.rotate(diff / dist), dist};
  }
  // Inside (or on the surface): leave through the face needing the smallest push.
  int axis = 0;
  double depth = half_extents.x() - std::abs(l.x());
  for (int i = 1; i < 3; ++i) {
    const double di = half_extents[i] - std::abs(l[i]);
    if (di < depth) {
      depth = di;
      axis = i;
    }
  }
  const double sign = l[axis] >= 0.0 ? 1.0 : -1.0;
  Vec3 face = l;
  face[axis] = sign * half_extents[axis];
  Vec3 n = Vec3::Zero();
  n[axis] = sign;
  return SurfacePoint{pose.transformPoint(face), pose.rotate(n), -depth};
}

double signedDistanceBoxLocal(const Vec3& half_extents, const Vec3& p_local) {
  const Vec3 d = p_local.cwiseAbs() - half_extents;
  return d.cwiseMax(0.0).norm() + std::min(d.maxCoeff(), 0.0);
}

SurfacePoint closestOnCylinder(double radius, double half_length, const Pose& pose, const Vec3& p) {
  const Vec3 l = pose.inverseTransformPoint(p);
  const double rho = std::hypot(l.x(), l.y());
  // On the axis every radial direction is closest; local x is a deterministic choice.
  const Vec3 radial = rho > 0.0 ? Vec3(l.x() / rho, l.y() / rho, 0.0) : Vec3::UnitX();
  const double sz = l.z() >= 0.0 ? 1.0 : -1.0;
  const double out_r = rho - radius;                   // > 0 outside the side
  const double out_z = std::abs(l.z()) - half_length;  // > 0 beyond a cap
  Vec3 q, n;
  double dist;
  if (out_r > 0.0 && out_z > 0.0) {
    // Rim: the difference is built from the two positive excesses so it never cancels.
    dist = std::hypot(out_r, out_z);
    n = (out_r / dist) * radial + Vec3(0.0, 0.0, sz * out_z / dist);
    q = radius * radial + Vec3(0.0, 0.0, sz * half_length);
  } else if (out_r > 0.0) {
    dist = out_r;
    n = radial;
    q = radius * radial + Vec3(0.0, 0.0, l.z());
  } else if (out_z > 0.0) {
    dist = out_z;
    n = Vec3(0.0, 0.0, sz);
    q = Vec3(l.x(), l.y(), sz * half_length);
  } else if (-out_r < -out_z) {
    dist = out_r;
    n = radial;
    q = radius * radial + Vec3(0.0, 0.0, l.z());
  } else {
    dist = out_z;
    n = Vec3(0.0, 0.0, sz);
    q = Vec3(l.x(), l.y(), sz * half_length);
  }
  return SurfacePoint{pose.transformPoint(q), pose.rotate(n), dist};
}

SurfacePoint closestOnPlane(const Pose& pose, const Vec3& p) {
  const Vec3 n = pose.rotate(Vec3::UnitZ());
  const double dist = n.dot(p - pose.position);
  return SurfacePoint{p - dist * n, n, dist};
}

SurfacePoint closestOnShape(const Shape& shape, const Pose& pose, const Vec3& x) {
  switch (shape.type) {
    case ShapeType::Sphere:
      // A point at the centre has no preferred direction; world up as in the rigid narrow phase.
      return closestOnSphere(pose.position, shape.radius, x, Vec3::UnitZ());
    case ShapeType::Capsule: {
      const Vec3 axis = pose.rotate(Vec3::UnitZ());
      const double t = closestParameterOnSegment(pose.position, axis, shape.half_length, x);
      return closestOnSphere(pose.position + t * axis, shape.radius, x, anyPerpendicular(axis));
    }
    case ShapeType::Box:
      return closestOnBox(shape.half_extents, pose, x);
    case ShapeType::Cylinder:
      return closestOnCylinder(shape.radius, shape.half_length, pose, x);
    case ShapeType::SignedDistance: {
      Vec3 gradient;
      const double d = shape.field->distance(pose.inverseTransformPoint(x), gradient);
      const Vec3 n = pose.rotate(gradient);
      return SurfacePoint{x - d * n, n, d};
    }
    case ShapeType::Plane:
      break;
  }
  return closestOnPlane(pose, x);
}

}  // namespace subsim::detail
