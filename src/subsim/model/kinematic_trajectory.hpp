#pragma once
// Prescribed motion of a kinematic body (a stirring rod, a conveyor): pose as a function of time.
#include <string>
#include <vector>

#include "subsim/math/pose.hpp"

namespace subsim {

struct KinematicTrajectory {
  enum class Kind { Fixed, Linear, Circle, Waypoints };
  Kind kind = Kind::Fixed;
  Pose start;                    // pose at t = 0 (Fixed, Linear); orientation for all
  Vec3 velocity = Vec3::Zero();  // Linear: constant world velocity (m/s)
  Vec3 center = Vec3::Zero();    // Circle: centre of the horizontal circle (m)
  double radius = 0.0;           // Circle: radius (m)
  double frequency = 0.0;        // Circle: revolutions per second
  double phase = 0.0;            // Circle: angle at t = 0 (rad)
  double descent = 0.0;          // Circle: starts this far above centre.z (m) ...
  double descent_speed = 0.0;    // ... and moves down at this speed (m/s) until on it
  /// Waypoints: the position at each time (s, increasing), straight between them (a gripper
  /// that closes, then lifts); held before the first and after the last.
  std::vector<double> waypoint_times;
  std::vector<Vec3> waypoint_positions;

  Pose pose(double t) const;
  /// Empty when the trajectory is well formed, else what is wrong (waypoints: one position per
  /// time, at least one, times increasing, all finite).
  std::string defect() const;
};

}  // namespace subsim
