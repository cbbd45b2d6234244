#pragma once
// A Cosserat rod coupling: the soft constraint between two consecutive rigid segments of a rod
// (ICRA digest, cable scene: "640 rigid bodies with Cosserat soft constraints").  The strains of
// a discrete Cosserat rod live at the points where segments meet: the gap between the two
// segment ends (shear along d1, d2 and stretch along d3) and the relative rotation (bend about
// d1, d2 and twist about d3), both measured in the material frame [d1 d2 d3] carried by body a.
// Each strain gets its own elastic and viscous coefficient, so one coupling is one Soft
// constraint of 6 rows (lambda = -k e - c J vhat, digest eq. 3), folded into the subsystem's
// A_i, b_i when both segments share a subsystem (assembly/rod_rows.cpp, docs/cosserat-cable.md).
#include <string>

#include "subsim/math/pose.hpp"

namespace subsim {

struct RodCoupling {
  std::string name;
  int body_a = -1;
  int body_b = -1;                        // -1: the world (a clamp); anchor_b is then a world point
  Vec3 anchor_a = Vec3::Zero();           // the shared point in a's frame ...
  Vec3 anchor_b = Vec3::Zero();           // ... and in b's frame (coincide at rest)
  Quat rest_relative = Quat::Identity();  // q_b^-1 q_a at rest (zero bend and twist)
  /// Material frame in a's body frame: its columns are d1, d2 (cross-section axes) and d3 (the
  /// segment axis).
  Quat material_frame = Quat::Identity();

  // Elastic coefficients per material axis.
  double shear_stiffness[2] = {0.0, 0.0};  // N/m, along d1, d2
  double stretch_stiffness = 0.0;          // N/m, along d3
  double bend_stiffness[2] = {0.0, 0.0};   // N m/rad, about d1, d2
  double twist_stiffness = 0.0;            // N m/rad, about d3
  // Viscous coefficients on the rates of the same strains.
  double shear_damping[2] = {0.0, 0.0};  // N s/m
  double stretch_damping = 0.0;          // N s/m
  double bend_damping[2] = {0.0, 0.0};   // N m s/rad
  double twist_damping = 0.0;            // N m s/rad

  /// Per row in constraint order [shear d1, shear d2, stretch, bend d1, bend d2, twist].
  double stiffness(int row) const {
    const double k[6] = {shear_stiffness[0], shear_stiffness[1], stretch_stiffness,
                         bend_stiffness[0],  bend_stiffness[1],  twist_stiffness};
    return k[row];
  }
  double damping(int row) const {
    const double c[6] = {shear_damping[0], shear_damping[1], stretch_damping,
                         bend_damping[0],  bend_damping[1],  twist_damping};
    return c[row];
  }
};

}  // namespace subsim
