#include "subsim/model/kinematic_trajectory.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "subsim/math/portable_math.hpp"

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
      double s, c;
      portableSinCos(angle, s, c);
      return Pose{center + Vec3(radius * c, radius * s, lift), start.orientation};
    }
  }
  return start;
}

}  // namespace subsim
