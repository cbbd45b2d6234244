#pragma once
// The RPI simulator paper's Fixed-point solver (its Table 1) on a mixed LCP
// (formulation/mixed_lcp.hpp): the projected fixed-point iteration of the natural map,
//
//   z <- max(0, z - r .* (M z + q))        (free rows: z <- z - r .* (M z + q))
//
// whose fixed points are exactly the solutions, with the per-row factor r_i = omega / M_ii, or
// omega over the largest diagonal entry of i's block where M_ii <= 0 (the sliding-speed rows of the
// polyhedral-cone LCPs, whose diagonal is zero).  omega follows the r-factor strategy of Erleben's
// proximal-operator solvers (2017): a sweep that raises the natural residual's 2-norm is undone and
// omega halved, one that lowers it lets omega grow by 10 % up to 1 (the maximum, the reported
// residual, may rise in a sweep the 2-norm accepts).  Unlike lcp-pj (lcp_projected.hpp)
// no block is solved exactly: one product with M per sweep, and nothing allocated in the sweeps.
#include "subsim/formulation/mixed_lcp.hpp"

namespace subsim {

class LcpFixedPoint {
 public:
  /// Sizes the workspace and evaluates z's residual; omega is the first relaxation (0, 1].
  void prepare(const MixedLcp& lcp, const VecX& z, double omega);
  /// One sweep from z (kept when it raised the residual); the natural residual maximum of z after.
  double sweep(const MixedLcp& lcp, VecX& z);
  double omega() const { return omega_; }

 private:
  VecX r_, w_, trial_, trial_w_;
  double omega_ = 1.0;
  double residual_ = 0.0, norm2_ = 0.0;  // natural residual of z: maximum, 2-norm
};

}  // namespace subsim
