#include "subsim/model/kinematic_trajectory.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace subsim {

Pose KinematicTrajectory::pose(double t) const {
  switch (kind) {
    case Kind::Fixed:
      return start;
    case Kind::Linear:
      return Pose{start.position + t * velocity, start.orientation};
    case Kind::Circle: {
      const double angle = 2.0 * std::numbers::pi * frequency * t + phase;
      const double lift =
          descent_speed > 0.0 ? std::max(0.0, descent - descent_speed * t) : descent;
      return Pose{center + Vec3(radius * std::cos(angle), radius * std::sin(angle), lift),
                  start.orientation};
    }
  }
  return start;
}

}  // namespace subsim
