#pragma once
// A Cosserat rod (cable) as a chain of rigid cylindrical segments joined by RodCouplings: the
// discretisation of the ICRA digest's cable scene (640 segments, 1.2 m, 8 mm, E = 0.1 MPa,
// nu = 0.49).  Stiffness and damping rules: docs/cosserat-cable.md.
#include <cstdint>
#include <string>

#include "subsim/model/model.hpp"

namespace subsim {

struct CosseratCableSpec {
  std::string name = "cable";  // segments are named "name/0", "name/1", ...
  double length = 1.2;         // m
  double radius = 0.004;       // m
  int segments = 640;
  double young = 1e5;     // Pa
  double poisson = 0.49;  // G = E / (2 (1 + nu))
  /// kg/m^3: a soft rubber-like polymer (natural rubber is 920-1200 kg/m^3).
  double density = 1100.0;
  /// Transverse shear coefficient k_s in k_s G A / L; 0 selects Timoshenko's value for a solid
  /// circle, 6 (1 + nu) / (7 + 6 nu).
  double shear_coefficient = 0.0;
  /// Stiffness-proportional (Rayleigh) damping: c = damping_time * k on every strain, so a mode of
  /// angular frequency w has damping ratio damping_time * w / 2.  Rigid motions are not damped.
  double damping_time = 0.01;            // s
  Vec3 start = Vec3::Zero();             // first segment's free end, world
  Vec3 direction = Vec3::UnitX();        // unit, world: the straight rest shape
  Vec3 initial_velocity = Vec3::Zero();  // m/s, every segment
  double mu = 0.5;                       // friction of the segment capsules
  bool collide = true;                   // give each segment a capsule shape
  /// Consecutive segments per subsystem (Body::subsystem_group; the ICRA cable uses 4); their
  /// couplings are then folded into the subsystem's A_i.  0: every segment on its own.
  int segments_per_subsystem = 4;
  /// Shape filter of the capsules: by default the cable's own group is masked out, so segments
  /// never collide with each other (neighbours overlap at their shared end) but do collide with
  /// every shape of the default group 1.
  std::uint32_t collision_group = 0x80000000u;
  std::uint32_t collision_mask = ~0x80000000u;

  /// Throws std::invalid_argument naming the first invalid field ("cable.radius: ...").
  void validate() const;
  double segmentLength() const { return length / segments; }
  double shearModulus() const { return young / (2.0 * (1.0 + poisson)); }
  double effectiveShearCoefficient() const;
};

/// What addCosseratCable added: bodies first_body .. first_body + segments - 1 from the start
/// end, and couplings first_coupling .. first_coupling + segments - 2 (coupling i joins segments
/// i and i + 1).
struct CosseratCable {
  int first_body = -1;
  int segments = 0;
  int first_coupling = -1;
  int couplings = 0;
  double segment_length = 0.0;
};

/// The coupling coefficients of a spec (bodies, anchors and frames left at their defaults):
/// stretch EA/L, shear k_s GA/L, bend EI/L, twist GJ/L with A = pi r^2, I = pi r^4 / 4,
/// J = pi r^4 / 2, L the segment length, and c = damping_time * k.
RodCoupling cosseratCouplingFor(const CosseratCableSpec& spec);

/// Adds the straight cable: Dynamic segment bodies (solid cylinders, local z along the axis), one
/// capsule each if spec.collide, and a RodCoupling at every segment junction whose rest shape is
/// the straight line.  Validates the spec first.
CosseratCable addCosseratCable(Model& model, const CosseratCableSpec& spec);

/// A gripper's hold on a cable end: a weld of `segment` to `body` at `anchor_world`, compliant as
/// a gripper holding a soft cable is (stiffness N/m, damping 0.01 of it; 1e-3 and 1e-5 of it in
/// rotation): a rigid weld between a 0.1 g segment and a 60 kg robot is also the worst
/// conditioned row of a scene.  Returns the joint's index.
int addCableGrip(Model& model, int segment, int body, const Vec3& anchor_world, double stiffness);

}  // namespace subsim
