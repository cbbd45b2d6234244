#include "subsim/solvers/fadmm_solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "subsim/problem/constraint_operator.hpp"

namespace subsim {

namespace {
// OSQP residual balancing: every 10 iterations, when r_p and r_d differ by more than 5x, by at
// most 10x per change.
constexpr ResidualBalancing kBalancing{10, 5.0, 10.0};
// A stall: the residual has not halved in kStallWindow measured iterations.
constexpr int kStallWindow = 500;
constexpr double kStallProgress = 0.5;
}  // namespace

const OptionTable<FadmmOptions>& FadmmSolver::optionTable() {
  using O = FadmmOptions;
  static const OptionTable<O> table =
      OptionTable<O>()
          .flag("adaptive_beta", &O::adaptive_beta,
                "adapt the penalty by OSQP's normalised residual balancing (every 10 iterations, "
                "at most 10x per change)")
          .number("beta_scale", &O::beta_scale, NumberRange::positive(), "-",
                  "factor on the initial penalty 20 Tr(A) / Tr(J^T J) (1: the default)")
          .number("relaxation", &O::relaxation, NumberRange::open(0.0, 2.0), "-",
                  "ADMM over-relaxation alpha (1: plain ADMM; a stall falls back to 1)");
  return table;
}

bool FadmmSolver::factorize(double beta) {
  system_.fillPenalty(beta);
  return system_.factorizeSymmetric();
}

void FadmmSolver::solve(const StepProblem& p, const SolverSettings& settings, StepSolution& sol) {
  requireSubsystems(p, name());
  const auto t0 = std::chrono::steady_clock::now();
  const int n = p.numDof();
  const int m = p.numRows();
  // Every constraint is in K = A + beta J^T J: one pattern (the cold start's A alone shares it).
  system_.setActivePattern(false);
  system_.assemble(p);
  const SparseNewtonSystem::SpMat& A = system_.A();
  const SparseNewtonSystem::SpMat& J = system_.J();
  v_.resize(n);
  rhs_.resize(n);
  av_.resize(n);
  jtl_.resize(n);
  x_.resize(m);
  z_.resize(m);
  w_.resize(m);
  const Eigen::Map<const VecX> b(p.b.data(), n);

  // Penalty rule (23) on the whole system: beta = Tr(A) / Tr(J^T J), times beta_scale.
  beta_ = options_.beta_scale * kTracePenaltyFactor * wholeSystemTraceRatio(p, J);

  // Warm start: lambda when it fits; z = J vhat_guess when the guess fits, else z = J A^{-1} b
  // (K with beta = 0 is A, on the same pattern).
  if (sol.lambda.size() != m) sol.lambda.setZero(m);
  bool factored = true;
  if (sol.vhat.size() == n) {
    z_.noalias() = J * sol.vhat;
  } else {
    sol.vhat.resize(n);
    factored = factorize(0.0);
    if (factored) system_.solveSymmetric(b, v_);
    sol.vhat = v_;
    z_.noalias() = J * v_;
  }
  factored = factored && factorize(beta_);

  SolveStats& st = sol.stats;
  const int max_it = beginStats(st, "primal+dual (42), max-norm", settings);
  if (!factored) return finishUnfactored(p, sol, settings, t0);
  double alpha = options_.relaxation;
  // Stall safeguard: the best residual so far and where it was reached.
  double best_residual = std::numeric_limits<double>::infinity();
  int best_at = 0;
  double* lambda = sol.lambda.data();

  int iterations = max_it;
  double residual = 0.0;
  if (max_it == 0) v_ = sol.vhat;
  for (int l = 0; l < max_it; ++l) {
    const bool last = l + 1 == max_it;
    const bool adapt_now = options_.adaptive_beta && kBalancing.due(l, max_it);
    const bool measure = settings.tolerance > 0.0 || adapt_now || settings.record_history || last;
    if (settings.on_iteration) settings.on_iteration(l);

    // v-step: (A + beta J^T J) vhat = b + J^T (beta z - u), u = -lambda.
    w_ = beta_ * z_ + sol.lambda;
    rhs_.noalias() = J.transpose() * w_;
    rhs_ += b;
    system_.solveSymmetric(rhs_, v_);

    // z-step, per constraint in closed form with the single beta.
    x_.noalias() = J * v_;
    const double inv_beta = 1.0 / beta_;
    double theta_p = 0.0;
    for (const Constraint& c : p.constraints) {
      const int o = c.row_offset;
      double s[6], xr[6], lambda_new[6];
      for (int k = 0; k < c.rows; ++k) {
        xr[k] = alpha * x_[o + k] + (1.0 - alpha) * z_[o + k];
        s[k] = xr[k] - lambda[o + k] * inv_beta;  // y / beta with y = beta xr + u
      }
      resolveConstraint(c, s, inv_beta, p.e.data() + o, p.soft_k.data() + o, p.soft_c.data() + o,
                        lambda_new);
      for (int k = 0; k < c.rows; ++k) {
        // z = (y + lambda) / beta; u = -lambda.
        z_[o + k] = xr[k] + (lambda_new[k] - lambda[o + k]) * inv_beta;
        lambda[o + k] = lambda_new[k];
        theta_p = std::max(theta_p, std::abs(x_[o + k] - z_[o + k]));
      }
    }

    if (measure) {
      // Dual residual A vhat - b - J^T lambda.
      av_.noalias() = A * v_;
      jtl_.noalias() = J.transpose() * sol.lambda;
      double theta_d = 0.0;
      for (int i = 0; i < n; ++i) theta_d = std::max(theta_d, std::abs(av_[i] - b[i] - jtl_[i]));
      residual = theta_p + theta_d;
      if (recordIteration(st, residual, settings)) {
        iterations = l + 1;
        break;
      }
      if (residual < kStallProgress * best_residual) {
        best_residual = residual;
        best_at = l;
      } else if (l - best_at >= kStallWindow && alpha != 1.0) {
        // Over-relaxation needs a firmly nonexpansive z-step; the strict cone operator is not
        // one, and with alpha > 1 the iteration can settle into a cycle.  Plain ADMM from here.
        alpha = 1.0;
        best_at = l;
        noteFailure(st, SolveStatus::Stalled);  // unless it converges after all
      }
      if (adapt_now) {
        // OSQP's balancing (Stellato et al. 2020, section 5.2): each residual relative to the
        // size of the terms it is the difference of.  Balancing the unscaled impulses
        // beta ||J v - z|| and ||A v - b - J^T lambda|| instead drives beta up without bound on a
        // granular problem (the strict cone operator is not a proximal map) and stalls there.
        double primal_scale = 0.0, dual_scale = 0.0;
        for (int i = 0; i < m; ++i)
          primal_scale = std::max({primal_scale, std::abs(x_[i]), std::abs(z_[i])});
        for (int i = 0; i < n; ++i)
          dual_scale = std::max({dual_scale, std::abs(av_[i]), std::abs(jtl_[i]), std::abs(b[i])});
        const double primal = primal_scale > 0.0 ? theta_p / primal_scale : 0.0;
        const double dual = dual_scale > 0.0 ? theta_d / dual_scale : 0.0;
        const double factor = kBalancing.factor(primal, dual);
        if (factor != 1.0) {
          beta_ *= factor;
          if (!factorize(beta_)) {
            noteFailure(st, SolveStatus::FactorizationFailed);
            iterations = l + 1;
            break;
          }
        }
      }
    }
  }
  sol.vhat = v_;
  finishStats(sol, iterations, residual, settings, t0);
}

}  // namespace subsim
