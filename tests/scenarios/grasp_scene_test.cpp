// The grasp scene (the RPI simulator paper's grasp example): the Panda with the Franka Hand
// follows joint angles interpolated between IK poses, closes its fingers on a cube, lifts it 15 cm
// and holds it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/scenarios/panda_model.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

namespace subsim {
namespace {

/// The hand's tool centre point in the world.
Vec3 toolCentre(const World& w) {
  const Robot& robot = w.model().robots[0];
  std::vector<Pose> poses;
  forwardKinematics(robot.articulation, w.state().robot_q[0], poses);
  return (robot.base * poses[robot.articulation.findLink("panda_hand")])
      .transformPoint(kFrankaHandTcp);
}

TEST(GraspScene, ThePandaFollowsItsTrajectoryPicksTheCubeUpAndHoldsIt) {
  const BuiltScene scene = buildScenario("grasp");
  World w(scene.model);
  const Robot& robot = w.model().robots[0];
  ASSERT_EQ(robot.articulation.nv(), 9);  // 7 arm joints, 2 fingers
  const int cube = w.model().findBody("cube");
  const Vec3 start = w.state().pose[cube].position;
  VecX q_target, v_target;
  double worst_tracking = 0.0;
  for (int k = 0; k < scene.default_steps; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << r.divergence;
    const double t = w.state().time;
    if (t <= 1.5) {
      // Descending: the arm follows the interpolated joint angles (the impedance's lag), the
      // open fingers do not touch the cube.
      robot.target.evaluate(robot.articulation, t, q_target, v_target);
      worst_tracking = std::max(worst_tracking,
                                (w.state().robot_q[0] - q_target).head<7>().cwiseAbs().maxCoeff());
      // (The cube starts 0.1 mm above the floor and settles onto it.)
      ASSERT_LT((w.state().pose[cube].position - start).norm(), 2e-4) << "t = " << t;
    }
  }
  EXPECT_LT(worst_tracking, 0.02);  // rad
  // Lifted 15 cm, between the pads (closed on the 5 cm cube: 2.5 cm each), at the tool centre.
  const Vec3 end = w.state().pose[cube].position;
  EXPECT_GT(end.z(), start.z() + 0.14);
  EXPECT_NEAR(w.state().robot_q[0][7], 0.025, 1e-3);
  EXPECT_NEAR(w.state().robot_q[0][8], 0.025, 1e-3);
  EXPECT_LT((end - toolCentre(w)).norm(), 0.01);
  // Held: 1 s more without slipping.
  for (int k = 0; k < 100; ++k) ASSERT_FALSE(w.step().diverged);
  EXPECT_LT((w.state().pose[cube].position - end).norm(), 2e-3);
}

}  // namespace
}  // namespace subsim
