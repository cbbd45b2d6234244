#include "subsim/solvers/pgs_solver.hpp"

#include <algorithm>
#include <chrono>

namespace subsim {

void PgsSolver::solve(const StepProblem& p, const SolverSettings& settings, StepSolution& sol) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool factored = w_.build(p, settings.threads);
  const auto t_built = std::chrono::steady_clock::now();
  if (sol.lambda.size() != p.numRows()) sol.lambda.setZero(p.numRows());
  if (sol.vhat.size() != p.numDof()) sol.vhat.resize(p.numDof());
  SolveStats& st = sol.stats;
  requireIsotropicFriction(p, name());
  const int max_it = beginStats(st, "max |D dlambda| (m/s)", settings);
  recordSetup(st, t0, t_built);
  if (!factored) return finishUnfactored(p, sol, settings, t0);
  double* lambda = sol.lambda.data();
  projectAll(w_, lambda);

  int iterations = max_it;
  double residual = 0.0;
  for (int l = 0; l < max_it; ++l) {
    if (settings.on_iteration) settings.on_iteration(l);
    residual = gaussSeidelSweep(w_, lambda);
    if (recordIteration(st, residual, settings)) {
      iterations = l + 1;
      break;
    }
  }
  w_.velocity(lambda, sol.vhat.data());
  finishStats(sol, iterations, residual, settings, t0);
}

}  // namespace subsim
