#include "subsim/math/so3.hpp"

#include <cmath>

#include "subsim/math/portable_math.hpp"

namespace subsim {

void tangentBasis(const Vec3& n, Vec3& t1, Vec3& t2) {
  // Cross with the world axis least aligned with n (ties broken by index: deterministic).
  int axis = 0;
  if (std::abs(n.y()) < std::abs(n[axis])) axis = 1;
  if (std::abs(n.z()) < std::abs(n[axis])) axis = 2;
  t1 = n.cross(Vec3::Unit(axis)).normalized();
  t2 = n.cross(t1);
}

Quat quatExp(const Vec3& phi) {
  const double angle = phi.norm();
  const double half = 0.5 * angle;
  // sin(x)/x by its Taylor series near zero keeps the map smooth and exactly unit length.
  double sin_half, cos_half;
  portableSinCos(half, sin_half, cos_half);
  const double sinc_half = angle < 1e-8 ? 0.5 - angle * angle / 48.0 : sin_half / angle;
  Quat q(cos_half, sinc_half * phi.x(), sinc_half * phi.y(), sinc_half * phi.z());
  return q.normalized();
}

Vec3 quatLog(const Quat& q_in) {
  Quat q = q_in;
  if (q.w() < 0.0) q.coeffs() = -q.coeffs();  // shortest rotation
  const Vec3 v = q.vec();
  const double s = v.norm();
  if (s < 1e-12) return 2.0 * v;
  const double angle = 2.0 * portableAtan2(s, q.w());
  return (angle / s) * v;
}

Quat quatFromAxisAngle(const Vec3& axis, double angle) {
  double s, c;
  portableSinCos(0.5 * angle, s, c);
  return Quat(c, s * axis.x(), s * axis.y(), s * axis.z());
}

Quat quatFromRpy(double roll, double pitch, double yaw) {
  return quatFromAxisAngle(Vec3::UnitZ(), yaw) * quatFromAxisAngle(Vec3::UnitY(), pitch) *
         quatFromAxisAngle(Vec3::UnitX(), roll);
}

Quat integrateRotation(const Quat& q, const Vec3& w_world, double h) {
  return (quatExp(h * w_world) * q).normalized();
}

}  // namespace subsim
