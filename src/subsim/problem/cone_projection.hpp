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

/// The strict operator on the elliptic cone lambda_n^2 >= (t1 / mu1)^2 + (t2 / mu2)^2 (COND paper
/// eq. 12 and Prop. 6): clamp the normal to >= 0, then the Euclidean projection of the tangential
/// part onto the ellipse of semi-axes mu1 lambda_n, mu2 lambda_n, which is the maximal-dissipation
/// friction (not opposite to the sliding velocity unless mu1 = mu2).  The projection x_i = y_i
/// a_i^2 / (a_i^2 + s) has its multiplier s >= 0 at the root of f(s) = sum (a_i y_i / (a_i^2 +
/// s))^2 - 1, convex and decreasing: Newton from s = 0 rises to it monotonically (safeguarded by
/// the bracket [0, |a y|]), a fixed number of steps at most, so the result is deterministic.
inline Vec3 projectEllipticConeStrict(const Vec3& lambda_star, double mu1, double mu2) {
  const double n = std::max(lambda_star[0], 0.0);
  const double a1 = mu1 * n, a2 = mu2 * n;
  const double y1 = lambda_star[1], y2 = lambda_star[2];
  const double q1 = a1 > 0.0 ? y1 / a1 : (y1 == 0.0 ? 0.0 : HUGE_VAL);
  const double q2 = a2 > 0.0 ? y2 / a2 : (y2 == 0.0 ? 0.0 : HUGE_VAL);
  if (q1 * q1 + q2 * q2 <= 1.0) return Vec3(n, y1, y2);  // inside: sticking
  if (a1 <= 0.0 && a2 <= 0.0) return Vec3(n, 0.0, 0.0);
  // An axis of zero length (a frictionless direction) keeps no tangential impulse.
  const double b1 = a1 * y1, b2 = a2 * y2;
  const auto ratio = [](double b, double d) { return b == 0.0 ? 0.0 : b / d; };
  double lo = 0.0, hi = std::hypot(b1, b2), s = 0.0;
  for (int k = 0; k < 60; ++k) {
    const double d1 = a1 * a1 + s, d2 = a2 * a2 + s;
    const double r1 = ratio(b1, d1), r2 = ratio(b2, d2);
    const double f = r1 * r1 + r2 * r2 - 1.0;
    if (f <= 0.0) {  // s = 0 when the nonzero axis alone holds y: the degenerate ellipse's segment
      hi = s;
      if (f == 0.0 || s == 0.0) break;
    } else {
      lo = s;
    }
    const double df = -2.0 * (r1 * r1 / d1 + r2 * r2 / d2);
    const double next = s - f / df;
    const double step = next > lo && next < hi ? next : 0.5 * (lo + hi);
    if (step == s) break;
    s = step;
  }
  const auto axis = [s](double y, double a) { return a > 0.0 ? y * a * a / (a * a + s) : 0.0; };
  return Vec3(n, axis(y1, a1), axis(y2, a2));
}

/// The strict operator of a contact: isotropic (projectConeStrict) or elliptic.
inline Vec3 projectContactStrict(const Vec3& lambda_star, double mu, double mu_t2) {
  return mu_t2 < 0.0 ? projectConeStrict(lambda_star, mu)
                     : projectEllipticConeStrict(lambda_star, mu, mu_t2);
}

/// The Euclidean (prox) projection onto the cone ||t|| <= mu n, as CANAL uses (AL paper 20-21):
/// stick if inside, zero if in the polar cone, else onto the cone's surface.
inline Vec3 projectConeProx(const Vec3& lambda_star, double mu) {
  const double n = lambda_star[0];
  // sqrt of the sum of squares, not hypot: impulses and velocities are far from the squares'
  // overflow, sqrt is exactly rounded on every machine, and glibc's hypot was 5 % of CANAL's
  // time on a granular pile (its line search projects every contact at every evaluation).
  const double tn = std::sqrt(lambda_star[1] * lambda_star[1] + lambda_star[2] * lambda_star[2]);
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
