#pragma once
// The papers' 10-DOF mobile manipulator: a wheeled base in the plane (prismatic x, prismatic y,
// revolute yaw; non-holonomic no-slip row) carrying the built-in Panda 15 cm ahead of the
// chassis centre.  Shared by the `mobile` and `cable` scenes.
#include <string>

#include "subsim/model/model.hpp"

namespace subsim {

struct MobileManipulator {
  int robot = -1;
  int tool_link = -1;  // panda_stirrer: the end of the flange rod
};

/// Adds the robot with its base at (x, y) heading `yaw` and the arm at `arm_q` (7 values); the
/// PD target holds that configuration until the scene sets Robot::target.  Shapes: the chassis
/// box and the Panda's collision primitives, friction mu.
MobileManipulator addMobileManipulator(Model& m, const std::string& name, double x, double y,
                                       double yaw, const VecX& arm_q, double mu);

/// Solves the arm's IK (base joints held) so that the tool's end reaches `tip` with the rod
/// pointing down; q holds the full configuration (base included) on entry and exit.  Returns the
/// remaining distance (m).
double reachWithTool(const Robot& robot, int tool_link, const Vec3& tip, VecX& q);

}  // namespace subsim
