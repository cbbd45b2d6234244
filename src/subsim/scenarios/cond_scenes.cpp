// The COND paper's scenes (Lee, Lee, Lee, T-RO 2023; ../shared/papers/cond-digest.md, section 8).
#include <cmath>
#include <string>

#include "subsim/fem/ball_tet_mesher.hpp"
#include "subsim/fem/box_tet_mesher.hpp"
#include "subsim/fem/finger_tet_mesher.hpp"
#include "subsim/math/portable_math.hpp"
#include "subsim/scenarios/panda_model.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

namespace {

/// A kinematic gripper jaw at `open` that moves along x at `speed` (m/s, signed) for `squeeze`
/// seconds, then straight up at `lift` (the soft ball's pads, the soft gripper's jaws).
int addClosingJaw(Model& m, const std::string& name, const Vec3& open, double speed, double squeeze,
                  double lift) {
  Body jaw = namedBody(name, BodyKind::Kinematic);
  KinematicTrajectory& path = jaw.trajectory;
  path.kind = KinematicTrajectory::Kind::Waypoints;
  const Vec3 closed = open + Vec3(speed * squeeze, 0.0, 0.0);
  path.waypoint_times = {0.0, squeeze, squeeze + 1000.0};
  path.waypoint_positions = {open, closed, closed + Vec3(0.0, 0.0, 1000.0 * lift)};
  path.start.position = open;
  jaw.initial_pose = path.start;
  return m.addBody(jaw);
}

}  // namespace

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
    // 0.2 mm off the ball: the pads press from the first steps.
    const Vec3 open(side * (radius + pad.x() + 2e-4), 0.0, radius);
    const int finger = addClosingJaw(m, side < 0 ? "finger_left" : "finger_right", open,
                                     -side * speed, squeeze, lift);
    m.addShape(finger, Shape::box(pad), Pose(), mu);
  }
  return m;
}

Model buildSoftMatScene(const ScenarioParams& p) {
  // Its soft-mat folding scene (section V-C3, Tables II and VII; the scaling study of Fig. 11): a
  // Panda folds a soft FEM mat (the paper: 1477 nodes, 4100 tets, E 50-100 kPa, nu 0.3-0.4) in
  // half.  Here the mat, 0.3 x 0.3 x 0.01 m (the paper gives no size) with `cells` x `cells` x
  // `layers` cells of 6 tets (26 x 26 x 1: 1458 nodes, 4056 tets), lies on the floor; the rod's
  // end holds the top edge line of its +x side (the welded nodes lie on one line, so the mat
  // turns about it as about a hinge), lifts it along a half circle over the middle and lays it on
  // the -x half in `duration` seconds.  The folded half lands on the other: self contact.  One
  // subsystem by default, stored sparse, with every contact on its nodes.
  Model m;
  m.name = "softmat";
  m.dt = 0.01;
  const double mu = p.get("mu"), side = 0.3, thickness = 0.01;
  const int cells = p.getInt("cells"), layers = p.getInt("layers");
  addGround(m, mu);
  DeformableBody mat;
  mat.name = "mat";
  mat.rest_mesh = boxTetMesh(Vec3(side, side, thickness), cells, cells, layers);
  mat.material.young = p.get("young") * 1e3;
  mat.material.poisson = 0.35;
  mat.material.density = 1000.0;
  mat.material.rayleigh_stiffness = 0.01;
  mat.pieces = p.getInt("pieces");
  mat.mu = mu;
  mat.mask = ~2u;  // the arm's shapes (group 2) do not touch the mat; its grip holds it
  mat.self_contact = true;
  mat.initial_pose.position = Vec3(0.0, 0.0, 0.5 * thickness + 1e-4);

  // The rod's end turns the +x half over about the fold line x = c (1 cm past the middle): a
  // half circle of radius r - c from the held edge (x = r) over the top to x = -r + 2 c, on the
  // line it holds at both ends (the mat's top edge at the start, the folded half's underside on
  // the other half's top face at the end).  The 2 c of slack is the fold's loop: a 1 cm thick
  // mat does not fold flat, and a path that ends at -r drags the lower half along.
  const double r = 0.5 * side, c = 0.01, z0 = thickness + 1e-4, duration = p.get("duration");
  const auto tip = [&](double t) {
    const double s = std::clamp(t / duration, 0.0, 1.0);
    const double angle = M_PI * (0.5 - 0.5 * portableCos(M_PI * s));  // smooth start and stop
    double sin_a, cos_a;
    portableSinCos(angle, sin_a, cos_a);
    return Vec3(c + (r - c) * cos_a, 0.0, z0 + (r - c) * sin_a);
  };
  DoubleBuffer times;
  for (int k = 0; k <= 12; ++k) times.push_back(duration * k / 12);
  times.push_back(duration + 1.0);
  Pose base;
  base.position = Vec3(-0.5, 0.0, 0.0);
  const PandaOnPath panda = addPandaFollowingTip(m, "softmat", base, times, tip, mu, 2);
  const int tool_body = m.robots[panda.robot].link_body[panda.tool_link];
  const Pose& tool_pose = m.bodies[tool_body].initial_pose;
  for (int n = 0; n < mat.rest_mesh.numNodes(); ++n) {
    const Vec3 x = mat.initial_pose.transformPoint(mat.rest_mesh.nodes[n]);
    if (x.x() > r - 1e-9 && x.z() > z0 - 1e-9)
      mat.attachments.push_back({n, tool_body, tool_pose.inverseTransformPoint(x)});
  }
  m.addDeformable(std::move(mat));
  return m;
}

Model buildSoftGripperScene(const ScenarioParams& p) {
  // Its soft-gripper scene (section V-C6, Table VI): two silicone fingers on a linear actuator
  // (the paper: Ecoflex 00-50, E 83 kPa, nu 0.42, mu 2.1; 4889 nodes, 18122 tets, 14681 DOF in one
  // subsystem) grip a rigid PLA object, a dynamic body whose contacts take virtual nodes.  Here
  // the object is a 4 cm cube (PLA, 1240 kg/m^3: 79 g) on the floor; each finger is a block 8 cm
  // long, 1.6 cm thick and 2.4 cm wide at its base narrowing to 1.44 cm at its tip
  // (fem/finger_tet_mesher.hpp; 30 cells along: 2170 nodes and 9720 tets each), hanging 0.5 mm
  // off the cube's faces with its tip 6 mm above the floor, its back bonded to a kinematic jaw.
  // The jaws close at `speed` each for `squeeze` seconds, then lift at `lift`: the fingers hold
  // the cube up by friction.  Both fingers are one deformable body, one subsystem by default
  // (stored sparse).
  Model m;
  m.name = "softgripper";
  m.dt = 0.01;
  const double mu = p.get("mu"), half = 0.02;
  addGround(m, mu);
  const Shape cube = Shape::box(Vec3::Constant(half));
  const double cube_mass = 1240.0 * cube.volume();
  Body object = namedBody("object", BodyKind::Dynamic, cube_mass);
  object.inertia = cube.unitDensityInertia(cube_mass);
  object.initial_pose.position = Vec3(0.0, 0.0, half + 1e-4);
  m.addShape(m.addBody(object), cube, Pose(), mu);

  FingerShape shape;
  const TetMesh finger = fingerTetMesh(shape, p.getInt("cells"));
  const double tip_height = 0.006, base_height = tip_height + shape.length;
  const double offset = half + 0.5 * shape.thickness + 5e-4;
  DeformableBody fingers;
  fingers.name = "fingers";
  for (int side = -1; side <= 1; side += 2)
    appendTetMesh(fingers.rest_mesh, finger, Vec3(side * offset, 0.0, 0.0));
  fingers.material.young = p.get("young") * 1e3;
  fingers.material.poisson = 0.42;
  fingers.material.density = 1070.0;  // Ecoflex 00-50
  fingers.material.rayleigh_stiffness = 0.01;
  fingers.pieces = p.getInt("pieces");
  fingers.mu = mu;
  fingers.initial_pose.position = Vec3(0.0, 0.0, base_height);

  const double speed = p.get("speed"), squeeze = p.get("squeeze"), lift = p.get("lift");
  for (int side = -1; side <= 1; side += 2) {
    const Vec3 open(side * offset, 0.0, base_height);
    const int body =
        addClosingJaw(m, side < 0 ? "jaw_left" : "jaw_right", open, -side * speed, squeeze, lift);
    // The finger's back (its outer face, exactly at +-thickness / 2: boxTetMesh's) is bonded to
    // the jaw, so the silicone is a pad squeezed between jaw and cube.  (Hung from its base alone,
    // the 8 cm finger bends away, about 9 N/m by beam theory: the cube stayed on the floor.)
    const int first = side < 0 ? 0 : finger.numNodes();
    for (int n = 0; n < finger.numNodes(); ++n)
      if (finger.nodes[n].x() == side * 0.5 * shape.thickness)
        fingers.attachments.push_back(
            {first + n, body,
             m.bodies[body].initial_pose.inverseTransformPoint(
                 fingers.initial_pose.transformPoint(fingers.rest_mesh.nodes[first + n]))});
  }
  m.addDeformable(std::move(fingers));
  return m;
}

}  // namespace subsim
