#pragma once
// A primal-dual interior-point method for the pure LCP  w = M z + q,  0 <= z _|_ w >= 0  (the RPI
// simulator paper's "Interior-point", Table 1; the infeasible path-following method of Kojima,
// Megiddo, Noma and Yoshise, and Wright, "Primal-Dual Interior-Point Methods", ch. 8): from
// z = w = 1 each iteration takes the Newton step of
//   M z + q - w = 0,   Z W e = sigma mu e,   mu = z . w / n,
// eliminated to (M + Z^-1 W) dz = -(M z + q - w) + sigma mu Z^-1 e - w, with dw from the second
// row, and the longest step that keeps z, w > 0 (times 0.995).  sigma is Mehrotra's heuristic
// from the affine-scaling step's duality gap, (mu_aff / mu)^3, kept in [1e-4, 0.5].
// Stopping residual: the natural residual's maximum of z (MixedLcp); the interior iterates reach
// it to about sqrt(mu), so tight tolerances cost the last few iterations.  Once it is at
// round-off (64 eps (1 + |q|_inf)) the iterations go on to the cap without work, not as a stall.
// Mixed problems go through FreeVariableElimination first.  The iterations allocate (a dense LU of
// n x n each).
#include <functional>

#include "subsim/formulation/mixed_lcp.hpp"

namespace subsim {

struct LcpInteriorPointResult {
  int iterations = 0;
  double residual = 0.0;
  bool stalled = false;  // the system became singular or the step vanished
};

/// Solves the pure LCP (m, q) into z; tolerance on the natural residual's maximum (0: all
/// iterations).
LcpInteriorPointResult solveLcpInteriorPoint(const RowMajorMatX& m, const VecX& q, VecX& z,
                                             int max_iterations, double tolerance,
                                             const std::function<void(int)>& on_iteration = {},
                                             DoubleBuffer* history = nullptr);

}  // namespace subsim
