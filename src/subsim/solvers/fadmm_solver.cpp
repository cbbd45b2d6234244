#include "subsim/solvers/fadmm_solver.hpp"

#include <Eigen/OrderingMethods>
#include <algorithm>
#include <chrono>
#include <cmath>

#include "subsim/problem/constraint_operator.hpp"

namespace subsim {

namespace {
// OSQP residual balancing: every kAdaptInterval iterations, when r_p and r_d differ by more than
// kGamma, by at most kMaxFactor per change.
constexpr int kAdaptInterval = 10;
constexpr double kGamma = 5.0;
constexpr double kMaxFactor = 10.0;
}  // namespace

void FadmmSolver::assemble(const StepProblem& p) {
  const int n = p.numDof();
  const int m = p.numRows();
  // A: block diagonal; every entry of every block is stored (also zeros), so the pattern depends
  // on the problem's structure only.
  triplets_.clear();
  for (int i = 0; i < p.numSubsystems(); ++i) {
    const Subsystem& s = p.subsystems[i];
    const auto Ai = p.A(i);
    for (int col = 0; col < s.dof; ++col)
      for (int row = 0; row < s.dof; ++row)
        triplets_.emplace_back(s.dof_offset + row, s.dof_offset + col, Ai(row, col));
  }
  A_.resize(n, n);
  A_.setFromTriplets(triplets_.begin(), triplets_.end());
  triplets_.clear();
  for (const Constraint& c : p.constraints)
    for (int q = 0; q < c.num_attachments; ++q) {
      const Attachment& a = p.attachments[c.first_attachment + q];
      const auto Jij = p.J(a);
      const int col0 = p.subsystems[a.subsystem].dof_offset;
      for (int r = 0; r < a.rows; ++r)
        for (int k = 0; k < a.dof; ++k)
          triplets_.emplace_back(c.row_offset + r, col0 + k, Jij(r, k));
    }
  J_.resize(m, n);
  J_.setFromTriplets(triplets_.begin(), triplets_.end());
  G_ = SpMat(J_.transpose()) * J_;
  K_full_ = A_ + G_;
  K_full_.makeCompressed();

  const int* outer = K_full_.outerIndexPtr();
  const int* inner = K_full_.innerIndexPtr();
  const bool same_pattern = analyzed_ && static_cast<int>(pattern_outer_.size()) == n + 1 &&
                            std::equal(outer, outer + n + 1, pattern_outer_.begin()) &&
                            static_cast<int>(pattern_inner_.size()) == K_full_.nonZeros() &&
                            std::equal(inner, inner + K_full_.nonZeros(), pattern_inner_.begin());
  if (!same_pattern) {
    // Fill-reducing ordering and symbolic analysis: only when K's pattern changes.
    Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> pinv;
    Eigen::AMDOrdering<int>()(K_full_, pinv);
    const Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> P = pinv.inverse();
    perm_.assign(P.indices().data(), P.indices().data() + n);
    perm_inv_.resize(n);
    for (int i = 0; i < n; ++i) perm_inv_[perm_[i]] = i;
    K_.resize(n, n);
    K_.selfadjointView<Eigen::Upper>() = K_full_.selfadjointView<Eigen::Upper>().twistedBy(P);
    K_.makeCompressed();
    ldlt_.analyzePattern(K_);
    pattern_outer_.assign(outer, outer + n + 1);
    pattern_inner_.assign(inner, inner + K_full_.nonZeros());
    analyzed_ = true;
    ++analyses_;
  }
  // A and J^T J on K_'s (permuted, upper) pattern.
  a_values_.resize(K_.nonZeros());
  g_values_.resize(K_.nonZeros());
  for (int col = 0; col < n; ++col)
    for (int k = K_.outerIndexPtr()[col]; k < K_.outerIndexPtr()[col + 1]; ++k) {
      const int i = perm_inv_[K_.innerIndexPtr()[k]];
      const int j = perm_inv_[col];
      a_values_[k] = A_.coeff(i, j);
      g_values_[k] = G_.coeff(i, j);
    }

  v_.resize(n);
  rhs_.resize(n);
  rhs_perm_.resize(n);
  v_perm_.resize(n);
  av_.resize(n);
  x_.resize(m);
  z_.resize(m);
  w_.resize(m);
  jtl_.resize(n);
}

void FadmmSolver::factorize(double beta) {
  double* values = K_.valuePtr();
  for (size_t k = 0; k < a_values_.size(); ++k) values[k] = a_values_[k] + beta * g_values_[k];
  ldlt_.factorizeUpper(K_);
  eigen_assert(ldlt_.info() == Eigen::Success);
}

void FadmmSolver::solveK(const VecX& rhs, VecX& x) {
  const int n = static_cast<int>(rhs.size());
  for (int i = 0; i < n; ++i) rhs_perm_[perm_[i]] = rhs[i];
  ldlt_.solveInto(rhs_perm_, v_perm_);
  for (int i = 0; i < n; ++i) x[i] = v_perm_[perm_[i]];
}

void FadmmSolver::solve(const StepProblem& p, const SolverSettings& settings, StepSolution& sol) {
  const auto t0 = std::chrono::steady_clock::now();
  const int n = p.numDof();
  const int m = p.numRows();
  assemble(p);
  const Eigen::Map<const VecX> b(p.b.data(), n);

  // Penalty rule (23) on the whole system: beta = Tr(A) / Tr(J^T J), times beta_scale.
  double trace_a = 0.0;
  for (int i = 0; i < p.numSubsystems(); ++i) trace_a += p.A(i).trace();
  // (Eigen's sparse reductions assert on a matrix with no rows: no constraints, no J.)
  const double trace_jtj = m > 0 ? J_.squaredNorm() : 0.0;
  beta_ = settings.beta_scale * (trace_jtj > 0.0 ? trace_a / trace_jtj : 1.0);

  // Warm start: lambda when it fits; z = J vhat_guess when the guess fits, else z = J A^{-1} b
  // (K with beta = 0 is A, on the same pattern).
  if (sol.lambda.size() != m) sol.lambda.setZero(m);
  if (sol.vhat.size() == n) {
    z_.noalias() = J_ * sol.vhat;
  } else {
    sol.vhat.resize(n);
    factorize(0.0);
    solveK(b, v_);
    sol.vhat = v_;
    z_.noalias() = J_ * v_;
  }
  factorize(beta_);

  SolveStats& st = sol.stats;
  const int max_it = beginStats(st, "primal+dual (42), max-norm", settings);
  const double alpha = settings.relaxation;
  double* lambda = sol.lambda.data();

  int iterations = max_it;
  double residual = 0.0;
  if (max_it == 0) v_ = sol.vhat;
  for (int l = 0; l < max_it; ++l) {
    const bool last = l + 1 == max_it;
    const bool adapt_now = settings.adaptive_beta && !last && (l + 1) % kAdaptInterval == 0;
    const bool measure = settings.tolerance > 0.0 || adapt_now || settings.record_history || last;
    if (settings.on_iteration) settings.on_iteration(l);

    // v-step: (A + beta J^T J) vhat = b + J^T (beta z - u), u = -lambda.
    w_ = beta_ * z_ + sol.lambda;
    rhs_.noalias() = J_.transpose() * w_;
    rhs_ += b;
    solveK(rhs_, v_);

    // z-step, per constraint in closed form with the single beta.
    x_.noalias() = J_ * v_;
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
      av_.noalias() = A_ * v_;
      jtl_.noalias() = J_.transpose() * sol.lambda;
      double theta_d = 0.0;
      for (int i = 0; i < n; ++i) theta_d = std::max(theta_d, std::abs(av_[i] - b[i] - jtl_[i]));
      residual = theta_p + theta_d;
      if (settings.record_history) st.residual_history.push_back(residual);
      if (settings.tolerance > 0.0 && residual < settings.tolerance) {
        iterations = l + 1;
        break;
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
        double factor = 1.0;
        if (primal > kGamma * dual) {
          factor = dual > 0.0 ? std::min(std::sqrt(primal / dual), kMaxFactor) : kMaxFactor;
        } else if (dual > kGamma * primal) {
          factor = primal > 0.0 ? std::max(std::sqrt(primal / dual), 1.0 / kMaxFactor)
                                : 1.0 / kMaxFactor;
        }
        if (factor != 1.0) {
          beta_ *= factor;
          factorize(beta_);
        }
      }
    }
  }
  sol.vhat = v_;
  finishStats(st, iterations, residual, settings, t0);
}

}  // namespace subsim
