#include "subsim/scenarios/panda_model.hpp"

#include <limits>

#include "subsim/io/urdf_attach.hpp"
#include "subsim/io/urdf_loader.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

void setFrankaJointImpedance(Robot& robot, int first) {
  robot.kp.segment<7>(first) << 600.0, 600.0, 600.0, 600.0, 250.0, 150.0, 50.0;
  robot.kd.segment<7>(first) << 50.0, 50.0, 50.0, 20.0, 20.0, 20.0, 10.0;
  robot.gravity_compensation = true;
}

std::vector<IkTarget> rodDownTargets(int tool, const Vec3& tip) {
  // The stirrer frame's z points away from the flange, i.e. down when the rod is vertical.
  return {{tool, Vec3::Zero(), tip}, {tool, Vec3(0.0, 0.0, -0.1), tip + Vec3(0.0, 0.0, 0.1)}};
}

namespace {

ArticulationLink fingerLink(const char* name, int hand, double side) {
  ArticulationLink f;
  f.name = name;
  f.parent = hand;
  f.joint = ArticulationJointType::Prismatic;
  f.joint_name = std::string(name) + "_joint";
  f.joint_origin.position = Vec3(0.0, 0.0, 0.0584);
  f.axis = Vec3(0.0, side, 0.0);
  f.mass = 0.015;
  f.com = Vec3(0.0, 0.006 * side, 0.045);
  f.inertia = Mat3::Identity() * 2.375e-6;
  f.limited = true;
  f.lower = 0.0;
  f.upper = 0.04;
  f.effort_limit = 20.0;
  f.velocity_limit = 0.2;
  return f;
}

// The built-in Panda, and in `rod` its stirring rod's link, the last, which a tool replaces.
UrdfRobot builtinPandaForTool(int& rod) {
  UrdfRobot panda = loadUrdfString(pandaUrdf(), "built-in panda.urdf");
  rod = panda.articulation.findLink("panda_stirrer");
  if (rod < 0 || rod + 1 != static_cast<int>(panda.articulation.links.size()))
    throw ScenarioError("the built-in Panda's last link is not 'panda_stirrer'");
  return panda;
}

// Adds `panda` (finalized, its targets set) with Franka's joint impedance on the arm and (kp,
// kd) on the joints of `tool_links` (fixed ones skipped), and `urdf`'s collision shapes with
// friction mu.  Returns the robot's index.
int addPandaWithTool(Model& m, Robot panda, const UrdfRobot& urdf,
                     const std::vector<int>& tool_links, double kp, double kd, double mu) {
  const Articulation& art = panda.articulation;
  panda.kp.setZero(art.nv());
  panda.kd.setZero(art.nv());
  setFrankaJointImpedance(panda, 0);
  for (int l : tool_links) {
    const int v = art.links[static_cast<std::size_t>(l)].v_index;
    if (v < 0) continue;
    panda.kp[v] = kp;
    panda.kd[v] = kd;
  }
  const int robot = m.addRobot(std::move(panda));
  for (const UrdfCollision& c : urdf.collisions)
    m.addRobotShape(robot, c.link, c.shape, c.origin, mu);
  return robot;
}

}  // namespace

Robot pandaRobot(const Articulation& art) {
  Robot panda;
  panda.name = "panda";
  panda.articulation = art;
  panda.articulation.finalize();
  return panda;
}

PandaHand pandaWithHand() {
  PandaHand out;
  int rod = -1;
  out.urdf = builtinPandaForTool(rod);
  Articulation& art = out.urdf.articulation;
  // The stirring rod's link becomes the hand: same parent (the flange), its own frame and mass.
  ArticulationLink& hand = art.links[rod];
  hand.name = "panda_hand";
  hand.joint_name = "panda_hand_joint";
  hand.joint_origin = Pose{Vec3::Zero(), Quat(Eigen::AngleAxisd(-0.25 * M_PI, Vec3::UnitZ()))};
  hand.mass = 0.73;
  hand.com = Vec3(-0.01, 0.0, 0.03);
  hand.inertia = Vec3(0.001, 0.0025, 0.0017).asDiagonal();
  std::erase_if(out.urdf.collisions, [rod](const UrdfCollision& c) { return c.link == rod; });
  out.hand_link = rod;
  out.urdf.collisions.push_back(
      {rod, Shape::box(Vec3(0.03, 0.1, 0.029)), Pose{Vec3(0.0, 0.0, 0.029), Quat::Identity()}});
  for (int side = 0; side < 2; ++side) {
    const double sign = side == 0 ? 1.0 : -1.0;
    art.links.push_back(
        fingerLink(side == 0 ? "panda_leftfinger" : "panda_rightfinger", rod, sign));
    out.finger_links[side] = static_cast<int>(art.links.size()) - 1;
    out.urdf.collisions.push_back({out.finger_links[side], Shape::box(Vec3(0.01, 0.006, 0.02)),
                                   Pose{Vec3(0.0, 0.006 * sign, 0.045), Quat::Identity()}});
  }
  return out;
}

PandaAllegro pandaWithAllegroHand() {
  PandaAllegro out;
  int rod = -1;
  out.urdf = builtinPandaForTool(rod);
  Articulation& art = out.urdf.articulation;
  const int flange = art.links[rod].parent;
  art.links.pop_back();
  std::erase_if(out.urdf.collisions, [rod](const UrdfCollision& c) { return c.link == rod; });
  const UrdfRobot hand = loadUrdfString(allegroHandUrdf(), "built-in allegro_hand.urdf");
  out.palm_link = attachUrdf(out.urdf, flange, Pose{Vec3(0.0, 0.0, 0.095), Quat::Identity()}, hand);
  const char* tips[4] = {"link_3.0_tip", "link_7.0_tip", "link_11.0_tip", "link_15.0_tip"};
  for (int f = 0; f < 4; ++f) {
    out.tip_links[f] = art.findLink(tips[f]);
    if (out.tip_links[f] < 0)
      throw ScenarioError(std::string("the built-in Allegro hand has no link '") + tips[f] + "'");
    for (int l = out.tip_links[f]; l != out.palm_link; l = art.links[l].parent)
      out.finger_links[f].insert(out.finger_links[f].begin(), l);
  }
  return out;
}

int addPandaWithAllegroHand(Model& m, Robot panda, const PandaAllegro& pa, double mu) {
  std::vector<int> hand_links;
  for (int l = pa.palm_link; l < static_cast<int>(panda.articulation.links.size()); ++l)
    hand_links.push_back(l);
  return addPandaWithTool(m, std::move(panda), pa.urdf, hand_links, 3.0, 0.5, mu);
}

VecX solveFrankaHandIk(const PandaHand& ph, const Articulation& art, const Pose& base,
                       const Vec3& tcp, const Mat3& axes, double fingers,
                       const std::vector<VecX>& starts, bool half_turn, double& miss) {
  Articulation arm_only = art;
  for (int f : ph.finger_links) arm_only.links[f].lower = arm_only.links[f].upper = fingers;
  const Mat3 flip = Vec3(-1.0, -1.0, 1.0).asDiagonal();
  VecX q = starts.front();
  miss = std::numeric_limits<double>::infinity();
  for (int turn = 0; turn < (half_turn ? 2 : 1); ++turn) {
    const Mat3 r = turn == 0 ? axes : Mat3(axes * flip);
    const Pose hand{tcp - r * kFrankaHandTcp, Quat(r)};
    std::vector<IkTarget> targets;
    for (const Vec3& p : {Vec3(kFrankaHandTcp), Vec3(kFrankaHandTcp - Vec3(0.0, 0.0, 0.1)),
                          Vec3(kFrankaHandTcp + Vec3(0.05, 0.0, 0.0))})
      targets.push_back({ph.hand_link, p, hand.transformPoint(p)});
    for (const VecX& start : starts) {
      VecX trial = start;
      for (int f : ph.finger_links) trial[art.links[f].q_index] = fingers;
      const double m = solvePositionIk(arm_only, base, targets, trial, 1000, 1e-7);
      if (m < miss - 1e-6) {
        miss = m;
        q = trial;
      }
    }
  }
  return q;
}

ArticulationLink weldedPartLink(const std::string& name, int parent, const Pose& origin,
                                const Shape& shape, double mass) {
  ArticulationLink link;
  link.name = name;
  link.parent = parent;
  link.joint = ArticulationJointType::Fixed;
  link.joint_name = name + "_weld";
  link.joint_origin = origin;
  link.mass = mass;
  link.com = shape.centroid();
  link.inertia = shape.unitDensityInertia(mass);
  return link;
}

int addPandaWithHand(Model& m, Robot panda, const PandaHand& ph, double mu) {
  return addPandaWithTool(m, std::move(panda), ph.urdf, {ph.finger_links[0], ph.finger_links[1]},
                          800.0, 10.0, mu);
}

PandaOnPath addPandaFollowingTip(Model& m, const std::string& scene, const Pose& base,
                                 const DoubleBuffer& times, const std::function<Vec3(double)>& tip,
                                 double mu, std::uint32_t group) {
  UrdfRobot urdf = loadUrdfString(pandaUrdf(), "built-in panda.urdf");
  Robot panda = pandaRobot(urdf.articulation);
  panda.base = base;
  const Articulation& art = panda.articulation;
  PandaOnPath out;
  out.tool_link = art.findLink("panda_stirrer");
  if (out.tool_link < 0)
    throw ScenarioError(scene + ": the built-in Panda has no link 'panda_stirrer'");
  VecX q(art.nq());
  q << 0.0, 0.2, 0.0, -2.0, 0.0, 2.2, 0.785;
  for (double t : times) {
    const double miss =
        solvePositionIk(art, panda.base, rodDownTargets(out.tool_link, tip(t)), q, 500, 1e-7);
    if (miss > 1e-3)
      throw ScenarioError(scene + ": the Panda cannot reach its tool path at t = " +
                          std::to_string(t) + " s (" + std::to_string(miss * 1e3) + " mm short)");
    panda.target.times.push_back(t);
    panda.target.positions.push_back(q);
  }
  panda.initial_q = panda.target.positions.front();
  panda.kp.resize(7);
  panda.kd.resize(7);
  setFrankaJointImpedance(panda, 0);
  out.robot = m.addRobot(std::move(panda));
  for (const UrdfCollision& c : urdf.collisions)
    m.shapes[m.addRobotShape(out.robot, c.link, c.shape, c.origin, mu)].group = group;
  return out;
}

}  // namespace subsim
