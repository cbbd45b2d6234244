// The RPI simulator paper's grasp example (its Sec. 5.4, Fig. 10: an arm "executing a grasp
// trajectory ... a set of joint angles interpolated between start and goal configurations over a
// given time"): the Panda with the Franka Hand (panda_model.hpp, pandaWithHand) picks up a cube
// from the floor.  Position IK gives the joint angles of three poses of the hand, pointing down
// with its fingers closing along y: 15 cm above the cube, at it, and lifted 15 cm again; the
// trajectory interpolates linearly between them in joint space, the fingers open (4 cm each) until
// the hand is at the cube, then closing toward 0.  The arm tracks with Franka's joint impedance;
// the fingers with our kp 800 N/m (not Franka's: its gripper is force-controlled), which on the
// 2.5 cm left to close squeezes with the fingers' 20 N effort limit.
//   0.0 - 1.5 s  descend (joint-space interpolation, the paper's)
//   1.5 - 2.0 s  close the fingers
//   2.0 - 3.0 s  lift
//   3.0 - 4.0 s  hold
#include <cmath>

#include "subsim/scenarios/panda_model.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

namespace {

constexpr double kOpen = 0.04;   // each finger, m
constexpr double kAbove = 0.15;  // m

/// Joint angles putting the hand's tool centre point at `tcp`, its z down and its fingers closing
/// along world y (its y along +y or -y, whichever IK reaches from the guess q), the fingers kept
/// where q has them.
VecX graspPose(const PandaHand& ph, const Robot& robot, const Vec3& tcp, const VecX& guess) {
  Articulation arm_only = robot.articulation;
  for (int f : ph.finger_links) {
    ArticulationLink& link = arm_only.links[f];
    link.lower = link.upper = guess[link.q_index];
  }
  double best_miss = 1e300;
  VecX best = guess;
  for (double side : {1.0, -1.0}) {
    const std::vector<IkTarget> targets = {
        {ph.hand_link, kFrankaHandTcp, tcp},
        {ph.hand_link, kFrankaHandTcp - Vec3(0.0, 0.0, 0.1), tcp + Vec3(0.0, 0.0, 0.1)},
        {ph.hand_link, kFrankaHandTcp + Vec3(0.0, 0.05, 0.0), tcp + Vec3(0.0, 0.05 * side, 0.0)}};
    VecX q = guess;
    const double miss = solvePositionIk(arm_only, robot.base, targets, q, 500, 1e-7);
    if (miss < best_miss) {
      best_miss = miss;
      best = q;
    }
  }
  if (best_miss > 1e-3)
    throw ScenarioError("grasp: the Panda cannot put its hand at (" + std::to_string(tcp.x()) +
                        ", " + std::to_string(tcp.y()) + ", " + std::to_string(tcp.z()) + ") (" +
                        std::to_string(best_miss * 1e3) + " mm short); move the cube closer");
  return best;
}

}  // namespace

Model buildGraspScene(const ScenarioParams& params) {
  const double mu = params.get("mu");
  const double size = params.get("size");
  const double mass = params.get("mass");
  const double distance = params.get("distance");
  Model m;
  m.name = "grasp";
  m.dt = 0.01;
  addGround(m, mu);

  PandaHand ph = pandaWithHand();
  Robot panda = pandaRobot(ph.urdf.articulation);
  const Articulation& art = panda.articulation;
  const int left = art.links[ph.finger_links[0]].q_index;
  const int right = art.links[ph.finger_links[1]].q_index;

  // The cube's centre is where the pads' centres close on it.
  const Vec3 cube(distance, 0.0, 0.5 * size);
  VecX guess(art.nq());
  guess << 0.0, 0.3, 0.0, -2.2, 0.0, 2.5, 0.785, kOpen, kOpen;  // hand down, in front
  const VecX above = graspPose(ph, panda, cube + Vec3(0.0, 0.0, kAbove), guess);
  const VecX at = graspPose(ph, panda, cube, above);
  VecX closed = at;
  closed[left] = closed[right] = 0.0;
  VecX lifted = graspPose(ph, panda, cube + Vec3(0.0, 0.0, kAbove), closed);
  panda.target.times = {0.0, 1.5, 2.0, 3.0};
  panda.target.positions = {above, at, closed, lifted};
  panda.initial_q = above;
  addPandaWithHand(m, std::move(panda), ph, mu);

  const Shape box = Shape::box(Vec3::Constant(0.5 * size));
  Body b = namedBody("cube", BodyKind::Dynamic, mass);
  b.inertia = box.unitDensityInertia(mass);
  b.initial_pose.position = cube + Vec3(0.0, 0.0, 1e-4);
  m.addShape(m.addBody(b), box, Pose(), mu);
  return m;
}

}  // namespace subsim
