// Small analytic scenes used by the tests and examples.
#include <cmath>
#include <numbers>

#include "subsim/math/portable_math.hpp"
#include "subsim/math/so3.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

int addGround(Model& m, double mu) {
  const int ground = m.addBody(namedBody("ground", BodyKind::Static));
  m.addShape(ground, Shape::plane(), Pose(), mu);
  return ground;
}

Model buildStackScene(const ScenarioParams& p) {
  Model m;
  const double mu = p.get("mu");
  addGround(m, mu);
  const Shape box = Shape::box(Vec3::Constant(0.05));
  for (int k = 0; k < p.getInt("boxes"); ++k) {
    Body b = namedBody("box" + std::to_string(k), BodyKind::Dynamic, 1.0);
    b.inertia = box.unitDensityInertia(1.0);
    b.initial_pose.position = Vec3(0, 0, 0.05 + 0.1 * k);
    m.addShape(m.addBody(b), box, Pose(), mu);
  }
  return m;
}

Model buildSphereCubeScene(const ScenarioParams& p) {
  // The RPI simulator paper's 125 spheres stacked in a cube: side x side columns of side spheres
  // each, every sphere resting on the one below, columns `gap` apart (beyond the contact margin,
  // so only the columns' own contacts and the ground's enter the problem) in a box as wide.
  Model m;
  const double mu = p.get("mu"), r = p.get("radius"), gap = p.get("gap");
  const int side = p.getInt("side");
  addGround(m, mu);
  const double pitch = 2.0 * r + gap, half = 0.5 * side * pitch, height = (2 * side + 1) * r;
  const double thickness = r;
  for (int w = 0; w < 4; ++w) {
    const bool along_x = w < 2;
    const double offset = (w % 2 == 0 ? 1.0 : -1.0) * (half + 0.5 * thickness);
    Body wall = namedBody("wall" + std::to_string(w), BodyKind::Static);
    wall.initial_pose.position =
        along_x ? Vec3(offset, 0, 0.5 * height) : Vec3(0, offset, 0.5 * height);
    const Vec3 size = along_x ? Vec3(thickness, 2 * half + 2 * thickness, height)
                              : Vec3(2 * half + 2 * thickness, thickness, height);
    m.addShape(m.addBody(wall), Shape::box(0.5 * size), Pose(), mu);
  }
  const Shape sphere = Shape::sphere(r);
  const double mass = 1000.0 * 4.0 / 3.0 * std::numbers::pi * r * r * r;  // water's density
  for (int k = 0; k < side * side * side; ++k) {
    const int layer = k / (side * side), i = (k / side) % side, j = k % side;
    Body b = namedBody("sphere" + std::to_string(k), BodyKind::Dynamic, mass);
    b.inertia = sphere.unitDensityInertia(mass);
    b.initial_pose.position =
        Vec3((i + 0.5) * pitch - half, (j + 0.5) * pitch - half, r + 2.0 * r * layer);
    m.addShape(m.addBody(b), sphere, Pose(), mu);
  }
  return m;
}

Model buildInclineScene(const ScenarioParams& p) {
  Model m;
  const double mu = p.get("mu");
  const Quat tilt = quatFromAxisAngle(Vec3::UnitY(), degrees(p.get("angle")));
  Body ground = namedBody("ground", BodyKind::Static);
  ground.initial_pose.orientation = tilt;
  m.addShape(m.addBody(ground), Shape::plane(), Pose(), mu);
  const Shape box = Shape::box(Vec3(0.1, 0.1, 0.025));
  Body b = namedBody("box", BodyKind::Dynamic, 1.0);
  b.inertia = box.unitDensityInertia(1.0);
  b.initial_pose = Pose{tilt * Vec3(0, 0, 0.025), tilt};
  m.addShape(m.addBody(b), box, Pose(), mu);
  return m;
}

Model buildPendulumScene(const ScenarioParams& p) {
  Model m;
  const int links = p.getInt("links");
  const double length = p.get("length"), angle = degrees(p.get("angle"));
  const double radius = 0.1 * length, mass = 0.1;
  // The chain hangs from a pivot 1 m above its lowest possible point; links are straight at
  // `angle` from the vertical in the x-z plane.
  const Vec3 pivot(0, 0, links * length + 1.0);
  const Vec3 down(portableSin(angle), 0, -portableCos(angle));
  const Quat along = Quat::FromTwoVectors(Vec3::UnitZ(), down);
  const Shape capsule = Shape::capsule(radius, 0.5 * length - radius);
  int previous = -1;
  for (int k = 0; k < links; ++k) {
    Body b = namedBody("link" + std::to_string(k), BodyKind::Dynamic, mass);
    b.inertia = capsule.unitDensityInertia(mass);
    b.initial_pose = Pose{pivot + (k + 0.5) * length * down, along};
    const int body = m.addBody(b);
    m.addShape(body, capsule, Pose(), 0.5);
    m.addJointAtWorld(JointType::Ball, body, previous, pivot + k * length * down);
    previous = body;
  }
  // An optional load: a sphere `load` times one link's mass, as dense as steel, on a ball joint
  // at the chain's end (the mass-ratio test of a chain holding a heavy body).
  const double load = p.get("load");
  if (load > 0.0) {
    const double load_mass = load * mass;
    const double load_radius = std::cbrt(3.0 * load_mass / (4.0 * std::numbers::pi * 7850.0));
    const Shape sphere = Shape::sphere(load_radius);
    Body b = namedBody("load", BodyKind::Dynamic, load_mass);
    b.inertia = sphere.unitDensityInertia(load_mass);
    const Vec3 end = pivot + links * length * down;
    b.initial_pose = Pose{end + load_radius * down, Quat::Identity()};
    const int body = m.addBody(b);
    m.addShape(body, sphere, Pose(), 0.5);
    m.addJointAtWorld(JointType::Ball, body, previous, end);
  }
  return m;
}

Model buildSpinnerScene(const ScenarioParams& p) {
  Model m;
  m.gravity = Vec3::Zero();
  const Shape box = Shape::box(Vec3(0.15, 0.1, 0.05));
  Body b = namedBody("spinner", BodyKind::Dynamic, 1.0);
  b.inertia = box.unitDensityInertia(1.0);
  // Spin about the intermediate principal axis (y) with a small perturbation: the tennis-racket
  // flip, the hardest case for keeping angular momentum.
  b.initial_angular_velocity = p.get("omega") * Vec3(0.01, 1.0, 0.01);
  m.addShape(m.addBody(b), box, Pose(), 0.5);
  return m;
}

Model buildRestingSphereScene(const ScenarioParams& p) {
  Model m;
  addGround(m, 0.5);
  const double r = p.get("radius");
  const Shape sphere = Shape::sphere(r);
  Body b = namedBody("sphere", BodyKind::Dynamic, 1.0);
  b.inertia = sphere.unitDensityInertia(1.0);
  b.initial_pose.position = Vec3(0, 0, r);
  m.addShape(m.addBody(b), sphere, Pose(), 0.5);
  return m;
}

}  // namespace subsim
