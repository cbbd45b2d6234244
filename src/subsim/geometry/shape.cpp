#include "subsim/geometry/shape.hpp"

#include <algorithm>
#include <limits>
#include <numbers>

#include "subsim/geometry/signed_distance_shape.hpp"

namespace subsim {

const char* shapeTypeName(ShapeType type) {
  switch (type) {
    case ShapeType::Sphere:
      return "sphere";
    case ShapeType::Capsule:
      return "capsule";
    case ShapeType::Box:
      return "box";
    case ShapeType::Cylinder:
      return "cylinder";
    case ShapeType::Plane:
      return "plane";
    case ShapeType::SignedDistance:
      return "signed distance";
  }
  return "unknown";
}

double Shape::smallestSize() const {
  switch (type) {
    case ShapeType::Sphere:
    case ShapeType::Capsule:
      return 2.0 * radius;
    case ShapeType::Cylinder:
      return 2.0 * std::min(radius, half_length);
    case ShapeType::Box:
      return 2.0 * half_extents.minCoeff();
    case ShapeType::Plane:
      return std::numeric_limits<double>::infinity();
    case ShapeType::SignedDistance:
      return field->thinnest();
  }
  return 0.0;
}

double Shape::volume() const {
  constexpr double pi = std::numbers::pi;
  switch (type) {
    case ShapeType::Sphere:
      return 4.0 / 3.0 * pi * radius * radius * radius;
    case ShapeType::Capsule:
      return pi * radius * radius * (2.0 * half_length) + 4.0 / 3.0 * pi * radius * radius * radius;
    case ShapeType::Box:
      return 8.0 * half_extents.prod();
    case ShapeType::Cylinder:
      return pi * radius * radius * 2.0 * half_length;
    case ShapeType::Plane:
      return 0.0;
    case ShapeType::SignedDistance:
      return field->massProperties().volume;
  }
  return 0.0;
}

Vec3 Shape::centroid() const {
  return type == ShapeType::SignedDistance ? field->massProperties().centroid : Vec3::Zero();
}

Mat3 Shape::unitDensityInertia(double m) const {
  const double r2 = radius * radius;
  switch (type) {
    case ShapeType::Sphere:
      return Mat3::Identity() * (0.4 * m * r2);
    case ShapeType::Box: {
      const Vec3 s = 2.0 * half_extents;
      return Vec3(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(),
                  s.x() * s.x() + s.y() * s.y())
                 .asDiagonal() *
             (m / 12.0);
    }
    case ShapeType::Cylinder: {
      const double h = 2.0 * half_length;
      const double ixx = m * (3.0 * r2 + h * h) / 12.0;
      return Vec3(ixx, ixx, 0.5 * m * r2).asDiagonal();
    }
    case ShapeType::Capsule: {
      // Cylinder of length h plus two hemispheres, parallel-axis shifted to the centre.
      constexpr double pi = std::numbers::pi;
      const double h = 2.0 * half_length;
      const double vc = pi * r2 * h, vs = 4.0 / 3.0 * pi * r2 * radius;
      const double mc = m * vc / (vc + vs), ms = m * vs / (vc + vs);
      const double izz = 0.5 * mc * r2 + 0.4 * ms * r2;
      const double ixx = mc * (3.0 * r2 + h * h) / 12.0 +
                         ms * (0.4 * r2 + 0.5 * h * h / 2.0 + 3.0 / 8.0 * radius * h);
      return Vec3(ixx, ixx, izz).asDiagonal();
    }
    case ShapeType::Plane:
      return Mat3::Zero();
    case ShapeType::SignedDistance:
      return m * field->massProperties().inertia_per_mass;
  }
  return Mat3::Zero();
}

Aabb computeAabb(const Shape& shape, const Pose& pose, double inflate) {
  Aabb box;
  const Mat3 R = pose.orientation.toRotationMatrix();
  Vec3 half = Vec3::Zero();
  switch (shape.type) {
    case ShapeType::Sphere:
      half = Vec3::Constant(shape.radius);
      break;
    case ShapeType::Capsule:
      half = R.col(2).cwiseAbs() * shape.half_length + Vec3::Constant(shape.radius);
      break;
    case ShapeType::Box:
      half = R.cwiseAbs() * shape.half_extents;
      break;
    case ShapeType::Cylinder: {
      const Vec3 a = R.col(2);
      // Disc extent along each world axis is r * sqrt(1 - a_k^2).
      const Vec3 disc = (Vec3::Ones() - a.cwiseProduct(a)).cwiseMax(0.0).cwiseSqrt() * shape.radius;
      half = a.cwiseAbs() * shape.half_length + disc;
      break;
    }
    case ShapeType::SignedDistance: {
      const Aabb& local = shape.field->bounds();
      const Vec3 centre = pose.transformPoint(0.5 * (local.lower + local.upper));
      half = R.cwiseAbs() * (0.5 * (local.upper - local.lower));
      box.lower = centre - half - Vec3::Constant(inflate);
      box.upper = centre + half + Vec3::Constant(inflate);
      return box;
    }
    case ShapeType::Plane:
      box.lower = Vec3::Constant(-1e300);
      box.upper = Vec3::Constant(1e300);
      return box;
  }
  box.lower = pose.position - half - Vec3::Constant(inflate);
  box.upper = pose.position + half + Vec3::Constant(inflate);
  return box;
}

}  // namespace subsim
