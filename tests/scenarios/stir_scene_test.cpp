// The stir scene (issue 4): the Panda with its stirrer, the granular spheres, the paper's
// dimension, and the tool following the stirring path under impedance control.
#include <gtest/gtest.h>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

namespace subsim {
namespace {

Vec3 stirrerTip(const World& w) {
  const Robot& panda = w.model().robots[0];
  std::vector<Pose> poses;
  forwardKinematics(panda.articulation, w.state().robot_q[0], poses);
  return (panda.base * poses[panda.articulation.findLink("panda_stirrer")]).position;
}

TEST(StirScene, HasThePapersDimensionAndSubsystems) {
  World w(buildScenario("stir").model);
  EXPECT_EQ(w.dof(), 1303);  // 216 x 6 + 7
  EXPECT_EQ(w.partition().numSubsystems(), 217);
  ASSERT_EQ(w.model().robots.size(), 1u);
  EXPECT_EQ(w.model().robots[0].articulation.nv(), 7);
}

TEST(StirScene, TheStirrerFollowsThePathThroughTheSpheres) {
  // A small pile keeps the test short; the arm, gains and path are those of the full scene.
  World w(buildScenario("stir:spheres=27").model);
  GranularBox box;
  {
    Model scratch;
    box = addGranularBox(scratch, 27, 0.5);
  }
  const KinematicTrajectory path = stirringPath(box, 0.04);
  double worst = 0.0;
  for (int k = 0; k < 150; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << r.divergence;
    worst = std::max(worst, (stirrerTip(w) - path.pose(w.state().time).position).norm());
  }
  // Impedance control with the spheres in the way: centimetre tracking, not exact.
  EXPECT_LT(worst, 0.02);
  // The rod did stir: some sphere moved by more than a centimetre.
  const State initial = State::initial(w.model());
  double moved = 0.0;
  for (int b = 0; b < w.state().numBodies(); ++b)
    if (w.model().bodies[b].kind == BodyKind::Dynamic)
      moved = std::max(moved, (w.state().pose[b].position - initial.pose[b].position).norm());
  EXPECT_GT(moved, 0.01);
}

}  // namespace
}  // namespace subsim
