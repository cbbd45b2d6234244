// The COND paper's scenes (Lee, Lee, Lee, T-RO 2023; ../shared/papers/cond-digest.md, section 8).
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

}  // namespace subsim
