// One mobile manipulator driving and reaching (issue 4): the papers' 10-DOF robot, a wheeled base
// in the plane (prismatic x, prismatic y, revolute yaw; non-holonomic no-slip) carrying the
// built-in Panda.  It drives `distance` metres straight ahead in 3 s, then reaches with its
// stirring rod to 5 cm above a box resting on a table in front of it.
#include <cmath>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/articulation/inverse_kinematics.hpp"
#include "subsim/io/urdf_loader.hpp"
#include "subsim/scenarios/panda_model.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

namespace {

ArticulationLink baseLink(const std::string& name, int parent, ArticulationJointType type,
                          const Vec3& axis) {
  ArticulationLink l;
  l.name = name;
  l.parent = parent;
  l.joint = type;
  l.joint_name = name + "_joint";
  l.axis = axis;
  return l;
}

}  // namespace

Model buildMobileScene(const ScenarioParams& params) {
  const double distance = params.get("distance");
  const double mu = params.get("mu");
  Model m;
  m.name = "mobile";
  m.dt = 0.01;
  addGround(m, mu);

  // The base: massless x and y sliders, a 40 kg chassis (0.6 x 0.5 x 0.3 m) 1 cm above the floor
  // (wheels are not modelled: the sliders carry it).
  Robot robot;
  robot.name = "mobile";
  Articulation& art = robot.articulation;
  art.links.push_back(baseLink("base_x", -1, ArticulationJointType::Prismatic, Vec3::UnitX()));
  art.links.push_back(baseLink("base_y", 0, ArticulationJointType::Prismatic, Vec3::UnitY()));
  ArticulationLink chassis = baseLink("chassis", 1, ArticulationJointType::Revolute, Vec3::UnitZ());
  const Vec3 chassis_half(0.3, 0.25, 0.15);
  chassis.mass = 40.0;
  chassis.inertia = Shape::box(chassis_half).unitDensityInertia(40.0);
  art.links.push_back(chassis);
  robot.base.position = Vec3(0.0, 0.0, chassis_half.z() + 0.01);
  robot.no_slip_base = {0, 1, 2};

  // The Panda on the chassis' top, 15 cm ahead of its centre.
  UrdfRobot panda = loadUrdfString(pandaUrdf(), "built-in panda.urdf");
  const int offset = static_cast<int>(art.links.size());
  for (ArticulationLink link : panda.articulation.links) {
    if (link.parent < 0) {
      link.parent = 2;
      link.joint = ArticulationJointType::Fixed;
      link.joint_origin.position = Vec3(0.15, 0.0, chassis_half.z());
    } else {
      link.parent += offset;
    }
    art.links.push_back(link);
  }
  art.finalize();

  // Targets: drive in 3 s, then reach in 2 s (IK on the arm only, with the base at its goal).
  const int tool = art.findLink("panda_stirrer");
  const double table_x = distance + 0.85;
  VecX q0 = VecX::Zero(art.nq());
  const VecX ready = (VecX(7) << 0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.785).finished();
  q0.tail(7) = ready;
  VecX q_drive = q0;
  q_drive[0] = distance;
  VecX q_reach = q_drive;
  const Vec3 box_top(table_x, 0.0, 0.4 + 0.1);
  // The base stays at its goal while the arm reaches: its joints pinned by zero-width limits.
  Articulation arm_only = art;
  for (int l = 0; l < 3; ++l) {
    ArticulationLink& link = arm_only.links[l];
    link.limited = true;
    link.lower = link.upper = q_drive[link.q_index];
  }
  const double miss =
      solvePositionIk(arm_only, robot.base,
                      {{tool, Vec3::Zero(), box_top + Vec3(0.0, 0.0, 0.05)},
                       {tool, Vec3(0.0, 0.0, -0.1), box_top + Vec3(0.0, 0.0, 0.15)}},
                      q_reach, 500, 1e-7);
  if (miss > 1e-3) throw ScenarioError("mobile: the arm cannot reach the box from the base's goal");
  robot.initial_q = q0;
  robot.target.times = {0.0, 3.0, 5.0};
  robot.target.positions = {q0, q_drive, q_reach};
  robot.kp.resize(10);
  robot.kd.resize(10);
  robot.kp << 4000.0, 4000.0, 2000.0, 600.0, 600.0, 600.0, 600.0, 250.0, 150.0, 50.0;
  robot.kd << 800.0, 800.0, 300.0, 50.0, 50.0, 50.0, 20.0, 20.0, 20.0, 10.0;
  robot.gravity_compensation = true;
  const int r = m.addRobot(std::move(robot));
  m.addRobotShape(r, 2, Shape::box(chassis_half), Pose(), mu);
  for (const UrdfCollision& c : panda.collisions)
    m.addRobotShape(r, c.link + offset, c.shape, c.origin, mu);

  // A table (0.6 x 0.6 x 0.4 m) and a 0.5 kg box (10 cm) on it.
  Body table = namedBody("table", BodyKind::Static);
  table.initial_pose.position = Vec3(table_x, 0.0, 0.2);
  m.addShape(m.addBody(table), Shape::box(Vec3(0.3, 0.3, 0.2)), Pose(), mu);
  const Shape cube = Shape::box(Vec3::Constant(0.05));
  Body box = namedBody("box", BodyKind::Dynamic, 0.5);
  box.inertia = cube.unitDensityInertia(0.5);
  box.initial_pose.position = Vec3(table_x, 0.0, 0.4 + 0.05 + 0.001);
  m.addShape(m.addBody(box), cube, Pose(), mu);
  return m;
}

}  // namespace subsim
