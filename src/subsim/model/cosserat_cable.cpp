#include "subsim/model/cosserat_cable.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace subsim {

namespace {
[[noreturn]] void fail(const CosseratCableSpec& spec, const char* field, const char* expected) {
  throw std::invalid_argument(spec.name + "." + field + ": " + expected);
}
bool positive(double x) {
  return x > 0.0 && std::isfinite(x);
}
}  // namespace

void CosseratCableSpec::validate() const {
  if (!positive(length)) fail(*this, "length", "expected a positive length in m");
  if (!positive(radius)) fail(*this, "radius", "expected a positive radius in m");
  if (segments < 1) fail(*this, "segments", "expected at least one segment");
  if (segments_per_subsystem < 0)
    fail(*this, "segments_per_subsystem", "expected 0 (one per segment) or a positive count");
  if (!positive(young)) fail(*this, "young", "expected a positive Young's modulus in Pa");
  if (!(poisson > -1.0 && poisson < 0.5)) fail(*this, "poisson", "expected -1 < nu < 0.5");
  if (!positive(density)) fail(*this, "density", "expected a positive density in kg/m^3");
  if (!(shear_coefficient >= 0.0) || !std::isfinite(shear_coefficient))
    fail(*this, "shear_coefficient", "expected >= 0 (0: Timoshenko's circle value)");
  if (!(damping_time >= 0.0) || !std::isfinite(damping_time))
    fail(*this, "damping_time", "expected >= 0 s");
  if (!start.allFinite()) fail(*this, "start", "expected three finite numbers");
  if (!direction.allFinite() || std::abs(direction.norm() - 1.0) > 1e-9)
    fail(*this, "direction", "expected a unit vector");
  if (!initial_velocity.allFinite())
    fail(*this, "initial_velocity", "expected three finite numbers");
  if (!(mu >= 0.0) || !std::isfinite(mu)) fail(*this, "mu", "expected a friction coefficient >= 0");
}

double CosseratCableSpec::effectiveShearCoefficient() const {
  // Timoshenko (1922) / Cowper (1966) for a solid circular section.
  return shear_coefficient > 0.0 ? shear_coefficient
                                 : 6.0 * (1.0 + poisson) / (7.0 + 6.0 * poisson);
}

RodCoupling cosseratCouplingFor(const CosseratCableSpec& spec) {
  constexpr double pi = std::numbers::pi;
  const double L = spec.segmentLength(), E = spec.young, G = spec.shearModulus();
  const double r2 = spec.radius * spec.radius;
  const double A = pi * r2, I = pi * r2 * r2 / 4.0, J = pi * r2 * r2 / 2.0;
  // A coupling stands for the rod between two segment centres (length L): the strains it measures
  // are the continuum strains times L, so each stiffness is the section stiffness over L.
  RodCoupling c;
  const double shear = spec.effectiveShearCoefficient() * G * A / L;
  c.shear_stiffness[0] = c.shear_stiffness[1] = shear;
  c.stretch_stiffness = E * A / L;
  c.bend_stiffness[0] = c.bend_stiffness[1] = E * I / L;
  c.twist_stiffness = G * J / L;
  const double tau = spec.damping_time;
  c.shear_damping[0] = c.shear_damping[1] = tau * shear;
  c.stretch_damping = tau * c.stretch_stiffness;
  c.bend_damping[0] = c.bend_damping[1] = tau * c.bend_stiffness[0];
  c.twist_damping = tau * c.twist_stiffness;
  return c;
}

int addCableGrip(Model& model, int segment, int body, const Vec3& anchor_world, double stiffness) {
  const int j = model.addJointAtWorld(JointType::Weld, segment, body, anchor_world);
  Joint& grip = model.joints[j];
  grip.stiffness = stiffness;
  grip.damping = 0.01 * stiffness;
  grip.angular_stiffness = 1e-3 * stiffness;
  grip.angular_damping = 1e-5 * stiffness;
  return j;
}

CosseratCable addCosseratCable(Model& model, const CosseratCableSpec& spec) {
  spec.validate();
  const double L = spec.segmentLength();
  const Quat orientation = Quat::FromTwoVectors(Vec3::UnitZ(), spec.direction).normalized();
  double mass = 0.0;
  Mat3 inertia;
  massPropertiesOf(Shape::cylinder(spec.radius, 0.5 * L), spec.density, mass, inertia);

  CosseratCable cable;
  cable.segments = spec.segments;
  cable.segment_length = L;
  for (int i = 0; i < spec.segments; ++i) {
    Body b = namedBody(spec.name + "/" + std::to_string(i), BodyKind::Dynamic, mass);
    b.inertia = inertia;
    b.initial_pose = Pose{spec.start + (i + 0.5) * L * spec.direction, orientation};
    b.initial_linear_velocity = spec.initial_velocity;
    // Group ids: the body index of the group's first segment, unique in the model.
    if (spec.segments_per_subsystem > 0)
      b.subsystem_group = static_cast<int>(model.bodies.size()) - i % spec.segments_per_subsystem;
    const int body = model.addBody(b);
    if (i == 0) cable.first_body = body;
    if (!spec.collide) continue;
    // The capsule's core is the segment's centreline, so the cable's surface is continuous;
    // neighbours overlap by a radius at each junction, hence the group/mask filter.
    const int s = model.addShape(body, Shape::capsule(spec.radius, 0.5 * L), Pose(), spec.mu);
    model.shapes[s].group = spec.collision_group;
    model.shapes[s].mask = spec.collision_mask;
  }

  const RodCoupling coefficients = cosseratCouplingFor(spec);
  cable.first_coupling = static_cast<int>(model.rod_couplings.size());
  for (int i = 0; i + 1 < spec.segments; ++i) {
    RodCoupling c = coefficients;
    c.name = spec.name + "/" + std::to_string(i);
    c.body_a = cable.first_body + i;
    c.body_b = cable.first_body + i + 1;
    c.anchor_a = Vec3(0.0, 0.0, 0.5 * L);
    c.anchor_b = Vec3(0.0, 0.0, -0.5 * L);
    model.rod_couplings.push_back(c);  // identity rest_relative and material frame: straight
  }
  cable.couplings = spec.segments - 1;
  return cable;
}

}  // namespace subsim
