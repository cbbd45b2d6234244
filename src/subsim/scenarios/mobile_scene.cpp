// One mobile manipulator driving and reaching (issue 4): the papers' 10-DOF robot, a wheeled base
// in the plane (prismatic x, prismatic y, revolute yaw; non-holonomic no-slip) carrying the
// built-in Panda.  It drives `distance` metres straight ahead in 3 s, then reaches with its
// stirring rod to 5 cm above a box resting on a table in front of it.
#include <cmath>

#include "subsim/scenarios/mobile_manipulator.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

Model buildMobileScene(const ScenarioParams& params) {
  const double distance = params.get("distance");
  const double mu = params.get("mu");
  Model m;
  m.name = "mobile";
  m.dt = 0.01;
  addGround(m, mu);

  const VecX ready = (VecX(7) << 0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.785).finished();
  const MobileManipulator mm = addMobileManipulator(m, "mobile", 0.0, 0.0, 0.0, ready, mu);
  Robot& robot = m.robots[mm.robot];

  // Targets: drive in 3 s, then reach in 2 s (IK on the arm only, with the base at its goal).
  const double table_x = distance + 0.85;
  const VecX q0 = robot.initial_q;
  VecX q_drive = q0;
  q_drive[0] = distance;
  VecX q_reach = q_drive;
  const Vec3 box_top(table_x, 0.0, 0.4 + 0.1);
  if (reachWithTool(robot, mm.tool_link, box_top + Vec3(0.0, 0.0, 0.05), q_reach) > 1e-3)
    throw ScenarioError("mobile: the arm cannot reach the box from the base's goal");
  robot.target.times = {0.0, 3.0, 5.0};
  robot.target.positions = {q0, q_drive, q_reach};

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
