// The AL paper's dishes (Sec. VII-B, Appendix B): bowls, plates and a pot as revolved padded
// profiles, stacked bowl-bowl-plate-pot on the floor: the single-step study's configuration
// (light 0.1 kg dishes under a 5 kg pot), without the robot.
#include <memory>
#include <string>
#include <vector>

#include "subsim/geometry/collide_sdf.hpp"
#include "subsim/geometry/revolved_profile_shape.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

namespace {

// The paper's O-A-B profiles (eq. 45) in m: a bowl, a plate, and a pot with a near-vertical wall.
std::shared_ptr<const SignedDistanceShape> dish(const std::vector<Vec2>& profile, double padding,
                                                int segments) {
  return std::make_shared<RevolvedProfileShape>(profile, padding, segments, 0.01);
}

/// The lowest height in [low, high] at which `shape` (upright, on the axis) clears `below` at
/// its pose by `clearance`, by bisection: overlapping at `low`, clear at `high`, and a dish
/// raised along the common axis only ever moves away from the one below.
double restingHeight(const Shape& shape, const Shape& below, const Pose& below_pose, double low,
                     double high, double clearance) {
  std::vector<ManifoldPoint> points;
  auto clears = [&](double z) {
    collideSignedDistance(shape, Pose{Vec3(0, 0, z), Quat::Identity()}, below, below_pose,
                          clearance, kSignedDistanceContactCap, points);
    return points.empty();
  };
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (low + high);
    (clears(mid) ? high : low) = mid;
  }
  return high;
}

}  // namespace

Model buildDishStackScene(const ScenarioParams& p) {
  Model m;
  m.dt = 1.0 / 240.0;
  const double mu = p.get("mu");
  const int segments = p.getInt("segments");
  const int ground = addGround(m, mu);
  const Shape floor = m.shapes[static_cast<std::size_t>(m.bodies[ground].shapes.front())].shape;

  const auto bowl = dish({{0, 0}, {0.04, 0}, {0.08, 0.05}}, 0.002, segments);
  const auto plate = dish({{0, 0}, {0.06, 0}, {0.11, 0.015}}, 0.002, segments);
  const auto pot = dish({{0, 0}, {0.085, 0}, {0.09, 0.1}}, 0.003, segments);
  struct Piece {
    const char* name;
    std::shared_ptr<const SignedDistanceShape> field;
    double mass;
  };
  const Piece pieces[] = {{"bowl0", bowl, p.get("dish_mass")},
                          {"bowl1", bowl, p.get("dish_mass")},
                          {"plate", plate, p.get("dish_mass")},
                          {"pot", pot, p.get("pot_mass")}};
  // Each piece starts `clearance` above the one below (the floor first), so the stack settles
  // within a few steps.
  const double clearance = 1e-4;
  Shape below = floor;
  Pose below_pose;
  const int count = p.getInt("pieces");
  for (int k = 0; k < count; ++k) {
    const Piece& piece = pieces[k];
    const Shape shape = Shape::signedDistance(piece.field);
    // At the height of the frame below, every piece overlaps what is below it.
    const double base = restingHeight(shape, below, below_pose, below_pose.position.z(),
                                      below_pose.position.z() + 0.3, clearance);
    Body b = namedBody(piece.name, BodyKind::Dynamic, piece.mass);
    b.inertia = shape.unitDensityInertia(piece.mass);
    const Vec3 centroid = shape.centroid();
    b.initial_pose.position = Vec3(0, 0, base) + centroid;
    m.addShape(m.addBody(b), shape, Pose{-centroid, Quat::Identity()}, mu);
    below = shape;
    below_pose = Pose{Vec3(0, 0, base), Quat::Identity()};
  }
  return m;
}

}  // namespace subsim
