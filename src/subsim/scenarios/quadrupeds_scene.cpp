// The AL paper's quadruped ablation scene (Table III): N Laikago-like quadrupeds, 18 DOF each
// (floating trunk + 4 legs x 3 revolute joints), dropped on the floor on a grid.  Every robot is
// one subsystem, so the default 8 robots give 144 DOF in 8 subsystems.
//
// The legs are held by the implicit joint PD of robot_rows.hpp toward a standing pose, without
// gravity compensation, so the feet's contact forces carry the weight through the drives: the
// trunk lands on its feet and settles about a centimetre below the pose's 0.40 m (the knees give
// under the load).  Contact is by the four sphere feet only, 4 contacts per standing robot.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

namespace {

// Dimensions and masses, roughly those of Unitree's Laikago (laikago.urdf), simplified.
constexpr double kTrunkMass = 10.0;
const Vec3 kTrunkHalf(0.25, 0.15, 0.075);
constexpr double kHipX = 0.21, kHipY = 0.075;       // abduction joint in the trunk frame
constexpr double kHipMass = 0.5, kHipOffset = 0.1;  // thigh joint beside the abduction joint
constexpr double kThighMass = 1.0, kThighLength = 0.25, kThighRadius = 0.025;
constexpr double kCalfMass = 0.2, kCalfLength = 0.25, kCalfRadius = 0.015;
constexpr double kFootRadius = 0.02;
// Standing pose: the knee behind the hip; knee = -2 x thigh tilts the calf as far forward as the
// thigh tilts back, so the foot is straight under the hip and the trunk stands level.
constexpr double kStandAbduction = 0.0, kStandThigh = 0.7, kStandKnee = -1.4;
// Joint PD, the same on every joint.  Measured at dt = 10 ms: kp = 50, kd = 1 lets the trunk
// rock back onto its rear calves (the legs' mass sits behind the hips, so the rear legs carry
// more and their knees fold to -1.7 rad); kp = 100 stands at 0.39 m, level, and kd = 5 damps the
// landing bounce and the slow pitch sway to below 1 cm/s within 1.5 s.
constexpr double kKp = 100.0, kKd = 5.0;

/// A leg segment along -z of its frame: centre of mass at half length, a rod's inertia.
Mat3 rodInertia(double mass, double length, double radius) {
  const double across = mass * (3.0 * radius * radius + length * length) / 12.0;
  return Vec3(across, across, 0.5 * mass * radius * radius).asDiagonal();
}

ArticulationLink revolute(const std::string& name, int parent, const Vec3& origin, const Vec3& axis,
                          double lower, double upper) {
  ArticulationLink link;
  link.name = name;
  link.parent = parent;
  link.joint = ArticulationJointType::Revolute;
  link.joint_name = name + "_joint";
  link.joint_origin.position = origin;
  link.axis = axis;
  link.limited = true;
  link.lower = lower;
  link.upper = upper;
  // About Laikago's peak motor torque; far above what standing needs (about 10 N m at the
  // knee), so the clamp only matters on a hard landing.
  link.effort_limit = 55.0;
  return link;
}

Articulation quadrupedArticulation() {
  Articulation art;
  art.name = "quadruped";
  ArticulationLink trunk;
  trunk.name = "trunk";
  trunk.joint = ArticulationJointType::Floating;
  trunk.joint_name = "floating_base";
  trunk.mass = kTrunkMass;
  trunk.inertia = Shape::box(kTrunkHalf).unitDensityInertia(kTrunkMass);
  art.links.push_back(trunk);
  const char* names[4] = {"FR", "FL", "RR", "RL"};
  for (int leg = 0; leg < 4; ++leg) {
    const double sx = leg < 2 ? 1.0 : -1.0, sy = leg % 2 == 0 ? -1.0 : 1.0;
    const std::string n = names[leg];
    // Abduction about x: limits symmetric, Laikago's +-0.87 rad.
    ArticulationLink hip =
        revolute(n + "_hip", 0, Vec3(sx * kHipX, sy * kHipY, 0.0), Vec3::UnitX(), -0.87, 0.87);
    hip.mass = kHipMass;
    hip.com = Vec3(0.0, sy * 0.5 * kHipOffset, 0.0);
    hip.inertia = 4e-4 * Mat3::Identity();
    const int hip_index = static_cast<int>(art.links.size());
    art.links.push_back(hip);
    // Hip flexion about y, the leg outside the trunk.
    ArticulationLink thigh = revolute(n + "_thigh", hip_index, Vec3(0.0, sy * kHipOffset, 0.0),
                                      Vec3::UnitY(), -0.52, 3.9);
    thigh.mass = kThighMass;
    thigh.com = Vec3(0.0, 0.0, -0.5 * kThighLength);
    thigh.inertia = rodInertia(kThighMass, kThighLength, kThighRadius);
    const int thigh_index = static_cast<int>(art.links.size());
    art.links.push_back(thigh);
    // Knee about y: it only folds backward (negative angles), as Laikago's does.
    ArticulationLink calf = revolute(n + "_calf", thigh_index, Vec3(0.0, 0.0, -kThighLength),
                                     Vec3::UnitY(), -2.6, -0.3);
    calf.mass = kCalfMass;
    calf.com = Vec3(0.0, 0.0, -0.5 * kCalfLength);
    calf.inertia = rodInertia(kCalfMass, kCalfLength, kCalfRadius);
    art.links.push_back(calf);
  }
  art.finalize();
  return art;
}

}  // namespace

Model buildQuadrupedsScene(const ScenarioParams& params) {
  const int n = params.getInt("robots");
  const double mu = params.get("mu");
  const double height = params.get("height");
  const double spacing = params.get("spacing");
  Model m;
  m.name = "quadrupeds";
  m.dt = 0.01;
  addGround(m, mu);

  const Articulation art = quadrupedArticulation();
  VecX stand = art.neutralConfiguration();
  for (const ArticulationLink& link : art.links) {
    if (link.joint != ArticulationJointType::Revolute) continue;
    const bool abduction = link.axis.isApprox(Vec3::UnitX());
    const bool knee = link.name.ends_with("_calf");
    stand[link.q_index] = abduction ? kStandAbduction : (knee ? kStandKnee : kStandThigh);
  }
  // Drop height: the lowest foot `height` above the floor with the trunk at z = 0 shifted up.
  std::vector<Pose> poses;
  forwardKinematics(art, stand, poses);
  double lowest = std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < art.links.size(); ++k)
    if (art.links[k].name.ends_with("_calf"))
      lowest =
          std::min(lowest, poses[k].transformPoint(Vec3(0.0, 0.0, -kCalfLength)).z() - kFootRadius);
  const double trunk_z = height - lowest;

  // A square grid centred on the origin, filled row by row.
  const int columns = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n))));
  const int rows = (n + columns - 1) / columns;
  for (int r = 0; r < n; ++r) {
    Robot robot;
    robot.name = "quadruped" + std::to_string(r);
    robot.articulation = art;
    robot.initial_q = stand;
    robot.initial_q.head<3>() = Vec3(spacing * ((r % columns) - 0.5 * (columns - 1)),
                                     spacing * ((r / columns) - 0.5 * (rows - 1)), trunk_z);
    robot.kp = VecX::Zero(art.nv());
    robot.kd = VecX::Zero(art.nv());
    robot.kp.tail(12).setConstant(kKp);  // the floating base (first 6) is not driven
    robot.kd.tail(12).setConstant(kKd);
    const int index = m.addRobot(std::move(robot));
    const Articulation& a = m.robots[index].articulation;
    m.addRobotShape(index, 0, Shape::box(kTrunkHalf), Pose(), mu);
    for (size_t k = 0; k < a.links.size(); ++k) {
      const int link = static_cast<int>(k);
      Pose along;  // segment shapes centred half way down the link's -z axis
      if (a.links[k].name.ends_with("_thigh")) {
        along.position = Vec3(0.0, 0.0, -0.5 * kThighLength);
        m.addRobotShape(index, link,
                        Shape::capsule(kThighRadius, 0.5 * kThighLength - kThighRadius), along, mu);
      } else if (a.links[k].name.ends_with("_calf")) {
        // The capsule stops short of the foot so that a standing leg touches with its foot only.
        along.position = Vec3(0.0, 0.0, -0.5 * (kCalfLength - kFootRadius));
        m.addRobotShape(
            index, link,
            Shape::capsule(kCalfRadius, 0.5 * (kCalfLength - kFootRadius) - kCalfRadius), along,
            mu);
        m.addRobotShape(index, link, Shape::sphere(kFootRadius),
                        Pose{Vec3(0.0, 0.0, -kCalfLength), Quat::Identity()}, mu);
      }
    }
  }
  return m;
}

}  // namespace subsim
