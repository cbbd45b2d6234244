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
    case Kind::Waypoints: {
      const std::vector<double>& times = waypoint_times;
      if (times.empty()) return start;
      if (t <= times.front()) return Pose{waypoint_positions.front(), start.orientation};
      if (t >= times.back()) return Pose{waypoint_positions.back(), start.orientation};
      const auto k = static_cast<size_t>(std::upper_bound(times.begin(), times.end(), t) -
                                         times.begin());  // times[k - 1] <= t < times[k]
      const double s = (t - times[k - 1]) / (times[k] - times[k - 1]);
      return Pose{(1.0 - s) * waypoint_positions[k - 1] + s * waypoint_positions[k],
                  start.orientation};
    }
  }
  return start;
}

std::string KinematicTrajectory::defect() const {
  if (kind != Kind::Waypoints) return {};
  if (waypoint_times.empty() || waypoint_times.size() != waypoint_positions.size())
    return "waypoints need one position per time, at least one";
  for (size_t k = 0; k < waypoint_times.size(); ++k) {
    if (!std::isfinite(waypoint_times[k]) || !waypoint_positions[k].allFinite())
      return "waypoint " + std::to_string(k) + " is not finite";
    if (k > 0 && !(waypoint_times[k] > waypoint_times[k - 1]))
      return "waypoint times must increase (waypoint " + std::to_string(k) + ")";
  }
  return {};
}

}  // namespace subsim
