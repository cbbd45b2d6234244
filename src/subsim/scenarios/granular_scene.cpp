// The ICRA paper's stirring scene without the robot: 216 spheres (r = 1 cm, 4 g) on a 6 x 6 x 6
// lattice with 21 mm spacing in an open box (inner 0.16 x 0.16 m, walls 0.15 m high, 1 cm thick),
// stirred by a vertical capsule rod (r = 1 cm, lower end 4 cm above the floor) on a circle of
// radius 4 cm about the box centre at 1 rev/s; mu = 0.5; dt = 10 ms.
//
// The rod is driven, not kinematic: a kinematic body is infinitely strong, and one wedging
// spheres against the frictional walls makes the contact problem infeasible (a jam: the impulses
// grow without bound with the iteration count while the spheres interpenetrate by millimetres).
// The robot of the paper is impedance controlled, so the rod here is a dynamic body (0.2 kg)
// held on a kinematic drive by a compliant weld (parameter drive_stiffness, 300 N/m by default;
// drive_stiffness = 0 gives the literal kinematic rod).  It adds one subsystem
// of 6 DOF, which matches the paper's 217 subsystems.
//
// The rod's circle passes through the initial lattice, so the rod enters from above: it starts
// with its lower end 1.4 cm above the top layer and descends at 0.1 m/s to its stirring height
// (reached at t = 1 s) while the spheres settle.  With `spheres = N` the lattice has
// s = round(cbrt N) spheres per side and ceil(N / s^2) layers; the box width, the wall height and
// the rod's circle scale with s / 6 (walls also with the layer count).
#include <algorithm>
#include <cmath>

#include "subsim/scenarios/scenario.hpp"

namespace subsim {

GranularBox addGranularBox(Model& m, int n, double mu) {
  GranularBox box;
  const double radius = 0.01, spacing = 0.021;
  const int side = std::max(1, static_cast<int>(std::lround(std::cbrt(n))));
  box.layers = (n + side * side - 1) / (side * side);
  box.scale = side / 6.0;
  box.inner = std::max(0.16 * box.scale, side * spacing + 0.02);
  box.wall_height = 0.15 * std::max(1.0, std::max(box.scale, box.layers / 6.0));
  box.lattice_top = radius + 0.001 + (box.layers - 1) * spacing + radius;
  const double thickness = 0.01;

  addGround(m, mu);
  const double half = 0.5 * box.inner;
  for (int w = 0; w < 4; ++w) {
    const bool along_x = w < 2;
    const double sign = (w % 2 == 0) ? 1.0 : -1.0;
    Body wall = namedBody("wall" + std::to_string(w), BodyKind::Static);
    const double offset = half + 0.5 * thickness;
    wall.initial_pose.position = along_x ? Vec3(sign * offset, 0, 0.5 * box.wall_height)
                                         : Vec3(0, sign * offset, 0.5 * box.wall_height);
    const int b = m.addBody(wall);
    const Vec3 size = along_x ? Vec3(thickness, box.inner + 2 * thickness, box.wall_height)
                              : Vec3(box.inner + 2 * thickness, thickness, box.wall_height);
    m.addShape(b, Shape::box(0.5 * size), Pose(), mu);
  }
  return box;
}

void addGranularSpheres(Model& m, int n, double mu) {
  const double radius = 0.01, mass = 0.004, spacing = 0.021;
  const int side = std::max(1, static_cast<int>(std::lround(std::cbrt(n))));
  const Shape sphere = Shape::sphere(radius);
  const double origin = -0.5 * (side - 1) * spacing;
  for (int k = 0; k < n; ++k) {
    const int layer = k / (side * side), i = (k / side) % side, j = k % side;
    Body b = namedBody("sphere" + std::to_string(k), BodyKind::Dynamic, mass);
    b.inertia = sphere.unitDensityInertia(mass);
    b.initial_pose.position =
        Vec3(origin + i * spacing, origin + j * spacing, radius + 0.001 + layer * spacing);
    const int body = m.addBody(b);
    m.addShape(body, sphere, Pose(), mu);
  }
}

KinematicTrajectory stirringPath(const GranularBox& box, double tip_height) {
  KinematicTrajectory path;
  path.kind = KinematicTrajectory::Kind::Circle;
  path.center = Vec3(0, 0, tip_height);
  path.radius = 0.04 * box.scale;
  path.frequency = 1.0;
  path.descent = std::max(0.0, box.lattice_top + 0.014 - tip_height);
  path.descent_speed = 0.1;
  return path;
}

Model buildGranularScene(const ScenarioParams& params) {
  const int n = params.getInt("spheres");
  const double mu = params.get("mu");
  Model m;
  m.name = "granular";
  m.dt = 0.01;
  const GranularBox box = addGranularBox(m, n, mu);

  const double rod_radius = 0.01, rod_half_length = 0.5 * std::max(0.15, box.wall_height);
  // The rod's centre follows the path of its lower end, lifted by its radius and half length.
  KinematicTrajectory path = stirringPath(box, 0.04);
  path.center.z() += rod_radius + rod_half_length;
  const Shape rod_shape = Shape::capsule(rod_radius, rod_half_length);
  const double stiffness = params.get("drive_stiffness");
  if (stiffness == 0.0) {
    // The literal kinematic rod (infinitely strong: it can jam the spheres, see above).
    Body rod = namedBody("rod", BodyKind::Kinematic);
    rod.trajectory = path;
    rod.initial_pose = path.pose(0.0);
    m.addShape(m.addBody(rod), rod_shape, Pose(), mu);
  } else {
    Body drive = namedBody("rod_drive", BodyKind::Kinematic);
    drive.trajectory = path;
    drive.initial_pose = path.pose(0.0);
    const int drive_body = m.addBody(drive);
    const double rod_mass = 0.2;
    Body rod = namedBody("rod", BodyKind::Dynamic, rod_mass);
    rod.inertia = rod_shape.unitDensityInertia(rod_mass);
    rod.initial_pose = drive.initial_pose;
    const int rod_body = m.addBody(rod);
    m.addShape(rod_body, rod_shape, Pose(), mu);
    // The rod follows its drive through a compliant weld, like an impedance-controlled arm:
    // `drive_stiffness` N/m, the same stiffness at the tip in rotation, critically damped.  The
    // weld's rest offset lifts the rod by m g / k so that it hangs exactly on its drive.
    const int weld =
        m.addJointAtWorld(JointType::Weld, rod_body, drive_body, drive.initial_pose.position);
    Joint& drive_joint = m.joints[weld];
    drive_joint.anchor_b.z() += rod_mass * 9.81 / stiffness;
    drive_joint.stiffness = stiffness;
    drive_joint.damping = 2.0 * std::sqrt(stiffness * rod_mass);
    drive_joint.angular_stiffness = stiffness * rod_half_length * rod_half_length;
    drive_joint.angular_damping =
        2.0 * std::sqrt(drive_joint.angular_stiffness * rod.inertia(0, 0));
  }

  addGranularSpheres(m, n, mu);
  return m;
}

}  // namespace subsim
