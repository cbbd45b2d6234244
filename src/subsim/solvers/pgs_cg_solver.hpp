#pragma once
// PGS with nonsmooth nonlinear conjugate gradient acceleration (NNCG): Silcowitz, Niebe, Erleben,
// "Projected Gauss-Seidel subspace minimization method for interactive rigid body dynamics" /
// "A nonsmooth nonlinear conjugate gradient method for interactive contact force problems"
// (The Visual Computer 2010, Algorithm 1), the "PGS with CG acceleration" baseline of the ICRA
// paper.
//
// With the PGS sweep lambda' = PGS(lambda) of solvers/pgs_solver.hpp (same W, c, D, P_j), the
// PGS step r_k = PGS(lambda_k) - lambda_k plays the role of the negative gradient
// (Fletcher-Reeves):
//   beta_k = ||r_k||^2 / ||r_{k-1}||^2            (Euclidean norms over all rows)
//   beta_k > 1:  restart, p_k = r_k, lambda_{k+1} = PGS(lambda_k)
//   else:        lambda_{k+1} = P(PGS(lambda_k) + beta_k p_{k-1}),  p_k = r_k + beta_k p_{k-1}
// (p_0 = r_0).  P projects every constraint block (and resets fixed soft rows); the original
// algorithm leaves the projection to the next sweep, projecting here keeps every iterate feasible.
// Stopping residual (SolveStats::residual_name "max |D dlambda| (m/s)"): the PGS sweep's
// max_r D_r |PGS(lambda_k)_r - lambda_k,r|, before the acceleration.
// Warm start and vhat as in PGS; no heap allocation inside the iterations.
#include <vector>

#include "subsim/solvers/projected_iteration.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

class PgsCgSolver final : public Solver {
 public:
  std::string_view name() const override { return "pgs-cg"; }
  void solve(const StepProblem& problem, const SolverSettings& settings,
             StepSolution& solution) override;

  /// Number of restarts (beta > 1) in the last solve.
  int restarts() const { return restarts_; }

 private:
  DelassusForm w_;
  DoubleBuffer previous_;   // lambda_k before the sweep
  DoubleBuffer direction_;  // p
  int restarts_ = 0;
};

}  // namespace subsim
