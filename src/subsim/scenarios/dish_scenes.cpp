// The AL paper's dishes (Sec. VII-B, Appendix B): bowls, plates and a pot as revolved padded
// profiles.  `dishstack`: stacked bowl-bowl-plate-pot on the floor, the single-step study's
// configuration (light 0.1 kg dishes under a 5 kg pot), without the robot.  `dishes`: the piling
// task with a robot: the Panda with the Franka Hand (a parallel gripper) or, as the paper, with
// the 16-DOF Allegro hand (`allegro=1`) picks a bowl up by its rim and places it into another,
// which stands on the floor or (`pile=1`) on a plate on a 5 kg pot.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "subsim/geometry/collide_sdf.hpp"
#include "subsim/geometry/revolved_profile_shape.hpp"
#include "subsim/scenarios/panda_model.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

namespace {

// The paper's O-A-B profiles (eq. 45) in m: a bowl, a plate, and a pot with a near-vertical wall.
std::shared_ptr<const SignedDistanceShape> dish(const std::vector<Vec2>& profile, double padding,
                                                int segments) {
  return std::make_shared<RevolvedProfileShape>(profile, padding, segments, 0.01);
}

/// The lowest height in [low, high] at which `shape` (upright, on the vertical axis through
/// `below_pose`) clears `below` at its pose by `clearance`, by bisection: overlapping at `low`,
/// clear at `high`, and a dish raised along the common axis only ever moves away from the one
/// below.
double restingHeight(const Shape& shape, const Shape& below, const Pose& below_pose, double low,
                     double high, double clearance) {
  std::vector<ManifoldPoint> points;
  auto clears = [&](double z) {
    const Pose at{Vec3(below_pose.position.x(), below_pose.position.y(), z), Quat::Identity()};
    collideSignedDistance(shape, at, below, below_pose, clearance, kSignedDistanceContactCap,
                          points);
    return points.empty();
  };
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (low + high);
    (clears(mid) ? high : low) = mid;
  }
  return high;
}

/// The paper's dishes: a bowl, a plate and a pot with a near-vertical wall.
struct DishFields {
  std::shared_ptr<const SignedDistanceShape> bowl, plate, pot;
  explicit DishFields(int segments)
      : bowl(dish({{0, 0}, {0.04, 0}, {0.08, 0.05}}, 0.002, segments)),
        plate(dish({{0, 0}, {0.06, 0}, {0.11, 0.015}}, 0.002, segments)),
        pot(dish({{0, 0}, {0.085, 0}, {0.09, 0.1}}, 0.003, segments)) {}
};

struct Piece {
  const char* name;
  std::shared_ptr<const SignedDistanceShape> field;
  double mass;
};

// Each piece starts this far above the one below (the floor first), so a stack settles within a
// few steps.
constexpr double kStackClearance = 1e-4;

/// Stacks `pieces` upright on the axis through (x, y), the first on `floor`, each one
/// kStackClearance above the one below, as dynamic bodies with friction mu.  Returns the pose of
/// the top piece's profile frame (its base's centre).
Pose stackPieces(Model& m, const std::vector<Piece>& pieces, double x, double y, const Shape& floor,
                 double mu) {
  Shape below = floor;
  Pose below_pose;
  below_pose.position = Vec3(x, y, 0.0);
  for (const Piece& piece : pieces) {
    const Shape shape = Shape::signedDistance(piece.field);
    // At the height of the frame below, every piece overlaps what is below it.
    const double base = restingHeight(shape, below, below_pose, below_pose.position.z(),
                                      below_pose.position.z() + 0.3, kStackClearance);
    Body b = namedBody(piece.name, BodyKind::Dynamic, piece.mass);
    b.inertia = shape.unitDensityInertia(piece.mass);
    const Vec3 centroid = shape.centroid();
    b.initial_pose.position = Vec3(x, y, base) + centroid;
    m.addShape(m.addBody(b), shape, Pose{-centroid, Quat::Identity()}, mu);
    below = shape;
    below_pose = Pose{Vec3(x, y, base), Quat::Identity()};
  }
  return below_pose;
}

}  // namespace

Model buildDishStackScene(const ScenarioParams& p) {
  Model m;
  m.dt = 1.0 / 240.0;
  const double mu = p.get("mu");
  const int ground = addGround(m, mu);
  const Shape floor = m.shapes[static_cast<std::size_t>(m.bodies[ground].shapes.front())].shape;
  const DishFields dishes(p.getInt("segments"));
  const double mass = p.get("dish_mass");
  std::vector<Piece> pieces = {{"bowl0", dishes.bowl, mass},
                               {"bowl1", dishes.bowl, mass},
                               {"plate", dishes.plate, mass},
                               {"pot", dishes.pot, p.get("pot_mass")}};
  pieces.resize(static_cast<std::size_t>(p.getInt("pieces")));
  stackPieces(m, pieces, 0.0, 0.0, floor, mu);
  return m;
}

namespace {

/// Joint angles putting the Franka Hand's tool centre point at `tcp` with its axes `r` (columns:
/// the hand's x, y = the fingers' closing direction, z = the approach), the fingers held at
/// `fingers`: from `guess` (the path's previous knot), then from the hand down in front turned
/// towards the target (the first knot's guess is far from a tilted hand), each with the hand
/// also turned half a turn, whichever joint 7's range allows.
VecX handPose(const PandaHand& ph, const Robot& robot, const Vec3& tcp, const Mat3& r,
              double fingers, const VecX& guess) {
  VecX down(guess.size());
  down << std::atan2(tcp.y(), tcp.x()), 0.3, 0.0, -2.2, 0.0, 2.5, 0.785, fingers, fingers;
  double miss = 0.0;
  const VecX q = solveFrankaHandIk(ph, robot.articulation, robot.base, tcp, r, fingers,
                                   {guess, down}, true, miss);
  if (miss > 1e-4)
    throw ScenarioError("dishes: the Panda cannot put its hand at (" + std::to_string(tcp.x()) +
                        ", " + std::to_string(tcp.y()) + ", " + std::to_string(tcp.z()) + ") (" +
                        std::to_string(miss * 1e3) + " mm short)");
  return q;
}

/// The Panda with the 16-DOF Allegro hand picks the bowl at `pick` up by its rim, the three
/// fingers outside the wall and the thumb inside it, and lets it go above the bowl at `place`,
/// `nested` being the height at which it would rest in that one (both the bowls' base centres).
void addAllegroPicker(Model& m, const Vec3& pick, const Vec3& place, double nested, double mu) {
  PandaAllegro pa = pandaWithAllegroHand();
  Robot panda = pandaRobot(pa.urdf.articulation);
  const Articulation& art = panda.articulation;
  // The hand alone, to place the fingertips with the palm where the arm will put it.
  Articulation hand = loadUrdfString(allegroHandUrdf(), "built-in allegro_hand.urdf").articulation;
  hand.finalize();
  // The hand's coordinates follow the arm's, in the hand's own order.
  const int hand_offset = art.links[pa.finger_links[0].front()].q_index;
  int hand_tips[4];
  for (int f = 0; f < 4; ++f) hand_tips[f] = hand.findLink(art.links[pa.tip_links[f]].name);

  // The grip at the rim's point farthest from the robot: the hand comes over the bowl, its
  // fingers pointing out and down at `tilt` below the horizontal, its palm facing in and down.
  const double tilt = 50.0 * M_PI / 180.0;
  const Vec2 wall = Vec2(0.04, 0.05).normalized();  // the wall's direction, out and up
  struct Grip {
    Pose palm;
    VecX open, closed;  // the hand's 16 joint angles
  };
  auto grip = [&](const Vec3& base) {
    const Vec3 radial = Vec3(base.x(), base.y(), 0.0).normalized();
    Mat3 r;
    r.col(2) = std::cos(tilt) * radial - std::sin(tilt) * Vec3::UnitZ();
    r.col(0) = -(std::sin(tilt) * radial + std::cos(tilt) * Vec3::UnitZ());
    r.col(1) = r.col(2).cross(r.col(0));
    // The palm 3 cm above the rim's top (padded: 0.082 m out, 0.052 m up), the fingers' roots
    // 1 cm inside it.
    const Vec3 rim = base + 0.082 * radial + 0.052 * Vec3::UnitZ();
    Grip g;
    g.palm = Pose{rim - 0.03 * r.col(0) - 0.01 * r.col(2), Quat(r)};
    // A point `below` down the wall's mid-surface, `gap` out of its outer (sign +1) or inner
    // (-1) face, turned about the bowl's axis by the arc `along` (m, towards the palm's +y).
    const Vec3 tangent = Vec3::UnitZ().cross(radial);
    const double to_y = tangent.dot(r.col(1)) > 0.0 ? 1.0 : -1.0;
    auto onWall = [&](double below, double side, double gap, double along) {
      const Quat turn(Eigen::AngleAxisd(to_y * along / 0.08, Vec3::UnitZ()));
      const Vec3 rad = turn * radial;
      const Vec3 normal = wall.y() * rad - wall.x() * Vec3::UnitZ();
      const Vec3 mid =
          base + (0.08 - below * wall.x()) * rad + (0.05 - below * wall.y()) * Vec3::UnitZ();
      return Vec3(mid + side * (0.002 + kAllegroTipRadius + gap) * normal);
    };
    // The tips' centres 1 cm down the wall: index, middle and ring outside it 3 cm apart, the
    // thumb inside opposite the middle finger.  Open: 2.5 cm off the faces, so that the hand
    // comes down over the rim (which flares out) without touching it.  Closed: 8 mm into the
    // wall, so that the joints' impedance squeezes.
    const double along[4] = {0.03, 0.0, -0.03, 0.0};
    const double side[4] = {1.0, 1.0, 1.0, -1.0};
    for (int pass = 0; pass < 2; ++pass) {
      const double gap = pass == 0 ? 0.025 : -0.008;
      std::vector<IkTarget> targets;
      for (int f = 0; f < 4; ++f)
        targets.push_back({hand_tips[f], Vec3::Zero(), onWall(0.010, side[f], gap, along[f])});
      VecX q = pass == 0 ? VecX(VecX::Constant(hand.nq(), 0.5)) : g.open;
      q[art.links[pa.finger_links[3].front()].q_index - hand_offset] = 1.0;  // thumb under the palm
      const double miss = solvePositionIk(hand, g.palm, targets, q, 2000, 1e-7);
      if (pass == 0 && miss > 1e-4)
        throw ScenarioError("dishes: the Allegro hand's fingertips cannot reach around the rim (" +
                            std::to_string(miss * 1e3) + " mm short)");
      (pass == 0 ? g.open : g.closed) = q;
    }
    return g;
  };
  // The arm's joints putting the palm at `palm` with the hand's joints at `fingers`, from the
  // previous knot `guess` and from the arm reaching forward, whichever ends nearer.
  auto armPose = [&](const Pose& palm, const VecX& fingers, const VecX& guess) {
    Articulation locked = art;
    VecX q = guess;
    q.segment(hand_offset, fingers.size()) = fingers;
    for (ArticulationLink& l : locked.links)
      if (l.q_index >= hand_offset) l.lower = l.upper = q[l.q_index];
    std::vector<IkTarget> targets;
    for (const Vec3& point : {Vec3(0.0, 0.0, 0.0), Vec3(0.0, 0.0, -0.1), Vec3(0.05, 0.0, 0.0)})
      targets.push_back({pa.palm_link, point, palm.transformPoint(point)});
    VecX forward = q;
    forward.head<7>() << std::atan2(palm.position.y(), palm.position.x()), 0.3, 0.0, -2.0, 0.0, 2.0,
        0.0;
    double best = std::numeric_limits<double>::infinity();
    VecX out = q;
    for (VecX trial : {q, forward}) {
      const double miss = solvePositionIk(locked, panda.base, targets, trial, 2000, 1e-7);
      if (miss < best - 1e-6) {
        best = miss;
        out = trial;
      }
    }
    if (best > 1e-4)
      throw ScenarioError(
          "dishes: the Panda cannot put the Allegro hand's palm at (" +
          std::to_string(palm.position.x()) + ", " + std::to_string(palm.position.y()) + ", " +
          std::to_string(palm.position.z()) + ") (" + std::to_string(best * 1e3) + " mm short)");
    return out;
  };
  // Let go 5 cm above the nested height: the distal phalanges outside the carried bowl's wall
  // reach below its rim, and let go 1.8 or 2.8 cm above it (the fingertips 1.5 and 1 cm down
  // the wall) they caught the lower bowl's rim and lifted it by 9 and 7.5 mm.
  const Grip at_pick = grip(pick);
  const Grip at_place = grip(Vec3(place.x(), place.y(), nested + 0.05));
  auto raised = [&](const Pose& pose, double height) {
    return Pose{pose.position + height * Vec3::UnitZ(), pose.orientation};
  };
  const VecX above = armPose(raised(at_pick.palm, 0.08), at_pick.open, VecX::Zero(art.nq()));
  const VecX at = armPose(at_pick.palm, at_pick.open, above);
  const VecX closed = armPose(at_pick.palm, at_pick.closed, at);
  const VecX lifted = armPose(raised(at_pick.palm, 0.1), at_pick.closed, closed);
  const VecX over = armPose(raised(at_place.palm, 0.1), at_pick.closed, lifted);
  const VecX down = armPose(at_place.palm, at_pick.closed, over);
  const VecX released = armPose(at_place.palm, at_place.open, down);
  const VecX away = armPose(raised(at_place.palm, 0.08), at_place.open, released);
  panda.target.times = {0.0, 1.0, 1.5, 2.5, 4.0, 5.0, 5.5, 6.5};
  panda.target.positions = {above, at, closed, lifted, over, down, released, away};
  panda.initial_q = above;
  addPandaWithAllegroHand(m, std::move(panda), pa, mu);
}

}  // namespace

Model buildDishesScene(const ScenarioParams& p) {
  Model m;
  m.name = "dishes";
  m.dt = 1.0 / 240.0;
  const double mu = p.get("mu");
  const int segments = p.getInt("segments");
  const int ground = addGround(m, mu);
  const Shape floor = m.shapes[static_cast<std::size_t>(m.bodies[ground].shapes.front())].shape;
  const DishFields dishes(segments);
  const Shape bowl = Shape::signedDistance(dishes.bowl);
  const double mass = p.get("dish_mass");
  // The bowl it goes into (on the floor, or with `pile` on a plate on the 5 kg pot: the paper's
  // four dishes), then the bowl to be placed.
  std::vector<Piece> below;
  if (p.getInt("pile") == 1)
    below = {{"pot", dishes.pot, p.get("pot_mass")}, {"plate", dishes.plate, mass}};
  below.push_back({"bowl0", dishes.bowl, mass});
  const Pose lower = stackPieces(m, below, 0.65, 0.2, floor, mu);
  const Vec3 pick = stackPieces(m, {{"bowl1", dishes.bowl, mass}}, 0.65, -0.2, floor, mu).position;
  const Vec3 place = lower.position;
  const double nested =
      restingHeight(bowl, bowl, lower, place.z(), place.z() + 0.2, kStackClearance);

  if (p.getInt("allegro") == 1) {
    addAllegroPicker(m, pick, place, nested, mu);
    return m;
  }
  // The hand pinches the bowl's wall at the rim's point nearest the robot, its pads parallel to
  // the wall (which rises at atan(5/4) = 51 degrees): the fingers point down the wall, closing
  // along its normal, the pads' centres 8 mm above the rim so that the pads hold the wall's top
  // 12 mm and reach 17 mm below the rim (their outer corners): placed, the bowl is let go 25 mm
  // above the lower bowl's base (18 mm above the height it nests at, 6.6 mm up), where the outer
  // pad clears the lower bowl's rim (let go 4 or 10 mm above that base, the pad caught the rim
  // and tipped the lower bowl by 4-7 degrees; 25 mm above the nested height, the placed bowl
  // landed tilted 4.8 degrees, 10.4 mm up, measured).  The tilt while carried stays below
  // 1 degree with 96 triangles around (at 48 the pads' edges sank 1-1.5 mm into the chords
  // of the rim's rounding).
  PandaHand ph = pandaWithHand();
  Robot panda = pandaRobot(ph.urdf.articulation);
  const Vec2 wall = Vec2(0.04, 0.05).normalized();
  auto grip = [&](const Vec3& base, Mat3& r) {
    const Vec3 radial = Vec3(-base.x(), -base.y(), 0.0).normalized();  // towards the robot
    r.col(2) = -(wall.x() * radial + wall.y() * Vec3::UnitZ());
    r.col(1) = wall.y() * radial - wall.x() * Vec3::UnitZ();
    r.col(0) = r.col(1).cross(r.col(2));
    const double above = 0.008;  // the pads' centres above the rim along the wall
    return base + (0.08 + wall.x() * above) * radial + (0.05 + wall.y() * above) * Vec3::UnitZ();
  };
  Mat3 r_pick, r_place;
  const Vec3 at_pick = grip(pick, r_pick);
  const Vec3 at_place = grip(Vec3(place.x(), place.y(), place.z() + 0.025), r_place);
  const double open = 0.02;
  VecX guess(panda.articulation.nq());
  guess << 0.0, 0.3, 0.0, -2.2, 0.0, 2.5, 0.785, open, open;
  const Vec3 up(0.0, 0.0, 0.1);
  const VecX approach = handPose(ph, panda, at_pick - 0.05 * r_pick.col(2), r_pick, open, guess);
  const VecX at = handPose(ph, panda, at_pick, r_pick, open, approach);
  VecX closed = at;
  const int left = panda.articulation.links[ph.finger_links[0]].q_index;
  const int right = panda.articulation.links[ph.finger_links[1]].q_index;
  closed[left] = closed[right] = 0.0;
  const VecX lifted = handPose(ph, panda, at_pick + up, r_pick, 0.0, closed);
  const VecX over = handPose(ph, panda, at_place + up, r_place, 0.0, lifted);
  const VecX down = handPose(ph, panda, at_place, r_place, 0.0, over);
  VecX released = down;
  released[left] = released[right] = open;
  const VecX away =
      handPose(ph, panda, at_place - 0.05 * r_place.col(2) + 0.5 * up, r_place, open, released);
  panda.target.times = {0.0, 1.0, 1.5, 2.5, 4.0, 5.0, 5.5, 6.5};
  panda.target.positions = {approach, at, closed, lifted, over, down, released, away};
  panda.initial_q = approach;
  const int robot = addPandaWithHand(m, std::move(panda), ph, mu);
  // Fingers stiff enough to squeeze a 4 mm wall with their 20 N (Franka's gripper is
  // force-controlled): 20 N at 2 mm.
  for (int f : ph.finger_links) {
    const int v = m.robots[robot].articulation.links[f].v_index;
    m.robots[robot].kp[v] = 1e4;
    m.robots[robot].kd[v] = 20.0;
  }
  return m;
}

}  // namespace subsim
