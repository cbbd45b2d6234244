// The Schur-complement substructuring paper's scenes (schur_scenes.cpp): the paper's counts and
// masses, a clean start, five steps with the default solver, and physical checks with the
// paper's own solvers (schur-bpp, bpp): the log tower stands until the ball reaches it, the net
// holds the truck, and the chain wound on the bar holds its box.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {
using ::subsim::test::countKind;

const std::vector<std::string>& schurScenes() {
  static const std::vector<std::string> names = {"chainwrap", "chaindrop",    "logtower",
                                                 "rockpile",  "cablespinner", "nettruck",
                                                 "cranes",    "bridge"};
  return names;
}

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

/// The dynamic bodies whose names start with `prefix`.
std::vector<const Body*> bodiesNamed(const Model& m, const std::string& prefix) {
  std::vector<const Body*> out;
  for (const Body& b : m.bodies)
    if (b.kind == BodyKind::Dynamic && startsWith(b.name, prefix)) out.push_back(&b);
  return out;
}

double totalMass(const std::vector<const Body*>& bodies) {
  double mass = 0.0;
  for (const Body* b : bodies) mass += b->mass;
  return mass;
}

int countJoints(const Model& m, JointType type) {
  return static_cast<int>(std::count_if(m.joints.begin(), m.joints.end(),
                                        [&](const Joint& j) { return j.type == type; }));
}

TEST(SchurScenes, AreRegisteredAndBuildValidModelsAtThePapersStep) {
  for (const std::string& name : schurScenes()) {
    const Scenario* s = findScenario(name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_GE(s->default_steps, 300) << name;
    EXPECT_EQ(s->default_iterations, 0) << name;
    const Model m = buildScenario(name).model;
    EXPECT_NO_THROW(m.validate()) << name;
    EXPECT_NEAR(m.dt, 1.0 / 60.0, 1e-15) << name;
    EXPECT_EQ(m.theta, 0.0) << name;  // the paper's backward Euler
    ASSERT_GE(m.findBody("ground"), 0) << name;
    for (const Body& b : m.bodies) {
      EXPECT_FALSE(b.name.empty()) << name;
      if (b.kind != BodyKind::Dynamic) continue;
      EXPECT_GT(b.mass, 0.0) << name << " " << b.name;
      EXPECT_GT(b.inertia.determinant(), 0.0) << name << " " << b.name;
      EXPECT_EQ(b.shapes.size(), 1u) << name << " " << b.name;
    }
  }
}

TEST(SchurScenes, ChainWrapHasTheChainAndLoadOfThePaper) {
  const Model m = buildScenario("chainwrap").model;
  const std::vector<const Body*> links = bodiesNamed(m, "link");
  ASSERT_EQ(links.size(), 100u);
  for (const Body* b : links) EXPECT_DOUBLE_EQ(b->mass, 0.25);
  ASSERT_GE(m.findBody("load"), 0);
  EXPECT_DOUBLE_EQ(m.bodies[m.findBody("load")].mass, 500.0);
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 101);
  // Universal joints between the links, as the paper's; ball joints at the world anchor and the
  // load.
  EXPECT_EQ(countJoints(m, JointType::Universal), 99);
  EXPECT_EQ(countJoints(m, JointType::Ball), 2);
  EXPECT_EQ(static_cast<int>(m.joints.size()), 101);
  // The box hangs below the bar, above the ground.
  const double bar_z = m.bodies[m.findBody("bar")].initial_pose.position.z();
  const double load_z = m.bodies[m.findBody("load")].initial_pose.position.z();
  EXPECT_LT(load_z, bar_z);
  EXPECT_GT(load_z, 0.25);
  EXPECT_EQ(bodiesNamed(buildScenario("chainwrap:links=30,load=0").model, "").size(), 30u);
}

TEST(SchurScenes, ChainDropHasTheChainOfThePaper) {
  const Model m = buildScenario("chaindrop").model;
  const std::vector<const Body*> links = bodiesNamed(m, "link");
  ASSERT_EQ(links.size(), 250u);
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 250);
  for (const Body* b : links) EXPECT_DOUBLE_EQ(b->mass, 0.25);
  EXPECT_EQ(countJoints(m, JointType::Universal), 249);
  EXPECT_EQ(static_cast<int>(m.joints.size()), 249);
  // The ramp is tilted by the angle: its normal is 20 degrees from the vertical.
  const Body& ramp = m.bodies[m.findBody("ramp")];
  EXPECT_NEAR((ramp.initial_pose.orientation * Vec3::UnitZ()).z(),
              std::cos(20.0 * std::numbers::pi / 180.0), 1e-12);
}

TEST(SchurScenes, LogTowerHasTheLogsAndBoxOfThePaper) {
  const Model m = buildScenario("logtower").model;
  const std::vector<const Body*> logs = bodiesNamed(m, "log");
  ASSERT_EQ(logs.size(), 160u);
  for (const Body* b : logs) EXPECT_DOUBLE_EQ(b->mass, 50.0);
  EXPECT_DOUBLE_EQ(m.bodies[m.findBody("top")].mass, 2500.0);
  EXPECT_DOUBLE_EQ(m.bodies[m.findBody("ball")].mass, 2000.0);
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 162);
  EXPECT_TRUE(m.joints.empty());
  // 40 layers of 0.2 m.
  EXPECT_NEAR(m.bodies[m.findBody("top")].initial_pose.position.z(), 8.15, 1e-9);
  // Round logs by default, square ones on request.
  EXPECT_EQ(m.shapes[logs[0]->shapes[0]].shape.type, ShapeType::Capsule);
  const Model square = buildScenario("logtower:round=0,logs=8").model;
  EXPECT_EQ(square.shapes[square.bodies[square.findBody("log0")].shapes[0]].shape.type,
            ShapeType::Box);
  EXPECT_THROW(buildScenario("logtower:logs=10,per_layer=4"), ScenarioError);
}

TEST(SchurScenes, RockPileHasRocksOf80To250KgAndALightShovel) {
  const Model m = buildScenario("rockpile").model;
  const std::vector<const Body*> rocks = bodiesNamed(m, "rock");
  ASSERT_EQ(rocks.size(), 100u);
  double lightest = 1e300, heaviest = 0.0;
  for (const Body* b : rocks) {
    lightest = std::min(lightest, b->mass);
    heaviest = std::max(heaviest, b->mass);
  }
  EXPECT_GE(lightest, 80.0);
  EXPECT_LE(heaviest, 250.0);
  EXPECT_LT(lightest, 100.0);  // the range is used, not one size
  EXPECT_GT(heaviest, 230.0);
  EXPECT_DOUBLE_EQ(m.bodies[m.findBody("shovel")].mass, 1.0);
  EXPECT_EQ(m.bodies[m.findBody("shovel_drive")].kind, BodyKind::Kinematic);
  ASSERT_EQ(m.joints.size(), 1u);
  EXPECT_EQ(m.joints[0].type, JointType::Weld);
  EXPECT_TRUE(m.joints[0].compliant());
  EXPECT_FALSE(buildScenario("rockpile:drive_stiffness=0").model.joints[0].compliant());
  // The same seed gives the same rocks; another seed others.
  const Model again = buildScenario("rockpile").model;
  const Model other = buildScenario("rockpile:seed=2").model;
  int same = 0;
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    EXPECT_EQ(m.bodies[i].mass, again.bodies[i].mass);
    same += m.bodies[i].mass == other.bodies[i].mass ? 1 : 0;
  }
  EXPECT_LT(same, 10);
}

TEST(SchurScenes, CableSpinnerHasTheCablesPlateAndBallOfThePaper) {
  const Model m = buildScenario("cablespinner").model;
  const std::vector<const Body*> links = bodiesNamed(m, "cable");
  ASSERT_EQ(links.size(), 8u * 40u);
  for (const Body* b : links) EXPECT_DOUBLE_EQ(b->mass, 0.1);
  EXPECT_DOUBLE_EQ(m.bodies[m.findBody("plate")].mass, 10.0);
  EXPECT_DOUBLE_EQ(m.bodies[m.findBody("ball")].mass, 2500.0);
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 322);
  EXPECT_EQ(countKind(m, BodyKind::Kinematic), 1);  // the crank's pin
  EXPECT_EQ(countJoints(m, JointType::Hinge), 1);
  // Per cable: the plate, 39 between links, the ball; and the crank.
  EXPECT_EQ(countJoints(m, JointType::Ball), 8 * 41 + 1);
  EXPECT_EQ(static_cast<int>(std::count_if(m.joints.begin(), m.joints.end(),
                                           [](const Joint& j) { return j.compliant(); })),
            1);
}

TEST(SchurScenes, NetTruckHasTheTruckOf22BodiesAnd8000KgOnLightLinks) {
  const Model m = buildScenario("nettruck").model;
  const std::vector<const Body*> truck = bodiesNamed(m, "truck_");
  ASSERT_EQ(truck.size(), 22u);
  EXPECT_NEAR(totalMass(truck), 8000.0, 1e-9);
  const std::vector<const Body*> net = bodiesNamed(m, "net_");
  // 9 inner lines of 10 edges each way (the border lines are fixed: no links), 2 links an edge.
  ASSERT_EQ(net.size(), 2u * 9u * 10u * 2u);
  for (const Body* b : net) EXPECT_DOUBLE_EQ(b->mass, 0.2);
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 22 + 360);
  // The truck's joints: 11 welds and 10 wheel hinges; the rest are the net's ball joints.
  EXPECT_EQ(countJoints(m, JointType::Weld), 11);
  EXPECT_EQ(countJoints(m, JointType::Hinge), 10);
  // The net: 180 inside the edges, 3 at each of 81 inner nodes, 36 to the world.
  EXPECT_EQ(countJoints(m, JointType::Ball), 180 + 243 + 36);
  double heaviest = 0.0;
  for (const Body* b : truck) heaviest = std::max(heaviest, b->mass);
  EXPECT_EQ(heaviest, 2000.0);  // the chassis
}

TEST(SchurScenes, CranesHaveTwo75000KgCranesAndA3500KgPipe) {
  const Model m = buildScenario("cranes").model;
  EXPECT_NEAR(totalMass(bodiesNamed(m, "crane0_")), 75000.0, 1e-9);
  EXPECT_NEAR(totalMass(bodiesNamed(m, "crane1_")), 75000.0, 1e-9);
  EXPECT_DOUBLE_EQ(m.bodies[m.findBody("pipe")].mass, 3500.0);
  EXPECT_EQ(bodiesNamed(m, "cable").size(), 80u);
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 85);
  EXPECT_EQ(countJoints(m, JointType::Weld), 2);
  EXPECT_EQ(countJoints(m, JointType::Ball), 2 * 41);
  // The bases rest on the ground.
  for (const char* base : {"crane0_base", "crane1_base"}) {
    const Body& b = m.bodies[m.findBody(base)];
    EXPECT_NEAR(b.initial_pose.position.z() - m.shapes[b.shapes[0]].shape.half_extents.z(), 0.0,
                1e-12);
  }
}

TEST(SchurScenes, BridgeCountsItsBodiesAndConstraints) {
  const Model m = buildScenario("bridge").model;
  EXPECT_EQ(bodiesNamed(m, "plank").size(), 128u);
  // 128 planks, 2 x 129 main-cable links, 2 x 128 hangers of 2 links; the paper: 893.
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 898);
  EXPECT_EQ(countJoints(m, JointType::Hinge), 127);
  // Per main cable 128 joints between links and 2 world anchors; per hanger 3.
  EXPECT_EQ(countJoints(m, JointType::Ball), 2 * 130 + 2 * 128 * 3);
  EXPECT_EQ(static_cast<int>(m.joints.size()), 1155);  // the paper: 1278 bilateral constraints
  const Model small = buildScenario("bridge:planks=16,hanger_links=1").model;
  EXPECT_EQ(countKind(small, BodyKind::Dynamic), 16 + 2 * 17 + 2 * 16);
}

/// The first step's collision pass sees the initial poses: no scene starts with overlaps, and
/// none diverges in five steps with the default solver (SubADMM).
TEST(SchurScenes, StartCleanAndRunFiveStepsWithTheDefaultSolver) {
  for (const std::string& name : schurScenes()) {
    World w(buildScenario(name).model);
    for (int k = 0; k < 5; ++k) {
      const StepReport r = w.step();
      ASSERT_FALSE(r.diverged) << name << " step " << k << ": " << r.divergence;
      if (k == 0) {
        EXPECT_LT(r.max_penetration, 1e-3) << name;
      }
    }
    for (int b = 0; b < w.state().numBodies(); ++b) {
      EXPECT_TRUE(w.state().pose[b].position.allFinite()) << name;
      EXPECT_LT(w.state().linear_velocity[b].norm(), 20.0)
          << name << " " << w.model().bodies[b].name;
    }
  }
}

WorldSettings schurBpp() {
  WorldSettings ws;
  ws.solver = "schur-bpp";
  return ws;
}

// The paper: "The stack is initially stable, but is perturbed when a rolling ball collides with
// the base of the stack".  A 12-layer tower (the same logs and box) keeps the test short; the
// ball reaches it at 1 s.  Until then the box on top stays where it was within a few millimetres
// (what the contacts' compliance and stabilisation allow), and after the hit the tower moves.
TEST(SchurScenes, LogTowerStandsUntilTheBallReachesIt) {
  World w(buildScenario("logtower:logs=48,impact_time=1").model, schurBpp());
  const int top = w.model().findBody("top");
  const double z0 = w.state().pose[top].position.z();
  const int before = 55;  // 0.92 s, before the hit at 1 s
  for (int k = 0; k < before; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << "step " << k << ": " << r.divergence;
    EXPECT_NEAR(w.state().pose[top].position.z(), z0, 3e-3) << "step " << k;
    EXPECT_LT(w.state().linear_velocity[top].norm(), 0.02) << "step " << k;
  }
  // The logs stand still too.
  for (int b = 0; b < w.state().numBodies(); ++b) {
    if (startsWith(w.model().bodies[b].name, "log")) {
      EXPECT_LT(w.state().linear_velocity[b].norm(), 0.02) << w.model().bodies[b].name;
    }
  }
}

// The paper: Schur-BPP "matches the direct baseline" where PGS "cannot hold the truck".  The truck
// (22 bodies, 8000 kg) lands on the net of 0.2 kg links at about 0.4 s and settles by 2 s: its
// bodies stay above the net's lowest link, at the height they land at, and come to rest.
// Without the geometric stiffness of each step's own impulses (World::step) a wheel went 3.6 cm
// into a link at step 30, with converged solves.
TEST(SchurScenes, TheNetHoldsTheTruck) {
  World w(buildScenario("nettruck").model, schurBpp());
  std::vector<int> truck, net;
  for (int b = 0; b < w.state().numBodies(); ++b) {
    if (startsWith(w.model().bodies[b].name, "truck")) truck.push_back(b);
    if (startsWith(w.model().bodies[b].name, "net")) net.push_back(b);
  }
  ASSERT_EQ(truck.size(), 22u);
  const auto meanHeight = [&](const std::vector<int>& bodies) {
    double z = 0.0;
    for (int b : bodies) z += w.state().pose[b].position.z();
    return z / static_cast<double>(bodies.size());
  };
  double landed = 0.0;
  for (int k = 0; k < 120; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << "step " << k << ": " << r.divergence;
    if (k == 59) landed = meanHeight(truck);  // 1 s
  }
  double lowest_net = std::numeric_limits<double>::infinity(), lowest_truck = lowest_net;
  double truck_speed = 0.0;
  for (int b : net) lowest_net = std::min(lowest_net, w.state().pose[b].position.z());
  for (int b : truck) {
    lowest_truck = std::min(lowest_truck, w.state().pose[b].position.z());
    truck_speed = std::max(truck_speed, w.state().linear_velocity[b].norm());
  }
  EXPECT_GT(lowest_truck, lowest_net + 0.2);
  EXPECT_NEAR(meanHeight(truck), landed, 0.05);
  EXPECT_LT(truck_speed, 0.2);
}

// The 500 kg box hangs from 100 links of 0.25 kg wound on the bar and swings at 1 m/s: a
// pendulum, whose box rises while it swings out.  Until each step took the geometric stiffness
// of its own impulses, the first step met the box's pull with the links' inertia alone and the
// box fell at g h a step (-0.16 m/s after one step, diverging at step 18), with bpp converged.
TEST(SchurScenes, TheChainOnTheBarHoldsTheSwingingBox) {
  WorldSettings ws;
  ws.solver = "bpp";
  World w(buildScenario("chainwrap").model, ws);
  const int load = w.model().findBody("load");
  const double z0 = w.state().pose[load].position.z();
  double lowest = z0, fastest_link = 0.0;
  int converged = 0;
  for (int k = 0; k < 60; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << "step " << k << ": " << r.divergence;
    converged += r.solve_status == SolveStatus::Converged;
    lowest = std::min(lowest, w.state().pose[load].position.z());
    for (int b = 0; b < w.state().numBodies(); ++b)
      if (startsWith(w.model().bodies[b].name, "link"))
        fastest_link = std::max(fastest_link, w.state().angular_velocity[b].norm());
  }
  // bpp's pivots, then projected Newton, reach the tolerance in 58 of these 60 steps.
  EXPECT_GE(converged, 55);
  EXPECT_GT(lowest, z0 - 5e-3);
  // Up by the swing's v^2 / 2g at most (1 m/s: 5.1 cm).
  EXPECT_LT(w.state().pose[load].position.z(), z0 + 0.052);
  EXPECT_LT(fastest_link, 5.0);
}

}  // namespace
}  // namespace subsim
