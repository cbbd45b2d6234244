#include "subsim/solvers/projected_jacobi_solver.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>

namespace subsim {

const OptionTable<ProjectedJacobiOptions>& ProjectedJacobiSolver::optionTable() {
  using O = ProjectedJacobiOptions;
  static const OptionTable<O> table = OptionTable<O>().number(
      "omega", &O::omega, NumberRange::openClosed(0.0, 1.0), "-",
      "relaxation of the Jacobi step (1: undamped, which overshoots where contacts share a body)");
  return table;
}

void ProjectedJacobiSolver::solve(const StepProblem& p, const SolverSettings& settings,
                                  StepSolution& sol) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool factored = w_.build(p, settings.threads);
  const auto t_built = std::chrono::steady_clock::now();
  const int nc = p.numConstraints();
  if (sol.lambda.size() != p.numRows()) sol.lambda.setZero(p.numRows());
  if (sol.vhat.size() != p.numDof()) sol.vhat.resize(p.numDof());
  SolveStats& st = sol.stats;
  requireIsotropicFriction(p, name());
  const int max_it = beginStats(st, "max |D dlambda| (m/s)", settings);
  recordSetup(st, t0, t_built);
  if (!factored) return finishUnfactored(p, sol, settings, t0);
  projectAll(w_, sol.lambda.data());
  next_.assign(sol.lambda.data(), sol.lambda.data() + p.numRows());
  change_.resize(nc);
  const int threads = settings.threads > 0 ? settings.threads : omp_get_max_threads();
  // cur holds lambda^l, nxt receives lambda^{l+1}; swapped every iteration.
  double* cur = sol.lambda.data();
  double* nxt = next_.data();
  const double relax = options_.omega;

  int iterations = max_it;
  double residual = 0.0;
  bool stop = false;
#pragma omp parallel num_threads(threads)
  {
    for (int l = 0; l < max_it; ++l) {
      if (settings.on_iteration) {
#pragma omp single
        settings.on_iteration(l);
      }
#pragma omp for schedule(static)
      for (int j = 0; j < nc; ++j) change_[j] = projectedStep(w_, j, cur, relax, nxt);
#pragma omp single
      {
        double change = 0.0;
        for (int j = 0; j < nc; ++j) change = std::max(change, change_[j]);
        residual = change;
        std::swap(cur, nxt);
        if (recordIteration(st, residual, settings)) {
          stop = true;
          iterations = l + 1;
        }
      }
      if (stop) break;
    }
  }
  if (cur != sol.lambda.data()) std::copy_n(cur, p.numRows(), sol.lambda.data());
  w_.velocity(sol.lambda.data(), sol.vhat.data());
  finishStats(sol, iterations, residual, settings, t0);
}

}  // namespace subsim
