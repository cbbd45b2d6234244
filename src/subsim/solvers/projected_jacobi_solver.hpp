#pragma once
// Projected Jacobi (PJ) with relaxation on the Delassus operator: the ICRA paper's PJ baseline
// (Table I), the parallel counterpart of PGS (e.g. Tonge, Benevolenski, Voroshilov, "Mass
// splitting for jitter-free parallel rigid body simulation", SIGGRAPH 2012, on projected Jacobi).
//
// With W, c, D_j and P_j as in PGS (solvers/pgs_solver.hpp, formulation/delassus_form.hpp), all
// constraints are updated at once from the previous iterate:
//   lambda_j^{l+1} = lambda_j^l + omega (P_j(lambda_j^l - D_j^{-1} (W lambda^l + c)_j) -
//   lambda_j^l)
// in parallel over constraints (OpenMP, schedule(static); each constraint writes only its own
// rows and the residual is reduced in a fixed order, so results are bit-identical for any thread
// count).  The relaxation omega (ProjectedJacobiOptions::omega, default 0.3) must satisfy omega < 2
// / lambda_max(D^{-1} W) for the linear part to converge; the undamped Jacobi step (omega = 1)
// overshoots as soon as several constraints push on one body (4 contacts under a box).  The convex
// combination keeps lambda in the (convex) constraint sets. Stopping residual
// (SolveStats::residual_name "max |D dlambda| (m/s)"): max_r D_r |lambda_r^{l+1} - lambda_r^l|
// (which includes the factor omega). Warm start and vhat as in PGS; no heap allocation inside the
// iterations.
#include <vector>

#include "subsim/solvers/projected_iteration.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

/// PJ's options (`subsim solvers pj`).
struct ProjectedJacobiOptions {
  /// Relaxation factor omega in (0, 1].
  double omega = 0.3;
};

class ProjectedJacobiSolver final
    : public SolverWithOptions<ProjectedJacobiSolver, ProjectedJacobiOptions> {
 public:
  using SolverWithOptions::SolverWithOptions;

  std::string_view name() const override { return "pj"; }
  void solve(const StepProblem& problem, const SolverSettings& settings,
             StepSolution& solution) override;

  static const OptionTable<Options>& optionTable();

  const DelassusForm& delassus() const { return w_; }

 private:
  DelassusForm w_;
  DoubleBuffer next_;    // lambda^{l+1}
  DoubleBuffer change_;  // per constraint max D |dlambda|
};

}  // namespace subsim
