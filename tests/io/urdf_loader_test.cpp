// URDF import (io/urdf_loader.hpp): the shipped Franka Panda, a hand-written round trip of every
// joint and collision type, and every error case (a SceneError naming the file and the element).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/io/urdf_loader.hpp"
#include "test_files.hpp"

namespace subsim {
namespace {

using ::subsim::test::readFile;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, needle, haystack)

const std::string kPandaPath = std::string(SUBSIM_SOURCE_DIR) + "/robots/panda/panda.urdf";
const std::string kUrdfFile = "robots/test.urdf";

Mat3 rpyMatrix(double r, double p, double y) {
  return (Eigen::AngleAxisd(y, Vec3::UnitZ()) * Eigen::AngleAxisd(p, Vec3::UnitY()) *
          Eigen::AngleAxisd(r, Vec3::UnitX()))
      .toRotationMatrix();
}

// ---- The shipped Panda ----

TEST(UrdfPanda, LinksJointsAndLimitsArePublishedOnes) {
  UrdfRobot robot = loadUrdfFile(kPandaPath);
  Articulation& art = robot.articulation;
  EXPECT_EQ(art.name, "panda");
  ASSERT_EQ(art.links.size(), 10u);  // link0..link7, the flange link8, the stirrer
  EXPECT_TRUE(robot.notes.empty()) << robot.notes.front();
  const std::vector<std::string> names = {
      "panda_link0", "panda_link1", "panda_link2", "panda_link3", "panda_link4",
      "panda_link5", "panda_link6", "panda_link7", "panda_link8", "panda_stirrer"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(art.links[i].name, names[i]);
    EXPECT_EQ(art.links[i].parent, static_cast<int>(i) - 1);
  }
  EXPECT_EQ(art.links[0].joint, ArticulationJointType::Fixed);
  EXPECT_EQ(art.links[8].joint, ArticulationJointType::Fixed);
  EXPECT_EQ(art.links[9].joint, ArticulationJointType::Fixed);

  const double lower[7] = {-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973};
  const double upper[7] = {2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973};
  const double velocity[7] = {2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61};
  const double effort[7] = {87, 87, 87, 87, 12, 12, 12};
  const double mass[7] = {4.970684, 0.646926, 3.228604, 3.587895, 1.225946, 1.666555, 0.735522};
  for (int j = 0; j < 7; ++j) {
    const ArticulationLink& l = art.links[j + 1];
    SCOPED_TRACE(l.name);
    EXPECT_EQ(l.joint_name, "panda_joint" + std::to_string(j + 1));
    EXPECT_EQ(l.joint, ArticulationJointType::Revolute);
    EXPECT_TRUE(l.limited);
    EXPECT_EQ(l.lower, lower[j]);
    EXPECT_EQ(l.upper, upper[j]);
    EXPECT_EQ(l.velocity_limit, velocity[j]);
    EXPECT_EQ(l.effort_limit, effort[j]);
    EXPECT_EQ(l.mass, mass[j]);
    EXPECT_TRUE(l.axis.isApprox(Vec3::UnitZ()));
    EXPECT_GT(Eigen::SelfAdjointEigenSolver<Mat3>(l.inertia).eigenvalues().minCoeff(), 0.0);
  }
  // Link 1's inertia as published by Gaz et al. (2019): about the com, in link-frame axes.
  EXPECT_DOUBLE_EQ(art.links[1].inertia(0, 0), 0.70337);
  EXPECT_DOUBLE_EQ(art.links[1].inertia(1, 2), 0.019169);
  EXPECT_TRUE(art.links[7].com.isApprox(Vec3(0.010517, -0.004252, 0.061597)));
  EXPECT_EQ(art.links[8].mass, 0.0);

  art.finalize();
  EXPECT_EQ(art.nq(), 7);
  EXPECT_EQ(art.nv(), 7);

  // Capsule-like collision geometry on every moving link, and the stirring rod.
  std::vector<int> per_link(art.links.size(), 0);
  for (const UrdfCollision& c : robot.collisions) {
    ASSERT_GE(c.link, 0);
    ASSERT_LT(c.link, static_cast<int>(art.links.size()));
    ++per_link[c.link];
  }
  for (int l = 0; l <= 7; ++l) EXPECT_GE(per_link[l], 1) << art.links[l].name;
  ASSERT_EQ(per_link[9], 1);
  for (const UrdfCollision& c : robot.collisions) {
    if (c.link != 9) continue;
    EXPECT_EQ(c.shape.type, ShapeType::Cylinder);
    EXPECT_DOUBLE_EQ(c.shape.radius, 0.01);
    EXPECT_DOUBLE_EQ(c.shape.half_length, 0.075);
    EXPECT_TRUE(c.origin.position.isApprox(Vec3(0, 0, -0.075)));
  }
}

TEST(UrdfPanda, FlangeAtFrankasPositionAtZeroConfiguration) {
  UrdfRobot robot = loadUrdfFile(kPandaPath);
  Articulation& art = robot.articulation;
  art.finalize();
  // The chain of joint origins (q = 0: every joint frame is its child's frame).
  std::vector<Pose> chain(art.links.size());
  for (std::size_t i = 0; i < art.links.size(); ++i) {
    const ArticulationLink& l = art.links[i];
    chain[i] = l.parent < 0 ? l.joint_origin : chain[l.parent] * l.joint_origin;
  }
  const int flange = art.findLink("panda_link8");
  const int stirrer = art.findLink("panda_stirrer");
  ASSERT_EQ(flange, 8);
  const Vec3 expected(0.088, 0.0, 0.333 + 0.316 + 0.384 - 0.107);
  EXPECT_LT((chain[flange].position - expected).norm(), 1e-12) << chain[flange].position;
  // Franka's flange points down at q = 0.
  EXPECT_LT((chain[flange].rotate(Vec3::UnitZ()) - Vec3(0, 0, -1)).norm(), 1e-12);
  EXPECT_LT((chain[stirrer].position - (expected - Vec3(0, 0, 0.15))).norm(), 1e-12);

  // The library's forward kinematics agrees.
  std::vector<Pose> poses;
  forwardKinematics(art, art.neutralConfiguration(), poses);
  ASSERT_EQ(poses.size(), art.links.size());
  EXPECT_LT((poses[flange].position - expected).norm(), 1e-12) << poses[flange].position;
  EXPECT_LT((poses[stirrer].position - chain[stirrer].position).norm(), 1e-12);
  // The elbow (joint 4 at its middle) moves the flange.
  VecX q = art.neutralConfiguration();
  q[3] = -1.5;
  forwardKinematics(art, q, poses);
  EXPECT_GT((poses[flange].position - expected).norm(), 0.1);
}

// Fuzz: every truncation of the Panda file, and random byte mutations, either load or throw a
// SceneError naming the file; nothing crashes or throws anything else.
TEST(UrdfPanda, TruncatedAndMutatedFilesNeverCrash) {
  const std::string text = readFile(kPandaPath);
  ASSERT_GT(text.size(), 1000u);
  int errors = 0, loaded = 0;
  auto attempt = [&](const std::string& xml) {
    try {
      UrdfRobot r = loadUrdfString(xml, kUrdfFile);
      r.articulation.finalize();
      ++loaded;
    } catch (const SceneError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(kUrdfFile + ": ", 0), 0u) << e.what();
      ++errors;
    } catch (const std::invalid_argument&) {
      ++errors;  // finalize() refusing a converted model is allowed
    }
  };
  for (std::size_t n = 0; n < text.size(); n += 3) attempt(text.substr(0, n));
  std::mt19937 rng(12345);
  const std::string replacements = "<>/\"'=0123456789.-e nan";
  for (int k = 0; k < 3000; ++k) {
    std::string m = text;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) m[rng() % m.size()] = replacements[rng() % replacements.size()];
    attempt(m);
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(loaded, 0);
}

// ---- A hand-written robot: every joint and collision type ----

const std::string kSmallRobot = R"(<?xml version="1.0"?>
<robot name="small">
  <link name="base">
    <inertial>
      <origin xyz="0.1 0.2 0.3" rpy="0 0 1.5707963267948966"/>
      <mass value="2"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="2" iyz="0" izz="3"/>
    </inertial>
    <collision>
      <origin xyz="0 0 -0.05" rpy="0 0 0"/>
      <geometry><box size="0.4 0.2 0.1"/></geometry>
    </collision>
    <visual><geometry><mesh filename="package://small/base.dae"/></geometry></visual>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/>
    <child link="upper"/>
    <origin xyz="0 0 0.5" rpy="0.1 0.2 0.3"/>
    <axis xyz="0 2 0"/>
    <limit lower="-1" upper="1.5" effort="40" velocity="3"/>
    <dynamics damping="0.7" friction="0.1"/>
  </joint>
  <link name="upper">
    <inertial>
      <mass value="1"/>
      <inertia ixx="0.1" ixy="0.01" ixz="0" iyy="0.1" iyz="0" izz="0.05"/>
    </inertial>
    <collision>
      <origin xyz="0 0 0.2" rpy="0 0 0"/>
      <geometry><cylinder radius="0.05" length="0.4"/></geometry>
    </collision>
    <collision>
      <origin xyz="0 0 0.4" rpy="0 0 0"/>
      <geometry><sphere radius="0.06"/></geometry>
    </collision>
  </link>
  <joint name="slider" type="prismatic">
    <parent link="upper"/>
    <child link="carriage"/>
    <origin xyz="0 0 0.4"/>
    <axis xyz="1 0 0"/>
    <limit lower="-0.2" upper="0.3" effort="100" velocity="0.5"/>
  </joint>
  <link name="carriage">
    <inertial><mass value="0.5"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><mesh filename="package://small/carriage.stl"/></geometry></collision>
  </link>
  <joint name="spinner" type="continuous">
    <parent link="carriage"/>
    <child link="wheel"/>
    <axis xyz="0 0 1"/>
  </joint>
  <link name="wheel">
    <inertial><mass value="0.2"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.002"/></inertial>
  </link>
  <joint name="mount" type="fixed">
    <parent link="base"/>
    <child link="sensor"/>
    <origin xyz="0.1 0 0"/>
  </joint>
  <link name="sensor"/>
</robot>
)";

TEST(UrdfLoader, RoundTripPutsEveryFieldWhereExpected) {
  UrdfRobot robot = loadUrdfString(kSmallRobot, kUrdfFile);
  Articulation& art = robot.articulation;
  EXPECT_EQ(art.name, "small");
  ASSERT_EQ(art.links.size(), 5u);
  // Depth first, children in file order.
  EXPECT_EQ(art.links[0].name, "base");
  EXPECT_EQ(art.links[1].name, "upper");
  EXPECT_EQ(art.links[2].name, "carriage");
  EXPECT_EQ(art.links[3].name, "wheel");
  EXPECT_EQ(art.links[4].name, "sensor");

  const ArticulationLink& base = art.links[0];
  EXPECT_EQ(base.parent, -1);
  EXPECT_EQ(base.joint, ArticulationJointType::Fixed);
  EXPECT_TRUE(base.joint_origin.position.isZero());
  EXPECT_TRUE(base.joint_origin.orientation.isApprox(Quat::Identity()));
  EXPECT_EQ(base.mass, 2.0);
  EXPECT_TRUE(base.com.isApprox(Vec3(0.1, 0.2, 0.3)));
  // diag(1, 2, 3) in a frame turned 90 degrees about z: x and y swap.
  EXPECT_LT((base.inertia - Vec3(2, 1, 3).asDiagonal().toDenseMatrix()).norm(), 1e-12)
      << base.inertia;

  const ArticulationLink& upper = art.links[1];
  EXPECT_EQ(upper.parent, 0);
  EXPECT_EQ(upper.joint, ArticulationJointType::Revolute);
  EXPECT_EQ(upper.joint_name, "shoulder");
  EXPECT_TRUE(upper.joint_origin.position.isApprox(Vec3(0, 0, 0.5)));
  EXPECT_LT((upper.joint_origin.orientation.toRotationMatrix() - rpyMatrix(0.1, 0.2, 0.3)).norm(),
            1e-12);
  EXPECT_TRUE(upper.axis.isApprox(Vec3::UnitY()));
  EXPECT_TRUE(upper.limited);
  EXPECT_EQ(upper.lower, -1.0);
  EXPECT_EQ(upper.upper, 1.5);
  EXPECT_EQ(upper.effort_limit, 40.0);
  EXPECT_EQ(upper.velocity_limit, 3.0);
  EXPECT_EQ(upper.damping, 0.7);
  EXPECT_EQ(upper.mass, 1.0);
  EXPECT_TRUE(upper.com.isZero());
  EXPECT_EQ(upper.inertia(0, 1), 0.01);
  EXPECT_EQ(upper.inertia(1, 0), 0.01);

  const ArticulationLink& carriage = art.links[2];
  EXPECT_EQ(carriage.parent, 1);
  EXPECT_EQ(carriage.joint, ArticulationJointType::Prismatic);
  EXPECT_TRUE(carriage.axis.isApprox(Vec3::UnitX()));
  EXPECT_TRUE(carriage.joint_origin.position.isApprox(Vec3(0, 0, 0.4)));
  EXPECT_TRUE(carriage.limited);
  EXPECT_EQ(carriage.lower, -0.2);
  EXPECT_EQ(carriage.upper, 0.3);
  EXPECT_EQ(carriage.damping, 0.0);

  const ArticulationLink& wheel = art.links[3];
  EXPECT_EQ(wheel.parent, 2);
  EXPECT_EQ(wheel.joint, ArticulationJointType::Revolute);
  EXPECT_FALSE(wheel.limited);  // continuous
  EXPECT_TRUE(std::isinf(wheel.effort_limit));

  const ArticulationLink& sensor = art.links[4];
  EXPECT_EQ(sensor.parent, 0);
  EXPECT_EQ(sensor.joint, ArticulationJointType::Fixed);
  EXPECT_EQ(sensor.joint_name, "mount");
  EXPECT_TRUE(sensor.joint_origin.position.isApprox(Vec3(0.1, 0, 0)));
  EXPECT_EQ(sensor.mass, 0.0);

  ASSERT_EQ(robot.collisions.size(), 3u);  // the mesh is skipped
  const UrdfCollision& box = robot.collisions[0];
  EXPECT_EQ(box.link, 0);
  EXPECT_EQ(box.shape.type, ShapeType::Box);
  EXPECT_TRUE(box.shape.half_extents.isApprox(Vec3(0.2, 0.1, 0.05)));
  EXPECT_TRUE(box.origin.position.isApprox(Vec3(0, 0, -0.05)));
  const UrdfCollision& cylinder = robot.collisions[1];
  EXPECT_EQ(cylinder.link, 1);
  EXPECT_EQ(cylinder.shape.type, ShapeType::Cylinder);
  EXPECT_EQ(cylinder.shape.radius, 0.05);
  EXPECT_EQ(cylinder.shape.half_length, 0.2);
  EXPECT_TRUE(cylinder.origin.position.isApprox(Vec3(0, 0, 0.2)));
  EXPECT_TRUE(cylinder.origin.orientation.isApprox(Quat::Identity()));  // both along z
  const UrdfCollision& sphere = robot.collisions[2];
  EXPECT_EQ(sphere.link, 1);
  EXPECT_EQ(sphere.shape.type, ShapeType::Sphere);
  EXPECT_EQ(sphere.shape.radius, 0.06);

  // Notes: the skipped collision mesh and the ignored friction.
  bool mesh_noted = false, friction_noted = false;
  for (const std::string& n : robot.notes) {
    mesh_noted |= n.find("link[carriage].collision[0]") != std::string::npos &&
                  n.find("carriage.stl") != std::string::npos;
    friction_noted |=
        n.find("joint[shoulder]") != std::string::npos && n.find("friction") != std::string::npos;
  }
  EXPECT_TRUE(mesh_noted);
  EXPECT_TRUE(friction_noted);

  art.finalize();
  EXPECT_EQ(art.nq(), 3);
  EXPECT_EQ(art.nv(), 3);
}

TEST(UrdfLoader, FloatingBaseMakesTheRootFloat) {
  UrdfRobot robot = loadUrdfString(kSmallRobot, kUrdfFile, /*floating_base=*/true);
  EXPECT_EQ(robot.articulation.links[0].joint, ArticulationJointType::Floating);
  EXPECT_EQ(robot.articulation.links[0].parent, -1);
  robot.articulation.finalize();
  EXPECT_EQ(robot.articulation.nv(), 9);
  EXPECT_EQ(robot.articulation.nq(), 10);
}

// ---- Errors: one test each; the message names the file and the element ----

std::string urdfError(const std::string& xml) {
  try {
    loadUrdfString(xml, kUrdfFile);
  } catch (const SceneError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a SceneError for:\n" << xml;
  return "";
}

// kSmallRobot with one substring replaced.
std::string smallWith(const std::string& from, const std::string& to) {
  std::string s = kSmallRobot;
  const std::size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

void expectError(const std::string& xml, const std::string& element, const std::string& what) {
  const std::string message = urdfError(xml);
  EXPECT_EQ(message.rfind(kUrdfFile + ": ", 0), 0u) << message;
  EXPECT_CONTAINS(message, kUrdfFile + ": " + element + ": ");
  EXPECT_CONTAINS(message, what);
}

TEST(UrdfErrors, MissingFile) {
  try {
    loadUrdfFile("/nonexistent/robot.urdf");
    FAIL() << "expected a SceneError";
  } catch (const SceneError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "/nonexistent/robot.urdf: cannot read the URDF file");
  }
}

TEST(UrdfErrors, DirectoryInsteadOfFile) {
  try {
    loadUrdfFile(SUBSIM_SOURCE_DIR);
    FAIL() << "expected a SceneError";
  } catch (const SceneError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "it is a directory");
  }
}

TEST(UrdfErrors, NotXml) {
  expectError("this is not XML", "document", "expected well-formed XML");
  expectError("", "document", "expected well-formed XML");
  expectError("<robot name=\"r\"><link name=\"a\"></robot>", "document", "line 1");
}

TEST(UrdfErrors, DeeplyNestedElements) {
  const int n = 100000;  // would overflow TinyXML's recursive parser
  std::string deep = R"(<robot name="r"><link name="a">)";
  for (int i = 0; i < n; ++i) deep += "<x>";
  for (int i = 0; i < n; ++i) deep += "</x>";
  deep += "</link></robot>";
  expectError(deep, "document", "expected elements nested at most 64 deep");
}

TEST(UrdfErrors, WrongRootElement) {
  expectError("<sdf version=\"1.6\"/>", "document", "expected the root element <robot>, got <sdf>");
}

TEST(UrdfErrors, UrdfdomParseFailure) {
  // A limit without a velocity passes the loader's own checks; urdfdom refuses it.
  expectError(smallWith(R"(effort="40" velocity="3")", R"(effort="40")"), "robot",
              "urdfdom could not parse the robot");
}

TEST(UrdfErrors, NoLinks) {
  expectError("<robot name=\"empty\"></robot>", "robot", "expected at least one <link>");
}

TEST(UrdfErrors, RobotWithoutName) {
  expectError("<robot><link name=\"a\"/></robot>", "robot.name", "expected the robot's name");
}

TEST(UrdfErrors, DuplicateLinkName) {
  expectError(smallWith(R"(<link name="sensor"/>)", R"(<link name="upper"/>)"), "link[upper]",
              "expected unique link names");
}

TEST(UrdfErrors, LoopOfJoints) {
  // base -> sensor and sensor -> base: every link has a parent... and base two of them.
  const std::string loop = R"(<robot name="loop">
    <link name="a"/><link name="b"/>
    <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
    <joint name="ba" type="fixed"><parent link="b"/><child link="a"/></joint>
  </robot>)";
  expectError(loop, "robot", "got a loop");
}

TEST(UrdfErrors, LoopBesideARoot) {
  const std::string loop = R"(<robot name="loop">
    <link name="root"/><link name="b"/><link name="c"/>
    <joint name="bc" type="fixed"><parent link="b"/><child link="c"/></joint>
    <joint name="cb" type="fixed"><parent link="c"/><child link="b"/></joint>
  </robot>)";
  expectError(loop, "link[b]", "reachable from the root 'root'");
}

TEST(UrdfErrors, LinkWithTwoParents) {
  expectError(smallWith(R"(<child link="sensor"/>)", R"(<child link="wheel"/>)"),
              "joint[mount].child.link", "already the child of joint 'spinner'");
}

TEST(UrdfErrors, JointFromALinkToItself) {
  expectError(smallWith(R"(<child link="sensor"/>)", R"(<child link="base"/>)"), "joint[mount]",
              "expected different parent and child links");
}

TEST(UrdfErrors, MultipleRoots) {
  expectError(smallWith(R"(<link name="sensor"/>)", R"(<link name="sensor"/><link name="stray"/>)"),
              "robot",
              "expected one root link, got 2 links that are no joint's child: 'base', 'stray'");
}

TEST(UrdfErrors, JointWithUnknownParentLink) {
  expectError(smallWith(R"(<parent link="carriage"/>)", R"(<parent link="carriage_typo"/>)"),
              "joint[spinner].parent.link", "got the unknown link 'carriage_typo'");
}

TEST(UrdfErrors, JointWithUnknownChildLink) {
  expectError(smallWith(R"(<child link="wheel"/>)", R"(<child link="whee"/>)"),
              "joint[spinner].child.link", "got the unknown link 'whee'");
}

TEST(UrdfErrors, FloatingJointInsideTheTree) {
  expectError(smallWith(R"(type="continuous")", R"(type="floating")"), "joint[spinner].type",
              "a floating joint inside the tree is not supported");
}

TEST(UrdfErrors, PlanarJointInsideTheTree) {
  expectError(smallWith(R"(type="continuous")", R"(type="planar")"), "joint[spinner].type",
              "a planar joint inside the tree is not supported");
}

TEST(UrdfErrors, UnknownJointType) {
  expectError(smallWith(R"(type="continuous")", R"(type="ball")"), "joint[spinner].type",
              "expected revolute, continuous, prismatic or fixed, got 'ball'");
}

TEST(UrdfErrors, RevoluteJointWithoutLimit) {
  expectError(smallWith(R"(<limit lower="-1" upper="1.5" effort="40" velocity="3"/>)", ""),
              "joint[shoulder].limit", "expected a <limit> element");
}

TEST(UrdfErrors, NegativeMass) {
  expectError(smallWith(R"(<mass value="1"/>)", R"(<mass value="-1"/>)"),
              "link[upper].inertial.mass.value", "expected a mass >= 0 in kg, got -1");
}

TEST(UrdfErrors, InertiaNotPositiveDefinite) {
  expectError(smallWith(R"(ixx="0.1" ixy="0.01")", R"(ixx="0.1" ixy="0.5")"),
              "link[upper].inertial.inertia", "expected a positive-definite inertia");
}

TEST(UrdfErrors, LowerLimitAboveUpper) {
  expectError(smallWith(R"(lower="-0.2" upper="0.3")", R"(lower="0.3" upper="-0.2")"),
              "joint[slider].limit", "expected lower <= upper, got lower 0.3 > upper -0.2");
}

TEST(UrdfErrors, NonFiniteNumber) {
  expectError(smallWith(R"(xyz="0 0 0.5")", R"(xyz="0 nan 0.5")"), "joint[shoulder].origin.xyz",
              "got the non-finite value 'nan'");
  expectError(smallWith(R"(<mass value="2"/>)", R"(<mass value="inf"/>)"),
              "link[base].inertial.mass.value", "non-finite");
  expectError(smallWith(R"(effort="40")", R"(effort="1e999")"), "joint[shoulder].limit.effort",
              "non-finite");
}

TEST(UrdfErrors, NotANumber) {
  expectError(smallWith(R"(radius="0.06")", R"(radius="six")"),
              "link[upper].collision[1].geometry.sphere.radius", "expected a finite number");
}

TEST(UrdfErrors, WrongCountOfNumbers) {
  expectError(smallWith(R"(size="0.4 0.2 0.1")", R"(size="0.4 0.2")"),
              "link[base].collision[0].geometry.box.size", "expected 3 finite numbers");
}

TEST(UrdfErrors, ZeroAxis) {
  expectError(smallWith(R"(<axis xyz="0 2 0"/>)", R"(<axis xyz="0 0 0"/>)"),
              "joint[shoulder].axis.xyz", "expected a non-zero axis");
}

TEST(UrdfErrors, NonPositiveShapeSize) {
  expectError(smallWith(R"(radius="0.05" length="0.4")", R"(radius="0.05" length="-0.4")"),
              "link[upper].collision[0].geometry.cylinder.length", "expected a positive size");
}

TEST(UrdfErrors, CollisionWithoutShape) {
  expectError(smallWith(R"(<geometry><sphere radius="0.06"/></geometry>)", "<geometry/>"),
              "link[upper].collision[1].geometry",
              "expected one <box>, <sphere>, <cylinder> or <mesh>");
  expectError(smallWith(R"(<sphere radius="0.06"/>)", R"(<capsule radius="0.06" length="1"/>)"),
              "link[upper].collision[1].geometry", "got <capsule>");
}

TEST(UrdfErrors, NegativeDamping) {
  expectError(smallWith(R"(damping="0.7")", R"(damping="-0.7")"),
              "joint[shoulder].dynamics.damping", "expected a damping >= 0");
}

TEST(UrdfErrors, MessageGivesTheLine) {
  const std::string message = urdfError(smallWith(R"(<mass value="1"/>)", R"(<mass value="-1"/>)"));
  EXPECT_CONTAINS(message, "(line ");
}

}  // namespace
}  // namespace subsim
