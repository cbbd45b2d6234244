#pragma once
// Position inverse kinematics by damped least squares (Levenberg-Marquardt; Wampler 1986,
// Nakamura & Hanafusa 1986): used by scenes to turn a tool path into joint-space targets.
#include <vector>

#include "subsim/articulation/articulation.hpp"

namespace subsim {

/// A point fixed to a link (in the link frame) and where it should be (world frame).
struct IkTarget {
  int link = 0;
  Vec3 point_in_link = Vec3::Zero();
  Vec3 target_world = Vec3::Zero();
};

/// Moves q (nq, on entry the starting guess) until every target point is within `tolerance` (m)
/// of its target, clamping limited joints to their range after each step.  `base` is the world
/// pose of the articulation's root frame.  Returns the largest remaining distance.
double solvePositionIk(const Articulation& art, const Pose& base,
                       const std::vector<IkTarget>& targets, VecX& q, int max_iterations = 200,
                       double tolerance = 1e-6, double damping = 1e-3);

}  // namespace subsim
