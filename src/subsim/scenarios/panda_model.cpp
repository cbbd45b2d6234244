#include "subsim/scenarios/panda_model.hpp"

namespace subsim {

void setFrankaJointImpedance(Robot& robot, int first) {
  robot.kp.segment<7>(first) << 600.0, 600.0, 600.0, 600.0, 250.0, 150.0, 50.0;
  robot.kd.segment<7>(first) << 50.0, 50.0, 50.0, 20.0, 20.0, 20.0, 10.0;
  robot.gravity_compensation = true;
}

std::vector<IkTarget> rodDownTargets(int tool, const Vec3& tip) {
  // The stirrer frame's z points away from the flange, i.e. down when the rod is vertical.
  return {{tool, Vec3::Zero(), tip}, {tool, Vec3(0.0, 0.0, -0.1), tip + Vec3(0.0, 0.0, 0.1)}};
}

}  // namespace subsim
