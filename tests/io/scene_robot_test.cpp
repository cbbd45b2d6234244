// The robots section of scene files: the built-in Panda and URDF files, drives and targets, and
// one error per way an entry can be wrong (file, field path and what was expected).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/cli_runner.hpp"
#include "subsim/io/scene_file.hpp"
#include "subsim/io/urdf_loader.hpp"
#include "subsim/scenarios/panda_model.hpp"
#include "test_files.hpp"

namespace subsim {
namespace {

using ::subsim::test::readFile;

const std::string kRobotScenes = std::string(SUBSIM_SOURCE_DIR) + "/scenes/";
const std::string kRobotFile = "scenes/robot.yaml";

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, needle, haystack)

const std::string kRobotBodies = R"(
bodies:
  - name: ground
    type: static
    shapes: [{type: plane}]
robots:
)";

std::string withRobot(const std::string& entry) {
  return kRobotBodies + entry;
}

std::string robotSceneError(const std::string& yaml, const std::string& source = kRobotFile) {
  try {
    parseScene(yaml, source);
  } catch (const SceneError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a SceneError for:\n" << yaml;
  return "";
}

void writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

int robotShapes(const Model& m, int robot) {
  int n = 0;
  for (const BodyShape& s : m.shapes)
    n += m.bodies.at(static_cast<std::size_t>(s.body)).robot == robot ? 1 : 0;
  return n;
}

const std::string kArm = R"(
  - name: arm
    urdf: panda
)";

TEST(SceneRobot, PandaHoldExampleLoads) {
  const SceneFile scene = loadSceneFile(kRobotScenes + "panda_hold.yaml");
  const Model& m = scene.model;
  ASSERT_EQ(m.robots.size(), 1u);
  const Robot& arm = m.robots[0];
  EXPECT_EQ(arm.name, "arm");
  EXPECT_EQ(arm.articulation.nq(), 7);
  EXPECT_EQ(arm.articulation.nv(), 7);
  EXPECT_TRUE(arm.gravity_compensation);
  const std::size_t collisions =
      loadUrdfString(pandaUrdf(), "built-in panda.urdf").collisions.size();
  ASSERT_GT(collisions, 0u);
  EXPECT_EQ(robotShapes(m, 0), static_cast<int>(collisions));
  for (const BodyShape& s : m.shapes)
    if (m.bodies[static_cast<std::size_t>(s.body)].robot == 0) {
      EXPECT_DOUBLE_EQ(s.mu, 0.5);
    }
  EXPECT_GE(m.findBody("box0"), 0);
  EXPECT_GE(m.findBody("box1"), 0);
}

TEST(SceneRobot, TheBuiltInAllegroHandLoadsByName) {
  const SceneFile scene = parseScene(withRobot(R"(
  - name: hand
    urdf: allegro_hand
    position: [0, 0, 0.3]
)"),
                                     kRobotFile);
  const Model& m = scene.model;
  ASSERT_EQ(m.robots.size(), 1u);
  EXPECT_EQ(m.robots[0].articulation.nq(), 16);
  EXPECT_EQ(robotShapes(m, 0),
            static_cast<int>(loadUrdfString(allegroHandUrdf(), "hand").collisions.size()));
}

TEST(SceneRobot, FieldsRoundTrip) {
  const SceneFile scene = parseScene(withRobot(R"(
  - name: arm
    urdf: panda
    floating_base: false
    position: [0.1, -0.2, 0.3]
    orientation: [0.7071067811865476, 0, 0, 0.7071067811865476]
    mu: 0.8
    q: [0, -0.3, 0, -2.2, 0, 2.0, 0.785]
    kp: [600, 600, 600, 600, 250, 150, 50]
    kd: [50, 50, 50, 20, 20, 20, 10]
    gravity_compensation: false
    target:
      times: [0, 2]
      positions: [[0, -0.3, 0, -2.2, 0, 2.0, 0.785], [0.5, -0.3, 0, -2.0, 0, 2.0, 0.785]]
)"),
                                     kRobotFile);
  const Model& m = scene.model;
  ASSERT_EQ(m.robots.size(), 1u);
  const Robot& r = m.robots[0];
  VecX q(7), kp(7), kd(7), q1(7);
  q << 0, -0.3, 0, -2.2, 0, 2.0, 0.785;
  kp << 600, 600, 600, 600, 250, 150, 50;
  kd << 50, 50, 50, 20, 20, 20, 10;
  q1 << 0.5, -0.3, 0, -2.0, 0, 2.0, 0.785;
  EXPECT_EQ(r.initial_q, q);
  EXPECT_EQ(r.kp, kp);
  EXPECT_EQ(r.kd, kd);
  EXPECT_FALSE(r.gravity_compensation);
  ASSERT_EQ(r.target.times.size(), 2u);
  EXPECT_EQ(r.target.times[0], 0.0);
  EXPECT_EQ(r.target.times[1], 2.0);
  ASSERT_EQ(r.target.positions.size(), 2u);
  EXPECT_EQ(r.target.positions[0], q);
  EXPECT_EQ(r.target.positions[1], q1);
  EXPECT_TRUE(r.base.position.isApprox(Vec3(0.1, -0.2, 0.3)));
  EXPECT_NEAR(r.base.orientation.w(), 0.7071067811865476, 1e-15);
  EXPECT_NEAR(r.base.orientation.z(), 0.7071067811865476, 1e-15);
  for (const BodyShape& s : m.shapes)
    if (m.bodies[static_cast<std::size_t>(s.body)].robot == 0) {
      EXPECT_DOUBLE_EQ(s.mu, 0.8);
    }
}

TEST(SceneRobot, DefaultsWhenOnlyNameAndUrdf) {
  const SceneFile scene = parseScene(withRobot(kArm), kRobotFile);
  const Robot& r = scene.model.robots.at(0);
  EXPECT_EQ(r.initial_q, r.articulation.neutralConfiguration());
  EXPECT_TRUE((r.kp.array() == 0.0).all());
  EXPECT_TRUE(r.target.empty());
  EXPECT_FALSE(r.gravity_compensation);
}

TEST(SceneRobot, FloatingBasePanda) {
  const SceneFile scene =
      parseScene(withRobot("  - {name: arm, urdf: panda, floating_base: true}\n"), kRobotFile);
  const Robot& r = scene.model.robots.at(0);
  EXPECT_EQ(r.articulation.nv(), 13);
}

const std::string kTinyUrdf = R"(<?xml version="1.0"?>
<robot name="tiny">
  <link name="base"/>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <joint name="hinge" type="continuous">
    <parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
  </joint>
</robot>
)";

TEST(SceneRobot, UrdfPathIsRelativeToTheSceneFile) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "subsim_scene_robot_test";
  std::filesystem::create_directories(dir / "robots");
  writeFile(dir / "robots" / "tiny.urdf", kTinyUrdf);
  const std::filesystem::path scene_path = dir / "scene.yaml";
  writeFile(scene_path, withRobot("  - {name: tiny, urdf: robots/tiny.urdf, kp: [10], kd: [1]}\n"));
  const SceneFile scene = loadSceneFile(scene_path.string());
  ASSERT_EQ(scene.model.robots.size(), 1u);
  EXPECT_EQ(scene.model.robots[0].articulation.nv(), 1);
  EXPECT_EQ(robotShapes(scene.model, 0), 1);

  writeFile(dir / "robots" / "broken.urdf", "<robot name=\"broken\"><link name=");
  writeFile(scene_path, withRobot("  - {name: bad, urdf: robots/broken.urdf}\n"));
  try {
    loadSceneFile(scene_path.string());
    ADD_FAILURE() << "expected a SceneError";
  } catch (const SceneError& e) {
    const std::string message = e.what();
    EXPECT_CONTAINS(message, scene_path.string() + ": robots[0].urdf: expected a valid URDF robot");
    // The URDF loader's own message, which names the URDF file.
    EXPECT_CONTAINS(message, (dir / "robots" / "broken.urdf").string() + ": ");
  }
  std::filesystem::remove_all(dir);
}

struct RobotErrorCase {
  const char* name;
  std::string entry;
  std::string path;
  std::string expected;
};

class SceneRobotError : public ::testing::TestWithParam<RobotErrorCase> {};

TEST_P(SceneRobotError, NamesFileFieldAndExpectation) {
  const RobotErrorCase& c = GetParam();
  const std::string message = robotSceneError(withRobot(c.entry));
  EXPECT_EQ(message.rfind(kRobotFile + ": " + c.path + ": ", 0), 0u) << message;
  EXPECT_CONTAINS(message, c.expected);
}

const std::string kQ7 = "[0, -0.3, 0, -2.2, 0, 2.0, 0.785]";

INSTANTIATE_TEST_SUITE_P(
    Cases, SceneRobotError,
    ::testing::Values(
        RobotErrorCase{"UnknownKey", "  - {name: arm, urdf: panda, mass: 3}\n", "robots[0].mass",
                       "unknown key for a robot, expected one of: name, urdf"},
        RobotErrorCase{"MissingName", "  - {urdf: panda}\n", "robots[0].name",
                       "missing, expected a unique robot name"},
        RobotErrorCase{"MissingUrdf", "  - {name: arm}\n", "robots[0].urdf",
                       "missing, expected panda (the built-in Franka Panda), allegro_hand (the "
                       "built-in 16-DOF Allegro hand) or a URDF file path"},
        RobotErrorCase{"UrdfNotFound", "  - {name: arm, urdf: nowhere/arm.urdf}\n",
                       "robots[0].urdf", "got nowhere/arm.urdf: no such file"},
        RobotErrorCase{"DuplicateName", kArm + kArm, "robots[1].name",
                       "expected a unique robot name, got arm which robots[0] already uses"},
        RobotErrorCase{"ShortQ", "  - {name: arm, urdf: panda, q: [0, 0, 0]}\n", "robots[0].q",
                       "expected a list of 7 joint positions (one per configuration coordinate "
                       "of the robot), got a list of 3 items"},
        RobotErrorCase{"LongKp", "  - {name: arm, urdf: panda, kp: [1, 1, 1, 1, 1, 1, 1, 1]}\n",
                       "robots[0].kp",
                       "expected a list of 7 non-negative gains (one per velocity coordinate of "
                       "the robot), got a list of 8 items"},
        RobotErrorCase{"ShortKd", "  - {name: arm, urdf: panda, kd: [1]}\n", "robots[0].kd",
                       "expected a list of 7 non-negative gains"},
        RobotErrorCase{"NegativeKp", "  - {name: arm, urdf: panda, kp: [1, 1, -1, 1, 1, 1, 1]}\n",
                       "robots[0].kp[2]", "expected a non-negative gain, got -1"},
        RobotErrorCase{"TargetPositionLength",
                       "  - {name: arm, urdf: panda, target: {times: [0, 1], positions: [" + kQ7 +
                           ", [0, 1]]}}\n",
                       "robots[0].target.positions[1]", "expected a list of 7 joint positions"},
        RobotErrorCase{
            "TargetPositionCount",
            "  - {name: arm, urdf: panda, target: {times: [0, 1], positions: [" + kQ7 + "]}}\n",
            "robots[0].target.positions",
            "expected a list of 2 configurations (one per time), got a list of 1 item"},
        RobotErrorCase{"NonIncreasingTimes",
                       "  - {name: arm, urdf: panda, target: {times: [0, 1, 1], positions: [" +
                           kQ7 + ", " + kQ7 + ", " + kQ7 + "]}}\n",
                       "robots[0].target.times[2]",
                       "expected strictly increasing times, got 1 after 1"},
        RobotErrorCase{"TargetUnknownKey",
                       "  - {name: arm, urdf: panda, target: {times: [0], positions: [" + kQ7 +
                           "], speed: 1}}\n",
                       "robots[0].target.speed", "unknown key for a robot target"},
        RobotErrorCase{"FloatingBaseRejectedByModel",
                       "  - {name: arm, urdf: panda, floating_base: true, position: [0, 0, 1]}\n",
                       "robots[0]",
                       "expected a robot the model accepts, got: robot 'arm': base: a "
                       "floating-base robot is placed by its initial_q"},
        RobotErrorCase{"NotAMap", "  - panda\n", "robots[0]",
                       "expected a map describing a robot, got panda"},
        RobotErrorCase{"BadFloatingBase", "  - {name: arm, urdf: panda, floating_base: 1}\n",
                       "robots[0].floating_base", "expected true or false"}),
    [](const ::testing::TestParamInfo<RobotErrorCase>& p) { return p.param.name; });

TEST(SceneRobot, RobotsMustBeAList) {
  const std::string message = robotSceneError(kRobotBodies + "  {name: arm}\n");
  EXPECT_CONTAINS(message, kRobotFile + ": robots: expected a list of robots, got a map");
}

TEST(SceneRobot, CliRunsThePandaExample) {
  const cli_test::Result r =
      cli_test::run("run " + kRobotScenes + "panda_hold.yaml --steps 50 --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(cli_test::contains(r.out, "{")) << r.out;
}

// Only SceneError may escape, whatever prefix of the example is loaded.
TEST(SceneRobot, TruncatedExampleNeverCrashes) {
  const std::string text = readFile(kRobotScenes + "panda_hold.yaml");
  ASSERT_FALSE(text.empty());
  for (std::size_t n = 0; n <= text.size(); ++n) {
    try {
      parseScene(text.substr(0, n), kRobotFile);
    } catch (const SceneError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(kRobotFile + ": ", 0), 0u) << n << ": " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "cut at " << n << ": unexpected exception " << e.what();
    }
  }
}

}  // namespace
}  // namespace subsim
