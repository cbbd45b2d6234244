#include "subsim/scenarios/mobile_manipulator.hpp"

#include "subsim/articulation/inverse_kinematics.hpp"
#include "subsim/io/urdf_loader.hpp"
#include "subsim/scenarios/panda_model.hpp"

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

MobileManipulator addMobileManipulator(Model& m, const std::string& name, double x, double y,
                                       double yaw, const VecX& arm_q, double mu) {
  // The base: massless x and y sliders, a 40 kg chassis (0.6 x 0.5 x 0.3 m) 1 cm above the floor
  // (wheels are not modelled: the sliders carry it).
  Robot robot;
  robot.name = name;
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

  VecX q = VecX::Zero(art.nq());
  q[0] = x;
  q[1] = y;
  q[2] = yaw;
  q.tail(7) = arm_q;
  robot.initial_q = q;
  robot.kp.resize(10);
  robot.kd.resize(10);
  robot.kp.head<3>() << 4000.0, 4000.0, 2000.0;
  robot.kd.head<3>() << 800.0, 800.0, 300.0;
  setFrankaJointImpedance(robot, 3);
  MobileManipulator out;
  out.tool_link = art.findLink("panda_stirrer");
  out.robot = m.addRobot(std::move(robot));
  m.addRobotShape(out.robot, 2, Shape::box(chassis_half), Pose(), mu);
  for (const UrdfCollision& c : panda.collisions)
    m.addRobotShape(out.robot, c.link + offset, c.shape, c.origin, mu);
  return out;
}

double reachWithTool(const Robot& robot, int tool_link, const Vec3& tip, VecX& q) {
  // The base stays where q puts it: its joints pinned by zero-width limits.
  Articulation arm_only = robot.articulation;
  for (int l = 0; l < 3; ++l) {
    ArticulationLink& link = arm_only.links[l];
    link.limited = true;
    link.lower = link.upper = q[link.q_index];
  }
  return solvePositionIk(arm_only, robot.base, rodDownTargets(tool_link, tip), q, 500, 1e-7);
}

}  // namespace subsim
