// Universal, hinge, weld, hinge limits and compliant joints against their definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "test_support.hpp"

namespace subsim {
namespace {

/// A 0.3 x 0.05 x 0.05 m bar, 1 kg, hanging from the world by a joint at one end.
Model barOnJoint(JointType type, const Vec3& axis, double tilt) {
  Model m;
  const Shape bar = Shape::box(Vec3(0.15, 0.025, 0.025));
  Body b = namedBody("bar", BodyKind::Dynamic, 1.0);
  b.inertia = bar.unitDensityInertia(1.0);
  // Bar along x, rotated by `tilt` about y, its left end at the origin.
  const Quat q(Eigen::AngleAxisd(tilt, Vec3::UnitY()));
  b.initial_pose = Pose{q * Vec3(0.15, 0, 0), q};
  const int body = m.addBody(b);
  m.addShape(body, bar);
  m.addJointAtWorld(type, body, -1, Vec3::Zero(), axis);
  return m;
}

World worldFor(Model m) {
  WorldSettings ws;
  ws.solver_settings.max_iterations = 5000;
  ws.solver_settings.tolerance = 1e-11;
  return World(std::move(m), ws);
}

TEST(Hinge, SwingsOnlyAboutItsAxisAndKeepsItsAnchor) {
  // Hinge about y: gravity swings the horizontal bar down in the x-z plane while a torque about x
  // (and one about z) tries to twist it out of that plane; the hinge must hold both.
  Model m = barOnJoint(JointType::Hinge, Vec3::UnitY(), 0.0);
  World w = worldFor(m);
  w.setController(
      [](const Model&, const State&, BodyForces& f) { f.torque[0] = Vec3(2.0, 0, 1.0); });
  double swing = 0.0;
  for (int k = 0; k < 200; ++k) {
    w.step();
    const Pose& p = w.state().pose[0];
    EXPECT_LT(p.transformPoint(m.joints[0].anchor_a).norm(), 1e-3);
    const Vec3 axis = p.rotate(m.joints[0].axis_a);
    EXPECT_GT(axis.dot(Vec3::UnitY()), std::cos(1e-2)) << "t = " << w.state().time;
    EXPECT_LT(std::abs(p.position.y()), 1e-3);
    swing = std::max(swing, -p.position.z());
  }
  EXPECT_GT(swing, 0.1);  // it did swing down
}

/// Rotation of the bar about its own axis (x in its frame), from its y axis measured in the plane
/// normal to its axis: zero for a bar that only bends.
double twistAboutOwnAxis(const Pose& p, const Vec3& y_reference) {
  const Vec3 x = p.rotate(Vec3::UnitX()), y = p.rotate(Vec3::UnitY());
  // The reference y carried along the bend without twist: the part of y_reference normal to x.
  const Vec3 ref = (y_reference - y_reference.dot(x) * x).normalized();
  return std::atan2(ref.cross(y).dot(x), ref.dot(y));
}

TEST(Universal, BendsBothWaysButDoesNotTwistAboutItsShaft) {
  // A bar on a universal joint whose shaft is the bar's axis (x) swings down under gravity (about
  // y) and sideways from an initial 2 rad/s about z, while a torque about its own axis cannot
  // turn it: the joint's pins stay perpendicular.  The same bar on a ball joint spins about its
  // axis.
  const auto run = [](JointType type, double& twist, double& down, double& side, double& pins) {
    Model m = barOnJoint(type, Vec3::UnitX(), 0.0);
    m.bodies[0].initial_angular_velocity = Vec3(0, 0, 2.0);
    m.bodies[0].initial_linear_velocity = Vec3(0, 0.3, 0);  // the centre's, 0.15 m out
    if (type == JointType::Ball) {  // same pins as the universal joint's, for the comparison
      Model u = barOnJoint(JointType::Universal, Vec3::UnitX(), 0.0);
      m.joints[0].axis_a = u.joints[0].axis_a;
      m.joints[0].axis_b = u.joints[0].axis_b;
    }
    World w = worldFor(m);
    w.setController([](const Model&, const State& s, BodyForces& f) {
      f.torque[0] = 0.01 * s.pose[0].rotate(Vec3::UnitX());
    });
    twist = down = side = pins = 0.0;
    for (int k = 0; k < 60; ++k) {
      w.step();
      const Pose& p = w.state().pose[0];
      twist = std::max(twist, std::abs(twistAboutOwnAxis(p, Vec3::UnitY())));
      down = std::max(down, -p.position.z());
      side = std::max(side, p.position.y());
      pins = std::max(pins, std::abs(p.rotate(m.joints[0].axis_a).dot(m.joints[0].axis_b)));
      EXPECT_LT(p.transformPoint(m.joints[0].anchor_a).norm(), 1e-3) << jointTypeName(type);
    }
  };
  double twist, down, side, pins;
  run(JointType::Universal, twist, down, side, pins);
  EXPECT_GT(down, 0.05);   // it bends about y ...
  EXPECT_GT(side, 0.03);   // ... and about z (0 without the bend)
  EXPECT_LT(pins, 1e-3);   // the pins stay perpendicular
  EXPECT_LT(twist, 0.05);  // so the torque about its axis does not spin it
  run(JointType::Ball, twist, down, side, pins);
  EXPECT_GT(twist, 1.0);  // 0.01 N m on its axial inertia 4.2e-4 kg m^2: 4 rad in 0.6 s
  EXPECT_GT(pins, 0.5);
}

TEST(Universal, PinsThatAreNotPerpendicularAreRefused) {
  Model m = barOnJoint(JointType::Universal, Vec3::UnitX(), 0.0);
  EXPECT_NO_THROW(m.validate());
  m.joints[0].axis_b = m.joints[0].axis_a + 0.1 * m.joints[0].axis_b;  // a pin given by hand
  try {
    m.validate();
    ADD_FAILURE() << "validate() accepted pins at " << m.joints[0].axis_a.dot(m.joints[0].axis_b);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("joints[0].axis"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("perpendicular"), std::string::npos) << e.what();
  }
}

TEST(Weld, HoldsTheBarInPlace) {
  World w = worldFor(barOnJoint(JointType::Weld, Vec3::UnitZ(), 0.3));
  const Pose start = w.state().pose[0];
  for (int k = 0; k < 200; ++k) w.step();
  EXPECT_LT((w.state().pose[0].position - start.position).norm(), 1e-4);
  EXPECT_LT(start.orientation.angularDistance(w.state().pose[0].orientation), 1e-3);
}

TEST(HingeLimit, StopsTheSwingAtTheLimit) {
  Model m = barOnJoint(JointType::Hinge, Vec3::UnitY(), 0.0);
  // Positive rotation about y turns +x towards -z: the bar swings down through positive angles.
  m.joints[0].limited = true;
  m.joints[0].lower = -0.1;
  m.joints[0].upper = 0.5;
  World w = worldFor(m);
  double largest = 0.0;
  for (int k = 0; k < 300; ++k) {
    w.step();
    const Vec3 x = w.state().pose[0].rotate(Vec3::UnitX());
    largest = std::max(largest, std::atan2(-x.z(), x.x()));
  }
  EXPECT_GT(largest, 0.45);        // it reached the limit ...
  EXPECT_LT(largest, 0.5 + 5e-3);  // ... and did not pass it
}

TEST(CompliantWeld, SagsByWeightOverStiffness) {
  // A 1 kg bar on a compliant weld of 2000 N/m settles m g / k = 4.9 mm below its rest pose.
  Model m = barOnJoint(JointType::Weld, Vec3::UnitZ(), 0.0);
  Joint& j = m.joints[0];
  j.stiffness = 2000.0;
  j.damping = 2.0 * std::sqrt(2000.0 * 1.0);
  j.angular_stiffness = 1e6;  // rigid in rotation: only the translation sags
  j.angular_damping = 1e3;
  World w = worldFor(m);
  const double z0 = w.state().pose[0].position.z();
  for (int k = 0; k < 300; ++k) w.step();
  const double sag = z0 - w.state().pose[0].position.z();
  EXPECT_NEAR(sag, 9.81 / 2000.0, 0.02 * 9.81 / 2000.0);
}

TEST(CompliantWeld, FollowsAKinematicDrive) {
  // A body on a compliant weld to a kinematic body moving at constant velocity follows it with a
  // steady lag of (m g / k) vertically and none horizontally once settled (no gravity here).
  Model m;
  m.gravity = Vec3::Zero();
  Body drive = namedBody("drive", BodyKind::Kinematic);
  drive.trajectory.kind = KinematicTrajectory::Kind::Linear;
  drive.trajectory.velocity = Vec3(0.2, 0, 0);
  const int d = m.addBody(drive);
  const Shape s = Shape::sphere(0.05);
  Body b = namedBody("follower", BodyKind::Dynamic, 0.5);
  b.inertia = s.unitDensityInertia(0.5);
  const int f = m.addBody(b);
  m.addShape(f, s);
  const int j = m.addJointAtWorld(JointType::Weld, f, d, Vec3::Zero());
  m.joints[j].stiffness = 1000.0;
  m.joints[j].damping = 2.0 * std::sqrt(1000.0 * 0.5);
  m.joints[j].angular_stiffness = 10.0;
  m.joints[j].angular_damping = 0.1;
  World w = worldFor(m);
  for (int k = 0; k < 300; ++k) w.step();
  EXPECT_NEAR(w.state().linear_velocity[f].x(), 0.2, 1e-4);
  EXPECT_NEAR(w.state().pose[f].position.x(), w.state().pose[d].position.x(), 1e-4);
}

}  // namespace
}  // namespace subsim

namespace subsim {
namespace {

TEST(Chain, SwingingChainKeepsItsEnergy) {
  // Joint Jacobians at the mid-step pose keep the stabilisation's work small; with them evaluated
  // at the start of the step a single 0.1 m link gains 70 % of its swing energy in 0.7 s.
  Model m = buildScenario("pendulum:links=5,length=0.1,angle=30").model;
  for (BodyShape& s : m.shapes) s.group = 0;  // links pass through each other: no contacts
  World w = worldFor(m);
  auto energy = [&w, &m]() {
    double e = w.kineticEnergy();
    for (size_t b = 0; b < m.bodies.size(); ++b)
      e -= m.bodies[b].mass * m.gravity.dot(w.state().pose[b].position);
    return e;
  };
  const double e0 = energy();
  double swing = 0.0;
  for (int k = 0; k < 200; ++k) {
    w.step();
    swing = std::max(swing, w.kineticEnergy());
    EXPECT_NEAR(energy(), e0, 0.05 * swing + 1e-9) << "t = " << w.state().time;
  }
  EXPECT_GT(swing, 0.1);
}

}  // namespace
}  // namespace subsim

namespace subsim {
namespace {

TEST(Spring, MassOnASpringOscillatesAtItsNaturalFrequency) {
  // 1 kg on a 100 N/m spring to the world, rest length 0.5 m, pulled 0.05 m: period 2 pi / 10.
  Model m;
  m.gravity = Vec3::Zero();
  const Shape s = Shape::sphere(0.05);
  Body b = namedBody("mass", BodyKind::Dynamic, 1.0);
  b.inertia = s.unitDensityInertia(1.0);
  b.initial_pose.position = Vec3(0.55, 0, 0);
  const int body = m.addBody(b);
  m.addShape(body, s);
  Spring spring;
  spring.body_a = body;
  spring.body_b = -1;
  spring.stiffness = 100.0;
  spring.rest_length = 0.5;
  m.addSpring(spring);
  m.dt = 0.001;
  World w = worldFor(m);
  std::vector<double> crossings;  // times x passes 0.5 m going down
  double previous = 0.05;
  for (int k = 0; k < 2000; ++k) {
    w.step();
    const double x = w.state().pose[body].position.x() - 0.5;
    if (previous > 0.0 && x <= 0.0) crossings.push_back(w.state().time - m.dt * x / (x - previous));
    previous = x;
  }
  ASSERT_GE(crossings.size(), 3u);
  const double period = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  EXPECT_NEAR(period, 2.0 * std::numbers::pi / 10.0, 0.01 * 2.0 * std::numbers::pi / 10.0);
  // Amplitude kept: the spring's impulse uses the implicit midpoint, theta = 0.49 damps little.
  EXPECT_GT(std::abs(w.state().pose[body].position.x() - 0.5) +
                std::abs(w.state().linear_velocity[body].x()) / 10.0,
            0.045);
}

}  // namespace
}  // namespace subsim
