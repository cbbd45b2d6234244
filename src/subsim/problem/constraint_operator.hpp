#pragma once
// The closed-form constraint operator shared by SubADMM's z-step and the accuracy metric.
//
// For a constraint j attached to subsystems i in S_j with penalties beta_i, ADMM's z-row
// beta_i z_ij = y_ij + lambda_j (ICRA eq. 16, journal eqs. 35-38) has a closed-form solution in
// terms of  s = sum_i y_ij / beta_i  and  w = sum_i 1 / beta_i :
//   bilateral   lambda = -(s + e) / w
//   unilateral  lambda = max(0, -(s + e) / w)                       per row
//   soft        lambda = -(c s + k e) / (1 + c w)                   per row (lambda = -k e - c J v)
//   contact     lambda = Pi_strict(-(s + e) / w)                    (AL paper 16-17; on the
//                                                                    elliptic cone, COND Prop. 6)
// With beta = 1 and u = -lambda the same operator evaluated at s = J vhat - lambda, w = 1 is the
// AL paper's T used by its accuracy metric (section 6).
#include <stdexcept>

#include "subsim/problem/cone_projection.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// One row of a bilateral, unilateral or soft constraint: lambda from s and w (its rows are
/// independent, so each may have its own w: COND's per-row virtual nodes).
inline double resolveRow(ConstraintType type, double s, double w, double e, double k,
                         double damping) {
  switch (type) {
    case ConstraintType::Bilateral:
      return -(s + e) * (1.0 / w);
    case ConstraintType::Unilateral:
      return std::max(0.0, -(s + e) * (1.0 / w));
    case ConstraintType::Soft:
      return -(damping * s + k * e) / (1.0 + damping * w);
    case ConstraintType::Contact:
      break;
  }
  throw std::logic_error("resolveRow: a contact's rows are resolved together (resolveConstraint)");
}

/// A contact's three rows: lambda = Pi_strict(-(s + e) / w) on the cone of mu (and mu_t2 when
/// anisotropic, Constraint::mu_t2).
inline void resolveContact(const double* s, double w, const double* e, double mu, double mu_t2,
                           double* lambda) {
  const double inv_w = 1.0 / w;
  const Vec3 star(-(s[0] + e[0]) * inv_w, -(s[1] + e[1]) * inv_w, -(s[2] + e[2]) * inv_w);
  const Vec3 l = projectContactStrict(star, mu, mu_t2);
  lambda[0] = l[0];
  lambda[1] = l[1];
  lambda[2] = l[2];
}

/// Writes lambda (c.rows values) from s (c.rows values) and w; e, k, damping point at the
/// constraint's first row in StepProblem::e, soft_k, soft_c.
inline void resolveConstraint(const Constraint& c, const double* s, double w, const double* e,
                              const double* k, const double* damping, double* lambda) {
  switch (c.type) {
    case ConstraintType::Bilateral:
    case ConstraintType::Unilateral:
    case ConstraintType::Soft:
      for (int r = 0; r < c.rows; ++r)
        lambda[r] = resolveRow(c.type, s[r], w, e[r], k[r], damping[r]);
      return;
    case ConstraintType::Contact:
      resolveContact(s, w, e, c.mu, c.mu_t2, lambda);
      return;
  }
}

}  // namespace subsim
