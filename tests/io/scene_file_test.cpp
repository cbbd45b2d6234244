// Loading valid scene files: the example scenes in scenes/ and every field of the format.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>

#include "subsim/geometry/revolved_profile_shape.hpp"
#include "subsim/io/scene_file.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {
using ::subsim::test::countKind;

const std::string kScenes = std::string(SUBSIM_SOURCE_DIR) + "/scenes/";

const Body& bodyNamed(const Model& m, const std::string& name) {
  const int i = m.findBody(name);
  EXPECT_GE(i, 0) << name;
  return m.bodies.at(static_cast<std::size_t>(i < 0 ? 0 : i));
}

TEST(SceneFile, SphereOnPlane) {
  const SceneFile scene = loadSceneFile(kScenes + "sphere_on_plane.yaml");
  const Model& m = scene.model;
  EXPECT_EQ(m.name, "sphere_on_plane");
  EXPECT_EQ(scene.steps, 200);
  EXPECT_DOUBLE_EQ(m.dt, 0.01);
  EXPECT_EQ(m.gravity, Vec3(0, 0, -9.81));
  EXPECT_FALSE(m.geometric_stiffness);  // the default
  EXPECT_DOUBLE_EQ(m.contact.margin, 0.001);
  EXPECT_DOUBLE_EQ(m.contact.erp, 0.2);
  ASSERT_EQ(m.bodies.size(), 2u);
  ASSERT_EQ(m.shapes.size(), 2u);

  const Body& ground = bodyNamed(m, "ground");
  EXPECT_EQ(ground.kind, BodyKind::Static);
  ASSERT_EQ(ground.shapes.size(), 1u);
  EXPECT_EQ(m.shapes[static_cast<std::size_t>(ground.shapes[0])].shape.type, ShapeType::Plane);

  const Body& ball = bodyNamed(m, "ball");
  EXPECT_EQ(ball.kind, BodyKind::Dynamic);
  EXPECT_DOUBLE_EQ(ball.mass, 0.5);
  EXPECT_TRUE(ball.inertia.isApprox(Mat3::Identity() * (0.4 * 0.5 * 0.05 * 0.05)));
  EXPECT_EQ(ball.initial_pose.position, Vec3(0, 0, 0.1));
  ASSERT_EQ(ball.shapes.size(), 1u);
  const BodyShape& sphere = m.shapes[static_cast<std::size_t>(ball.shapes[0])];
  EXPECT_EQ(sphere.shape.type, ShapeType::Sphere);
  EXPECT_DOUBLE_EQ(sphere.shape.radius, 0.05);
  EXPECT_DOUBLE_EQ(sphere.mu, 0.5);
  EXPECT_EQ(sphere.group, 1u);
  EXPECT_EQ(sphere.mask, 0xffffffffu);
}

TEST(SceneFile, BoxStack) {
  const SceneFile scene = loadSceneFile(kScenes + "box_stack.yaml");
  const Model& m = scene.model;
  EXPECT_EQ(scene.steps, 300);
  ASSERT_EQ(m.bodies.size(), 6u);
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 5);
  EXPECT_EQ(countKind(m, BodyKind::Static), 1);
  for (int k = 0; k < 5; ++k) {
    const Body& box = bodyNamed(m, "box" + std::to_string(k));
    EXPECT_NEAR(box.mass, 0.5, 1e-12);  // 500 kg/m^3 * (0.1 m)^3
    const double side_moment = 0.5 / 12.0 * (0.01 + 0.01);
    EXPECT_TRUE(box.inertia.isApprox(Mat3::Identity() * side_moment, 1e-12));
    EXPECT_NEAR(box.initial_pose.position.z(), 0.05 + 0.1 * k, 1e-12);
    ASSERT_EQ(box.shapes.size(), 1u);
    const BodyShape& s = m.shapes[static_cast<std::size_t>(box.shapes[0])];
    EXPECT_EQ(s.shape.type, ShapeType::Box);
    EXPECT_EQ(s.shape.half_extents, Vec3::Constant(0.05));
  }
  ASSERT_EQ(m.friction_pairs.size(), 1u);
  const int ground_shape = bodyNamed(m, "ground").shapes[0];
  EXPECT_DOUBLE_EQ(m.frictionBetween(bodyNamed(m, "box0").shapes[0], ground_shape), 0.8);
  EXPECT_DOUBLE_EQ(m.frictionBetween(bodyNamed(m, "box1").shapes[0], ground_shape), 0.6);
}

TEST(SceneFile, Pendulum) {
  const SceneFile scene = loadSceneFile(kScenes + "pendulum.yaml");
  const Model& m = scene.model;
  EXPECT_DOUBLE_EQ(m.dt, 0.005);
  ASSERT_EQ(m.bodies.size(), 3u);
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 3);
  ASSERT_EQ(m.joints.size(), 3u);
  for (const Joint& j : m.joints) EXPECT_EQ(j.type, JointType::Ball);
  EXPECT_EQ(m.joints[0].name, "pivot");
  EXPECT_EQ(m.joints[0].body_a, m.findBody("link1"));
  EXPECT_EQ(m.joints[0].body_b, -1);
  // The capsule axis (local z) lies along world x, so the pivot at x = 0 is at local z = -0.1.
  EXPECT_TRUE(m.joints[0].anchor_a.isApprox(Vec3(0, 0, -0.1), 1e-12));
  EXPECT_TRUE(m.joints[0].anchor_b.isApprox(Vec3(0, 0, 1), 1e-12));
  EXPECT_EQ(m.joints[2].body_a, m.findBody("link3"));
  EXPECT_EQ(m.joints[2].body_b, m.findBody("link2"));
  EXPECT_FALSE(m.jointsAllowCollision(m.findBody("link1"), m.findBody("link2")));
  EXPECT_TRUE(m.jointsAllowCollision(m.findBody("link1"), m.findBody("link3")));
  // The inertia is in the body frame, where the capsule axis is z: the small moment is izz.
  const Body& link = bodyNamed(m, "link1");
  EXPECT_DOUBLE_EQ(link.mass, 0.1);
  EXPECT_LT(link.inertia(2, 2), 0.1 * link.inertia(0, 0));
  EXPECT_NEAR(link.inertia(0, 0), link.inertia(1, 1), 1e-12);
}

TEST(SceneFile, StirredSpheres) {
  const SceneFile scene = loadSceneFile(kScenes + "stirred_spheres.yaml");
  const Model& m = scene.model;
  EXPECT_EQ(scene.steps, 1500);
  ASSERT_EQ(m.bodies.size(), 30u);
  EXPECT_EQ(countKind(m, BodyKind::Dynamic), 27);
  EXPECT_EQ(countKind(m, BodyKind::Static), 2);
  EXPECT_EQ(countKind(m, BodyKind::Kinematic), 1);
  EXPECT_EQ(bodyNamed(m, "container").shapes.size(), 4u);
  const double bead_mass = 2500.0 * 4.0 / 3.0 * std::numbers::pi * 1e-6;
  for (const Body& b : m.bodies) {
    if (b.kind != BodyKind::Dynamic) continue;
    EXPECT_NEAR(b.mass, bead_mass, 1e-15);
    EXPECT_EQ(m.shapes[static_cast<std::size_t>(b.shapes.at(0))].shape.type, ShapeType::Sphere);
  }
  const Body& rod = bodyNamed(m, "rod");
  EXPECT_EQ(rod.trajectory.kind, KinematicTrajectory::Kind::Circle);
  EXPECT_DOUBLE_EQ(rod.trajectory.radius, 0.04);
  EXPECT_DOUBLE_EQ(rod.trajectory.frequency, 1.0);
  EXPECT_DOUBLE_EQ(rod.trajectory.descent_speed, 0.1);
  // Starts on the circle at phase 0, raised by the descent.
  EXPECT_TRUE(rod.initial_pose.position.isApprox(Vec3(0.04, 0, 0.16), 1e-12));
  const BodyShape& capsule = m.shapes[static_cast<std::size_t>(rod.shapes.at(0))];
  EXPECT_EQ(capsule.shape.type, ShapeType::Capsule);
  EXPECT_DOUBLE_EQ(capsule.shape.half_length, 0.05);
}

TEST(SceneFile, EveryOptionalField) {
  const SceneFile scene = parseScene(R"(
dt: 0.002
gravity: [0, -1, 0]
geometric_stiffness: true
bodies:
  - name: floor
    type: static
    orientation: [1, 0, 0, 0]
    shapes: [{type: plane, mu: 0.3, group: 0x2, mask: 0}]
  - name: conveyor
    type: kinematic
    position: [1, 2, 3]
    trajectory: {type: linear, velocity: [0.5, 0, 0]}
    shapes: [{type: box, size: [1, 2, 0.1]}]
  - name: arm
    mass: 2
    inertia: [[1, 0.1, 0], [0.1, 2, 0], [0, 0, 3]]
    velocity: [1, 0, 0]
    angular_velocity: [0, 0, 4]
    force: [0, 0, 5]
    torque: [0.5, 0, 0]
    position: [0, 0, 1]
    substructure: manipulator
    shapes:
      - {type: cylinder, radius: 0.1, length: 0.5, position: [0, 0, 0.2],
         orientation: [0, 1, 0, 0], group: 4, mask: 4294967295}
  - name: hand
    substructure: manipulator
    density: 1000
    inertia: [0.1, 0.2, 0.3]
    position: [0, 0, 2]
    shapes: [{type: sphere, radius: 0.1}]
  - name: ghost
    mass: 1
    inertia: [1, 1, 1]
joints:
  - {name: shoulder, type: hinge, a: arm, b: world, anchor: [0, 0, 0.5], axis: [0, 2, 0],
     limits: [-1.5, 1.5], collide_connected: true}
  - {type: weld, a: hand, b: arm, anchor: [0, 0, 1.5]}
  - {type: universal, a: ghost, b: world, anchor: [0, 0, 0], axis: [0, 0, 3]}
springs:
  - {a: ghost, b: world, point_b: [3, 4, 0], stiffness: 10, damping: 0.5}
  - {name: tether, a: hand, b: arm, stiffness: 0, rest_length: 0.25}
friction:
  - {a: hand, b: conveyor, mu: 0}
)",
                                     "/some/dir/every_field.yaml");
  const Model& m = scene.model;
  EXPECT_EQ(m.name, "every_field");  // the file stem when no name is given
  EXPECT_EQ(scene.steps, 0);
  EXPECT_EQ(m.gravity, Vec3(0, -1, 0));
  EXPECT_TRUE(m.geometric_stiffness);
  EXPECT_DOUBLE_EQ(m.contact.margin, ContactSettings().margin);

  const BodyShape& plane = m.shapes[0];
  EXPECT_EQ(plane.group, 2u);
  EXPECT_EQ(plane.mask, 0u);
  EXPECT_DOUBLE_EQ(plane.mu, 0.3);

  const Body& conveyor = bodyNamed(m, "conveyor");
  EXPECT_EQ(conveyor.trajectory.kind, KinematicTrajectory::Kind::Linear);
  EXPECT_EQ(conveyor.trajectory.velocity, Vec3(0.5, 0, 0));
  EXPECT_EQ(conveyor.trajectory.start.position, Vec3(1, 2, 3));
  EXPECT_EQ(conveyor.initial_pose.position, Vec3(1, 2, 3));
  EXPECT_EQ(m.shapes[1].shape.half_extents, Vec3(0.5, 1, 0.05));

  const Body& arm = bodyNamed(m, "arm");
  EXPECT_DOUBLE_EQ(arm.inertia(0, 1), 0.1);
  EXPECT_DOUBLE_EQ(arm.inertia(2, 2), 3);
  EXPECT_EQ(arm.initial_linear_velocity, Vec3(1, 0, 0));
  EXPECT_EQ(arm.initial_angular_velocity, Vec3(0, 0, 4));
  EXPECT_EQ(arm.applied_force, Vec3(0, 0, 5));
  EXPECT_EQ(arm.applied_torque, Vec3(0.5, 0, 0));
  EXPECT_EQ(bodyNamed(m, "hand").applied_torque, Vec3::Zero());
  const BodyShape& cylinder = m.shapes[2];
  EXPECT_EQ(cylinder.shape.type, ShapeType::Cylinder);
  EXPECT_DOUBLE_EQ(cylinder.shape.half_length, 0.25);
  EXPECT_EQ(cylinder.local_pose.position, Vec3(0, 0, 0.2));
  EXPECT_DOUBLE_EQ(cylinder.local_pose.orientation.x(), 1.0);
  EXPECT_EQ(cylinder.group, 4u);

  const Body& hand = bodyNamed(m, "hand");
  EXPECT_NEAR(hand.mass, 1000 * 4.0 / 3.0 * std::numbers::pi * 1e-3, 1e-12);
  EXPECT_EQ(hand.inertia, Vec3(0.1, 0.2, 0.3).asDiagonal().toDenseMatrix());
  EXPECT_TRUE(bodyNamed(m, "ghost").shapes.empty());
  // Bodies naming one substructure share it; the others have none.
  EXPECT_EQ(arm.substructure, 0);
  EXPECT_EQ(hand.substructure, 0);
  EXPECT_EQ(bodyNamed(m, "ghost").substructure, -1);

  ASSERT_EQ(m.joints.size(), 3u);
  const Joint& shoulder = m.joints[0];
  EXPECT_EQ(shoulder.type, JointType::Hinge);
  EXPECT_TRUE(shoulder.axis_b.isApprox(Vec3::UnitY()));
  EXPECT_TRUE(shoulder.limited);
  EXPECT_DOUBLE_EQ(shoulder.lower, -1.5);
  EXPECT_DOUBLE_EQ(shoulder.upper, 1.5);
  EXPECT_TRUE(shoulder.collide_connected);
  EXPECT_EQ(m.joints[1].type, JointType::Weld);
  EXPECT_EQ(m.joints[1].name, "joint1");
  EXPECT_FALSE(m.joints[1].collide_connected);
  const Joint& cardan = m.joints[2];
  EXPECT_EQ(cardan.type, JointType::Universal);
  // Its pins: unit, normal to the shaft z and to each other.
  EXPECT_NEAR(cardan.axis_a.norm(), 1.0, 1e-15);
  EXPECT_NEAR(cardan.axis_b.norm(), 1.0, 1e-15);
  EXPECT_EQ(cardan.axis_a.z(), 0.0);
  EXPECT_EQ(cardan.axis_b.z(), 0.0);
  EXPECT_NEAR(cardan.axis_a.dot(cardan.axis_b), 0.0, 1e-15);

  ASSERT_EQ(m.springs.size(), 2u);
  EXPECT_DOUBLE_EQ(m.springs[0].rest_length, 5.0);  // initial distance from origin to (3, 4, 0)
  EXPECT_EQ(m.springs[0].body_b, -1);
  EXPECT_DOUBLE_EQ(m.springs[0].damping, 0.5);
  EXPECT_EQ(m.springs[1].name, "tether");
  EXPECT_DOUBLE_EQ(m.springs[1].rest_length, 0.25);

  ASSERT_EQ(m.friction_pairs.size(), 1u);
  EXPECT_DOUBLE_EQ(m.friction_pairs[0].mu, 0.0);
}

TEST(SceneFile, CircleTrajectoryDefaultsAndOrientation) {
  const SceneFile scene = parseScene(R"(
name: stir
steps: 7
bodies:
  - name: rod
    type: kinematic
    orientation: [0, 0, 1, 0]
    trajectory: {type: circle, center: [1, 1, 1], radius: 0.5, frequency: -2}
    shapes: [{type: capsule, radius: 0.1, length: 1}]
  - name: bead
    mass: 1
    shapes: [{type: sphere, radius: 0.1}]
)",
                                     "inline");
  const Body& rod = scene.model.bodies[0];
  EXPECT_EQ(scene.model.name, "stir");
  EXPECT_EQ(scene.steps, 7);
  EXPECT_DOUBLE_EQ(rod.trajectory.phase, 0.0);
  EXPECT_DOUBLE_EQ(rod.trajectory.descent, 0.0);
  EXPECT_DOUBLE_EQ(rod.trajectory.frequency, -2.0);
  EXPECT_TRUE(rod.initial_pose.position.isApprox(Vec3(1.5, 1, 1)));
  EXPECT_DOUBLE_EQ(rod.initial_pose.orientation.y(), 1.0);
}

// A revolved (signed distance) dish: the same field as the built-in dish stack's bowl, its mass
// from density and volume, and its frame moved so that the body origin is its centre of mass.
TEST(SceneFile, RevolvedDishOnTheFloor) {
  const SceneFile scene = parseScene(R"(
bodies:
  - {name: floor, type: static, shapes: [{type: plane}]}
  - name: bowl
    density: 1000
    position: [0, 0, 0.1]
    shapes:
      - {type: revolved, profile: [[0, 0], [0.04, 0], [0.08, 0.05]], padding: 0.002,
         segments: 32, max_edge: 0.02}
)",
                                     "inline");
  const BodyShape& s = scene.model.shapes[1];
  ASSERT_EQ(s.shape.type, ShapeType::SignedDistance);
  const auto* revolved = dynamic_cast<const RevolvedProfileShape*>(s.shape.field.get());
  ASSERT_NE(revolved, nullptr);
  EXPECT_EQ(revolved->profile().size(), 3u);
  EXPECT_DOUBLE_EQ(revolved->padding(), 0.002);
  const Body& bowl = scene.model.bodies[1];
  EXPECT_DOUBLE_EQ(bowl.mass, 1000.0 * s.shape.volume());
  EXPECT_TRUE(s.local_pose.position.isApprox(-s.shape.centroid()));
  EXPECT_GT(s.shape.centroid().z(), 0.0);  // above the bottom, on the axis
  EXPECT_LT(s.shape.centroid().head<2>().norm(), 1e-12);
  EXPECT_TRUE(bowl.inertia.isApprox(s.shape.unitDensityInertia(bowl.mass)));
  EXPECT_NO_THROW(scene.model.validate());
}

TEST(SceneFile, ComputedInertiaFollowsFirstShapeOrientation) {
  // A capsule turned a quarter turn about y lies along the body's x axis.
  const SceneFile scene = parseScene(R"(
bodies:
  - name: rod
    mass: 2
    shapes: [{type: capsule, radius: 0.1, length: 1, orientation: [0.7071067811865476, 0,
              0.7071067811865476, 0]}]
)",
                                     "inline");
  const Mat3 along_z = Shape::capsule(0.1, 0.5).unitDensityInertia(2.0);
  const Mat3& inertia = scene.model.bodies[0].inertia;
  EXPECT_NEAR(inertia(0, 0), along_z(2, 2), 1e-12);
  EXPECT_NEAR(inertia(2, 2), along_z(0, 0), 1e-12);
  EXPECT_NEAR(inertia(1, 1), along_z(1, 1), 1e-12);
  EXPECT_NEAR(inertia(0, 2), 0.0, 1e-12);
}

TEST(SceneFile, FixedKinematicBodyWithoutTrajectory) {
  const SceneFile scene = parseScene(R"(
bodies:
  - {name: post, type: kinematic, position: [0, 0, 2], shapes: [{type: plane}]}
  - {name: ball, mass: 1, shapes: [{type: sphere, radius: 1}]}
  - {name: pinned, type: kinematic, trajectory: {type: fixed}, position: [1, 0, 0]}
)",
                                     "inline");
  EXPECT_EQ(scene.model.bodies[0].trajectory.kind, KinematicTrajectory::Kind::Fixed);
  EXPECT_EQ(scene.model.bodies[0].trajectory.pose(5.0).position, Vec3(0, 0, 2));
  EXPECT_EQ(scene.model.bodies[2].trajectory.start.position, Vec3(1, 0, 0));
}

TEST(SceneFile, DocumentationExampleLoads) {
  // The example in docs/scene-format.md must stay valid as the format evolves.
  std::ifstream in(std::string(SUBSIM_SOURCE_DIR) + "/docs/scene-format.md");
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  const std::size_t begin = text.find("```yaml\n");
  ASSERT_NE(begin, std::string::npos);
  const std::size_t end = text.find("```", begin + 8);
  ASSERT_NE(end, std::string::npos);
  const SceneFile scene = parseScene(text.substr(begin + 8, end - begin - 8), "my_scene.yaml");
  EXPECT_EQ(scene.model.name, "my_scene");
  EXPECT_EQ(scene.steps, 300);
  EXPECT_EQ(scene.model.bodies.size(), 4u);
  EXPECT_EQ(scene.model.joints.size(), 1u);
  EXPECT_EQ(scene.model.springs.size(), 1u);
  EXPECT_EQ(scene.model.friction_pairs.size(), 1u);
}

}  // namespace
}  // namespace subsim

namespace subsim {
namespace {

TEST(SceneFileCompliance, CompliantWeldLoadsAndIsValidated) {
  const std::string base = R"(
bodies:
  - name: drive
    type: kinematic
    trajectory: {type: linear, velocity: [0.1, 0, 0]}
  - name: tool
    mass: 0.5
    shapes: [{type: sphere, radius: 0.05}]
joints:
  - {type: weld, a: tool, b: drive, anchor: [0, 0, 0], stiffness: 300, damping: 20, )";
  const SceneFile ok =
      parseScene(base + "angular_stiffness: 3, angular_damping: 0.1}\n", "compliant.yaml");
  ASSERT_EQ(ok.model.joints.size(), 1u);
  const Joint& j = ok.model.joints[0];
  EXPECT_TRUE(j.compliant());
  EXPECT_DOUBLE_EQ(j.stiffness, 300.0);
  EXPECT_DOUBLE_EQ(j.damping, 20.0);
  EXPECT_DOUBLE_EQ(j.angular_stiffness, 3.0);
  EXPECT_DOUBLE_EQ(j.angular_damping, 0.1);
  try {
    parseScene(base + "angular_damping: 0.1}\n", "compliant.yaml");
    FAIL() << "a compliant weld without angular stiffness must be rejected";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("compliant.yaml"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("joints[0].angular_stiffness"), std::string::npos)
        << e.what();
  }
  try {
    parseScene(base + "angular_stiffness: -3}\n", "compliant.yaml");
    FAIL() << "a negative stiffness must be rejected";
  } catch (const SceneError& e) {
    EXPECT_NE(std::string(e.what()).find("joints[0].angular_stiffness"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace subsim
