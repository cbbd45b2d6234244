// The AL paper's bolt-nut assembly (Sec. VII-A) without the robot: an M48 nut (ISO 68-1
// thread, pitch 5 mm) on an upright M48 bolt, both helical-thread signed distance shapes with
// Frank-Wolfe contact, screwed down by a constant torque about the bolt's axis.  The thread
// makes it advance one pitch per turn.
#include <cmath>
#include <memory>
#include <numbers>
#include <string>

#include "subsim/geometry/helical_thread_shape.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

Model buildBoltNutScene(const ScenarioParams& p) {
  Model m;
  m.dt = 1.0 / 240.0;
  const double mu = p.get("mu");
  ThreadSpec bolt_spec;
  bolt_spec.major_diameter = 0.048;
  bolt_spec.pitch = 0.005;
  bolt_spec.length = 0.08;
  bolt_spec.clearance = p.get("clearance");
  bolt_spec.segments = p.getInt("segments");
  ThreadSpec nut_spec = bolt_spec;
  nut_spec.internal = true;
  nut_spec.length = 0.03;           // six pitches (an ISO 4032 M48 nut is 38 mm high)
  nut_spec.outer_diameter = 0.072;  // round, a little under an M48 hexagon's 75 mm flats
  const auto bolt = std::make_shared<HelicalThreadShape>(bolt_spec);
  const auto nut = std::make_shared<HelicalThreadShape>(nut_spec);
  // Chords deeper than the clearance and the two threads start interpenetrating.
  if (bolt->chordDepth() > bolt_spec.clearance) {
    const double radius = 0.5 * bolt_spec.major_diameter;
    throw ScenarioError("boltnut: segments=" + std::to_string(bolt_spec.segments) +
                        " cuts the thread's chords deeper than the clearance: take segments >= " +
                        std::to_string(static_cast<int>(std::ceil(
                            std::numbers::pi / std::acos(1.0 - bolt_spec.clearance / radius)))) +
                        " or a larger clearance");
  }

  const int base = m.addBody(namedBody("bolt", BodyKind::Static));
  m.addShape(base, Shape::signedDistance(bolt), Pose(), mu);

  // The nut's frame a whole number of pitches up the bolt, unturned: the two threads are in
  // phase, each flank c from its mate.  Its body frame is at its centre of mass.
  const Shape shape = Shape::signedDistance(nut);
  const double mass = p.get("nut_mass");
  Body b = namedBody("nut", BodyKind::Dynamic, mass);
  b.inertia = shape.unitDensityInertia(mass);
  const Vec3 centroid = shape.centroid();
  b.initial_pose.position = Vec3(0, 0, 8 * bolt_spec.pitch) + centroid;
  b.applied_torque = Vec3(0, 0, p.get("torque"));
  m.addShape(m.addBody(b), shape, Pose{-centroid, Quat::Identity()}, mu);
  return m;
}

}  // namespace subsim
