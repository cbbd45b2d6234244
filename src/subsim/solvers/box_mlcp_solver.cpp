#include "subsim/solvers/box_mlcp_solver.hpp"

#include <chrono>

namespace subsim {

const OptionTable<BoxMlcpOptions>& BoxMlcpSolver::optionTable() {
  static const OptionTable<BoxMlcpOptions> table = [] {
    OptionTable<BoxMlcpOptions> t;
    addBoxMlcpOptions(t);
    return t;
  }();
  return table;
}

std::string_view BoxMlcpSolver::name() const {
  switch (variant_) {
    case Variant::Bpp:
      return "bpp";
    case Variant::PgsSm:
      return "pgs-sm";
    case Variant::Pgs:
      break;
  }
  return "box-pgs";
}

void BoxMlcpSolver::solve(const StepProblem& p, const SolverSettings& settings, StepSolution& sol) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool warm = sol.lambda.size() == p.numRows();
  if (warm) previous_ = sol.lambda;
  const bool factored = form_.build(p, warm ? &previous_ : nullptr,
                                    BoxMlcpSettings{options_.compliance}, settings.threads);
  SolveStats& st = sol.stats;
  requireIsotropicFriction(p, name());
  const int max_it = beginStats(
      st, variant_ == Variant::Pgs ? "max |A_rr dlambda_r| (m/s)" : "natural residual max (29)",
      settings);
  if (!factored) return finishUnfactored(p, sol, settings, t0);
  pivoting_.invalidate();
  const int n = p.numRows();
  VecX& lambda = sol.lambda;
  if (!warm) lambda.setZero(n);
  lambda = lambda.cwiseMax(form_.lower()).cwiseMin(form_.upper());
  const SparseBoxMatrix a{&form_.matrix()};
  PivotingSettings ps = pivotingSettingsOf(options_);
  ps.epsilon = settings.tolerance;
  ps.max_pivots = std::min(max_it, options_.max_pivots);

  int iterations = 0;
  double residual = 0.0, two_norm = 0.0;
  if (variant_ == Variant::Pgs) {
    iterations = max_it;
    for (int l = 0; l < max_it; ++l) {
      if (settings.on_iteration) settings.on_iteration(l);
      residual = pivoting_.pgsSweep(a, form_.rhs(), form_.lower(), form_.upper(), lambda);
      if (recordIteration(st, residual, settings)) {
        iterations = l + 1;
        break;
      }
    }
  } else {
    indexSetsFrom(lambda, form_.lower(), form_.upper(), options_.eta, sets_);
    const PivotingResult r = variant_ == Variant::Bpp
                                 ? pivoting_.blockPivoting(a, form_.rhs(), form_.lower(),
                                                           form_.upper(), ps, sets_, lambda)
                                 : pivoting_.pgsSubspace(a, form_.rhs(), form_.lower(),
                                                         form_.upper(), ps, sets_, lambda);
    if (r.factor_failed) noteFailure(st, SolveStatus::FactorizationFailed);
    iterations = r.pivots;
    form_.naturalResidual(lambda, residual, two_norm);
    if (settings.record_history) st.residual_history.push_back(residual);
  }
  sol.vhat.resize(p.numDof());
  form_.velocity(lambda, sol.vhat);
  finishStats(sol, iterations, residual, settings, t0);
}

}  // namespace subsim
