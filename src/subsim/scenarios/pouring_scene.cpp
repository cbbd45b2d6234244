// The AL paper's pouring (Sec. VII-C, Figs. 10-11): particles of radius 5 mm and density
// 10 g/cm^3 poured from one bottle into another by a dual-arm robot.  Here two Pandas with the
// Franka Hand stand in for the paper's 28-DOF Unitree G1 upper body with grippers (2 x 9 DOF),
// and each bottle, a padded profile revolved about its axis like the dishes, is welded to its
// hand as a link (the reach-and-grasp phase is left out).  Panda A holds the source bottle
// (6.4 cm across, 12 cm high) with the particles in it; Panda B holds the wider target bottle
// (7.6 cm across, 10 cm high) beside and below it.  A tilts its bottle by turning joint 7 (the
// hand's approach axis is horizontal and passes through the bottle's axis): hold 0.5 s while the
// particles settle, tilt by `tilt` over `duration`, hold 1 s.
#include <array>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/geometry/revolved_profile_shape.hpp"
#include "subsim/scenarios/panda_model.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

namespace {

constexpr double kWall = 0.002;  // the profiles' padding: half the wall's thickness, m
constexpr std::uint32_t kBottleGroup = 2, kParticleGroup = 8;

struct Bottle {
  double radius, height, mass;  // profile radius and height (m), kg
};

/// A Panda (base `base`) whose hand holds `bottle` upright with its axis through `centre`, the
/// hand's approach direction `approach` (horizontal), its fingers against the bottle's flanks.
/// The bottle is a link welded to the hand; the robot's initial configuration is position IK's
/// from a guess with the hand in front of the base.
struct PandaWithBottle {
  PandaHand ph;
  Robot robot;
  int bottle_link = -1;
};

PandaWithBottle pandaHolding(const std::string& name, const Pose& base, const Vec3& centre,
                             const Vec3& approach, const Bottle& bottle,
                             const std::shared_ptr<const SignedDistanceShape>& field) {
  PandaWithBottle out;
  out.ph = pandaWithHand();
  const PandaHand& ph = out.ph;
  const double finger = bottle.radius + kWall + 2e-4;
  Articulation arm = ph.urdf.articulation;
  arm.finalize();
  // The hand's z along the approach, its x up the bottle's axis, its fingers (y) across it.
  Mat3 r;
  r.col(2) = approach.normalized();
  r.col(0) = Vec3::UnitZ();
  r.col(1) = r.col(2).cross(r.col(0));
  // IK from a few guesses with the hand forward and level (Franka's ready pose with joint 6
  // turned back).
  std::vector<VecX> starts;
  for (const auto& g : {std::array<double, 7>{0.0, -0.785, 0.0, -2.356, 0.0, 0.0, 0.785},
                        std::array<double, 7>{0.0, 0.0, 0.0, -1.571, 0.0, 0.2, 0.785},
                        std::array<double, 7>{0.0, 0.3, 0.0, -1.8, 0.0, 0.6, 0.785},
                        std::array<double, 7>{0.0, 0.0, 0.0, -2.0, 0.0, 2.0, 0.785}}) {
    VecX start(arm.nq());
    start << g[0], g[1], g[2], g[3], g[4], g[5], g[6], finger, finger;
    starts.push_back(start);
  }
  double miss = 0.0;
  const VecX q = solveFrankaHandIk(ph, arm, base, centre, r, finger, starts, false, miss);
  if (miss > 1e-4)
    throw ScenarioError("pouring: Panda '" + name + "' cannot hold its bottle at (" +
                        std::to_string(centre.x()) + ", " + std::to_string(centre.y()) + ", " +
                        std::to_string(centre.z()) + ") (" + std::to_string(miss * 1e3) +
                        " mm short)");
  std::vector<Pose> links;
  forwardKinematics(arm, q, links);
  const Pose hand_world = base * links[static_cast<std::size_t>(ph.hand_link)];
  const Pose bottle_world{centre - Vec3(0.0, 0.0, 0.5 * bottle.height), Quat::Identity()};
  const Pose bottle_in_hand{hand_world.inverseTransformPoint(bottle_world.position),
                            hand_world.orientation.conjugate() * bottle_world.orientation};

  const Shape shape = Shape::signedDistance(field);
  out.robot.name = name;
  out.robot.base = base;
  out.robot.articulation = ph.urdf.articulation;
  out.robot.articulation.links.push_back(
      weldedPartLink("bottle", ph.hand_link, bottle_in_hand, shape, bottle.mass));
  out.robot.articulation.finalize();
  out.bottle_link = static_cast<int>(out.robot.articulation.links.size()) - 1;
  out.robot.initial_q = q;
  return out;
}

std::shared_ptr<const SignedDistanceShape> bottleField(const Bottle& b, int segments) {
  return std::make_shared<RevolvedProfileShape>(
      std::vector<Vec2>{{0.0, 0.0}, {b.radius, 0.0}, {b.radius, b.height}}, kWall, segments, 0.01);
}

/// Adds the robot and its shapes; the bottle (group kBottleGroup) meets neither hand nor
/// fingers, only the particles and the other bottle.
void addHolder(Model& m, PandaWithBottle& holder, const Shape& bottle, double mu) {
  const int robot = addPandaWithHand(m, std::move(holder.robot), holder.ph, mu);
  BodyShape& s = m.shapes[static_cast<std::size_t>(
      m.addRobotShape(robot, holder.bottle_link, bottle, Pose(), mu))];
  s.group = kBottleGroup;
  s.mask = ~1u;
}

}  // namespace

Model buildPouringScene(const ScenarioParams& p) {
  Model m;
  m.name = "pouring";
  m.dt = 1.0 / 240.0;
  const double mu = p.get("mu");
  const int segments = p.getInt("segments");
  addGround(m, mu);

  const Bottle source{0.03, 0.12, p.get("bottle_mass")};
  const Bottle target{0.036, 0.10, p.get("bottle_mass")};
  const auto source_field = bottleField(source, segments);
  const auto target_field = bottleField(target, segments);
  const Vec3 pivot(0.45, 0.0, 0.55);  // the source bottle's middle, on joint 7's axis

  PandaWithBottle a = pandaHolding("panda_a", Pose(), pivot, Vec3::UnitX(), source, source_field);
  // Joint 7 turns about the hand's approach (+x): the tilt turns it whichever way its range
  // allows, and the target bottle goes on that side, its mouth under the tilted one's.
  const double tilt = p.get("tilt") * std::numbers::pi / 180.0;
  const ArticulationLink& j7 =
      a.robot.articulation
          .links[static_cast<std::size_t>(a.robot.articulation.findLink("panda_link7"))];
  const double q7 = a.robot.initial_q[j7.q_index];
  double turn = -tilt;  // q7 falling: the bottle's axis leans towards +y
  if (q7 + turn < j7.lower + 0.05) turn = tilt;
  if (q7 + turn > j7.upper - 0.05)
    throw ScenarioError("pouring: tilt=" + std::to_string(p.get("tilt")) +
                        " turns the Panda's joint 7 out of its range; take a smaller tilt");
  const double side = turn < 0.0 ? 1.0 : -1.0;
  const Vec3 target_centre(0.45, side * 0.08, 0.35 + 0.5 * target.height);
  PandaWithBottle b = pandaHolding(
      "panda_b",
      Pose{Vec3(0.9, side * 0.08, 0.0), Quat(Eigen::AngleAxisd(std::numbers::pi, Vec3::UnitZ()))},
      target_centre, -Vec3::UnitX(), target, target_field);

  const double duration = p.get("duration");
  VecX tilted = a.robot.initial_q;
  tilted[j7.q_index] += turn;
  a.robot.target.times = {0.0, 0.5, 0.5 + duration};
  a.robot.target.positions = {a.robot.initial_q, a.robot.initial_q, tilted};
  addHolder(m, a, Shape::signedDistance(source_field), mu);
  addHolder(m, b, Shape::signedDistance(target_field), mu);

  // The particles in the upright source bottle, in layers of a square grid (pitch 11 mm) within
  // its inner radius, from 0.5 mm above its inner bottom.
  const double radius = 0.005;
  const double mass =
      1000.0 * p.get("density") * 4.0 / 3.0 * std::numbers::pi * radius * radius * radius;
  const double pitch = 2.0 * radius + 0.001;
  const double reach = source.radius - kWall - radius - 5e-4;
  std::vector<Vec2> grid;
  for (int i = -3; i <= 3; ++i)
    for (int j = -3; j <= 3; ++j)
      if (std::hypot(i * pitch, j * pitch) <= reach) grid.emplace_back(i * pitch, j * pitch);
  const int n = p.getInt("particles");
  const double bottom = pivot.z() - 0.5 * source.height + kWall + radius + 5e-4;
  const int layers =
      static_cast<int>(std::floor((source.height - kWall - 2.0 * radius - 5e-4) / pitch)) + 1;
  const int capacity = layers * static_cast<int>(grid.size());
  if (n > capacity)
    throw ScenarioError("pouring: particles=" + std::to_string(n) +
                        " do not fit in the source bottle: take at most " +
                        std::to_string(capacity));
  const Shape sphere = Shape::sphere(radius);
  for (int k = 0; k < n; ++k) {
    const int layer = k / static_cast<int>(grid.size());
    const Vec2& g = grid[static_cast<std::size_t>(k) % grid.size()];
    const double z = bottom + layer * pitch;
    Body body = namedBody("particle" + std::to_string(k), BodyKind::Dynamic, mass);
    body.inertia = sphere.unitDensityInertia(mass);
    body.initial_pose.position = Vec3(pivot.x() + g.x(), pivot.y() + g.y(), z);
    BodyShape& s =
        m.shapes[static_cast<std::size_t>(m.addShape(m.addBody(body), sphere, Pose(), mu))];
    s.group = kParticleGroup;
  }
  return m;
}

}  // namespace subsim
