// The mobile scene (issue 4): the 10-DOF mobile manipulator drives to the table on its no-slip
// base and reaches above the box.
#include <gtest/gtest.h>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

namespace subsim {
namespace {

TEST(MobileScene, DrivesOnItsHeadingAndReachesAboveTheBox) {
  World w(buildScenario("mobile").model);
  ASSERT_EQ(w.model().robots.size(), 1u);
  const Robot& robot = w.model().robots[0];
  EXPECT_EQ(robot.articulation.nv(), 10);
  EXPECT_EQ(w.dof(), 16);  // the robot and the box
  const int box = w.model().findBody("box");
  const Vec3 box_start = w.state().pose[box].position;
  for (int k = 0; k < 500; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << r.divergence;
    const VecX& v = w.state().robot_v[0];
    // No sideways slip (heading stays 0, so the lateral velocity is y-dot).
    ASSERT_LT(std::abs(-std::sin(w.state().robot_q[0][2]) * v[0] +
                       std::cos(w.state().robot_q[0][2]) * v[1]),
              1e-4);
  }
  EXPECT_NEAR(w.state().robot_q[0][0], 0.6, 0.01);
  std::vector<Pose> poses;
  forwardKinematics(robot.articulation, w.state().robot_q[0], poses);
  const Vec3 tool = (robot.base * poses[robot.articulation.findLink("panda_stirrer")]).position;
  EXPECT_LT((tool - (box_start + Vec3(0.0, 0.0, 0.1))).norm(), 0.02);  // 5 cm above its top
  EXPECT_LT((w.state().pose[box].position - box_start).norm(), 2e-3);  // the box stayed put
}

}  // namespace
}  // namespace subsim
