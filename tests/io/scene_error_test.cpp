// Bad scene input: every error is a SceneError naming the file, the field path and what was
// expected, and no input (truncated or mangled) crashes the loader.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "subsim/io/scene_file.hpp"
#include "test_files.hpp"

namespace subsim {
namespace {

using ::subsim::test::readFile;

const std::string kFile = "scenes/bad.yaml";

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, needle, haystack)

std::string errorOf(const std::string& yaml) {
  try {
    parseScene(yaml, kFile);
  } catch (const SceneError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a SceneError for:\n" << yaml;
  return "";
}

// A valid scene that the cases below break one field at a time.
const std::string kGround = R"(
  - name: ground
    type: static
    shapes: [{type: plane}]
)";
const std::string kBall = R"(
  - name: ball
    mass: 1
    position: [0, 0, 1]
    shapes: [{type: sphere, radius: 0.1}]
)";

std::string scene(const std::string& extra_top, const std::string& extra_bodies = "") {
  return extra_top + "\nbodies:" + kGround + kBall + extra_bodies;
}

std::string withBody(const std::string& body) {
  return scene("", body);
}

struct ErrorCase {
  const char* name;
  std::string yaml;
  std::string path;      // "" for errors about the whole file
  std::string expected;  // a substring of what the message says was expected
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class SceneErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(SceneErrorTest, NamesFileFieldAndExpectation) {
  const ErrorCase& c = GetParam();
  const std::string message = errorOf(c.yaml);
  // The message starts "FILE: PATH: " so a user can jump to the field.
  EXPECT_EQ(message.rfind(kFile + ": ", 0), 0u) << message;
  if (!c.path.empty()) {
    EXPECT_CONTAINS(message, kFile + ": " + c.path + ": ");
  }
  EXPECT_CONTAINS(message, c.expected);
}

const std::vector<ErrorCase> kCases = {
    // Unknown keys, at every level, listing the allowed keys.
    {"UnknownTopLevelKey", scene("gravty: [0, 0, -1]"), "gravty",
     "unknown key, expected one of: name, dt, theta, geometric_stiffness, steps, gravity, "
     "contact, bodies, joints, springs, friction"},
    {"ThetaOutOfRange", scene("theta: 0.7"), "theta", "expected 0 <= theta <= 0.5"},
    {"GeometricStiffnessNotABoolean", scene("geometric_stiffness: 1.5"), "geometric_stiffness",
     "expected true or false"},
    {"UnknownContactKey", scene("contact: {margin: 0.1, cfm: 0}"), "contact.cfm",
     "expected one of: margin, erp"},
    {"UnknownBodyKey",
     withBody("  - {name: b, mass: 1, colour: red, shapes: [{type: sphere, "
              "radius: 1}]}\n"),
     "bodies[2].colour", "unknown key for a dynamic body, expected one of: name, type"},
    {"KeyOfAnotherBodyType",
     withBody("  - {name: b, type: static, mass: 1, shapes: [{type: sphere, radius: 1}]}\n"),
     "bodies[2].mass",
     "unknown key for a static body, expected one of: name, type, position, "
     "orientation, shapes"},
    {"UnknownShapeKey",
     withBody("  - {name: b, mass: 1, shapes: [{type: sphere, radius: 1, "
              "size: [1, 1, 1]}]}\n"),
     "bodies[2].shapes[0].size", "unknown key for a sphere shape, expected one of: type, mu"},
    {"UnknownTrajectoryKey",
     withBody("  - {name: k, type: kinematic, trajectory: {type: linear, velocity: [1, 0, 0], "
              "speed: 2}}\n"),
     "bodies[2].trajectory.speed", "for a linear trajectory, expected one of: type, velocity"},
    {"UnknownJointKey",
     scene("joints: [{type: ball, a: ball, b: world, anchor: [0, 0, 0], axis: [0, 0, 1]}]"),
     "joints[0].axis", "unknown key for a ball joint, expected one of: name, type, a, b, anchor"},
    {"UnknownSpringKey", scene("springs: [{a: ball, b: world, stiffness: 1, length: 1}]"),
     "springs[0].length",
     "expected one of: name, a, b, point_a, point_b, stiffness, damping, "
     "rest_length"},
    {"UnknownFrictionKey", scene("friction: [{a: ball, b: ground, mu: 1, mu2: 1}]"),
     "friction[0].mu2", "expected one of: a, b, mu"},
    {"DuplicateKey", scene("dt: 0.1\ndt: 0.2"), "dt", "duplicate key"},
    {"NonTextKey", scene("dt: 0.01\n[1, 2]: 3"), "top level", "expected text keys"},

    // Missing required fields.
    {"MissingBodies", "dt: 0.1\n", "bodies", "missing, expected a list of bodies"},
    {"EmptyBodies", "bodies: []\n", "bodies", "expected a non-empty list of bodies"},
    {"MissingBodyName", withBody("  - {mass: 1, shapes: [{type: sphere, radius: 1}]}\n"),
     "bodies[2].name", "missing, expected a unique body name"},
    {"MissingShapeType", withBody("  - {name: b, mass: 1, shapes: [{radius: 1}]}\n"),
     "bodies[2].shapes[0].type", "missing, expected a shape type"},
    {"MissingRadius", withBody("  - {name: b, mass: 1, shapes: [{type: sphere}]}\n"),
     "bodies[2].shapes[0].radius", "missing, expected a radius in m"},
    {"MissingLength", withBody("  - {name: b, mass: 1, shapes: [{type: capsule, radius: 1}]}\n"),
     "bodies[2].shapes[0].length", "missing, expected the length"},
    {"MissingBoxSize", withBody("  - {name: b, mass: 1, shapes: [{type: box}]}\n"),
     "bodies[2].shapes[0].size", "missing, expected the full edge lengths"},
    {"MissingMassAndDensity", withBody("  - {name: b, shapes: [{type: sphere, radius: 1}]}\n"),
     "bodies[2].mass", "missing, expected a mass in kg or a density in kg/m^3"},
    {"MissingTrajectoryType",
     withBody("  - {name: k, type: kinematic, trajectory: {velocity: [1, 0, 0]}}\n"),
     "bodies[2].trajectory.type", "missing, expected a trajectory type"},
    {"MissingCircleRadius",
     withBody("  - {name: k, type: kinematic, trajectory: {type: circle, center: [0, 0, 0], "
              "frequency: 1}}\n"),
     "bodies[2].trajectory.radius", "missing, expected the circle's radius in m"},
    {"MissingJointType", scene("joints: [{a: ball, b: world, anchor: [0, 0, 0]}]"),
     "joints[0].type", "missing, expected a joint type"},
    {"MissingJointBody", scene("joints: [{type: ball, a: ball, anchor: [0, 0, 0]}]"), "joints[0].b",
     "missing, expected the name of a body or world"},
    {"MissingJointAnchor", scene("joints: [{type: ball, a: ball, b: world}]"), "joints[0].anchor",
     "missing, expected the anchor point"},
    {"MissingHingeAxis", scene("joints: [{type: hinge, a: ball, b: world, anchor: [0, 0, 0]}]"),
     "joints[0].axis", "missing, expected the hinge axis"},
    {"MissingUniversalAxis",
     scene("joints: [{type: universal, a: ball, b: world, anchor: [0, 0, 0]}]"), "joints[0].axis",
     "missing, expected the shaft axis [x, y, z] (the twist it blocks)"},
    {"LimitsOnAUniversalJoint",
     scene("joints: [{type: universal, a: ball, b: world, anchor: [0, 0, 0], axis: [1, 0, 0], "
           "limits: [0, 1]}]"),
     "joints[0].limits", "unknown key for a universal joint"},
    {"MissingStiffness", scene("springs: [{a: ball, b: world}]"), "springs[0].stiffness",
     "missing, expected a stiffness in N/m"},
    {"MissingFrictionMu", scene("friction: [{a: ball, b: ground}]"), "friction[0].mu",
     "missing, expected a friction coefficient"},

    // Wrong YAML types and list lengths.
    {"StringForNumber",
     withBody("  - {name: b, mass: heavy, shapes: [{type: sphere, radius: "
              "1}]}\n"),
     "bodies[2].mass", "expected a positive number in kg, got heavy"},
    {"QuotedNumber",
     withBody("  - {name: b, mass: 1, shapes: [{type: sphere, radius: "
              "\"0.1\"}]}\n"),
     "bodies[2].shapes[0].radius", "expected a positive radius in m, got the string \"0.1\""},
    {"ListForNumber", scene("dt: [0.1]"), "dt",
     "expected a positive time step in s, got a list "
     "of 1 item"},
    {"NullForNumber", scene("dt:"), "dt", "expected a positive time step in s, got nothing"},
    {"ScalarForList",
     withBody("  - {name: b, mass: 1, position: 1, shapes: [{type: sphere, "
              "radius: 1}]}\n"),
     "bodies[2].position", "expected a list of three numbers [x, y, z] in m, got 1"},
    {"ListTooShort", scene("gravity: [0, -9.81]"), "gravity",
     "expected a list of three numbers [x, y, z] in m/s^2, got a list of 2 items"},
    {"ListTooLong",
     withBody("  - {name: b, mass: 1, shapes: [{type: box, size: [1, 1, 1, "
              "1]}]}\n"),
     "bodies[2].shapes[0].size", "expected a list of three positive numbers [x, y, z]"},
    {"ListElementNotNumber",
     withBody("  - {name: b, mass: 1, velocity: [0, fast, 0], shapes: "
              "[{type: sphere, radius: 1}]}\n"),
     "bodies[2].velocity[1]", "expected a number in m/s, got fast"},
    {"MapForList", "bodies: {ground: {type: static}}\n", "bodies",
     "expected a non-empty list of bodies, got a map"},
    {"ScalarForShapes", withBody("  - {name: b, mass: 1, shapes: sphere}\n"), "bodies[2].shapes",
     "expected a list of shapes, got sphere"},
    {"ScalarForBody", scene("", "  - ball2\n"), "bodies[2]",
     "expected a map describing a body, got ball2"},
    {"ListForName", withBody("  - {name: [a, b], mass: 1, shapes: [{type: sphere, radius: 1}]}\n"),
     "bodies[2].name", "expected a non-empty body name, got a list of 2 items"},
    {"NotABoolean",
     scene("joints: [{type: ball, a: ball, b: world, anchor: [0, 0, 0], "
           "collide_connected: maybe}]"),
     "joints[0].collide_connected", "expected true or false, got maybe"},
    {"StepsNotWhole", scene("steps: 1.5"), "steps", "expected a positive whole number of steps"},
    {"StepsZero", scene("steps: 0"), "steps", "expected a positive whole number of steps, got 0"},
    {"StepsTooLarge", scene("steps: 99999999999"), "steps", "expected a positive whole number"},
    {"GroupTooLarge",
     withBody("  - {name: b, mass: 1, shapes: [{type: sphere, radius: 1, group: "
              "4294967296}]}\n"),
     "bodies[2].shapes[0].group", "expected a 32-bit collision bit set"},
    {"NegativeMask",
     withBody("  - {name: b, mass: 1, shapes: [{type: sphere, radius: 1, mask: "
              "-1}]}\n"),
     "bodies[2].shapes[0].mask", "expected a 32-bit collision bit set"},
    {"InertiaScalar", withBody("  - {name: b, mass: 1, inertia: 1}\n"), "bodies[2].inertia",
     "expected [ixx, iyy, izz] or a 3x3 list of numbers in kg m^2, got 1"},
    {"InertiaBadRow",
     withBody("  - {name: b, mass: 1, inertia: [[1, 0, 0], [0, 1], [0, 0, "
              "1]]}\n"),
     "bodies[2].inertia[1]", "expected a row of three numbers in kg m^2, got a list of 2 items"},
    {"LimitsWrongLength",
     scene("joints: [{type: hinge, a: ball, b: world, anchor: [0, 0, 0], "
           "axis: [0, 0, 1], limits: [1]}]"),
     "joints[0].limits", "expected a list [lower, upper] of hinge angles in rad"},

    // Non-finite numbers.
    {"NaN", withBody("  - {name: b, mass: .nan, shapes: [{type: sphere, radius: 1}]}\n"),
     "bodies[2].mass", "expected a finite number (a positive number in kg), got .nan"},
    {"Infinity", scene("gravity: [0, 0, -.inf]"), "gravity[2]",
     "expected a finite number (a number in m/s^2), got -.inf"},
    {"InfinityInPosition",
     withBody("  - {name: b, mass: 1, position: [.Inf, 0, 0], shapes: "
              "[{type: sphere, radius: 1}]}\n"),
     "bodies[2].position[0]", "expected a finite number"},
    {"Overflow", scene("dt: 1e400"), "dt", "within the range of a double, got 1e400"},

    // Out-of-range values.
    {"NegativeMass", withBody("  - {name: b, mass: -1, shapes: [{type: sphere, radius: 1}]}\n"),
     "bodies[2].mass", "expected a positive number in kg, got -1"},
    {"ZeroMass", withBody("  - {name: b, mass: 0, shapes: [{type: sphere, radius: 1}]}\n"),
     "bodies[2].mass", "expected a positive number in kg, got 0"},
    {"NegativeDensity",
     withBody("  - {name: b, density: -1000, shapes: [{type: sphere, radius: 1}]}\n"),
     "bodies[2].density", "expected a positive number in kg/m^3, got -1000"},
    {"ZeroRadius", withBody("  - {name: b, mass: 1, shapes: [{type: sphere, radius: 0}]}\n"),
     "bodies[2].shapes[0].radius", "expected a positive radius in m, got 0"},
    {"NegativeLength",
     withBody("  - {name: b, mass: 1, shapes: [{type: cylinder, radius: 1, "
              "length: -2}]}\n"),
     "bodies[2].shapes[0].length", "expected a positive length in m"},
    {"NegativeBoxSize",
     withBody("  - {name: b, mass: 1, shapes: [{type: box, size: [1, -1, "
              "1]}]}\n"),
     "bodies[2].shapes[0].size[1]", "expected a positive number in m (full edge lengths), got -1"},
    {"NegativeMu",
     withBody("  - {name: b, mass: 1, shapes: [{type: sphere, radius: 1, mu: "
              "-0.5}]}\n"),
     "bodies[2].shapes[0].mu", "expected a non-negative friction coefficient, got -0.5"},
    {"NegativeDt", scene("dt: -0.01"), "dt", "expected a positive time step in s, got -0.01"},
    {"ErpAboveOne", scene("contact: {erp: 1.5}"), "contact.erp",
     "expected a number between 0 and 1"},
    {"NegativeMargin", scene("contact: {margin: -1}"), "contact.margin",
     "expected a non-negative distance in m"},
    {"NegativeStiffness", scene("springs: [{a: ball, b: world, stiffness: -5}]"),
     "springs[0].stiffness", "expected a non-negative stiffness in N/m, got -5"},
    {"NegativeDescent",
     withBody("  - {name: k, type: kinematic, trajectory: {type: circle, center: [0, 0, 0], "
              "radius: 1, frequency: 1, descent: -1}}\n"),
     "bodies[2].trajectory.descent", "expected a non-negative height in m"},
    {"NegativeInertia", withBody("  - {name: b, mass: 1, inertia: [1, -1, 1]}\n"),
     "bodies[2].inertia[1]", "expected a positive number in kg m^2, got -1"},
    {"AsymmetricInertia",
     withBody("  - {name: b, mass: 1, inertia: [[1, 0.5, 0], [0, 1, 0], "
              "[0, 0, 1]]}\n"),
     "bodies[2].inertia", "expected a symmetric 3x3 inertia matrix"},
    {"IndefiniteInertia",
     withBody("  - {name: b, mass: 1, inertia: [[1, 2, 0], [2, 1, 0], "
              "[0, 0, 1]]}\n"),
     "bodies[2].inertia", "expected a positive definite inertia matrix"},
    {"LimitsReversed",
     scene("joints: [{type: hinge, a: ball, b: world, anchor: [0, 0, 0], "
           "axis: [0, 0, 1], limits: [1, -1]}]"),
     "joints[0].limits", "expected lower <= upper, got [1, -1]"},
    {"ZeroHingeAxis",
     scene("joints: [{type: hinge, a: ball, b: world, anchor: [0, 0, 0], "
           "axis: [0, 0, 0]}]"),
     "joints[0].axis", "expected a non-zero axis"},

    // Quaternions are never normalised silently.
    {"NonUnitBodyQuaternion",
     withBody("  - {name: b, mass: 1, orientation: [1, 0, 0, 0.1], shapes: [{type: sphere, "
              "radius: 1}]}\n"),
     "bodies[2].orientation", "expected a unit quaternion [w, x, y, z] with |q| = 1 within 1e-06"},
    {"NonUnitShapeQuaternion",
     withBody("  - {name: b, mass: 1, shapes: [{type: sphere, radius: 1, orientation: [0.7, 0, "
              "0.7, 0]}]}\n"),
     "bodies[2].shapes[0].orientation", "got |q| = 0.98994949"},
    {"ZeroQuaternion", withBody("  - {name: b, type: static, orientation: [0, 0, 0, 0]}\n"),
     "bodies[2].orientation", "expected a unit quaternion"},
    {"QuaternionWrongLength", withBody("  - {name: b, type: static, orientation: [1, 0, 0]}\n"),
     "bodies[2].orientation", "expected a unit quaternion [w, x, y, z], got a list of 3 items"},

    // Unknown types.
    {"UnknownBodyType", withBody("  - {name: b, type: floating}\n"), "bodies[2].type",
     "expected a body type: dynamic, static or kinematic, got floating"},
    {"UnknownShapeType", withBody("  - {name: b, mass: 1, shapes: [{type: cone, radius: 1}]}\n"),
     "bodies[2].shapes[0].type",
     "expected a shape type: sphere, capsule, cylinder, box, plane, revolved, mesh, bolt or nut, "
     "got cone"},
    // Revolved (signed distance) shapes: the profile's points, the padding, the resolution.
    {"RevolvedWithoutProfile",
     withBody("  - {name: b, mass: 1, shapes: [{type: revolved, padding: 0.002}]}\n"),
     "bodies[2].shapes[0].profile", "missing, expected the (r, z) points of the profile in m"},
    {"RevolvedProfileNotAList",
     withBody("  - {name: b, mass: 1, shapes: [{type: revolved, profile: 3, padding: 0.002}]}\n"),
     "bodies[2].shapes[0].profile", "expected a list of (r, z) points in m"},
    {"RevolvedPointOfThree",
     withBody("  - {name: b, mass: 1, shapes: [{type: revolved, profile: [[0, 0], [1, 0, 2]], "
              "padding: 0.002}]}\n"),
     "bodies[2].shapes[0].profile[1]", "expected an (r, z) point: a list of two numbers in m"},
    {"RevolvedOffTheAxis",
     withBody("  - {name: b, mass: 1, shapes: [{type: revolved, profile: [[0.1, 0], [0.2, 0]], "
              "padding: 0.002}]}\n"),
     "bodies[2].shapes[0].profile",
     "expected a valid revolved profile: the first point must lie on the axis (r = 0)"},
    {"RevolvedSlopedBottom",
     withBody("  - {name: b, mass: 1, shapes: [{type: revolved, profile: [[0, 0], [0.1, 0.05]], "
              "padding: 0.002}]}\n"),
     "bodies[2].shapes[0].profile", "(a flat bottom)"},
    {"RevolvedZeroPadding",
     withBody("  - {name: b, mass: 1, shapes: [{type: revolved, profile: [[0, 0], [0.1, 0]], "
              "padding: 0}]}\n"),
     "bodies[2].shapes[0].padding", "expected a positive half wall thickness in m, got 0"},
    {"RevolvedTwoSegments",
     withBody("  - {name: b, mass: 1, shapes: [{type: revolved, profile: [[0, 0], [0.1, 0]], "
              "padding: 0.002, segments: 2}]}\n"),
     "bodies[2].shapes[0].segments", "expected a whole number of triangles around the axis"},
    {"RevolvedWallAtTheAxis",
     withBody("  - {name: b, mass: 1, shapes: [{type: revolved, profile: [[0, 0], [0.1, 0], "
              "[0.001, 0.1]], padding: 0.002}]}\n"),
     "bodies[2].shapes[0].profile", "within the padding of the axis"},
    {"BoltWithoutPitch",
     withBody("  - {name: b, type: static, shapes: [{type: bolt, major_diameter: 0.048, "
              "length: 0.05}]}\n"),
     "bodies[2].shapes[0].pitch", "missing, expected the thread's pitch in m"},
    {"NutWithoutOuterDiameter",
     withBody("  - {name: b, mass: 1, shapes: [{type: nut, major_diameter: 0.048, pitch: 0.005, "
              "length: 0.03}]}\n"),
     "bodies[2].shapes[0].outer_diameter", "missing, expected the nut's outer diameter in m"},
    {"NutNarrowerThanItsThread",
     withBody("  - {name: b, mass: 1, shapes: [{type: nut, major_diameter: 0.048, pitch: 0.005, "
              "length: 0.03, outer_diameter: 0.049}]}\n"),
     "bodies[2].shapes[0].outer_diameter", "expected a valid thread: expected a nut's cylinder"},
    {"BoltTooThinForItsPitch",
     withBody("  - {name: b, type: static, shapes: [{type: bolt, major_diameter: 0.012, "
              "pitch: 0.005, length: 0.05}]}\n"),
     "bodies[2].shapes[0].major_diameter", "expected a valid thread: expected more than 2"},
    {"BoltNegativeClearance",
     withBody("  - {name: b, type: static, shapes: [{type: bolt, major_diameter: 0.048, "
              "pitch: 0.005, length: 0.05, clearance: -0.001}]}\n"),
     "bodies[2].shapes[0].clearance", "expected a radial clearance >= 0 in m"},
    {"BoltOuterDiameter",
     withBody("  - {name: b, type: static, shapes: [{type: bolt, major_diameter: 0.048, "
              "pitch: 0.005, length: 0.05, outer_diameter: 0.07}]}\n"),
     "bodies[2].shapes[0].outer_diameter", "for a bolt shape"},
    {"RevolvedUnknownKey",
     withBody("  - {name: b, mass: 1, shapes: [{type: revolved, profile: [[0, 0], [0.1, 0]], "
              "padding: 0.002, radius: 1}]}\n"),
     "bodies[2].shapes[0].radius", "for a revolved shape"},
    {"SubstructureNotAName",
     withBody("  - {name: b, mass: 1, shapes: [{type: sphere, radius: 0.1}], substructure: [a]}\n"),
     "bodies[2].substructure", "expected a substructure name"},
    {"SubstructureOnAStaticBody", withBody("  - {name: b, type: static, substructure: truck}\n"),
     "bodies[2].substructure", "unknown key for a static body"},
    {"TorqueNotAVector",
     withBody("  - {name: b, mass: 1, torque: [0, 0, strong], shapes: [{type: sphere, "
              "radius: 0.1}]}\n"),
     "bodies[2].torque[2]", "expected a number in N m, got strong"},
    {"ForceOnAStaticBody", withBody("  - {name: b, type: static, force: [0, 0, 1]}\n"),
     "bodies[2].force", "unknown key for a static body"},
    {"UnknownJointType", scene("joints: [{type: slider, a: ball, b: world, anchor: [0, 0, 0]}]"),
     "joints[0].type", "expected a joint type: ball, universal, hinge or weld, got slider"},
    {"UnknownTrajectoryType",
     withBody("  - {name: k, type: kinematic, trajectory: {type: spiral}}\n"),
     "bodies[2].trajectory.type",
     "expected a trajectory type: fixed, linear or circle, got spiral"},

    // Names and references.
    {"DuplicateBodyName",
     withBody("  - {name: ball, mass: 1, shapes: [{type: sphere, radius: 1}]}\n"), "bodies[2].name",
     "expected a unique body name, got ball which bodies[1] already uses"},
    {"BodyNamedWorld", withBody("  - {name: world, type: static}\n"), "bodies[2].name",
     "expected a body name other than world"},
    {"DuplicateJointName",
     scene("joints: [{name: j, type: ball, a: ball, b: world, anchor: [0, 0, 0]},\n"
           "         {name: j, type: ball, a: ball, b: ground, anchor: [0, 0, 0]}]"),
     "joints[1].name", "expected a unique joint name, got j which joints[0] already uses"},
    {"JointUnknownBodyA", scene("joints: [{type: ball, a: bal, b: world, anchor: [0, 0, 0]}]"),
     "joints[0].a", "expected the name of a body listed under bodies, got bal"},
    {"JointUnknownBodyB", scene("joints: [{type: weld, a: ball, b: grund, anchor: [0, 0, 0]}]"),
     "joints[0].b", "expected the name of a body or world listed under bodies, got grund"},
    {"JointWorldAsA", scene("joints: [{type: ball, a: world, b: ball, anchor: [0, 0, 0]}]"),
     "joints[0].a", "expected the name of a body (world is not allowed here)"},
    {"JointSameBody", scene("joints: [{type: ball, a: ball, b: ball, anchor: [0, 0, 0]}]"),
     "joints[0].b", "expected a body other than a, got ball"},
    {"JointWithoutDynamicBody",
     scene("joints: [{type: weld, a: ground, b: world, anchor: [0, 0, 0]}]"), "joints[0]",
     "expected a joint with at least one dynamic body, got ground (static) and world"},
    {"SpringUnknownBody", scene("springs: [{a: ball, b: nowhere, stiffness: 1}]"), "springs[0].b",
     "expected the name of a body or world listed under bodies, got nowhere"},
    {"SpringSameBody", scene("springs: [{a: world, b: world, stiffness: 1}]"), "springs[0].b",
     "expected a body other than a"},
    {"FrictionUnknownBody", scene("friction: [{a: ghost, b: ground, mu: 1}]"), "friction[0].a",
     "expected the name of a body listed under bodies, got ghost"},
    {"FrictionWithWorld", scene("friction: [{a: ball, b: world, mu: 1}]"), "friction[0].b",
     "expected the name of a body (world is not allowed here)"},
    {"FrictionDuplicatePair",
     scene("friction: [{a: ball, b: ground, mu: 1}, {a: ground, b: ball, mu: 2}]"), "friction[1]",
     "expected one friction entry per pair of bodies, got a second one for ground and ball "
     "(first in friction[0])"},

    // Mass properties.
    {"DynamicWithoutShapesOrInertia", withBody("  - {name: b, mass: 1}\n"), "bodies[2].inertia",
     "missing, expected [ixx, iyy, izz] or a 3x3 list in kg m^2: a dynamic body without shapes "
     "needs an explicit inertia"},
    {"DensityWithoutShapes", withBody("  - {name: b, density: 1000, inertia: [1, 1, 1]}\n"),
     "bodies[2].density", "expected a body with shapes"},
    {"MassAndDensity",
     withBody("  - {name: b, mass: 1, density: 1000, shapes: [{type: sphere, "
              "radius: 1}]}\n"),
     "bodies[2].density", "expected either mass or density, not both"},
    {"PlaneOnDynamicBody", withBody("  - {name: b, mass: 1, shapes: [{type: plane}]}\n"),
     "bodies[2].shapes[0].type",
     "expected a bounded shape (sphere, capsule, cylinder, box, revolved, mesh, bolt or nut) on a "
     "dynamic "
     "body, got plane"},
    {"OffsetFirstShapeWithoutInertia",
     withBody("  - {name: b, mass: 1, shapes: [{type: sphere, radius: 1, position: [0, 0, "
              "1]}]}\n"),
     "bodies[2].shapes[0].position", "expected [0, 0, 0] when the inertia is computed"},
    {"DensityGivingNoMass",
     withBody("  - {name: b, density: 1e-300, shapes: [{type: sphere, radius: 1e-200}]}\n"),
     "bodies[2].density", "expected a density giving a positive finite mass"},
    {"CirclePlusPosition",
     withBody("  - {name: k, type: kinematic, position: [1, 0, 0], trajectory: {type: circle, "
              "center: [0, 0, 0], radius: 1, frequency: 1}}\n"),
     "bodies[2].position", "expected no position on a body with a circle trajectory"},
    // Model::validate() catches what the loader leaves to it; its message gains the file name.
    {"ValidateFailure",
     withBody("  - {name: b, mass: 1, shapes: [{type: sphere, radius: 1e-200}]}\n"),
     "bodies[2].inertia", "expected a positive definite inertia"},

    // Whole-file problems.
    // yaml-cpp's position, not a field path, locates syntax errors.
    {"SyntaxError", "bodies:\n  - {name: ball, mass: 1\n  - {name: x}\n", "",
     ": line 3, column 5: YAML syntax error: end of map flow not found"},
    {"BadIndentation", "bodies:\n  - name: a\n   type: static\n", "",
     ": line 3, column 4: YAML syntax error"},
    {"EmptyFile", "", "top level", "got an empty file"},
    {"CommentsOnly", "# nothing here\n\n", "top level", "got an empty file"},
    {"TopLevelList", "- name: ball\n- name: ground\n", "top level",
     "expected a map of scene settings with a bodies list"},
    // Checked before yaml-cpp, which loops on some non-map roots ("hello #c" then ",").
    {"TopLevelScalar", "hello", "top level", "as KEY: VALUE lines, got 'hello' (line 1, column 1)"},
    {"TopLevelFlowThenComma", "[a] ,", "top level", "got '[a] ,' (line 1, column 1)"},
    {"TopLevelAfterMarker", "--- ,bodies: []", "top level", "got ',bodies: []' (line 1, column 5)"},
    {"CommaStartingAToken", "dt: 0.01\n   , bodies: []", "line 2, column 4",
     "a ',' outside [ ] or { }"},
    {"CommaAfterAQuote", "name: 'a' ,\nbodies: []", "line 1, column 11",
     "a ',' outside [ ] or { }"},
    {"CommaAfterGluedQuotes", "name: x\nbodies:\n\"\"\"\",", "line 3, column 5",
     "a ',' outside [ ] or { }"},
    {"CommaInAPlainScalarWithBrackets", "name: q' [[a, b\nbodies: []", "bodies",
     "expected a non-empty list of bodies"},
    {"CommaAfterACommentGluedToAQuote", "name: \"\"#: [\n,", "line 2, column 1",
     "a ',' outside [ ] or { }"},
    {"ControlCharacter",
     std::string("name: a\x01"
                 "b\n"),
     "", "line 1: expected YAML text, got the control character 0x01"},
    {"NotUtf8", "name: caf\xe9\n", "", "line 1: expected UTF-8 text, got the byte 0xe9"},
    {"DocumentAfterEnd", scene("") + "...\n,", "top level",
     "expected a single YAML document, got 2"},
    {"TwoDocuments", scene("") + "---\n" + scene(""), "top level",
     "expected a single YAML document, got 2"},
};

INSTANTIATE_TEST_SUITE_P(Cases, SceneErrorTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

TEST(SceneError, BaseSceneIsValid) {
  // The cases above must fail because of what they change, not because the base is wrong.
  EXPECT_NO_THROW(parseScene(scene(""), kFile));
  EXPECT_NO_THROW(parseScene(withBody("  - {name: b, mass: 1, shapes: [{type: sphere, radius: "
                                      "1}]}\n"),
                             kFile));
}

TEST(SceneError, MessageHasLineAndColumnOfTheField) {
  const std::string message = errorOf("bodies:\n  - name: b\n    mass: -1\n");
  EXPECT_EQ(message, kFile +
                         ": bodies[0].mass: expected a positive number in kg, got -1 (line 3, "
                         "column 11)");
}

TEST(SceneError, SyntaxErrorReportsYamlCppPosition) {
  const std::string message = errorOf("dt: 0.1\nbodies: [\n");
  EXPECT_CONTAINS(message, kFile + ": line ");
  EXPECT_CONTAINS(message, "YAML syntax error");
}

TEST(SceneError, MissingFileIsNamed) {
  const std::string path = "/nonexistent/dir/scene.yaml";
  try {
    loadSceneFile(path);
    FAIL() << "expected a SceneError";
  } catch (const SceneError& e) {
    EXPECT_CONTAINS(std::string(e.what()), path + ": cannot read the scene file");
  }
}

TEST(SceneError, DirectoryIsNamed) {
  const std::string path = std::filesystem::temp_directory_path().string();
  try {
    loadSceneFile(path);
    FAIL() << "expected a SceneError";
  } catch (const SceneError& e) {
    EXPECT_CONTAINS(std::string(e.what()),
                    path + ": cannot read the scene file: it is a directory");
  }
}

TEST(SceneError, LoadedFileErrorsNameThePath) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "subsim_io_test_bad_scene.yaml";
  {
    std::ofstream out(path);
    out << "bodies:\n  - {name: b, mass: -2, shapes: [{type: sphere, radius: 1}]}\n";
  }
  try {
    loadSceneFile(path.string());
    ADD_FAILURE() << "expected a SceneError";
  } catch (const SceneError& e) {
    EXPECT_CONTAINS(std::string(e.what()), path.string() + ": bodies[0].mass: expected a positive");
  }
  std::filesystem::remove(path);
}

TEST(SceneError, SelfReferencingAliasDoesNotHang) {
  const std::string message = errorOf("bodies: &a [*a]\n");
  EXPECT_CONTAINS(message, "bodies[0]: expected a map describing a body, got a list of 1 item");
}

TEST(SceneError, DeepNestingIsAnErrorNotAStackOverflow) {
  const std::string deep = "bodies: " + std::string(100000, '[') + std::string(100000, ']');
  const std::string message = errorOf(deep);
  EXPECT_EQ(message.rfind(kFile + ": ", 0), 0u) << message.substr(0, 200);
}

const char* const kExampleScenes[] = {"sphere_on_plane.yaml", "box_stack.yaml", "pendulum.yaml",
                                      "stirred_spheres.yaml"};

// Only SceneError may escape: anything else (or a crash) fails the test.
void expectLoadsOrSceneError(const std::string& text, const std::string& what) {
  try {
    parseScene(text, kFile);
  } catch (const SceneError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(kFile + ": ", 0), 0u) << what << ": " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": unexpected exception " << e.what();
  } catch (...) {
    ADD_FAILURE() << what << ": unexpected non-standard exception";
  }
}

TEST(SceneFuzz, TruncationAtEveryByteNeverCrashes) {
  for (const char* name : kExampleScenes) {
    const std::string text = readFile(std::string(SUBSIM_SOURCE_DIR) + "/scenes/" + name);
    ASSERT_FALSE(text.empty()) << name;
    for (std::size_t n = 0; n <= text.size(); ++n)
      expectLoadsOrSceneError(text.substr(0, n),
                              std::string(name) + " cut at " + std::to_string(n));
  }
}

TEST(SceneFuzz, RandomByteChangesNeverCrash) {
  std::mt19937 rng(12345);  // fixed seed: failures must be reproducible
  const char replacements[] = "-.:[]{},#&*!|>'\"%@`0123456789e\n\t x";
  for (const char* name : kExampleScenes) {
    const std::string text = readFile(std::string(SUBSIM_SOURCE_DIR) + "/scenes/" + name);
    ASSERT_FALSE(text.empty()) << name;
    std::uniform_int_distribution<std::size_t> where(0, text.size() - 1);
    std::uniform_int_distribution<std::size_t> what(0, sizeof(replacements) - 2);
    for (int trial = 0; trial < 500; ++trial) {
      std::string mutated = text;
      for (int k = 0; k < 3; ++k) mutated[where(rng)] = replacements[what(rng)];
      expectLoadsOrSceneError(mutated, std::string(name) + " trial " + std::to_string(trial));
    }
  }
}

}  // namespace
}  // namespace subsim
