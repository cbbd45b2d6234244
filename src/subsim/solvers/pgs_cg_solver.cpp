#include "subsim/solvers/pgs_cg_solver.hpp"

#include <algorithm>
#include <chrono>

namespace subsim {

void PgsCgSolver::solve(const StepProblem& p, const SolverSettings& settings, StepSolution& sol) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool factored = w_.build(p, settings.threads);
  const auto t_built = std::chrono::steady_clock::now();
  const int nr = p.numRows();
  if (sol.lambda.size() != nr) sol.lambda.setZero(nr);
  if (sol.vhat.size() != p.numDof()) sol.vhat.resize(p.numDof());
  SolveStats& st = sol.stats;
  requireIsotropicFriction(p, name());
  const int max_it = beginStats(st, "max |D dlambda| (m/s)", settings);
  recordSetup(st, t0, t_built);
  if (!factored) return finishUnfactored(p, sol, settings, t0);
  double* lambda = sol.lambda.data();
  projectAll(w_, lambda);
  previous_.resize(nr);
  direction_.assign(nr, 0.0);
  restarts_ = 0;

  int iterations = max_it;
  double residual = 0.0;
  double r2_previous = 0.0;
  for (int l = 0; l < max_it; ++l) {
    if (settings.on_iteration) settings.on_iteration(l);
    std::copy_n(lambda, nr, previous_.data());
    residual = gaussSeidelSweep(w_, lambda);
    if (recordIteration(st, residual, settings)) {
      iterations = l + 1;
      break;
    }
    double r2 = 0.0;
    for (int k = 0; k < nr; ++k) {
      const double r = lambda[k] - previous_[k];
      r2 += r * r;
    }
    const double beta = l > 0 && r2_previous > 0.0 ? r2 / r2_previous : 0.0;
    r2_previous = r2;
    if (l > 0 && beta > 1.0) {
      ++restarts_;
      for (int k = 0; k < nr; ++k) direction_[k] = lambda[k] - previous_[k];
      continue;
    }
    for (int k = 0; k < nr; ++k) {
      const double r = lambda[k] - previous_[k];
      lambda[k] += beta * direction_[k];
      direction_[k] = r + beta * direction_[k];
    }
    if (beta > 0.0) projectAll(w_, lambda);
  }
  w_.velocity(lambda, sol.vhat.data());
  finishStats(sol, iterations, residual, settings, t0);
}

}  // namespace subsim
