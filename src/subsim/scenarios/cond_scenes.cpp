// The COND paper's scenes (Lee, Lee, Lee, T-RO 2023; ../shared/papers/cond-digest.md, section 8).
#include "subsim/fem/ball_tet_mesher.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

Model buildPushedBoxScene(const ScenarioParams& p) {
  // Its virtual-node test (section V-B, Table I): a rigid cube, 0.2 m and 0.5 kg, on the floor,
  // pushed along y by a constant force; the bottom face's four vertices touch the floor.  The
  // push is the horizontal part of the gravity vector, which acts on the box alone (the only
  // dynamic body), so the scene needs no force element.  The midpoint rule (theta = 1/2)
  // integrates a constant acceleration exactly, so the analytic trajectory
  // y = 1/2 (F / m - mu g) t^2, z = 0.1 m is the exact solution of the discrete problem too.
  Model m;
  const double mu = p.get("mu"), force = p.get("force"), mass = 0.5;
  m.theta = 0.5;
  m.gravity = Vec3(0.0, force / mass, -9.81);
  const int ground = m.addBody(namedBody("ground", BodyKind::Static));
  m.addShape(ground, Shape::plane(), Pose(), mu);
  const Shape cube = Shape::box(Vec3(0.1, 0.1, 0.1));
  Body b = namedBody("box", BodyKind::Dynamic, mass);
  b.inertia = cube.unitDensityInertia(mass);
  b.initial_pose.position = Vec3(0.0, 0.0, 0.1);
  m.addShape(m.addBody(b), cube, Pose(), mu);
  return m;
}

Model buildAnisotropicBoxScene(const ScenarioParams& p) {
  // Its anisotropic-friction test (section V-G, Fig. 14): a box slides on a floor whose friction
  // is mu1 along x and mu2 along y (the elliptic cone of eq. 12), launched at (vx, vy).  Maximal
  // dissipation makes the friction -m g (mu1^2 vx, mu2^2 vy) / |(mu1 vx, mu2 vy)|, not opposite to
  // the velocity: the box's path bends towards the slippery axis.  The pair's coefficients are
  // sqrt(floor's mu x box's mu) (Model::frictionBetween), so the floor carries mu1^2 and mu2^2
  // against the box's 1.
  Model m;
  m.name = "anisobox";
  m.dt = 0.01;
  const double mu1 = p.get("mu1"), mu2 = p.get("mu2"), mass = 0.5;
  const int ground = m.addBody(namedBody("ground", BodyKind::Static));
  const int floor = m.addShape(ground, Shape::plane(), Pose(), mu1 * mu1);
  m.shapes[floor].mu_across = mu2 * mu2;
  m.shapes[floor].friction_axis = Vec3::UnitX();
  const Shape cube = Shape::box(Vec3(0.1, 0.1, 0.1));
  Body b = namedBody("box", BodyKind::Dynamic, mass);
  b.inertia = cube.unitDensityInertia(mass);
  b.initial_pose.position = Vec3(0.0, 0.0, 0.1);
  b.initial_linear_velocity = Vec3(p.get("vx"), p.get("vy"), 0.0);
  m.addShape(m.addBody(b), cube, Pose(), 1.0);
  return m;
}

Model buildSoftBallScene(const ScenarioParams& p) {
  // Its soft-ball gripping scene (section V-C, Tables III-IV): a soft FEM ball (the paper: 1463
  // nodes, 6928 tets, E 0.5-2 MPa) squeezed by a two-finger gripper.  Here the ball rests on the
  // floor and two kinematic finger pads close on it from +-x at `speed` each for `squeeze`
  // seconds, then lift it at `lift` (m/s): the grip holds it by friction alone.  One subsystem by
  // default: every contact of the ball is on its mesh nodes or on its surface triangles, so COND
  // acts on real nodes wherever a node touches.
  Model m;
  m.name = "softball";
  m.dt = 0.01;
  const double radius = 0.04, mu = p.get("mu");
  addGround(m, mu);
  DeformableBody ball;
  ball.name = "ball";
  ball.rest_mesh = ballTetMesh(radius, p.getInt("cells"));
  ball.material.young = p.get("young") * 1e6;
  ball.material.poisson = 0.4;
  ball.material.density = 1000.0;
  ball.material.rayleigh_stiffness = 0.001;
  ball.pieces = p.getInt("pieces");
  ball.mu = mu;
  ball.initial_pose.position = Vec3(0.0, 0.0, radius + 1e-4);
  m.addDeformable(std::move(ball));
  const double speed = p.get("speed"), squeeze = p.get("squeeze"), lift = p.get("lift");
  const Vec3 pad(0.005, 0.02, 0.02);
  for (int side = -1; side <= 1; side += 2) {
    Body finger = namedBody(side < 0 ? "finger_left" : "finger_right", BodyKind::Kinematic);
    KinematicTrajectory& path = finger.trajectory;
    path.kind = KinematicTrajectory::Kind::Waypoints;
    // 0.2 mm off the ball: the pads press from the first steps.
    const Vec3 open(side * (radius + pad.x() + 2e-4), 0.0, radius);
    const Vec3 closed = open - Vec3(side * speed * squeeze, 0.0, 0.0);
    path.waypoint_times = {0.0, squeeze, squeeze + 1000.0};
    path.waypoint_positions = {open, closed, closed + Vec3(0.0, 0.0, 1000.0 * lift)};
    path.start.position = open;
    finger.initial_pose = path.start;
    m.addShape(m.addBody(finger), Shape::box(pad), Pose(), mu);
  }
  return m;
}

}  // namespace subsim
