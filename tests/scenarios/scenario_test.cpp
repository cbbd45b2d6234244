// Built-in scene specs: parameters, errors, and the geometry the issue prescribes.
#include <gtest/gtest.h>

#include "subsim/scenarios/scenario.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {
using ::subsim::test::countKind;

TEST(Scenarios, GranularMatchesTheStirSceneOfThePaper) {
  const Model m = buildScenario("granular").model;
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 217);  // 216 spheres and the driven rod
  EXPECT_EQ(countKind(m, BodyKind::Kinematic), 1);  // the rod's drive
  EXPECT_DOUBLE_EQ(m.dt, 0.01);
  for (const Body& b : m.bodies) {
    if (b.kind != BodyKind::Dynamic || b.name == "rod") continue;
    EXPECT_DOUBLE_EQ(b.mass, 0.004);
    ASSERT_EQ(b.shapes.size(), 1u);
    EXPECT_DOUBLE_EQ(m.shapes[b.shapes[0]].shape.radius, 0.01);
    EXPECT_DOUBLE_EQ(m.shapes[b.shapes[0]].mu, 0.5);
  }
  // Walls: inner 0.16 m, 0.15 m high, 1 cm thick.
  const int wall = m.findBody("wall0");
  ASSERT_GE(wall, 0);
  const Shape& w = m.shapes[m.bodies[wall].shapes[0]].shape;
  EXPECT_DOUBLE_EQ(2 * w.half_extents.x(), 0.01);
  EXPECT_DOUBLE_EQ(2 * w.half_extents.z(), 0.15);
  EXPECT_NEAR(m.bodies[wall].initial_pose.position.x() - 0.005, 0.08, 1e-12);
  // The rod: r = 1 cm, lower end 4 cm above the floor once lowered, circle of 4 cm at 1 rev/s,
  // held on its drive by a compliant weld whose rest offset cancels the rod's weight.
  const Body& rod = m.bodies[m.findBody("rod")];
  const Body& drive = m.bodies[m.findBody("rod_drive")];
  const Shape& cap = m.shapes[rod.shapes[0]].shape;
  EXPECT_DOUBLE_EQ(cap.radius, 0.01);
  const Pose p = drive.trajectory.pose(2.0);
  EXPECT_NEAR(p.position.z() - cap.half_length - cap.radius, 0.04, 1e-12);
  EXPECT_NEAR(p.position.head<2>().norm(), 0.04, 1e-12);
  EXPECT_NEAR((drive.trajectory.pose(3.0).position - p.position).norm(), 0.0, 1e-12);
  ASSERT_EQ(m.joints.size(), 1u);
  const Joint& weld = m.joints[0];
  EXPECT_EQ(weld.type, JointType::Weld);
  EXPECT_TRUE(weld.compliant());
  EXPECT_NEAR(weld.stiffness * (weld.anchor_b.z() - weld.anchor_a.z()), rod.mass * 9.81, 1e-12);
}

TEST(Scenarios, GranularScalesWithTheSphereCount) {
  const Model m = buildScenario("granular:spheres=1000,mu=0.3").model;
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 1001);
  EXPECT_DOUBLE_EQ(m.shapes.back().mu, 0.3);
  // No two spheres overlap initially and all are inside the walls.
  const double half_inner = m.bodies[m.findBody("wall0")].initial_pose.position.x() - 0.005;
  for (const Body& b : m.bodies)
    if (b.kind == BodyKind::Dynamic && b.name != "rod") {
      EXPECT_LT(std::abs(b.initial_pose.position.x()) + 0.01, half_inner);
      EXPECT_LT(std::abs(b.initial_pose.position.y()) + 0.01, half_inner);
    }
}

TEST(Scenarios, GranularWithAKinematicRod) {
  const Model m = buildScenario("granular:drive_stiffness=0").model;
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 216);
  EXPECT_EQ(countKind(m, BodyKind::Kinematic), 1);
  EXPECT_TRUE(m.joints.empty());
  EXPECT_EQ(m.bodies[m.findBody("rod")].kind, BodyKind::Kinematic);
}

TEST(Scenarios, SphereCubeIsTheRpiPapersStackAndStands) {
  // 125 spheres in 25 columns; each sphere rests on the one below (100 contacts) or the ground
  // (25); the columns are 2 mm apart, beyond the contact margin.  It stands: after 1 s no sphere
  // has moved a tenth of a millimetre.
  WorldSettings ws;
  ws.solver = "canal";
  World w = test::makeWorld("spherecube", 100, 1e-10, 1, 0.0, ws);
  EXPECT_EQ(test::countKind(w.model(), BodyKind::Dynamic), 125);
  std::vector<Vec3> start;
  for (const Pose& pose : w.state().pose) start.push_back(pose.position);
  for (int k = 0; k < 100; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << r.divergence;
    ASSERT_EQ(r.contacts, 125) << k;
  }
  for (std::size_t b = 0; b < start.size(); ++b)
    EXPECT_LT((w.state().pose[b].position - start[b]).norm(), 1e-4) << b;
}

TEST(Scenarios, ErrorsNameTheProblem) {
  EXPECT_THROW(buildScenario("nosuch"), ScenarioError);
  try {
    buildScenario("stack:height=3");
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown parameter 'height'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("boxes"), std::string::npos);
  }
  EXPECT_THROW(buildScenario("stack:boxes=0"), ScenarioError);
  EXPECT_THROW(buildScenario("stack:boxes=1.5"), ScenarioError);
  EXPECT_THROW(buildScenario("stack:boxes=1e400"), ScenarioError);
  EXPECT_THROW(buildScenario("stack:boxes="), ScenarioError);
  EXPECT_THROW(buildScenario("stack:=3"), ScenarioError);
  EXPECT_THROW(buildScenario("incline:angle=90"), ScenarioError);
}

TEST(Scenarios, EveryBuiltInSceneBuildsAValidModel) {
  for (const Scenario& s : builtinScenarios()) {
    const Model m = buildScenario(s.name).model;
    EXPECT_NO_THROW(m.validate()) << s.name;
    EXPECT_GT(m.bodies.size(), 0u) << s.name;
  }
}

}  // namespace
}  // namespace subsim
