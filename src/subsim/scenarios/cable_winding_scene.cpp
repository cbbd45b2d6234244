// The COND paper's cable winding scene (section V-C5, Table V; Table VIII's 120-link variant): a
// Panda winds a Cosserat cable (the paper: 320 links, 1927 DOF, E 2.954 MPa, nu 0.49, mu 1.3)
// around a fixed post.  The paper gives neither the cable's size nor the motion; ours: a 0.6 m,
// 1 cm thick cable lies on the floor tangent to a 3 cm post, its far end welded to the floor; the
// rod's end holds the near end (compliantly, as a gripper holds a soft cable), lifts it 2.5 cm and
// carries it `turns` of a turn around the post, on the involute that keeps the free part taut
// (its length shrinks by the arc the cable lays on the post), rising `rise` as it goes so that
// the wraps do not meet (the segments do not collide with each other).  The grip's force is the
// paper's end-effector force (FE), measured here per solver against a converged reference.
#include <cmath>

#include "subsim/math/portable_math.hpp"
#include "subsim/model/cosserat_cable.hpp"
#include "subsim/scenarios/panda_model.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

Model buildCableWindingScene(const ScenarioParams& p) {
  Model m;
  m.name = "cablewind";
  m.dt = 0.01;
  const double mu = p.get("mu");
  const int ground = addGround(m, mu);
  m.shapes.back().mask = ~2u;  // the arm (group 2) never reaches the floor; its rod's end may

  // The post at the origin, 25 cm tall: a capsule whose lower cap is sunk into the floor, so it
  // is a full cylinder where the cable touches it.  The arm passes over it, not through it.
  const double post_radius = 0.03, post_top = 0.25, post_bottom = -0.05;
  Pose post_pose;
  post_pose.position = Vec3(0.0, 0.0, 0.5 * (post_top + post_bottom));
  const int post =
      m.addShape(ground, Shape::capsule(post_radius, 0.5 * (post_top - post_bottom) - post_radius),
                 post_pose, mu);
  m.shapes[post].mask = ~2u;

  CosseratCableSpec spec;
  spec.name = "cable";
  spec.segments = p.getInt("segments");
  spec.length = 0.6;
  spec.radius = 0.005;
  spec.young = p.get("young") * 1e6;
  spec.poisson = 0.49;
  spec.mu = mu;
  spec.segments_per_subsystem = p.getInt("per_subsystem");
  spec.collision_mask = ~(0x80000000u | 2u);
  // Along -x on the floor, tangent to the post on its -y side (1 mm off), from the held end at
  // x = 0.3 to the welded one at x = -0.3.
  const double rho = post_radius + spec.radius + 1e-3;  // the wound cable's axis about the post's
  const double free0 = 0.3;                             // the held end's distance from the tangent
  spec.start = Vec3(free0, -rho, spec.radius + 1e-4);
  spec.direction = -Vec3::UnitX();
  const CosseratCable cable = addCosseratCable(m, spec);

  // The tip leaves the tangent point at angle a (from -pi/2) along the tangent, the free length
  // shrinking by the arc rho (a + pi/2) the cable lays on the post: the involute of the circle.
  const double lift = 0.025, lift_time = 0.5, duration = p.get("duration");
  const double sweep = 2.0 * M_PI * p.get("turns"), rise = p.get("rise");
  const auto tip = [&](double t) {
    const double s = std::clamp((t - lift_time) / (duration - lift_time), 0.0, 1.0);
    const double turned = sweep * (0.5 - 0.5 * portableCos(M_PI * s));  // smooth start and stop
    const double a = -0.5 * M_PI + turned, free = free0 - rho * turned;
    double sin_a, cos_a;
    portableSinCos(a, sin_a, cos_a);
    const double z = spec.start.z() + lift * std::min(t / lift_time, 1.0) + rise * s;
    return Vec3(rho * cos_a - free * sin_a, rho * sin_a + free * cos_a, z);
  };
  if (free0 - rho * sweep < 0.05)
    throw ScenarioError("cablewind: turns: " + std::to_string(p.get("turns")) +
                        " turns wind all but " + std::to_string(free0 - rho * sweep) +
                        " m of the 0.3 m free cable; expected at most " +
                        std::to_string((free0 - 0.05) / (2.0 * M_PI * rho)));
  DoubleBuffer times;
  for (int k = 0; k <= 4; ++k) times.push_back(lift_time * k / 4);
  for (int k = 1; k <= 24; ++k) times.push_back(lift_time + (duration - lift_time) * k / 24);
  times.push_back(duration + 1.0);
  // The base on the post's -y side, facing +y, within reach of the whole path.
  Pose base;
  base.position = Vec3(0.05, -0.42, 0.0);
  base.orientation = Quat(Eigen::AngleAxisd(0.5 * M_PI, Vec3::UnitZ()));
  const PandaOnPath panda = addPandaFollowingTip(m, "cablewind", base, times, tip, mu, 2);

  // The held end welded to the rod's end, compliant like a gripper's hold; the far end to the
  // floor.
  const int tool_body = m.robots[panda.robot].link_body[panda.tool_link];
  addCableGrip(m, cable.first_body, tool_body, spec.start, p.get("grip_stiffness"));
  m.addJointAtWorld(JointType::Weld, cable.first_body + cable.segments - 1, ground,
                    spec.start + spec.length * spec.direction);
  return m;
}

}  // namespace subsim
