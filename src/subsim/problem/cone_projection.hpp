#pragma once
// Projections onto the Coulomb friction cone for a contact impulse ordered [n, t1, t2].
#include <cmath>

#include "subsim/math/types.hpp"

namespace subsim {

/// The strict (nested) operator of the AL paper (16)-(17): clamp the normal to >= 0, then clamp
/// the tangential part to the disc of radius mu * lambda_n.  Not the Euclidean projection; it is
/// the unique solution of the ADMM z-row and satisfies Signorini-Coulomb exactly (Prop. 2).
inline Vec3 projectConeStrict(const Vec3& lambda_star, double mu) {
  const double n = std::max(lambda_star[0], 0.0);
  const double t1 = lambda_star[1], t2 = lambda_star[2];
  const double tn = std::sqrt(t1 * t1 + t2 * t2);
  const double limit = mu * n;
  if (tn <= limit) return Vec3(n, t1, t2);
  const double s = limit / tn;
  return Vec3(n, s * t1, s * t2);
}

/// The Euclidean (prox) projection onto the cone ||t|| <= mu n, as CANAL uses (AL paper 20-21):
/// stick if inside, zero if in the polar cone, else onto the cone's surface.
inline Vec3 projectConeProx(const Vec3& lambda_star, double mu) {
  const double n = lambda_star[0];
  const double tn = std::hypot(lambda_star[1], lambda_star[2]);
  if (tn <= mu * n) return lambda_star;
  if (mu * tn <= -n) return Vec3::Zero();
  const double ln = (mu * tn + n) / (1.0 + mu * mu);
  const double s = mu * ln / tn;
  return Vec3(ln, s * lambda_star[1], s * lambda_star[2]);
}

}  // namespace subsim
