#pragma once
// SO(3) helpers: skew matrices and the exponential / logarithm maps on unit quaternions.
#include "subsim/math/types.hpp"

namespace subsim {

/// [w]x such that skew(w) * v == w.cross(v).
inline Mat3 skew(const Vec3& w) {
  Mat3 s;
  s << 0.0, -w.z(), w.y(), w.z(), 0.0, -w.x(), -w.y(), w.x(), 0.0;
  return s;
}

/// An orthonormal tangent pair for a unit normal, continuous in n except where the reference
/// axis switches, and identical for identical n (so warm-started friction keeps its meaning).
void tangentBasis(const Vec3& n, Vec3& t1, Vec3& t2);

/// Unit quaternion of the rotation vector phi (angle |phi| about phi/|phi|); exact for all angles.
Quat quatExp(const Vec3& phi);

/// Rotation by `angle` (rad) about the unit vector `axis`: Eigen::AngleAxisd's quaternion, with
/// the machine-independent sine and cosine of math/portable_math.hpp.
Quat quatFromAxisAngle(const Vec3& axis, double angle);

/// URDF's <origin rpy>: fixed-axis rotations about x (roll), then y (pitch), then z (yaw),
/// R = Rz(yaw) Ry(pitch) Rx(roll).
Quat quatFromRpy(double roll, double pitch, double yaw);

/// Rotation vector of a unit quaternion, angle in [0, pi].
Vec3 quatLog(const Quat& q);

/// Orientation after rotating for time h at constant world-frame angular velocity w:
/// q_{k+1} = exp(h w) q_k (the SE(3) exponential's rotation part, left-multiplied for world w).
Quat integrateRotation(const Quat& q, const Vec3& w_world, double h);

}  // namespace subsim
