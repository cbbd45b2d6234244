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

/// Generalised Jacobian d lambda / d lambda_star of projectConeStrict, rows and columns ordered
/// [n, t1, t2]: zero when open (lambda*_n < 0), identity when sticking, and when sliding
/// lambda = (n*, mu n* tbar) gives [[1, 0], [mu tbar, mu n* P / ||t*||]] with tbar = t* / ||t*||,
/// P = I - tbar tbar^T.  At a kink any one-sided value is a valid element.
inline Mat3 jacobianConeStrict(const Vec3& lambda_star, double mu) {
  const double n = lambda_star[0];
  const Eigen::Vector2d t = lambda_star.tail<2>();
  const double tn = t.norm();
  if (n <= 0.0) return Mat3::Zero();
  if (tn <= mu * n) return Mat3::Identity();
  const Eigen::Vector2d tbar = t / tn;
  const Eigen::Matrix2d P = Eigen::Matrix2d::Identity() - tbar * tbar.transpose();
  Mat3 G = Mat3::Zero();
  G(0, 0) = 1.0;
  G.block<2, 1>(1, 0) = mu * tbar;
  G.block<2, 2>(1, 1) = (mu * n / tn) * P;
  return G;
}

/// Generalised Jacobian of projectConeProx (AL paper eq. 23, permuted from its [t, n] order to
/// [n, t1, t2]): zero in the polar cone, identity inside the cone, and on the slip region
/// 1 / (1 + mu^2) [[1, mu tbar^T], [mu tbar, mu^2 I + (mu n* / ||t*||) P]].
inline Mat3 jacobianConeProx(const Vec3& lambda_star, double mu) {
  const double n = lambda_star[0];
  const Eigen::Vector2d t = lambda_star.tail<2>();
  const double tn = t.norm();
  if (tn <= mu * n) return Mat3::Identity();
  if (mu * tn <= -n) return Mat3::Zero();
  const Eigen::Vector2d tbar = t / tn;
  const Eigen::Matrix2d P = Eigen::Matrix2d::Identity() - tbar * tbar.transpose();
  Mat3 G;
  G(0, 0) = 1.0;
  G.block<1, 2>(0, 1) = mu * tbar.transpose();
  G.block<2, 1>(1, 0) = mu * tbar;
  G.block<2, 2>(1, 1) = mu * mu * Eigen::Matrix2d::Identity() + (mu * n / tn) * P;
  return G / (1.0 + mu * mu);
}

}  // namespace subsim
