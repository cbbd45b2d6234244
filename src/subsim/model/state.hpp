#pragma once
// The mutable state of a run: time and each body's pose and velocity.
#include <cstdint>
#include <vector>

#include "subsim/math/pose.hpp"

namespace subsim {

struct Model;

struct State {
  double time = 0.0;
  std::vector<Pose> pose;              // centre-of-mass frame, per body
  std::vector<Vec3> linear_velocity;   // of the centre of mass, world (m/s)
  std::vector<Vec3> angular_velocity;  // world (rad/s)

  /// The state at t = 0 given by the model's initial poses and velocities.
  static State initial(const Model& model);
  int numBodies() const { return static_cast<int>(pose.size()); }
  /// FNV-1a hash of the raw bits of every number: equal states hash equal, for determinism tests.
  std::uint64_t hash() const;
};

}  // namespace subsim
