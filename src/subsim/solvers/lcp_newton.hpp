#pragma once
// Nonsmooth Newton methods for the mixed LCP (formulation/mixed_lcp.hpp), the RPI simulator
// paper's Fischer-Newton and Minmap-Newton (its Table 1; the reformulations of Fischer 1992 and
// of the min-map, as in Erleben's num4lcp): find a root of Phi(z), per row
//   free            phi_i = w_i
//   Fischer (FB)    phi_i = sqrt(z_i^2 + w_i^2) - z_i - w_i
//   min-map         phi_i = min(z_i, w_i)
// with w = M z + q.  Each row of a generalised Jacobian is a_i e_i + b_i M_i (FB: a = z/rho - 1,
// b = w/rho - 1 with rho = |(z, w)|, at rho = 0 a = b = 1/sqrt(2) - 1; min-map: a = 1, b = 0
// where z_i <= w_i, else a = 0, b = 1).  Rows with b_i = 0 fix their step, dz_i = -phi_i / a_i,
// so only the others enter the dense LU: for a step's separated contacts that is most rows.
//
// Globalisation: Armijo backtracking on theta = |Phi|^2 / 2 against the largest of the last
// `nonmonotone_memory` merits (1: the monotone line search; more: Grippo-Lampariello-Lucidi's
// non-monotone search, which PATH uses).  Where the Newton direction gives no step of at least
// 2^-30 that decreases the merit, the merit's steepest descent -J^T Phi is tried (num4lcp's
// Fischer-Newton does the same); when neither does the method has stalled and stops, unless its
// natural residual is at round-off (64 eps (1 + |q|_inf)): a solution, where it goes on to its
// iteration cap.  A singular generalised Jacobian gives the Levenberg-Marquardt step of
// J^T J + 1e-10 |J|^2 I instead of the Newton step.
// Stopping residual: the natural residual's maximum (MixedLcp::naturalResidual).
//
// Allocation: the active system's size changes between iterations, and it is factored dense, so
// the iterations allocate (these are the workbench's reference solvers on small problems).
#include <functional>

#include <Eigen/LU>

#include "subsim/formulation/mixed_lcp.hpp"

namespace subsim {

enum class LcpReformulation { FischerBurmeister, MinMap };

struct LcpNewtonSettings {
  int max_iterations = 60;
  double tolerance = 1e-10;  // on the natural residual's maximum; 0 runs every iteration
  int nonmonotone_memory = 1;
  double armijo = 1e-4;
};

struct LcpNewtonResult {
  int iterations = 0;
  double residual = 0.0;  // natural residual max at the end
  bool stalled = false;
};

class LcpNewton {
 public:
  /// Improves z (its start) on `lcp`.  `on_iteration` is called with each iteration's index and
  /// `history` (when not null) receives each iteration's natural residual.
  LcpNewtonResult solve(const MixedLcp& lcp, VecX& z, LcpReformulation reformulation,
                        const LcpNewtonSettings& settings,
                        const std::function<void(int)>& on_iteration = {},
                        DoubleBuffer* history = nullptr);

 private:
  /// Phi, the Jacobian's a and b, and w at z; returns theta = |Phi|^2 / 2.
  double evaluate(const MixedLcp& lcp, const VecX& z, LcpReformulation reformulation);

  /// Armijo backtracking along dz_ from z against `reference` with merit slope -slope: true
  /// with the accepted point in trial_ (and Phi, a, b, w at it) and its merit in trial_theta.
  bool lineSearch(const MixedLcp& lcp, const VecX& z, LcpReformulation reformulation,
                  double reference, double slope, double& trial_theta);

  VecX gradient_;
  VecX w_, phi_, a_, b_, dz_, trial_, rhs_;
  std::vector<int> active_;
  MatX system_;
  Eigen::PartialPivLU<MatX> lu_;
  std::vector<double> merits_;
};

}  // namespace subsim
