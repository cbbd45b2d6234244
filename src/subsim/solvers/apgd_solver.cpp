#include "subsim/solvers/apgd_solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "subsim/problem/cone_projection.hpp"

namespace subsim {

namespace {
// The gradient step of the residual (Mazhar et al. 2015, eq. 27).
constexpr double kResidualStep = 1e-6;

}  // namespace

const OptionTable<ApgdOptions>& ApgdSolver::optionTable() {
  using O = ApgdOptions;
  static const auto table = OptionTable<O>().choice(
      "delassus", &O::delassus,
      {{"factored", ApgdDelassus::Factored}, {"assembled", ApgdDelassus::Assembled}},
      "the products with W = J A^-1 J^T: through the factors of A, one solve per subsystem "
      "(the COND paper's APGD), or on the assembled blocks (a solve per constraint row first)");
  return table;
}

template <class Operator>
void ApgdSolver::project(const Operator& w, double* lambda) const {
  for (const Constraint& c : w.problem().constraints) {
    double* l = lambda + c.row_offset;
    if (c.type == ConstraintType::Unilateral) {
      for (int r = 0; r < c.rows; ++r) l[r] = std::max(0.0, l[r]);
    } else if (c.type == ConstraintType::Contact) {
      const Vec3 projected = projectConeProx(Vec3(l[0], l[1], l[2]), c.mu);
      std::copy_n(projected.data(), 3, l);
    }
    for (int r = 0; r < c.rows; ++r)
      if (w.fixedRow(c.row_offset + r)) l[r] = w.fixedValue(c.row_offset + r);
  }
}

namespace {
/// f(lambda) = 1/2 lambda^T W lambda + c^T lambda given W lambda.
double objective(const DoubleBuffer& c, const double* lambda, const double* w_lambda) {
  double f = 0.0;
  for (size_t r = 0; r < c.size(); ++r) f += lambda[r] * (0.5 * w_lambda[r] + c[r]);
  return f;
}
}  // namespace

template <class Operator>
double ApgdSolver::residual(const Operator& w, const double* lambda, const double* w_lambda) {
  const DoubleBuffer& c = w.rhs();
  const size_t m = c.size();
  for (size_t r = 0; r < m; ++r) grad_[r] = lambda[r] - kResidualStep * (w_lambda[r] + c[r]);
  project(w, grad_.data());
  double worst = 0.0;
  for (size_t r = 0; r < m; ++r)
    worst = std::max(worst, std::abs(lambda[r] - grad_[r]) / kResidualStep);
  return worst;
}

void ApgdSolver::solve(const StepProblem& p, const SolverSettings& settings, StepSolution& sol) {
  const auto t0 = std::chrono::steady_clock::now();
  requireIsotropicFriction(p, name());
  if (options_.delassus == ApgdDelassus::Factored && !p.hasLocalForm())
    iterate(factored_, p, settings, sol, t0);
  else
    iterate(assembled_, p, settings, sol, t0);
}

template <class Operator>
void ApgdSolver::iterate(Operator& w, const StepProblem& p, const SolverSettings& settings,
                         StepSolution& sol, std::chrono::steady_clock::time_point t0) {
  const bool factored = w.build(p, settings.threads);
  const auto t_built = std::chrono::steady_clock::now();
  const int m = p.numRows();
  if (sol.lambda.size() != m) sol.lambda.setZero(m);
  if (sol.vhat.size() != p.numDof()) sol.vhat.resize(p.numDof());
  SolveStats& st = sol.stats;
  const int max_it = beginStats(st, "projected gradient (m/s)", settings);
  recordSetup(st, t0, t_built);
  if (!factored) return finishUnfactored(p, sol, settings, t0);
  for (DoubleBuffer* b : {&lambda_, &next_, &y_, &w_lambda_, &w_next_, &w_y_, &grad_, &best_})
    b->resize(m);
  const DoubleBuffer& c = w.rhs();

  std::copy_n(sol.lambda.data(), m, lambda_.data());
  project(w, lambda_.data());
  w.multiply(lambda_.data(), w_lambda_.data());
  // L from the operator's action between lambda_0 and lambda_0 + 1 (the paper's estimate).
  for (int r = 0; r < m; ++r) next_[r] = lambda_[r] + 1.0;
  w.multiply(next_.data(), w_next_.data());
  double diff2 = 0.0;
  for (int r = 0; r < m; ++r) diff2 += (w_next_[r] - w_lambda_[r]) * (w_next_[r] - w_lambda_[r]);
  double lipschitz = m > 0 ? std::sqrt(diff2 / m) : 1.0;
  if (!(lipschitz > 0.0) || !std::isfinite(lipschitz)) lipschitz = 1.0;

  y_ = lambda_;
  w_y_ = w_lambda_;
  best_ = lambda_;
  double best_residual = residual(w, lambda_.data(), w_lambda_.data());
  double theta = 1.0;
  int iterations = max_it;
  double last = best_residual;
  for (int l = 0; l < max_it; ++l) {
    if (settings.on_iteration) settings.on_iteration(l);
    // g = W y + c (in grad_), the step, and backtracking on the quadratic upper bound.
    for (int r = 0; r < m; ++r) grad_[r] = w_y_[r] + c[r];
    const double f_y = objective(c, y_.data(), w_y_.data());
    for (int tries = 0;; ++tries) {
      const double t = 1.0 / lipschitz;
      for (int r = 0; r < m; ++r) next_[r] = y_[r] - t * grad_[r];
      project(w, next_.data());
      w.multiply(next_.data(), w_next_.data());
      double linear = 0.0, dist2 = 0.0;
      for (int r = 0; r < m; ++r) {
        const double d = next_[r] - y_[r];
        linear += grad_[r] * d;
        dist2 += d * d;
      }
      const double bound = f_y + linear + 0.5 * lipschitz * dist2;
      if (objective(c, next_.data(), w_next_.data()) <= bound + 1e-14 * std::abs(bound) ||
          tries >= 60)
        break;
      lipschitz *= 2.0;
    }
    // Momentum, with the adaptive restart when the step goes uphill.
    const double theta_next = 0.5 * (-theta * theta + theta * std::sqrt(theta * theta + 4.0));
    double beta = theta * (1.0 - theta) / (theta * theta + theta_next);
    double uphill = 0.0;
    for (int r = 0; r < m; ++r) uphill += grad_[r] * (next_[r] - lambda_[r]);
    theta = theta_next;
    if (uphill > 0.0) {
      beta = 0.0;
      theta = 1.0;
    }
    for (int r = 0; r < m; ++r) {
      y_[r] = next_[r] + beta * (next_[r] - lambda_[r]);
      w_y_[r] = (1.0 + beta) * w_next_[r] - beta * w_lambda_[r];
    }
    lambda_.swap(next_);
    w_lambda_.swap(w_next_);
    lipschitz *= 0.9;
    last = residual(w, lambda_.data(), w_lambda_.data());
    if (last < best_residual) {
      best_residual = last;
      best_ = lambda_;
    }
    if (recordIteration(st, last, settings) || !std::isfinite(last)) {
      iterations = l + 1;
      break;
    }
  }
  std::copy_n(best_.data(), m, sol.lambda.data());
  w.velocity(sol.lambda.data(), sol.vhat.data());
  finishStats(sol, iterations, best_residual, settings, t0);
}

}  // namespace subsim
