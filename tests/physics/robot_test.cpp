// Robots in the World (issue 4): an articulation is one subsystem in joint coordinates, its links
// are bodies that collide, and its drive is implicit in the step.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <numbers>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/io/urdf_loader.hpp"
#include "subsim/scenarios/panda_model.hpp"
#include "subsim/sim/world.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

/// A link of `length` along -z from a revolute joint about y, its mass at the tip (a thin rod
/// with a small inertia about the centre of mass).
ArticulationLink pendulumLink(const std::string& name, int parent, const Pose& origin,
                              double length, double mass) {
  ArticulationLink link;
  link.name = name;
  link.parent = parent;
  link.joint = ArticulationJointType::Revolute;
  link.joint_name = name + "_joint";
  link.joint_origin = origin;
  link.axis = Vec3::UnitY();
  link.mass = mass;
  link.com = Vec3(0.0, 0.0, -length);
  link.inertia = 1e-4 * Mat3::Identity();
  return link;
}

Model pendulumModel(double dt, double angle, int links = 1) {
  Model m;
  m.dt = dt;
  m.theta = 0.49;
  Robot r;
  r.name = "pendulum";
  for (int k = 0; k < links; ++k) {
    Pose origin;
    if (k > 0) origin.position = Vec3(0.0, 0.0, -1.0);
    r.articulation.links.push_back(
        pendulumLink("link" + std::to_string(k), k - 1, origin, 1.0, 1.0));
  }
  r.base.position = Vec3(0.0, 0.0, 2.5);
  r.initial_q = VecX::Zero(links);
  r.initial_q[0] = angle;
  m.addRobot(std::move(r));
  return m;
}

double potentialEnergy(const World& w) {
  double e = 0.0;
  for (const Robot& r : w.model().robots)
    for (int b : r.link_body)
      e -= w.model().bodies[b].mass * w.model().gravity.dot(w.state().pose[b].position);
  return e;
}

double energyDrift(double dt, double seconds) {
  World w(pendulumModel(dt, 0.5));
  const double e0 = w.kineticEnergy() + potentialEnergy(w);
  const double swing = e0 - (-w.model().gravity.z() * (2.5 - 1.0));  // energy above the bottom
  double worst = 0.0;
  const int steps = static_cast<int>(std::lround(seconds / dt));
  for (int k = 0; k < steps; ++k) {
    const StepReport r = w.step();
    EXPECT_FALSE(r.diverged) << r.divergence;
    worst = std::max(worst, std::abs(w.kineticEnergy() + potentialEnergy(w) - e0));
  }
  return worst / swing;
}

TEST(Robot, FreePendulumKeepsItsEnergyAndConvergesWithTheStep) {
  const double drift = energyDrift(1e-3, 10.0);
  EXPECT_LT(drift, 0.06);
  const double finer = energyDrift(5e-4, 10.0);
  EXPECT_LT(finer, 0.5 * drift + 1e-9)
      << "drift " << drift << " at 1 ms, " << finer << " at 0.5 ms";
}

TEST(Robot, PendulumPeriodMatchesTheSmallAngleFormula) {
  // Point mass 1 kg at 1 m (plus 1e-4 kg m^2): T = 2 pi sqrt(I / (m g l)).
  const double dt = 1e-3;
  World w(pendulumModel(dt, 0.05));
  const double period = 2.0 * std::numbers::pi * std::sqrt((1.0 + 1e-4) / 9.81);
  double previous = w.state().robot_q[0][0];
  std::vector<double> crossings;  // downward zero crossings of the angle
  for (int k = 0; k < 5000; ++k) {
    w.step();
    const double q = w.state().robot_q[0][0];
    if (previous > 0.0 && q <= 0.0) crossings.push_back(w.state().time);
    previous = q;
  }
  ASSERT_GE(crossings.size(), 3u);
  const double measured = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  EXPECT_NEAR(measured, period, 0.01 * period);
}

/// The double pendulum with PD drives (kp 400 N m/rad, kd 40 N m s/rad) and gravity
/// compensation, holding its initial pose unless given a target.
Model pdPendulumModel() {
  Model m = pendulumModel(0.01, 0.3, 2);
  Robot& r = m.robots[0];
  r.kp = VecX::Constant(2, 400.0);
  r.kd = VecX::Constant(2, 40.0);
  r.gravity_compensation = true;
  return m;
}

TEST(Robot, PdWithGravityCompensationHoldsTheTarget) {
  Model m = pdPendulumModel();
  Robot& r = m.robots[0];
  r.target.times = {0.0};
  r.target.positions = {(VecX(2) << 0.8, -0.4).finished()};
  World w(m);
  for (int k = 0; k < 1000; ++k) ASSERT_FALSE(w.step().diverged);
  EXPECT_NEAR(w.state().robot_q[0][0], 0.8, 1e-3);
  EXPECT_NEAR(w.state().robot_q[0][1], -0.4, 1e-3);
  // Without compensation the same gains sag under gravity by about m g l / kp.
  Model sag = m;
  sag.robots[0].gravity_compensation = false;
  World ws(sag);
  for (int k = 0; k < 1000; ++k) ASSERT_FALSE(ws.step().diverged);
  EXPECT_GT(std::abs(ws.state().robot_q[0][0] - 0.8), 5e-3);
}

// A controller's joint targets replace the trajectory, and a joint torque tau against the PD
// holds the joint tau / kp off its target (the drive's static equilibrium, gravity compensated).
TEST(Robot, ControllerTargetsAndTorquesDriveTheJoints) {
  World w(pdPendulumModel());
  const VecX target = (VecX(2) << 0.8, -0.4).finished();
  VecX tau = VecX::Zero(2);
  w.setController([&](const Model&, const State&, BodyForces& f) {
    f.joint_target_q = {target};
    f.joint_torque = {tau};
  });
  for (int k = 0; k < 1000; ++k) ASSERT_FALSE(w.step().diverged);
  EXPECT_NEAR(w.state().robot_q[0][0], 0.8, 1e-6);
  EXPECT_NEAR(w.state().robot_q[0][1], -0.4, 1e-6);
  tau[0] = 4.0;  // N m
  for (int k = 0; k < 1000; ++k) ASSERT_FALSE(w.step().diverged);
  EXPECT_NEAR(w.state().robot_q[0][0], 0.8 + 4.0 / 400.0, 1e-6);
  EXPECT_NEAR(w.state().robot_q[0][1], -0.4, 1e-6);
}

TEST(Robot, ControllerInputsOfTheWrongSizeAreRefused) {
  const auto message = [](const std::function<void(BodyForces&)>& set) {
    World w(pendulumModel(0.01, 0.3, 2));
    w.setController([&](const Model&, const State&, BodyForces& f) { set(f); });
    try {
      w.step();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([](BodyForces& f) { f.joint_torque = {VecX::Zero(3)}; }),
            "controller: joint_torque of robot 0 ('pendulum') has 3 entries; expected 2 (nv)");
  EXPECT_EQ(message([](BodyForces& f) { f.joint_target_q = {VecX::Zero(1)}; }),
            "controller: joint_target_q of robot 0 ('pendulum') has 1 entries; expected 2 (nq)");
  EXPECT_EQ(message([](BodyForces& f) { f.joint_target_v = {VecX::Zero(2)}; }),
            "controller: joint_target_v of robot 0 is given without joint_target_q");
  EXPECT_EQ(message([](BodyForces& f) {
              f.joint_torque = {VecX::Zero(2), VecX::Zero(2)};
            }),
            "controller: joint_torque given for 2 robots; the model has 1");
  EXPECT_EQ(message([](BodyForces& f) {
              f.joint_torque = {VecX::Constant(2, std::numeric_limits<double>::quiet_NaN())};
            }),
            "controller: joint_torque of robot 0 is not finite");
  EXPECT_EQ(message([](BodyForces& f) { f.force.pop_back(); }),
            "controller: forces and torques must have one entry per body (2), got 1 and 2");
}

TEST(Robot, StiffDriveIsStableAtALargeStep) {
  Model m = pendulumModel(0.01, 0.0, 2);
  m.robots[0].kp = VecX::Constant(2, 1e6);
  m.robots[0].kd = VecX::Constant(2, 1e3);
  m.robots[0].target.times = {0.0, 1.0};
  m.robots[0].target.positions = {VecX::Zero(2), (VecX(2) << 1.0, 0.5).finished()};
  World w(m);
  for (int k = 0; k < 200; ++k) ASSERT_FALSE(w.step().diverged);
  EXPECT_NEAR(w.state().robot_q[0][0], 1.0, 1e-2);
  EXPECT_NEAR(w.state().robot_q[0][1], 0.5, 1e-2);
}

TEST(Robot, JointLimitHolds) {
  Model m = pendulumModel(0.01, 0.5);
  ArticulationLink& link = m.robots[0].articulation.links[0];
  link.limited = true;
  link.lower = 0.2;
  link.upper = 1.0;
  // addRobot ran before the limit was set: rebuild the model with the limited link.
  Model limited;
  limited.dt = m.dt;
  Robot r = m.robots[0];
  r.link_body.clear();
  limited.addRobot(r);
  World w(limited);
  double lowest = 1.0;
  for (int k = 0; k < 300; ++k) {
    ASSERT_FALSE(w.step().diverged);
    lowest = std::min(lowest, w.state().robot_q[0][0]);
  }
  EXPECT_GT(lowest, 0.2 - 2e-3);
  EXPECT_NEAR(w.state().robot_q[0][0], 0.2, 5e-3);  // comes to rest on the limit
}

TEST(Robot, LinkRestsOnTheGroundThroughItsJacobian) {
  // A vertical prismatic joint carrying a 0.1 m box: it falls onto the ground plane and rests
  // on it, supported by contact rows written through the link Jacobian.
  Model m;
  m.dt = 0.01;
  const int ground = m.addBody(namedBody("ground", BodyKind::Static));
  m.addShape(ground, Shape::plane(), Pose(), 0.5);
  Robot r;
  r.name = "piston";
  ArticulationLink link;
  link.name = "slider";
  link.joint = ArticulationJointType::Prismatic;
  link.axis = Vec3::UnitZ();
  link.mass = 2.0;
  link.inertia = Shape::box(Vec3::Constant(0.05)).unitDensityInertia(2.0);
  r.articulation.links.push_back(link);
  r.base.position = Vec3(0.0, 0.0, 0.3);
  const int robot = m.addRobot(r);
  m.addRobotShape(robot, 0, Shape::box(Vec3::Constant(0.05)), Pose(), 0.5);
  World w(m);
  for (int k = 0; k < 200; ++k) ASSERT_FALSE(w.step().diverged);
  const int body = w.model().robots[0].link_body[0];
  EXPECT_NEAR(w.state().pose[body].position.z(), 0.05, 1e-3);
  EXPECT_NEAR(w.state().robot_v[0][0], 0.0, 1e-3);
  // The contact carried the weight: sum of normal impulses = m g h.
  const StepProblem& p = w.lastProblem();
  double normal = 0.0;
  for (const Constraint& c : p.constraints)
    if (c.type == ConstraintType::Contact) normal += w.lastSolution().lambda[c.row_offset];
  EXPECT_NEAR(normal, 2.0 * 9.81 * 0.01, 0.02 * 2.0 * 9.81 * 0.01);
}

TEST(Robot, FloatingBaseFallsLikeAFreeBody) {
  Model m;
  m.dt = 0.01;
  Robot r;
  r.name = "floater";
  ArticulationLink base;
  base.name = "base";
  base.joint = ArticulationJointType::Floating;
  base.mass = 3.0;
  base.inertia = Vec3(0.1, 0.2, 0.3).asDiagonal();
  r.articulation.links.push_back(base);
  r.articulation.links.push_back(pendulumLink("arm", 0, Pose(), 0.2, 0.5));
  r.initial_q = VecX::Zero(8);
  r.initial_q[6] = 1.0;  // quaternion w
  m.addRobot(r);
  World w(m);
  Vec3 momentum0 = Vec3::Zero();
  for (int k = 0; k < 50; ++k) ASSERT_FALSE(w.step().diverged);
  // Free fall: the centre of mass falls as 1/2 g t^2 (theta-method: within 1 %), no sideways
  // motion.
  double mass = 0.0;
  Vec3 com = Vec3::Zero(), momentum = Vec3::Zero();
  for (int b : w.model().robots[0].link_body) {
    mass += w.model().bodies[b].mass;
    com += w.model().bodies[b].mass * w.state().pose[b].position;
    momentum += w.model().bodies[b].mass * w.state().linear_velocity[b];
  }
  com /= mass;
  const double t = w.state().time;
  const double com0_z = (0.5 * -0.2) / 3.5;
  EXPECT_NEAR(com.z() - com0_z, -0.5 * 9.81 * t * t, 0.01 * 0.5 * 9.81 * t * t);
  EXPECT_NEAR(momentum.z(), -mass * 9.81 * t, 1e-6 * mass * 9.81 * t + 1e-9);
  EXPECT_NEAR(momentum.x(), momentum0.x(), 1e-9);
}

/// A planar wheeled base: massless x and y sliders and a 20 kg chassis on a yaw joint.
Model planarBaseModel(bool no_slip, double yaw) {
  Model m;
  m.dt = 0.01;
  Robot r;
  r.name = "base";
  const auto slider = [](const std::string& name, int parent, ArticulationJointType type,
                         const Vec3& axis) {
    ArticulationLink l;
    l.name = name;
    l.parent = parent;
    l.joint = type;
    l.axis = axis;
    return l;
  };
  r.articulation.links.push_back(slider("x", -1, ArticulationJointType::Prismatic, Vec3::UnitX()));
  r.articulation.links.push_back(slider("y", 0, ArticulationJointType::Prismatic, Vec3::UnitY()));
  ArticulationLink chassis = slider("chassis", 1, ArticulationJointType::Revolute, Vec3::UnitZ());
  chassis.mass = 20.0;
  chassis.inertia = Shape::box(Vec3(0.3, 0.25, 0.15)).unitDensityInertia(20.0);
  r.articulation.links.push_back(chassis);
  r.initial_q = (VecX(3) << 0.0, 0.0, yaw).finished();
  if (no_slip) r.no_slip_base = {0, 1, 2};
  m.addRobot(r);
  return m;
}

TEST(Robot, NoSlipBaseOnlyMovesAlongItsHeading) {
  const double yaw = 0.5236;  // 30 degrees
  const Vec3 heading(std::cos(yaw), std::sin(yaw), 0.0);
  for (bool no_slip : {true, false}) {
    WorldSettings tight;  // the row is exact up to the solver's tolerance
    tight.solver_settings.tolerance = 1e-12;
    tight.solver_settings.max_iterations = 2000;
    World w(planarBaseModel(no_slip, yaw), tight);
    // A world-x push on the chassis: half of it is sideways to a base heading 30 degrees off x.
    w.setController([](const Model& model, const State&, BodyForces& f) {
      f.force[model.robots[0].link_body[2]] = Vec3(10.0, 0.0, 0.0);
    });
    double lateral = 0.0;
    for (int k = 0; k < 100; ++k) {
      ASSERT_FALSE(w.step().diverged);
      const VecX& v = w.state().robot_v[0];
      lateral = std::max(lateral, std::abs(-std::sin(yaw) * v[0] + std::cos(yaw) * v[1]));
    }
    const VecX& v = w.state().robot_v[0];
    const double forward = heading.x() * v[0] + heading.y() * v[1];
    if (no_slip) {
      EXPECT_LT(lateral, 1e-8);
      // Along the heading the push is 10 cos 30 N on 20 kg (the massless sliders add nothing).
      EXPECT_NEAR(forward, 10.0 * std::cos(yaw) / 20.0 * w.state().time, 1e-6);
    } else {
      EXPECT_GT(lateral, 0.1);  // without the row it slides with the push
    }
  }
}

// The hold test: the built-in Panda under joint PD with gravity compensation keeps its
// tool within 1 mm of the target for 10 s; without compensation the same gains let it sag.
TEST(Robot, PandaHeldByPdKeepsItsToolOnTarget) {
  for (bool compensate : {true, false}) {
    const UrdfRobot urdf = loadUrdfString(pandaUrdf(), "panda.urdf");
    Model m;
    m.dt = 0.01;
    Robot panda;
    panda.name = "panda";
    panda.articulation = urdf.articulation;
    panda.initial_q = (VecX(7) << 0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.785).finished();
    panda.kp = (VecX(7) << 600, 600, 600, 600, 250, 150, 50).finished();
    panda.kd = (VecX(7) << 50, 50, 50, 20, 20, 20, 10).finished();
    panda.gravity_compensation = compensate;
    m.addRobot(panda);
    World w(m);
    const Articulation& art = w.model().robots[0].articulation;
    const int tool = art.findLink("panda_stirrer");
    std::vector<Pose> poses;
    forwardKinematics(art, w.model().robots[0].initial_q, poses);
    const Vec3 target = poses[tool].position;
    double worst = 0.0;
    for (int k = 0; k < 1000; ++k) {
      ASSERT_FALSE(w.step().diverged);
      forwardKinematics(art, w.state().robot_q[0], poses);
      worst = std::max(worst, (poses[tool].position - target).norm());
    }
    if (compensate)
      EXPECT_LT(worst, 1e-3);
    else
      EXPECT_GT(worst, 5e-3);
  }
}

TEST(Robot, BadRobotsAreRejected) {
  Model m;
  Robot r;
  r.name = "bad";
  r.articulation.links.push_back(pendulumLink("l", -1, Pose(), 1.0, 1.0));
  r.kp = VecX::Constant(3, 1.0);  // wrong size
  EXPECT_THROW(
      {
        try {
          m.addRobot(r);
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("robot 'bad': kp"), std::string::npos) << e.what();
          throw;
        }
      },
      std::invalid_argument);
  Robot fixed;
  fixed.name = "fixed";
  ArticulationLink l;
  l.name = "only";
  l.mass = 1.0;
  l.inertia = Mat3::Identity();
  fixed.articulation.links.push_back(l);
  EXPECT_THROW(m.addRobot(fixed), std::invalid_argument);
  Robot trajectory;
  trajectory.name = "traj";
  trajectory.articulation.links.push_back(pendulumLink("l", -1, Pose(), 1.0, 1.0));
  trajectory.target.times = {0.0, 0.0};
  trajectory.target.positions = {VecX::Zero(1), VecX::Zero(1)};
  EXPECT_THROW(m.addRobot(trajectory), std::invalid_argument);
}

}  // namespace
}  // namespace subsim
