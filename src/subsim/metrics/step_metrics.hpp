#pragma once
// One metric module that judges every solver from (problem, solution) alone (ARCHITECTURE.md).
//
// constraint_residual (the AL paper, section 6, the papers' "AA" as -log10):
//   1. vhat* = A^{-1} (b + J^T lambda) per subsystem (dynamics residual zero by construction);
//   2. per constraint z_j = J_j vhat* - lambda_j + T(lambda_j - J_j vhat* - e_j) with the
//   closed-form
//      operator T at beta = 1 (strict cone for contacts; problem/constraint_operator.hpp);
//   3. sqrt(sum_j ||J_j vhat* - z_j||^2) / (number of constraints).
//   lambda is in N s and J vhat in m/s, mixed at beta = 1 exactly as in the paper.
// contact_fb_residual (the ICRA paper's Fischer-Burmeister contact error), with the same vhat* and
//   g = J vhat* + e per contact [n, t1, t2]:
//   phi_n = lambda_n + g_n - sqrt(lambda_n^2 + g_n^2)                        (normal FB)
//   phi_t = lambda_t - Proj_{||.|| <= mu lambda_n}(lambda_t - g_t)           (friction natural map)
//   sqrt(sum_contacts phi_n^2 + ||phi_t||^2) / (number of contacts).
// contact_natural_map_error (the error FCLib and Siconos users report; De Saxce's bipotential
//   form), with r = lambda and u = J vhat* + e per contact, u~ = u + [mu ||u_t||, 0, 0]:
//   ||r - P_K(r - u~)|| / max(||q||, ||r||, ||u||) over all contacts stacked, K the Coulomb cone
//   ||t|| <= mu n (Euclidean projection), q = J A^{-1} b + e the contact velocities at lambda = 0;
//   0 without contacts.  Zero exactly at a Signorini-Coulomb solution (r in K, u~ in K*,
//   r . u~ = 0).
// Anisotropic contacts (Constraint::mu_t2): the AL residual's T uses the elliptic strict operator
//   (maximal dissipation); the two contact residuals judge the contact mapped onto the isotropic
//   cone of max(mu, mu_t2) by scaling its tangential axes (step_metrics.cpp).
// A problem in local form (StepProblem::local_w) has J vhat* = W lambda and J v_free = 0, so u =
//   W lambda + q as FCLib defines it; it has no dynamics residual.
// dynamics_residual: max_i ||A_i vhat_i - b_i - sum_j J_ij^T lambda_j|| with the solver's vhat.
// bilateral_residual: max over bilateral rows |J vhat + e| with the solver's vhat (m/s).
#include "subsim/problem/step_problem.hpp"

namespace subsim {

struct StepMetrics {
  int constraints = 0;
  int contacts = 0;
  double constraint_residual = 0.0;
  double contact_fb_residual = 0.0;
  double contact_natural_map_error = 0.0;
  double dynamics_residual = 0.0;
  double bilateral_residual = 0.0;
};

StepMetrics evaluateStep(const StepProblem& problem, const StepSolution& solution);

/// u = J v, every constraint row's velocity for the DOF velocities v (a problem with subsystems).
VecX constraintVelocities(const StepProblem& problem, const VecX& v);

/// -log10 of a residual, the papers' accuracy figure (higher is better); 16 for an exact zero.
double accuracyOf(double residual);

}  // namespace subsim
