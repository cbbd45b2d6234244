// The AL paper's bolt-nut assembly (Sec. VII-A): an M48 nut (ISO 68-1 thread, pitch 5 mm) on an
// upright M48 bolt, both helical-thread signed distance shapes with Frank-Wolfe contact.
//   robot=1 (the paper's task): the Panda holds the nut in its hand ("the nut attached to the
//     gripper"; the Franka Hand stands in for the paper's Hebi X5) and threads it down the bolt
//     under Franka's joint impedance, along a helix of one pitch per turn that joint 7 turns
//     through most of its range (5.5 rad: 0.875 turn, 4.4 mm of advance).
//   robot=0 (the single-step study's scene): the nut alone, screwed down by a constant torque
//     about the bolt's axis.  The thread makes it advance one pitch per turn.
#include <cmath>
#include <memory>
#include <numbers>
#include <string>

#include "subsim/geometry/helical_thread_shape.hpp"
#include "subsim/scenarios/panda_model.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

namespace {

struct BoltAndNut {
  std::shared_ptr<const HelicalThreadShape> bolt, nut;
};

BoltAndNut boltAndNut(const ScenarioParams& p) {
  ThreadSpec bolt_spec;
  bolt_spec.major_diameter = 0.048;
  bolt_spec.pitch = 0.005;
  bolt_spec.length = 0.08;
  bolt_spec.clearance = p.get("clearance");
  bolt_spec.segments = p.getInt("segments");
  ThreadSpec nut_spec = bolt_spec;
  nut_spec.internal = true;
  nut_spec.length = 0.03;           // six pitches (an ISO 4032 M48 nut is 38 mm high)
  nut_spec.outer_diameter = 0.072;  // round, a little under an M48 hexagon's 75 mm flats
  BoltAndNut out{std::make_shared<HelicalThreadShape>(bolt_spec),
                 std::make_shared<HelicalThreadShape>(nut_spec)};
  // Chords deeper than the clearance and the two threads start interpenetrating.
  if (out.bolt->chordDepth() > bolt_spec.clearance) {
    const double radius = 0.5 * bolt_spec.major_diameter;
    throw ScenarioError("boltnut: segments=" + std::to_string(bolt_spec.segments) +
                        " cuts the thread's chords deeper than the clearance: take segments >= " +
                        std::to_string(static_cast<int>(std::ceil(
                            std::numbers::pi / std::acos(1.0 - bolt_spec.clearance / radius)))) +
                        " or a larger clearance");
  }
  return out;
}

Quat yaw(double angle) {
  return Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
}

// The Panda threading the nut.  The nut is welded to the hand, its thread frame (z up the nut's
// axis from its lower face) on the hand's axis with the nut's middle at the tool centre point:
// a link of the robot (weld=0, the weld inside its reduced coordinates) or a free body held by a
// weld joint (weld=1: six bilateral rows, and the nut its own subsystem, as a simulator in
// maximal coordinates attaches a held part).  The hand points down, so the nut's axis is the
// flange's and joint 7 turns the nut about it.  The nut's frame turned by theta about the bolt's
// axis meshes with the bolt at heights k P + P theta / (2 pi) above the bolt's foot (u = z -
// P theta / (2 pi) in each part's frame), so the path is that helix, from the robotless scene's
// start (k = 8: the nut's faces at 40 and 70 mm on the 80 mm bolt) turning clockwise seen from
// above (down a right-hand thread), `press` below it.  The nut is kept off the bolt's cut end:
// there the bolt's field is its end face's plane, whose normal does not follow the screw
// motion, and a pressed nut whose flanks reached 0.6 um under the rim read it, wedged and
// turned at half speed under kilonewtons of squeeze (measured with the nut's lower face 10 mm
// below the end).  Position IK at knots every 5 degrees of turn, from the previous knot, gives
// the joint targets.
void addPandaThreadingNut(Model& m, const BoltAndNut& parts, const Vec3& bolt_foot, double nut_mass,
                          double duration, double press, bool weld, double mu) {
  const ThreadSpec& spec = parts.nut->spec();
  const double pitch = spec.pitch;
  PandaHand ph = pandaWithHand();
  Articulation& art = ph.urdf.articulation;
  const Shape nut_shape = Shape::signedDistance(parts.nut);
  const Pose nut_in_hand{kFrankaHandTcp + Vec3(0.0, 0.0, 0.5 * spec.length),
                         Quat(Eigen::AngleAxisd(std::numbers::pi, Vec3::UnitX()))};
  int nut_link = -1;
  if (!weld) {
    art.links.push_back(weldedPartLink("nut", ph.hand_link, nut_in_hand, nut_shape, nut_mass));
    nut_link = static_cast<int>(art.links.size()) - 1;
  }

  Robot panda = pandaRobot(art);
  const Articulation& fin = panda.articulation;
  // The fingers rest against the nut's round flank (0.036 m from the axis).
  const double finger = 0.5 * spec.outer_diameter + 2e-4;

  // Joint 7 turns the nut through [-2.75, 2.75] rad of its +-2.8973: the first knot's IK finds
  // q7 at turn 0, and the path starts where q7 is -2.75 (joint 7 turns about the flange's z,
  // which points down, so q7 rising turns the nut clockwise seen from above).
  const double q7_start = -2.75, q7_end = 2.75;
  const double knot_step = 5.0 * std::numbers::pi / 180.0;
  auto targetsAt = [&](double theta, double below) {
    const double height = (8.0 + theta / (2.0 * std::numbers::pi)) * pitch - below;
    const Pose nut_world{bolt_foot + Vec3(0.0, 0.0, height), yaw(theta)};
    const Pose hand =
        nut_world * Pose{-(nut_in_hand.orientation.conjugate() * nut_in_hand.position),
                         nut_in_hand.orientation.conjugate()};
    std::vector<IkTarget> t;
    for (const Vec3& pt : {Vec3(kFrankaHandTcp), Vec3(kFrankaHandTcp - Vec3(0.0, 0.0, 0.1)),
                           Vec3(kFrankaHandTcp + Vec3(0.0, 0.05, 0.0))})
      t.push_back({ph.hand_link, pt, hand.transformPoint(pt)});
    return t;
  };
  Articulation arm_only = fin;
  for (int f : ph.finger_links) arm_only.links[f].lower = arm_only.links[f].upper = finger;
  auto solve = [&](double theta, double below, VecX& q) {
    const double miss =
        solvePositionIk(arm_only, panda.base, targetsAt(theta, below), q, 500, 1e-7);
    if (miss > 1e-4)
      throw ScenarioError("boltnut: the Panda cannot hold the nut on the bolt at a turn of " +
                          std::to_string(theta) + " rad (" + std::to_string(miss * 1e3) +
                          " mm short); take a smaller press");
  };
  VecX q(fin.nq());
  q << 0.0, 0.3, 0.0, -2.2, 0.0, 2.5, 0.785, finger, finger;  // hand down, in front
  solve(0.0, 0.0, q);
  const int q7 = fin.links[fin.findLink("panda_link7")].q_index;
  // Turning the nut by -d (clockwise) turns joint 7 by +d.
  const double theta = q[q7] - q7_start;
  const double theta_end = theta - (q7_end - q7_start);
  const int knots = static_cast<int>(std::ceil((theta - theta_end) / knot_step));
  q[q7] = q7_start;
  // The nut starts meshed, each flank c from its mate; the path presses from its first knot.
  solve(theta, 0.0, q);
  panda.initial_q = q;
  for (int k = 0; k <= knots; ++k) {
    const double th = theta + (theta_end - theta) * k / knots;
    solve(th, press, q);
    panda.target.times.push_back(duration * k / knots);
    panda.target.positions.push_back(q);
  }
  const int robot = addPandaWithHand(m, std::move(panda), ph, mu);
  // The nut (group 2) meets only the bolt: not the hand and fingers that hold it.
  int nut_shape_index = -1;
  if (!weld) {
    nut_shape_index = m.addRobotShape(robot, nut_link, nut_shape, Pose(), mu);
  } else {
    // The nut's frame where the hand's initial pose puts it; its body frame at its centroid.
    // The drive's gravity compensation knows the robot's links only: the nut's weight (7.4 N at
    // 0.75 kg) adds to the press.
    RobotKinematics kin;
    kin.update(m, robot, m.robots[static_cast<std::size_t>(robot)].initial_q);
    const Pose frame = kin.link_pose[static_cast<std::size_t>(ph.hand_link)] * nut_in_hand;
    const Vec3 centroid = nut_shape.centroid();
    Body b = namedBody("nut", BodyKind::Dynamic, nut_mass);
    b.inertia = nut_shape.unitDensityInertia(nut_mass);
    b.initial_pose = frame * Pose{centroid, Quat::Identity()};
    const int nut = m.addBody(b);
    nut_shape_index = m.addShape(nut, nut_shape, Pose{-centroid, Quat::Identity()}, mu);
    const int hand =
        m.robots[static_cast<std::size_t>(robot)].link_body[static_cast<std::size_t>(ph.hand_link)];
    m.addJointAtWorld(JointType::Weld, nut, hand, b.initial_pose.position);
  }
  BodyShape& s = m.shapes[static_cast<std::size_t>(nut_shape_index)];
  s.group = 2;
  s.mask = ~1u;
}

}  // namespace

Model buildBoltNutScene(const ScenarioParams& p) {
  Model m;
  m.dt = 1.0 / 240.0;
  const double mu = p.get("mu");
  const BoltAndNut parts = boltAndNut(p);
  const double pitch = parts.bolt->spec().pitch;

  // A parameter of the other variant would be ignored: say so instead.
  const bool robot = p.getInt("robot") != 0;
  for (const char* name : {"duration", "press", "weld", "torque"})
    if (p.given(name) && robot == (std::string(name) == "torque"))
      throw ScenarioError(std::string("boltnut: ") + name +
                          " applies to robot=" + (robot ? "0" : "1") +
                          " only (this is robot=" + (robot ? "1" : "0") + ")");
  if (robot) {
    m.name = "boltnut";
    // The bolt stands on a 0.2 m pedestal 0.45 m in front of the Panda.
    const Vec3 foot(0.45, 0.0, 0.2);
    const int base = m.addBody(namedBody("bolt", BodyKind::Static));
    m.bodies[static_cast<std::size_t>(base)].initial_pose.position = foot;
    BodyShape& bolt = m.shapes[static_cast<std::size_t>(
        m.addShape(base, Shape::signedDistance(parts.bolt), Pose(), mu))];
    bolt.group = 4;
    m.addShape(base, Shape::cylinder(0.05, 0.1), Pose{Vec3(0.0, 0.0, -0.1), Quat::Identity()}, mu);
    addPandaThreadingNut(m, parts, foot, p.get("nut_mass"), p.get("duration"), p.get("press"),
                         p.getInt("weld") != 0, mu);
    return m;
  }

  const int base = m.addBody(namedBody("bolt", BodyKind::Static));
  m.addShape(base, Shape::signedDistance(parts.bolt), Pose(), mu);

  // The nut's frame a whole number of pitches up the bolt, unturned: the two threads are in
  // phase, each flank c from its mate.  Its body frame is at its centre of mass.
  const Shape shape = Shape::signedDistance(parts.nut);
  const double mass = p.get("nut_mass");
  Body b = namedBody("nut", BodyKind::Dynamic, mass);
  b.inertia = shape.unitDensityInertia(mass);
  const Vec3 centroid = shape.centroid();
  b.initial_pose.position = Vec3(0, 0, 8 * pitch) + centroid;
  b.applied_torque = Vec3(0, 0, p.get("torque"));
  m.addShape(m.addBody(b), shape, Pose{-centroid, Quat::Identity()}, mu);
  return m;
}

}  // namespace subsim
