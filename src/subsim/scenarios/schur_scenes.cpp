// The scenes of the Schur-complement substructuring paper (Peiret, Andrews, Kovecses, Kry,
// Teichmann, "Schur Complement-based Substructuring of Stiff Multibody Systems with Contact",
// ACM TOG 2019; ../shared/papers/schur-digest.md, section 5): chainwrap, chaindrop, logtower,
// rockpile, cablespinner, nettruck, cranes and bridge.  All run at the paper's h = 1/60 s with its
// backward Euler velocities (Model::theta = 0, see paperModel below).
//
// The paper gives masses and counts but no geometry, so the shapes here are simple stand-ins
// (capsule links, boxes, spheres, cylinders); each builder's comment says what was chosen and
// what is simplified.  Common choices:
//   - the paper's chain joints are universal joints here too (chainwrap, chaindrop); its cable
//     joints ("near-inextensible 6-DOF joints that bend and twist") are rigid ball joints:
//     inextensible, free to bend and twist;
//   - links are capsules whose caps end at the joint points, so neighbours overlap only where
//     they are joined (joined bodies do not collide);
//   - bodies are added in structural order (a chain's links one after another, the truck's 22
//     parts together, one net line after another) so that the sequential substructure partition
//     (formulation/substructure_partition.hpp) is the paper's semantic partition;
//   - pseudo-random sizes come from std::mt19937 with a fixed seed through our own mapping to
//     [0, 1), and every angle goes through portableSinCos, so a scene is the same on every
//     machine.
//
// What runs (bpp at the defaults and default step counts, geometric stiffness on; more in each
// scene's comment and in `subsim bench --paper schur`; measured 2026-11-29): the bridge, the
// cranes, the cable spinner, the chain wrap (400 steps, every solve converged: the box swings on
// the chain) and the net with the truck (300 steps: the net holds it) run to the end, also with
// schur-bpp; the log tower stands until the ball hits it and runs its 300 steps (bpp at its
// caps in 143 of them, 2.0 cm deepest); the chain drop runs its 600 steps (at the caps in 152,
// 6.3 mm deepest); the rock pile runs its 400 steps (at the caps in 263, 5.2 cm deepest: half
// its contact rows are redundant, docs/schur.md).  Two things made the chain wrap and the net run:
//   - bpp's pivots ran out on them (30 of the chain wrap's first 31 steps, natural residuals of
//     0.05-0.2 N s at best): redundant contact rows, A conditioned 1e14 by C alone.  BPP now
//     falls back on projected Newton (solvers/box_mlcp_pivoting.hpp), which converges there;
//   - even converged, the 500 kg box fell at g h a step from the first step (the links' joints
//     had no last impulse for their geometric stiffness, so the light links whipped round and
//     the load never built up), and a wheel went 3.6 cm into a net link at step 30 when the
//     truck's weight reached the net within a step.  A step whose joint impulses change by more
//     than a tenth is now solved again with the geometric stiffness of its own (World::step).
// Earlier (for the record): until 2026-11-26 the chain cleared the bar by 2 mm and each wound
// link touched it at its middle only; capsule-capsule contact now also reports the shorter
// capsule's two ends within the margin.  Until capsule-cylinder contact had both segment ends, a
// net link lying across a tyre pivoted about its one contact and sank 7.6 cm in one step.
// Without geometric stiffness (Model::geometric_stiffness, see paperModel) the bridge, the
// cranes and the cable spinner stopped too: a 16-plank bridge at rest left rest by itself
// after 13 steps with bpp's exact solves (h = 8 ms was stable, 10 ms not).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "subsim/math/portable_math.hpp"
#include "subsim/math/so3.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

namespace {

constexpr double kStep = 1.0 / 60.0;  // the paper's time step (s)
constexpr double kPi = std::numbers::pi;
constexpr double kGravity = 9.81;

/// The material and collision filter of a scene part.
struct Material {
  double mu = 0.5;
  std::uint32_t group = 1;
  std::uint32_t mask = 0xffffffffu;
};

/// An empty model at the paper's step and integrator: h = 1/60 s and backward Euler (theta = 0:
/// the constraints act on v_{k+1}, the paper's equation (4)), with the joints' geometric stiffness
/// its equation (4) is followed by (Model::geometric_stiffness): without it a 16-plank bridge
/// leaves rest after 13 steps at this h, its cables' links' energy growing 74-fold a step.  The
/// engine's default theta = 0.49 leaves long stiff chains' fastest modes almost undamped (0.96 a
/// step): a 20-link pendulum released at 5 degrees folds onto itself within a second with every
/// solver at 0.49, and runs 5 s at theta = 0.
Model paperModel(const std::string& name) {
  Model m;
  m.name = name;
  m.dt = kStep;
  m.theta = 0.0;
  m.geometric_stiffness = true;
  return m;
}

/// A dynamic body of one shape, with its mass and the inertia of that shape at uniform density.
int addSolid(Model& m, const std::string& name, const Shape& shape, double mass, const Pose& pose,
             const Material& material) {
  Body b = namedBody(name, BodyKind::Dynamic, mass);
  b.inertia = shape.unitDensityInertia(mass);
  b.initial_pose = pose;
  const int body = m.addBody(b);
  const int s = m.addShape(body, shape, Pose(), material.mu);
  m.shapes[s].group = material.group;
  m.shapes[s].mask = material.mask;
  return body;
}

/// A static box (half extents `half`) at `pose`.
int addStaticBox(Model& m, const std::string& name, const Vec3& half, const Pose& pose, double mu) {
  Body b = namedBody(name, BodyKind::Static);
  b.initial_pose = pose;
  const int body = m.addBody(b);
  m.addShape(body, Shape::box(half), Pose(), mu);
  return body;
}

/// The rotation taking local z to `direction`; a capsule is symmetric, so the direction is
/// first turned into the upper half space (no antiparallel case for Quat::FromTwoVectors).
Quat alongZ(Vec3 direction) {
  if (direction.z() < 0.0) direction = -direction;
  return Quat::FromTwoVectors(Vec3::UnitZ(), direction).normalized();
}

/// Cable or chain links: one capsule of `radius` and `mass` from each point to the next (the caps
/// end at the points), `joint` joints (ball or universal) between consecutive links at the inner
/// points, a universal joint's shaft along the mean of the two links' directions.  Returns the
/// links' bodies in order.  The ends are left free for the caller to attach.
struct LinkStyle {
  double radius = 0.01;
  double mass = 0.1;
  Material material;
  JointType joint = JointType::Ball;
};

std::vector<int> addChain(Model& m, const std::string& prefix, const std::vector<Vec3>& points,
                          const LinkStyle& style) {
  std::vector<int> links;
  for (size_t k = 0; k + 1 < points.size(); ++k) {
    const Vec3 d = points[k + 1] - points[k];
    const double length = d.norm();
    if (!(length > 2.0 * style.radius + 1e-9))
      throw ScenarioError(prefix + ": a link would be " + std::to_string(length) +
                          " m long, not longer than its diameter " +
                          std::to_string(2.0 * style.radius) + " m; use fewer links");
    const Shape capsule = Shape::capsule(style.radius, 0.5 * length - style.radius);
    const int body = addSolid(m, prefix + std::to_string(k), capsule, style.mass,
                              Pose{0.5 * (points[k] + points[k + 1]), alongZ(d)}, style.material);
    if (!links.empty()) {
      const Vec3 shaft = (points[k] - points[k - 1]).normalized() + d / length;
      m.addJointAtWorld(style.joint, body, links.back(), points[k],
                        shaft.norm() > 1e-6 ? shaft : d);
    }
    links.push_back(body);
  }
  return links;
}

/// Puts `bodies` in substructure `label` of the semantic partition (Body::substructure).
void declareSubstructure(Model& m, const std::vector<int>& bodies, int label) {
  for (int b : bodies) m.bodies[b].substructure = label;
}

/// `n` + 1 evenly spaced points from a to b.
std::vector<Vec3> straightLine(const Vec3& a, const Vec3& b, int n) {
  std::vector<Vec3> points;
  for (int k = 0; k <= n; ++k) points.push_back(a + (static_cast<double>(k) / n) * (b - a));
  return points;
}

/// x^(1/3) for x >= 0 by Newton's method: the same bits everywhere (std::cbrt is the C
/// library's).
double cubeRoot(double x) {
  if (!(x > 0.0)) return 0.0;
  double r = x > 1.0 ? x : 1.0;
  for (int k = 0; k < 200; ++k) {
    const double next = r - (r * r * r - x) / (3.0 * r * r);
    if (next == r) break;
    r = next;
  }
  return r;
}

/// A number in [0, 1) from a 32-bit Mersenne twister: our own mapping, the same on every standard
/// library (std::uniform_real_distribution's is unspecified).
double uniform01(std::mt19937& rng) {
  return (static_cast<double>(rng()) + 0.5) / 4294967296.0;
}

/// Velocity of a point at `offset` from a centre rotating at `omega` (world).
Vec3 rigidVelocity(const Vec3& omega, const Vec3& offset) {
  return omega.cross(offset);
}

/// Joins `body` to the kinematic `drive` by a weld at `anchor`: hard when `stiffness` is 0, else
/// compliant with `stiffness` N/m (`stiffness` r^2 N m/rad), critically damped for a body of
/// `mass` and `inertia` (its largest principal moment), with the rest offset m g / k so that the
/// body hangs exactly on its drive.
void weldToDrive(Model& m, int body, int drive, const Vec3& anchor, double stiffness, double r) {
  const int weld = m.addJointAtWorld(JointType::Weld, body, drive, anchor);
  if (stiffness <= 0.0) return;
  Joint& j = m.joints[weld];
  const Body& b = m.bodies[body];
  j.anchor_b.z() += b.mass * kGravity / stiffness;
  j.stiffness = stiffness;
  j.damping = 2.0 * std::sqrt(stiffness * b.mass);
  j.angular_stiffness = stiffness * r * r;
  j.angular_damping = 2.0 * std::sqrt(j.angular_stiffness * b.inertia.diagonal().maxCoeff());
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// chainwrap: a chain of `links` (100) links of 0.25 kg (capsules r = 2.5 cm, 10 cm between
// universal joints: a 10 m chain) wound `wraps` (1.25) turns around a static horizontal bar (a
// capsule r = 15 cm along y, like a winch drum) and hanging from it (8.5 m) with a box of `load`
// kg (500; a 0.5 m cube at 4000 kg/m^3) on a ball joint at its free end.  The chain's other end is
// fixed to the world on the bar (a ball joint), as a winch cable is fixed to its drum; the wound
// turns are a helix whose pitch (10 cm a turn) keeps the turns apart, the links' middles touch the
// bar (the chain starts taut), and the chain leaves the bar tangentially on its +x side.  The
// hanging part and the box start swinging in the x-z plane as one pendulum about the point where
// the chain leaves the bar, the box at `swing` m/s (1), so the chain slides and lifts on the bar.
// Ground at z = 0, 0.5 m below the box; mu = 0.5. Simplified: the paper does not say where the
// chain's other end is held.  Bodies: links + 1 (101 at the default), joints: links - 1 universal
// joints between links (shaft along the mean of the two links' directions) and 2 ball joints (the
// world anchor, the box). Runs (default size, 400 steps): bpp and schur-bpp to the end, every solve
// converged, the box swinging as a pendulum (see the header).
Model buildChainWrapScene(const ScenarioParams& p) {
  const int links = p.getInt("links");
  const double load = p.get("load"), wraps = p.get("wraps"), swing = p.get("swing");
  const double mu = p.get("mu");
  Model m = paperModel("chainwrap");
  addGround(m, mu);

  const double link = 0.1, radius = 0.025, link_mass = 0.25;
  const double bar_radius = 0.15, pitch = 0.1, clearance = 0.0;
  // The joint points lie on a helix of radius rc about the bar's axis: consecutive points are
  // `link` apart and dtheta apart in angle, and each link's middle clears the bar by
  // `clearance`: rc cos(dtheta / 2) = bar_radius + radius + clearance.
  const double inner = bar_radius + radius + clearance;
  double rc = inner, dtheta = 0.0;
  for (int pass = 0; pass < 8; ++pass) {
    double lo = 0.0, hi = kPi;  // chord(dtheta) increases on [0, pi]
    for (int it = 0; it < 100; ++it) {
      const double mid = 0.5 * (lo + hi);
      const double chord = 2.0 * rc * portableSin(0.5 * mid);
      const double rise = pitch * mid / (2.0 * kPi);
      (chord * chord + rise * rise < link * link ? lo : hi) = mid;
    }
    dtheta = 0.5 * (lo + hi);
    rc = inner / portableCos(0.5 * dtheta);
  }
  const int wound = std::min(links - 1, static_cast<int>(std::lround(wraps * 2.0 * kPi / dtheta)));
  const int hanging = links - wound;
  const double side = load > 0.0 ? cubeRoot(load / 4000.0) : 0.0;
  const double height = std::max(bar_radius + 1.0, hanging * link + side + 0.5);

  Body bar = namedBody("bar", BodyKind::Static);
  bar.initial_pose = Pose{Vec3(0, 0, height), quatFromAxisAngle(Vec3::UnitX(), 0.5 * kPi)};
  m.addShape(m.addBody(bar), Shape::capsule(bar_radius, 0.6), Pose(), mu);

  // From the world anchor (j = wound) around the bar to where the chain leaves it (j = 0, angle
  // 0: the +x side at the bar's height), then straight down.
  std::vector<Vec3> points;
  const double y0 = -0.5 * pitch * wound * dtheta / (2.0 * kPi);
  for (int j = wound; j >= 0; --j) {
    double s, c;
    portableSinCos(j * dtheta, s, c);
    points.emplace_back(rc * c, y0 + pitch * j * dtheta / (2.0 * kPi), height + rc * s);
  }
  const Vec3 leave = points.back();
  for (int k = 1; k <= hanging; ++k) points.push_back(leave - Vec3(0, 0, k * link));

  const LinkStyle style{radius, link_mass, {mu}, JointType::Universal};
  const std::vector<int> chain = addChain(m, "link", points, style);
  m.addJointAtWorld(JointType::Ball, chain.front(), -1, points.front());

  // The swing: the hanging part and the box turn about `leave` (about y) so that the box's
  // centre moves at `swing` along +x.
  const double reach = hanging * link + 0.5 * side;
  const Vec3 omega(0, -swing / reach, 0);
  for (int k = wound; k < links; ++k) {
    Body& b = m.bodies[chain[k]];
    b.initial_linear_velocity = rigidVelocity(omega, b.initial_pose.position - leave);
    b.initial_angular_velocity = omega;
  }
  if (load > 0.0) {
    const Shape box = Shape::box(Vec3::Constant(0.5 * side));
    const Vec3 end = points.back();
    const int body = addSolid(m, "load", box, load, Pose{end - Vec3(0, 0, 0.5 * side)}, {mu});
    m.bodies[body].initial_linear_velocity =
        rigidVelocity(omega, m.bodies[body].initial_pose.position - leave);
    m.bodies[body].initial_angular_velocity = omega;
    m.addJointAtWorld(JointType::Ball, body, chain.back(), end);
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// chaindrop: a chain of `links` (250) links of 0.25 kg (capsules r = 2.5 cm, 10 cm between
// joints, universal joints) dropped from `height` (5 cm) onto a static ramp (a box, 0.2 m thick)
// inclined by `angle` (20 degrees), with mu = `mu` (0.35) so that tan(angle) is just above mu:
// a sliding chain would accelerate at 0.13 m/s^2.  The chain lies flat as a serpentine of rows
// of `row_links` (25) links across the slope joined by one-link turns (rows 10 cm apart),
// starting 0.3 m below the ramp's upper edge; the ramp runs 2 m beyond the serpentine.
// Simplified: the paper's chain is dropped in a heap, here as a flat serpentine.  Bodies: links,
// joints: links - 1 universal joints.
// Not as the paper's: a straight row of capsules on universal joints is one rigid cylinder about
// its axis, so the rows across the slope roll down it instead of sliding (measured with bpp:
// 29 rad/s about a link's axis at step 40, as with ball joints before).  The paper's links are
// not round; box-shaped links would slide.
Model buildChainDropScene(const ScenarioParams& p) {
  const int links = p.getInt("links"), row_links = p.getInt("row_links");
  const double angle = degrees(p.get("angle")), mu = p.get("mu"), drop = p.get("height");
  Model m = paperModel("chaindrop");
  addGround(m, mu);

  const double link = 0.1, radius = 0.025, link_mass = 0.25, thickness = 0.2;
  const int rows = (links + row_links) / (row_links + 1);
  const double half_width = 0.5 * row_links * link + 0.3;
  const double half_length = 0.5 * (0.3 + rows * link + 2.0);
  const Quat tilt = quatFromAxisAngle(Vec3::UnitY(), angle);  // local +x runs down the slope
  const Vec3 normal = tilt * Vec3::UnitZ();
  // The top face's centre, with the ramp's lowest edge 0.3 m above the ground.
  const Vec3 top(0, 0, 0.3 + half_length * portableSin(angle) + thickness * portableCos(angle));
  addStaticBox(m, "ramp", Vec3(half_length, half_width, 0.5 * thickness),
               Pose{top - 0.5 * thickness * normal, tilt}, mu);

  // The serpentine in the ramp's frame: u down the slope, v across, w along the normal.
  std::vector<Vec3> points;
  double u = -half_length + 0.3, v = -0.5 * row_links * link;
  const double w = radius + drop;
  int direction = 1, in_row = 0;
  points.push_back(top + tilt * Vec3(u, v, w));
  for (int k = 0; k < links; ++k) {
    if (in_row < row_links) {
      v += direction * link;
      ++in_row;
    } else {
      u += link;
      direction = -direction;
      in_row = 0;
    }
    points.push_back(top + tilt * Vec3(u, v, w));
  }
  addChain(m, "link", points, LinkStyle{radius, link_mass, {mu}, JointType::Universal});
  return m;
}

// ---------------------------------------------------------------------------------------------
// logtower: `logs` (160) logs of 50 kg stacked log-cabin style, `per_layer` (4) parallel logs a
// layer, each layer turned 90 degrees from the one below (40 layers, 8 m), a `top_mass` (2500
// kg) box (2 x 2 x 0.3 m) resting on top, and a ball (r = 0.35 m, `ball_mass` 2000 kg) rolling
// without slipping along +x at `ball_speed` (3 m/s) that reaches the tower's base at
// `impact_time` (1.5 s) and knocks out its lowest layers.  Logs: capsules r = 0.1 m, 2 m long
// (`round` = 1) or square boxes 0.2 x 0.2 x 2 m (`round` = 0), centre lines 1.6 / (per_layer -
// 1) m apart, the outer ones 0.1 m inside the crossing logs' ends: round logs touch at one point
// per crossing (640 contacts at the default), square ones over a 0.2 x 0.2 m face (4 points per
// crossing, 2500 contacts, highly redundant: schur-bpp and bpp blow up on that tower within 5
// steps, so round is the default).  Layers and the box start exactly touching (no drop).
// mu = 0.5.
// Simplified: the paper's logs are not described beyond their mass; it drops its box on the
// tower and does not give the ball.  Bodies: logs + 2, no joints.
Model buildLogTowerScene(const ScenarioParams& p) {
  const int logs = p.getInt("logs"), per_layer = p.getInt("per_layer");
  if (logs % per_layer != 0)
    throw ScenarioError("scene 'logtower': logs (" + std::to_string(logs) +
                        ") must be a multiple of per_layer (" + std::to_string(per_layer) + ")");
  const double mu = p.get("mu"), top_mass = p.get("top_mass");
  const double ball_mass = p.get("ball_mass"), speed = p.get("ball_speed");
  Model m = paperModel("logtower");
  addGround(m, mu);

  const double log_mass = 50.0, half_length = 1.0, half_side = 0.1;
  const int layers = logs / per_layer;
  const bool round = p.getInt("round") != 0;
  const Shape along_x = round ? Shape::capsule(half_side, half_length - half_side)
                              : Shape::box(Vec3(half_length, half_side, half_side));
  const Shape along_y = round ? Shape::capsule(half_side, half_length - half_side)
                              : Shape::box(Vec3(half_side, half_length, half_side));
  const Quat x_axis = quatFromAxisAngle(Vec3::UnitY(), 0.5 * kPi);
  const Quat y_axis = quatFromAxisAngle(Vec3::UnitX(), 0.5 * kPi);
  for (int layer = 0; layer < layers; ++layer) {
    for (int i = 0; i < per_layer; ++i) {
      const double across = -0.8 + 1.6 * i / (per_layer - 1);
      const double z = half_side + 2.0 * half_side * layer;
      const bool x_layer = layer % 2 == 0;
      addSolid(m, "log" + std::to_string(layer * per_layer + i), x_layer ? along_x : along_y,
               log_mass,
               Pose{x_layer ? Vec3(0, across, z) : Vec3(across, 0, z),
                    round ? (x_layer ? x_axis : y_axis) : Quat::Identity()},
               {mu});
    }
  }
  const double tower_top = 2.0 * half_side * layers;
  if (top_mass > 0.0) {
    const Vec3 half(1.0, 1.0, 0.15);
    addSolid(m, "top", Shape::box(half), top_mass, Pose{Vec3(0, 0, tower_top + half.z())}, {mu});
  }
  // The ball rolls on the ground toward the tower's -x face (the even layers' log ends at
  // x = -1), which its surface reaches at impact_time.
  const double ball_radius = 0.35;
  const double start = -half_length - ball_radius - speed * p.get("impact_time");
  const int ball = addSolid(m, "ball", Shape::sphere(ball_radius), ball_mass,
                            Pose{Vec3(start, 0, ball_radius)}, {mu});
  m.bodies[ball].initial_linear_velocity = Vec3(speed, 0, 0);
  m.bodies[ball].initial_angular_velocity = Vec3(0, speed / ball_radius, 0);
  return m;
}

// ---------------------------------------------------------------------------------------------
// rockpile: `rocks` (100) rocks of 80-250 kg (uniform in mass; granite, 2600 kg/m^3) as boxes
// with random aspect ratios (each side 0.7-1.3 times the mean) and random orientations, dropped
// as a square pyramid of layers (7 x 7, 6 x 6, ... from the ground up, spaced by the largest
// rock's diameter + 2 cm, each layer 0.75 spacing above the one below and shifted by half a
// spacing, so that no two bounding spheres overlap) so that they settle into a pile in about
// half a second, then pushed along +x by a 1 kg shovel (a 0.2 x 2 x 0.8 m plate, 3 cm
// above the ground) that starts 0.5 m before the pile and moves at `shovel_speed` (0.5 m/s).
// The shovel is a dynamic body held on a kinematic drive by a weld: compliant with
// `drive_stiffness` N/m (1e6; the same times 1 m^2 in N m/rad, critically damped), or hard with
// drive_stiffness = 0 (an infinitely strong shovel can jam rocks against the ground, see
// granular_scene.cpp).  Sizes come from std::mt19937(`seed`) through uniform01 (the same on every
// machine).  mu = 0.6.
// Simplified: rocks are boxes, not convex hulls; the pile is dropped rather than built by
// hand.  Bodies: rocks + 1 dynamic (the shovel) + 1 kinematic drive, joints: 1 weld.
Model buildRockPileScene(const ScenarioParams& p) {
  const int rocks = p.getInt("rocks");
  const double mu = p.get("mu"), speed = p.get("shovel_speed");
  const double stiffness = p.get("drive_stiffness");
  Model m = paperModel("rockpile");
  addGround(m, mu);

  std::mt19937 rng(static_cast<std::mt19937::result_type>(p.getInt("seed")));
  struct Rock {
    double mass;
    Vec3 half;
    Quat orientation;
  };
  std::vector<Rock> specs;
  double bound = 0.0;  // largest circumscribed radius
  for (int k = 0; k < rocks; ++k) {
    Rock r;
    r.mass = 80.0 + 170.0 * uniform01(rng);
    const Vec3 aspect(0.7 + 0.6 * uniform01(rng), 0.7 + 0.6 * uniform01(rng),
                      0.7 + 0.6 * uniform01(rng));
    const double volume = r.mass / 2600.0;
    r.half = cubeRoot(volume / (8.0 * aspect.prod())) * aspect;
    // A uniformly random rotation (Shoemake).
    const double u1 = uniform01(rng), u2 = uniform01(rng), u3 = uniform01(rng);
    double s2, c2, s3, c3;
    portableSinCos(2.0 * kPi * u2, s2, c2);
    portableSinCos(2.0 * kPi * u3, s3, c3);
    const double a = std::sqrt(1.0 - u1), b = std::sqrt(u1);
    r.orientation = Quat(b * c3, a * s2, a * c2, b * s3).normalized();
    bound = std::max(bound, r.half.norm());
    specs.push_back(r);
  }
  int side = 1;
  while (side * (side + 1) * (2 * side + 1) / 6 < rocks) ++side;
  // Bounding spheres: neighbours in a layer `spacing` apart, a layer 0.75 spacing above the one
  // below and shifted by half a spacing (the centres of 4 rocks below are 1.03 spacing away).
  const double spacing = 2.0 * bound + 0.02, rise = 0.75 * spacing;
  int k = 0;
  for (int layer = 0; layer < side && k < rocks; ++layer) {
    const int n = side - layer;
    const double origin = -0.5 * (n - 1) * spacing;
    for (int i = 0; i < n && k < rocks; ++i)
      for (int j = 0; j < n && k < rocks; ++j, ++k) {
        const Vec3 at(origin + i * spacing, origin + j * spacing, bound + 0.01 + layer * rise);
        addSolid(m, "rock" + std::to_string(k), Shape::box(specs[k].half), specs[k].mass,
                 Pose{at, specs[k].orientation}, {mu});
      }
  }

  // 0.2 m thick: the World's divergence check stops a run at a penetration deeper than half the
  // smallest dynamic shape, which a 0.1 m plate made 5 cm, an eighth of a rock; the rocks
  // dropped into the pile meet at up to 3 m/s and overlap by 5 cm for a step (bpp at step 32).
  const Vec3 half(0.1, 1.0, 0.4);
  const double pile_edge = 0.5 * (side - 1) * spacing + bound;
  const Vec3 start(-pile_edge - 0.5 - half.x(), 0, 0.03 + half.z());
  Body drive = namedBody("shovel_drive", BodyKind::Kinematic);
  drive.trajectory.kind = KinematicTrajectory::Kind::Linear;
  drive.trajectory.start = Pose{start};
  drive.trajectory.velocity = Vec3(speed, 0, 0);
  drive.initial_pose = drive.trajectory.pose(0.0);
  const int drive_body = m.addBody(drive);
  const int shovel = addSolid(m, "shovel", Shape::box(half), 1.0, Pose{start}, {mu});
  m.bodies[shovel].initial_linear_velocity = Vec3(speed, 0, 0);
  weldToDrive(m, shovel, drive_body, start, stiffness, 1.0);
  return m;
}

// ---------------------------------------------------------------------------------------------
// cablespinner: `cables` (8) cables of `links` (40) links of 0.1 kg (capsules r = 2 cm, 7.5 cm
// between joints: 3 m cables, ball joints, inextensible) hanging from a 10 kg plate (a disc,
// r = 0.5 m, 5 cm thick; attachments on a circle of r = 0.4 m) and joined below to a steel ball
// (r = 0.42 m, `ball_mass` 2500 kg; attachments on its upper surface on a circle of r = 0.25 m),
// 0.5 m above the ground.  The plate turns on a hinge about the vertical and is spun at `spin`
// rev/s (0.5) by a kinematic crank: a pin on a circle of r = 0.4 m about the axis, joined to
// the plate by a stiff compliant ball joint (1e6 N/m, critically damped), as a motor with a
// stiff drive.  The plate starts at the drive's rate and the ball at rest (each link at the
// velocity interpolated linearly between them), so the cables twist around each other and the
// ball is spun up through them.  mu = 0.3.  Declared substructures (partition=semantic): one
// per cable (`links` bodies); the plate and the ball are left undeclared (one group of 2).
// Simplified: the paper's cable joints (6-DOF, near-inextensible, bending and twisting) are
// rigid ball joints; the paper does not say how its plate is spun.  Bodies: cables x links + 2
// dynamic + 1 kinematic pin, joints: cables x (links + 1) ball joints, 1 hinge, 1 compliant ball.
Model buildCableSpinnerScene(const ScenarioParams& p) {
  const int cables = p.getInt("cables"), links = p.getInt("links");
  const double spin = p.get("spin"), ball_mass = p.get("ball_mass"), mu = p.get("mu");
  Model m = paperModel("cablespinner");
  addGround(m, mu);

  const double link = 0.075, radius = 0.02, link_mass = 0.1;
  const double plate_radius = 0.5, plate_half = 0.025, plate_mass = 10.0, top_ring = 0.4;
  const double ball_radius = 0.42, bottom_ring = 0.25;
  const double ball_cap = std::sqrt(ball_radius * ball_radius - bottom_ring * bottom_ring);
  const double length = links * link, slant = top_ring - bottom_ring;
  const double drop = std::sqrt(length * length - slant * slant);
  const double ball_z = ball_radius + 0.5;
  const double plate_z = ball_z + ball_cap + drop + plate_half;
  const Vec3 omega(0, 0, 2.0 * kPi * spin);

  const int plate = addSolid(m, "plate", Shape::cylinder(plate_radius, plate_half), plate_mass,
                             Pose{Vec3(0, 0, plate_z)}, {mu});
  m.bodies[plate].initial_angular_velocity = omega;
  m.addJointAtWorld(JointType::Hinge, plate, -1, Vec3(0, 0, plate_z), Vec3::UnitZ());

  const double top_z = plate_z - plate_half, bottom_z = ball_z + ball_cap;
  std::vector<std::vector<int>> cable_links;
  std::vector<std::pair<Vec3, Vec3>> ends;
  for (int c = 0; c < cables; ++c) {
    double s, co;
    portableSinCos(2.0 * kPi * c / cables, s, co);
    const Vec3 top(top_ring * co, top_ring * s, top_z);
    const Vec3 bottom(bottom_ring * co, bottom_ring * s, bottom_z);
    const std::vector<int> chain =
        addChain(m, "cable" + std::to_string(c) + "_link", straightLine(top, bottom, links),
                 LinkStyle{radius, link_mass, {mu}});
    m.addJointAtWorld(JointType::Ball, chain.front(), plate, top);
    declareSubstructure(m, chain, c);  // one cable each; the plate and the ball undeclared
    for (int body : chain) {
      Body& b = m.bodies[body];
      const double f = (b.initial_pose.position.z() - bottom_z) / (top_z - bottom_z);
      b.initial_linear_velocity = f * rigidVelocity(omega, b.initial_pose.position);
      b.initial_angular_velocity = f * omega;
    }
    cable_links.push_back(chain);
    ends.emplace_back(top, bottom);
  }
  const int ball =
      addSolid(m, "ball", Shape::sphere(ball_radius), ball_mass, Pose{Vec3(0, 0, ball_z)}, {mu});
  for (int c = 0; c < cables; ++c)
    m.addJointAtWorld(JointType::Ball, ball, cable_links[c].back(), ends[c].second);

  // The crank: a kinematic pin on the circle, a stiff spring-like ball joint to the plate.
  Body pin = namedBody("spin_drive", BodyKind::Kinematic);
  pin.trajectory.kind = KinematicTrajectory::Kind::Circle;
  pin.trajectory.center = Vec3(0, 0, plate_z);
  pin.trajectory.radius = top_ring;
  pin.trajectory.frequency = spin;
  pin.initial_pose = pin.trajectory.pose(0.0);
  const int pin_body = m.addBody(pin);
  const int crank = m.addJointAtWorld(JointType::Ball, plate, pin_body, pin.initial_pose.position);
  Joint& j = m.joints[crank];
  const double stiffness = 1e6;
  // The plate's inertia about its axis seen at the pin's radius.
  const double effective_mass = m.bodies[plate].inertia(2, 2) / (top_ring * top_ring);
  j.stiffness = stiffness;
  j.damping = 2.0 * std::sqrt(stiffness * effective_mass);
  return m;
}

// ---------------------------------------------------------------------------------------------
// nettruck: an 8000 kg dump truck of 22 bodies dropped from `height` (0.5 m above the net's
// highest point under it) onto a net of light, stiff cables whose edges are fixed to the world.
// Truck (x forward, 8.1 m long, 2.8 m wide over the wheels): chassis 2000 kg, cab 800, engine
// 1200, dump bed 1500, tailgate 150, bumper 100, fuel tank 200, exhaust stack 30, light bar 20
// (boxes, a cylinder, a capsule), 3 axles of 100 kg, 10 wheels of 170 kg (cylinders r = 0.55 m,
// 0.4 m wide: single front wheels, dual wheels on the two rear axles); 11 welds (cab, engine,
// bed, bumper, fuel tank, exhaust and axles to the chassis, tailgate to the bed, light bar to the
// cab) and 10 hinges (wheels on their axles, about y); no two parts that are not joined overlap.
// Net: a square of 10 m with `cells` x `cells` (10 x 10) cells; each cell edge that is not on the
// fixed border is a cable of `segments` (2) links of 0.2 kg (capsules r = 3 cm), ball joints
// between them; at an inner node the ends of its 4 edges are joined in a chain of 3 ball
// joints, at a border node each end is a ball joint to the world.  The net hangs `sag` (1 m)
// deep at its centre (z = 5 m - sag (1 - (2x/10)^2)(1 - (2y/10)^2)): rigid links cannot stretch,
// so the slack is in the shape.  Net links do not collide with each other (collision groups);
// they do with the truck and the ground.  Mass ratio truck : link 40000 : 1.  mu = 0.5.
// Declared substructures (partition=semantic), as the paper's: the truck (22 bodies) and each
// net line (c s = 20 links; the paper's sections hold 48-65 bodies).
// Simplified: the truck's suspension and steering are welds; the paper's stiff (compliant)
// cable joints are rigid ball joints, so the net gives way only by changing shape (pulling its
// lines straight, shearing its cells).  Counts with c = cells, s = segments: bodies 22 + 2 (c - 1)
// c s (382 at the default: the border lines carry no links), joints 21 + 2 (c - 1) c (s - 1)
// inside the edges + 3 (c - 1)^2 at inner nodes + 4 (c - 1) to the world = 21 + 459 = 480.
// Runs: bpp and schur-bpp to the end (300 steps; the truck lands at about 0.4 s and is at rest
// on the net by 3 s, 1.4-1.6 cm the deepest penetration); see the header for what made it.
Model buildNetTruckScene(const ScenarioParams& p) {
  const int cells = p.getInt("cells"), segments = p.getInt("segments");
  const double drop = p.get("height"), sag = p.get("sag"), mu = p.get("mu");
  Model m = paperModel("nettruck");
  addGround(m, mu);

  // The net's surface and the truck's footprint (truck frame: ground contact at z = 0).
  const double span = 10.0, rim = 5.0;
  const auto netZ = [&](double x, double y) {
    const double a = 2.0 * x / span, b = 2.0 * y / span;
    return rim - sag * (1.0 - a * a) * (1.0 - b * b);
  };
  const double front = 3.45, back = 3.85, half_width = 1.4;
  double under = -1e300;
  for (double x : {-back, front})
    for (double y : {-half_width, half_width}) under = std::max(under, netZ(x, y));
  const Vec3 origin(0, 0, under + drop);

  // The truck first (one substructure in the sequential partition, and declared as one).
  const int truck_first = static_cast<int>(m.bodies.size());
  const Material steel{mu};
  const auto part = [&](const std::string& name, const Shape& shape, double mass,
                        const Vec3& centre, const Quat& q = Quat::Identity()) {
    return addSolid(m, "truck_" + name, shape, mass, Pose{origin + centre, q}, steel);
  };
  const Quat wheel_axis = quatFromAxisAngle(Vec3::UnitX(), 0.5 * kPi);  // cylinder z -> y
  const Quat along_x = quatFromAxisAngle(Vec3::UnitY(), 0.5 * kPi);     // cylinder z -> x
  const int chassis = part("chassis", Shape::box(Vec3(3.4, 0.5, 0.15)), 2000, Vec3(-0.2, 0, 0.95));
  const int cab = part("cab", Shape::box(Vec3(0.9, 1.2, 0.8)), 800, Vec3(2.3, 0, 1.95));
  const int engine = part("engine", Shape::box(Vec3(0.4, 0.45, 0.35)), 1200, Vec3(1.9, 0, 0.45));
  const int bed = part("bed", Shape::box(Vec3(2.2, 1.25, 0.6)), 1500, Vec3(-1.5, 0, 1.85));
  const int tailgate =
      part("tailgate", Shape::box(Vec3(0.05, 1.25, 0.6)), 150, Vec3(-3.8, 0, 1.85));
  const int bumper = part("bumper", Shape::box(Vec3(0.1, 1.2, 0.15)), 100, Vec3(3.35, 0, 0.95));
  const int tank =
      part("fuel_tank", Shape::cylinder(0.25, 0.5), 200, Vec3(0.2, 0.85, 0.7), along_x);
  const int exhaust = part("exhaust", Shape::capsule(0.08, 0.5), 30, Vec3(1.25, -1.0, 2.0));
  const int light = part("light_bar", Shape::box(Vec3(0.1, 1.0, 0.05)), 20, Vec3(2.3, 0, 2.85));
  const auto weld = [&](int a, int b) {
    m.addJointAtWorld(JointType::Weld, a, b, m.bodies[a].initial_pose.position);
  };
  for (int b : {cab, engine, bed, bumper, tank, exhaust}) weld(b, chassis);
  weld(tailgate, bed);
  weld(light, cab);
  const double axle_x[3] = {2.6, -1.6, -2.9};
  const Shape wheel = Shape::cylinder(0.55, 0.2);
  for (int a = 0; a < 3; ++a) {
    const int axle = part("axle" + std::to_string(a), Shape::box(Vec3(0.1, 0.5, 0.1)), 100,
                          Vec3(axle_x[a], 0, 0.55));
    weld(axle, chassis);
    std::vector<double> ys = {-1.2, 1.2};
    if (a > 0) ys = {-1.2, -0.75, 0.75, 1.2};
    for (double y : ys) {
      const std::string side = (y < 0 ? "r" : "l") + std::string(std::abs(y) < 1.0 ? "i" : "");
      const int w = part("wheel" + std::to_string(a) + side, wheel, 170, Vec3(axle_x[a], y, 0.55),
                         wheel_axis);
      m.addJointAtWorld(JointType::Hinge, w, axle, m.bodies[w].initial_pose.position,
                        Vec3::UnitY());
    }
  }

  std::vector<int> truck;
  for (int b = truck_first; b < static_cast<int>(m.bodies.size()); ++b) truck.push_back(b);
  declareSubstructure(m, truck, 0);

  // The net: x lines (edges along x), then y lines, each line's edges in order; each line one
  // declared substructure.
  const double cell = span / cells;
  const auto node = [&](int i, int j) {
    const double x = -0.5 * span + i * cell, y = -0.5 * span + j * cell;
    return Vec3(x, y, netZ(x, y));
  };
  const auto border = [&](int i, int j) { return i == 0 || j == 0 || i == cells || j == cells; };
  const LinkStyle rope{0.03, 0.2, {mu, 2u, ~2u}};
  // The link that ends at each node, per edge direction: (-x, +x, -y, +y); -1 when absent.
  std::vector<std::vector<int>> at_node((cells + 1) * (cells + 1), std::vector<int>(4, -1));
  for (int dir = 0; dir < 2; ++dir)
    for (int line = 1; line < cells; ++line)
      for (int e = 0; e < cells; ++e) {
        const int i0 = dir == 0 ? e : line, j0 = dir == 0 ? line : e;
        const int i1 = dir == 0 ? e + 1 : line, j1 = dir == 0 ? line : e + 1;
        const std::string name = std::string(dir == 0 ? "net_x" : "net_y") + std::to_string(line) +
                                 "_" + std::to_string(e) + "_";
        const std::vector<int> chain =
            addChain(m, name, straightLine(node(i0, j0), node(i1, j1), segments), rope);
        declareSubstructure(m, chain, 1 + dir * (cells - 1) + (line - 1));
        at_node[i0 * (cells + 1) + j0][2 * dir + 1] = chain.front();
        at_node[i1 * (cells + 1) + j1][2 * dir] = chain.back();
      }
  for (int i = 0; i <= cells; ++i)
    for (int j = 0; j <= cells; ++j) {
      int previous = -1;
      for (int body : at_node[i * (cells + 1) + j]) {
        if (body < 0) continue;
        if (border(i, j))
          m.addJointAtWorld(JointType::Ball, body, -1, node(i, j));
        else if (previous >= 0)
          m.addJointAtWorld(JointType::Ball, body, previous, node(i, j));
        previous = body;
      }
    }
  return m;
}

// ---------------------------------------------------------------------------------------------
// cranes: two cranes of 75000 kg (a 60000 kg base, 6 x 4 x 2 m, resting on the ground, and a
// 15000 kg boom, 15 x 0.8 x 0.8 m at 60 degrees, welded to it) face each other along x and hold
// a 3500 kg steel pipe (a capsule r = 0.4 m, 10 m long, centre 5 m up) on two cables of
// `cable_links` (40) links of 1 kg (capsules r = 3 cm, ball joints) hanging from the lower
// front edges of the boom tips (0.35 m in front of them) to the pipe's top 4.2 m either side of
// its middle.  The pipe
// starts swinging sideways (along y) at `swing` m/s (1; each link at the speed interpolated
// along its cable), so the cables pull the booms sideways and the bases may slide.  mu = 0.6.
// Simplified: the paper's cranes are detailed mechanisms (tracks, drivetrain, hoist, hooks);
// here each is two welded boxes, the cables hang straight down and the hooks are ball joints.
// Bodies: 4 + 1 + 2 cable_links (85), joints: 2 welds + 2 (cable_links + 1) ball joints.
// Declared substructures (partition=semantic): each crane's base, boom and cable (42 bodies);
// the pipe undeclared.
Model buildCranesScene(const ScenarioParams& p) {
  const int cable_links = p.getInt("cable_links");
  const double swing = p.get("swing"), mu = p.get("mu");
  Model m = paperModel("cranes");
  addGround(m, mu);

  const double pipe_radius = 0.4, pipe_z = 5.0, hook_x = 4.2;
  const double boom_length = 15.0, boom_half = 0.4;
  double s60, c60;
  portableSinCos(degrees(60.0), s60, c60);
  std::vector<std::pair<int, Vec3>> hoists;  // boom and the cable's top point
  for (int side : {-1, 1}) {
    const std::string name = side < 0 ? "crane0_" : "crane1_";
    const Vec3 u(-side * c60, 0, s60);  // along the boom, toward its tip
    const Vec3 n(side * s60, 0, c60);   // the boom's upper side
    // The boom's root 0.4 m above the base's top (z = 2) so that the boom clears it.  The cable
    // hangs from a point 0.35 m in front of the lower edge of the boom's end face (a sheave on
    // an outrigger, not modelled), so that it clears the boom's underside when it swings:
    // edge = top + 0.35 (outward), tip = edge + boom_half n, root = tip - boom_length u.
    const double root_z = 2.4, outrigger = 0.35;
    const double hoist_z = root_z + boom_length * s60 - boom_half * c60;
    const Vec3 top(side * hook_x, 0, hoist_z);
    const Vec3 tip = top + Vec3(side * outrigger, 0, 0) + boom_half * n;
    const Vec3 root = tip - boom_length * u;
    const Vec3 base_half(3.0, 2.0, 1.0);
    const Vec3 base_centre(root.x() + side * 2.0, 0, base_half.z());
    const int base =
        addSolid(m, name + "base", Shape::box(base_half), 60000, Pose{base_centre}, {mu});
    const int boom = addSolid(
        m, name + "boom", Shape::box(Vec3(0.5 * boom_length, 0.4, 0.4)), 15000,
        Pose{root + 0.5 * boom_length * u, Quat::FromTwoVectors(Vec3::UnitX(), u).normalized()},
        {mu});
    m.addJointAtWorld(JointType::Weld, boom, base, root);
    declareSubstructure(m, {base, boom}, static_cast<int>(hoists.size()));
    hoists.emplace_back(boom, top);
  }
  const int pipe =
      addSolid(m, "pipe", Shape::capsule(pipe_radius, 5.0 - pipe_radius), 3500,
               Pose{Vec3(0, 0, pipe_z), quatFromAxisAngle(Vec3::UnitY(), 0.5 * kPi)}, {mu});
  m.bodies[pipe].initial_linear_velocity = Vec3(0, swing, 0);
  for (int c = 0; c < 2; ++c) {
    const Vec3 top = hoists[c].second;
    const Vec3 hook(top.x(), 0, pipe_z + pipe_radius);
    const std::vector<int> chain =
        addChain(m, "cable" + std::to_string(c) + "_link", straightLine(top, hook, cable_links),
                 LinkStyle{0.03, 1.0, {mu}});
    m.addJointAtWorld(JointType::Ball, chain.front(), hoists[c].first, top);
    m.addJointAtWorld(JointType::Ball, pipe, chain.back(), hook);
    declareSubstructure(m, chain, c);  // with its crane; the pipe undeclared
    for (int body : chain) {
      Body& b = m.bodies[body];
      const double f = (top.z() - b.initial_pose.position.z()) / (top.z() - hook.z());
      b.initial_linear_velocity = Vec3(0, f * swing, 0);
    }
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// bridge: a suspension bridge of `planks` (128) planks (20 kg boxes, 0.5 m along the bridge, 2 m
// wide, 6 cm thick) hinged to each other about y at their shared edges, 10 m above the ground,
// hung from two main cables (one link of 2 kg per plank, capsules r = 3 cm, ball joints, a
// parabola 1 m above the deck in the middle and a tenth of the span higher at its ends, fixed to
// the world by ball joints at both ends) by two vertical hangers per plank of `hanger_links` (2)
// links of 0.5 kg (capsules r = 1 cm) with ball joints at both ends.  The deck's ends are free
// (only the hangers carry it).  For scaling runs: only bilateral constraints until something
// touches the ground.  mu = 0.5.
// Counts: bodies planks (3 + 2 hanger_links) = 896 at the default (the paper: 893); joints
// (planks - 1) hinges + 2 (planks + 1) main-cable ball joints + 2 planks (hanger_links + 1)
// hanger ball joints = 127 + 258 + 768 = 1153 at the default (the paper: 1278 bilateral
// constraints; its layout is not given).
Model buildBridgeScene(const ScenarioParams& p) {
  const int planks = p.getInt("planks"), hanger_links = p.getInt("hanger_links");
  const double mu = p.get("mu");
  Model m = paperModel("bridge");
  addGround(m, mu);

  const double pitch = 0.5, deck_z = 10.0, thickness = 0.06, cable_y = 0.95;
  const double span = planks * pitch, x0 = -0.5 * span;
  const double sag = 0.1 * span;
  const auto cableZ = [&](double x) {
    const double a = 2.0 * x / span;
    return deck_z + 1.0 + sag * a * a;
  };
  std::vector<int> deck;
  for (int k = 0; k < planks; ++k) {
    const int plank = addSolid(m, "plank" + std::to_string(k),
                               Shape::box(Vec3(0.5 * pitch, 1.0, 0.5 * thickness)), 20.0,
                               Pose{Vec3(x0 + (k + 0.5) * pitch, 0, deck_z)}, {mu});
    if (!deck.empty())
      m.addJointAtWorld(JointType::Hinge, plank, deck.back(), Vec3(x0 + k * pitch, 0, deck_z),
                        Vec3::UnitY());
    deck.push_back(plank);
  }
  for (int side = 0; side < 2; ++side) {
    const double y = side == 0 ? cable_y : -cable_y;
    const std::string tag = side == 0 ? "l" : "r";
    std::vector<Vec3> points;
    for (int k = -1; k <= planks; ++k) {
      const double x = x0 + (k + 0.5) * pitch;
      points.emplace_back(x, y, cableZ(x));
    }
    const std::vector<int> cable =
        addChain(m, "cable_" + tag, points, LinkStyle{0.03, 2.0, {mu, 2u, ~2u}});
    m.addJointAtWorld(JointType::Ball, cable.front(), -1, points.front());
    m.addJointAtWorld(JointType::Ball, cable.back(), -1, points.back());
    for (int k = 0; k < planks; ++k) {
      const Vec3 top = points[k + 1];
      const Vec3 bottom(top.x(), y, deck_z + 0.5 * thickness);
      const std::vector<int> hanger =
          addChain(m, "hanger_" + tag + std::to_string(k) + "_",
                   straightLine(top, bottom, hanger_links), LinkStyle{0.01, 0.5, {mu, 2u, ~2u}});
      m.addJointAtWorld(JointType::Ball, hanger.front(), cable[k], top);
      m.addJointAtWorld(JointType::Ball, deck[k], hanger.back(), bottom);
    }
  }
  return m;
}

}  // namespace subsim
