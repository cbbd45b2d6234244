#pragma once
// A rigid transform: position and unit quaternion (world_from_local).
#include "subsim/math/types.hpp"

namespace subsim {

struct Pose {
  Vec3 position = Vec3::Zero();
  Quat orientation = Quat::Identity();

  Vec3 transformPoint(const Vec3& p_local) const { return position + orientation * p_local; }
  Vec3 rotate(const Vec3& v_local) const { return orientation * v_local; }
  Vec3 inverseTransformPoint(const Vec3& p_world) const {
    return orientation.conjugate() * (p_world - position);
  }
  Pose operator*(const Pose& child) const {
    return Pose{transformPoint(child.position), (orientation * child.orientation).normalized()};
  }
};

}  // namespace subsim
