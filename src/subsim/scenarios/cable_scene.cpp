// Collaborative cable manipulation (ICRA SubADMM paper, scene 2): two 10-DOF mobile manipulators
// hold the ends of a 1.2 m, 8 mm Cosserat cable (E = 0.1 MPa, nu = 0.49, 640 segments, 4 per
// subsystem: 160 + 2 = 162 subsystems, dimension 640 x 6 + 2 x 10 = 3860; the paper prints 3840).
//
// The paper does not give the motion; ours, over 3 s: both robots face +y with the cable's ends
// welded to their tools 1.2 m apart at `height` (0.8 m) (the soft cable sags and stretches under
// its weight); in the first second both arms raise the ends by 0.1 m; then both bases drive 0.5 m
// forward carrying it (the paper's winding motion is not reproduced).  The cable collides with the
// ground (and lies on it where it sags that far), not with the robots (its ends sit inside the tool
// rods' capsules).
#include <cmath>

#include "subsim/model/cosserat_cable.hpp"
#include "subsim/scenarios/mobile_manipulator.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

Model buildCableScene(const ScenarioParams& params) {
  const int segments = params.getInt("segments");
  const double mu = params.get("mu");
  Model m;
  m.name = "cable";
  m.dt = 0.01;
  addGround(m, mu);

  const double half_span = 0.6, height = params.get("height"), base_offset = 0.45;
  const VecX ready = (VecX(7) << 0.0, -0.3, 0.0, -2.2, 0.0, 2.0, 0.785).finished();
  const double heading = 0.5 * M_PI;  // +y
  MobileManipulator ends[2];
  ends[0] = addMobileManipulator(m, "robot_a", -half_span - base_offset, 0.0, heading, ready, mu);
  ends[1] = addMobileManipulator(m, "robot_b", half_span + base_offset, 0.0, heading, ready, mu);
  // Robot shapes in group 2, which the cable masks out.
  for (BodyShape& s : m.shapes)
    if (m.bodies[s.body].kind == BodyKind::Articulated) s.group = 2;

  // Targets: hold, raise (1 s), carry and swing (2 s).
  for (int k = 0; k < 2; ++k) {
    Robot& robot = m.robots[ends[k].robot];
    const double side = k == 0 ? -1.0 : 1.0;
    VecX q_hold = robot.initial_q;
    if (reachWithTool(robot, ends[k].tool_link, Vec3(side * half_span, 0.0, height), q_hold) > 1e-3)
      throw ScenarioError("cable: robot " + robot.name + " cannot reach the cable's end");
    VecX q_raise = q_hold;
    if (reachWithTool(robot, ends[k].tool_link, Vec3(side * half_span, 0.0, height + 0.1),
                      q_raise) > 1e-3)
      throw ScenarioError("cable: robot " + robot.name + " cannot raise the cable's end");
    VecX q_carry = q_raise;
    q_carry[1] += 0.5;
    m.setRobotInitialConfiguration(ends[k].robot, q_hold);
    robot.target.times = {0.0, 1.0, 3.0};
    robot.target.positions = {q_hold, q_raise, q_carry};
  }

  CosseratCableSpec spec;
  spec.segments = segments;
  spec.segments_per_subsystem = params.getInt("per_subsystem");
  spec.start = Vec3(-half_span, 0.0, height);
  spec.direction = Vec3::UnitX();
  spec.mu = mu;
  spec.collision_mask = ~(0x80000000u | 2u);
  const CosseratCable cable = addCosseratCable(m, spec);
  // The ends welded to the tools (where the IK put them).
  for (int k = 0; k < 2; ++k) {
    const Robot& robot = m.robots[ends[k].robot];
    const int tool_body = robot.link_body[ends[k].tool_link];
    const int segment = k == 0 ? cable.first_body : cable.first_body + cable.segments - 1;
    const Vec3 anchor = k == 0 ? spec.start : spec.start + spec.length * spec.direction;
    addCableGrip(m, segment, tool_body, anchor, params.get("grip_stiffness"));
  }
  return m;
}

}  // namespace subsim
