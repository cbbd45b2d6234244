#pragma once
// A robot in the Model: an Articulation (generalised coordinates) placed in the world, its links
// mirrored as bodies of kind Articulated (so that shapes, collision, contacts and joints treat a
// link like any body), and its joint drives.  A robot is one subsystem of the StepProblem
// (partition/partition.hpp), with the block built from the joint-space mass matrix
// (assembly/robot_rows.hpp).
//
// Drives (per velocity coordinate of a revolute or prismatic joint): joint-space PD toward a
// target trajectory, implicit in the step (the gains are folded into A and b, so stiff gains stay
// stable at large steps), optional gravity compensation, an effort limit.  See robot_rows.hpp for
// the discretisation and the effort clamp.
#include <string>
#include <vector>

#include "subsim/articulation/articulation.hpp"

namespace subsim {

/// Joint position targets, piecewise linear in time between knots (held before the first and
/// after the last knot); the target velocity is the slope of the current segment (0 outside).
struct JointTrajectory {
  DoubleBuffer times;           // s, strictly increasing
  std::vector<VecX> positions;  // one nq-size configuration per knot (floating parts ignored)

  bool empty() const { return times.empty(); }
  /// Writes the target position and velocity of every joint coordinate at time t (sizes nq, nv of
  /// the articulation; coordinates of fixed and floating joints are left at zero).
  void evaluate(const Articulation& art, double t, VecX& q_target, VecX& v_target) const;
};

struct Robot {
  std::string name;
  Articulation articulation;  // finalize()d by Model::addRobot
  Pose base;                  // world pose of the frame the root joints are given in
  VecX initial_q;             // nq; empty: the neutral configuration
  VecX initial_v;             // nv; empty: zero
  // Drives, per velocity coordinate (nv; empty: no drive).  kp in N m/rad (N/m), kd in N m s/rad.
  VecX kp, kd;
  bool gravity_compensation = false;
  JointTrajectory target;  // empty: hold initial_q
  /// A wheeled base that cannot slide sideways (non-holonomic no-slip): the links of its
  /// prismatic x, prismatic y and revolute yaw joints (world-aligned joint frames, the yaw joint's
  /// axis z); -1: no such constraint.  The row -sin(yaw) xdot + cos(yaw) ydot = 0 is bilateral.
  struct PlanarBase {
    int x_link = -1, y_link = -1, yaw_link = -1;
    bool enabled() const { return yaw_link >= 0; }
  };
  PlanarBase no_slip_base;
  // Filled by Model::addRobot: the Model body mirroring each link (kind Articulated).
  std::vector<int> link_body;
};

struct Model;
struct State;

/// World poses of a robot's link frames at a configuration, and Jacobians from them.
struct RobotKinematics {
  std::vector<Pose> link_pose;
  void update(const Model& model, int robot, const VecX& q);
  /// [linear velocity of the link's centre of mass; angular velocity] Jacobian, 6 x nv.
  void comJacobian(const Model& model, int robot, int link, MatX& J) const;
};

/// Sets the poses (centre-of-mass frames) and velocities of a robot's link bodies in `state` from
/// its kinematics and joint velocities v (and the step's vhat for the midpoint twist).
void setRobotBodies(const Model& model, int robot, const RobotKinematics& kin, const VecX& v,
                    const VecX& vhat, MatX& scratch, State& state);

}  // namespace subsim
