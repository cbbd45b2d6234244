#include "subsim/solvers/al_newton_solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "subsim/problem/cone_projection.hpp"
#include "subsim/solvers/exact_line_search.hpp"

namespace subsim {

namespace {
// Armijo constant and step floor of the damped semismooth Newton baseline.
constexpr double kArmijo = 1e-4;
constexpr int kMaxHalvings = 30;
// Inner Newton loops stop below this velocity-scaled residual (m/s) when the tolerance is 0 or
// looser; a Newton step on the piecewise-quadratic h lands on the root up to rounding once the
// active set is right, so the floor only has to sit above rounding.
constexpr double kNewtonFloor = 1e-11;
}  // namespace

const OptionTable<AlNewtonOptions>& AlNewtonSolver::optionTable() {
  using O = AlNewtonOptions;
  static const OptionTable<O> table =
      OptionTable<O>()
          .choice(
              "penalty_rule", &O::penalty_rule,
              {{"effective-mass", O::PenaltyRule::EffectiveMass}, {"trace", O::PenaltyRule::Trace}},
              "the mass the penalty is a multiple of: the constraints' effective masses "
              "1 / (J diag(A)^-1 J^T) (a contact's normal row), their geometric mean, or "
              "the ICRA paper's Tr(A) / Tr(J^T J) (rule 23)")
          .number("beta0_scale", &O::beta0_scale, NumberRange::positive(), "-",
                  "initial penalty as a multiple of the penalty rule's mass")
          .number("kappa", &O::kappa, NumberRange::atLeast(1.0), "-",
                  "penalty increase factor when the primal residual does not drop (27)")
          .number("zeta", &O::zeta, NumberRange::openClosed(0.0, 1.0), "-",
                  "required primal decrease per AL loop before the penalty grows (27)")
          .number("beta_max_scale", &O::beta_max_scale, NumberRange::positive(), "-",
                  "largest penalty as a multiple of the penalty rule's mass")
          .number(
              "settled_beta_max_scale", &O::settled_beta_max_scale, NumberRange::nonNegative(), "-",
              "largest penalty, as a multiple of the penalty rule's mass, once an AL loop took one "
              "Newton iteration and changed no constraint's state (0: never past "
              "beta_max_scale)")
          .integer("max_inner", &O::max_inner, 1, 1000000, "iterations",
                   "Newton iterations per AL loop at most")
          .integer("max_al_loops", &O::max_al_loops, 0, 1000000, "loops",
                   "AL loops at most (0: no cap but the Newton iterations'; the AL paper counts "
                   "CANAL's iterations in these)")
          .number("inner_ratio", &O::inner_ratio, NumberRange::nonNegative(), "-",
                  "inexact AL: a loop's Newton solve stops below this times the previous loop's "
                  "primal residual (0: solve each loop to round-off)")
          .flag("paper_stop", &O::paper_stop,
                "stop on the paper's AL primal residual (42) instead of the natural-map residual "
                "at the mass scale")
          .flag("active_pattern", &O::active_pattern,
                "factor the Newton matrix on the active constraints' pattern (false: every "
                "constraint's, no allocation in the loop)");
  return table;
}

std::string_view AlNewtonSolver::name() const {
  switch (variant_) {
    case Variant::Canal:
      return "canal";
    case Variant::SemismoothNewton:
      return "ssn";
    case Variant::TrustRegionDogleg:
      return "tr-dogleg";
  }
  return "canal";
}

void AlNewtonSolver::evaluateOperator(const VecX& jv, const VecX* jd, double step, double beta,
                                      VecX& lambda_out, double* blocks) const {
  const StepProblem& p = *p_;
  const bool prox = variant_ == Variant::Canal;
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    const int o = c.row_offset;
    double x[6];
    for (int r = 0; r < c.rows; ++r) x[r] = jv[o + r] + (jd != nullptr ? step * (*jd)[o + r] : 0.0);
    double* D = blocks != nullptr ? blocks + system_.blockOffset(j) : nullptr;
    if (D != nullptr) std::fill(D, D + c.rows * c.rows, 0.0);
    switch (c.type) {
      case ConstraintType::Bilateral:
      case ConstraintType::Unilateral:
        for (int r = 0; r < c.rows; ++r) {
          const double star = -beta * (x[r] + p.e[o + r]) - u_[o + r];  // (13)
          const bool active = c.type == ConstraintType::Bilateral || star > 0.0;
          lambda_out[o + r] = active ? star : 0.0;  // (14)
          if (D != nullptr) D[r * c.rows + r] = active ? beta : 0.0;
        }
        break;
      case ConstraintType::Soft:
        for (int r = 0; r < c.rows; ++r) {
          const double k = p.soft_k[o + r], damping = p.soft_c[o + r];
          // (15): lambda = -(c (beta J v + u) + beta k e) / (c + beta).
          lambda_out[o + r] =
              -(damping * (beta * x[r] + u_[o + r]) + beta * k * p.e[o + r]) / (damping + beta);
          if (D != nullptr) D[r * c.rows + r] = beta * damping / (damping + beta);
        }
        break;
      case ConstraintType::Contact: {
        // (20)-(21): the cascaded shift enters the normal row only (shift_ is 0 for the
        // strict-operator variants).
        const Vec3 star(-beta * (x[0] + p.e[o] + shift_[o]) - u_[o],
                        -beta * (x[1] + p.e[o + 1]) - u_[o + 1],
                        -beta * (x[2] + p.e[o + 2]) - u_[o + 2]);
        const Vec3 l = prox ? projectConeProx(star, c.mu) : projectConeStrict(star, c.mu);
        lambda_out[o] = l[0];
        lambda_out[o + 1] = l[1];
        lambda_out[o + 2] = l[2];
        if (D != nullptr) {
          const Mat3 G = prox ? jacobianConeProx(star, c.mu) : jacobianConeStrict(star, c.mu);
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) D[r * 3 + s] = beta * G(r, s);  // (23)-(24)
        }
        break;
      }
    }
  }
}

double AlNewtonSolver::scaledNorm(const VecX& r) const {
  double norm = 0.0;
  for (int i = 0; i < r.size(); ++i) norm = std::max(norm, std::abs(r[i] * inv_diag_a_[i]));
  return norm;
}

double AlNewtonSolver::residual(const VecX& v, VecX& jv, VecX& lambda, VecX& r) {
  const auto& J = system_.J();
  jv.noalias() = J * v;
  evaluateOperator(jv, nullptr, 0.0, beta_, lambda, nullptr);
  r.noalias() = system_.A() * v;
  r -= Eigen::Map<const VecX>(p_->b.data(), p_->numDof());
  r.noalias() -= J.transpose() * lambda;
  return scaledNorm(r);
}

void AlNewtonSolver::applyH(const VecX& x, bool transpose, VecX& y) {
  const StepProblem& p = *p_;
  tmp_m_.noalias() = system_.J() * x;
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    const double* D = blocks_.data() + system_.blockOffset(j);
    double out[6];
    for (int r = 0; r < c.rows; ++r) {
      double acc = 0.0;
      for (int s = 0; s < c.rows; ++s)
        acc += (transpose ? D[s * c.rows + r] : D[r * c.rows + s]) * tmp_m_[c.row_offset + s];
      out[r] = acc;
    }
    for (int r = 0; r < c.rows; ++r) trial_jv_[c.row_offset + r] = out[r];
  }
  y.noalias() = system_.A() * x;
  y.noalias() += system_.J().transpose() * trial_jv_;
}

bool AlNewtonSolver::canalStep() {
  system_.fill(blocks_.data());
  if (!system_.factorizeSymmetric()) return false;
  tmp_n_ = -r_;
  system_.solveSymmetric(tmp_n_, d_);  // (25)
  jd_.noalias() = system_.J() * d_;
  ad_.noalias() = system_.A() * d_;
  const double dad = d_.dot(ad_);
  // g(alpha) = d^T (A v - b) + alpha d^T A d - (J d)^T lambda(v + alpha d), with
  // d^T (A v - b) = d^T r + (J d)^T lambda(v).
  const double g_base = d_.dot(r_) + jd_.dot(lambda_);
  const double g0 = d_.dot(r_);
  if (!(g0 < 0.0)) return true;  // at the minimum already (up to rounding)
  const StepProblem& p = *p_;
  const auto g = [&](double alpha, double* dg) {
    evaluateOperator(jv_, &jd_, alpha, beta_, trial_lambda_, trial_blocks_.data());
    double curvature = dad;
    for (int j = 0; j < p.numConstraints(); ++j) {
      const Constraint& c = p.constraints[j];
      const double* D = trial_blocks_.data() + system_.blockOffset(j);
      const double* x = jd_.data() + c.row_offset;
      for (int r = 0; r < c.rows; ++r)
        for (int s = 0; s < c.rows; ++s) curvature += x[r] * D[r * c.rows + s] * x[s];
    }
    *dg = curvature;
    return g_base + alpha * dad - jd_.dot(trial_lambda_);
  };
  const LineSearchResult ls = exactLineSearch(g, g0);  // (26)
  line_search_evaluations_ += ls.evaluations;
  v_ += ls.alpha * d_;
  residual(v_, jv_, lambda_, r_);
  return true;
}

bool AlNewtonSolver::semismoothStep() {
  system_.fill(blocks_.data());
  if (!system_.factorizeGeneral()) return false;
  tmp_n_ = -r_;
  system_.solveGeneral(tmp_n_, d_);
  const double f0 = r_.squaredNorm();
  double alpha = 1.0;
  for (int k = 0; k < kMaxHalvings; ++k) {
    trial_v_ = v_ + alpha * d_;
    residual(trial_v_, trial_jv_, trial_lambda_, trial_r_);
    ++line_search_evaluations_;
    // Armijo on ||r||^2 / 2, whose derivative along the Newton direction is -||r||^2.
    if (trial_r_.squaredNorm() <= (1.0 - 2.0 * kArmijo * alpha) * f0) break;
    alpha *= 0.5;
  }
  v_ = trial_v_;
  residual(v_, jv_, lambda_, r_);
  return true;
}

bool AlNewtonSolver::doglegStep() {
  system_.fill(blocks_.data());
  const bool factored = system_.factorizeGeneral();
  if (factored) {
    tmp_n_ = -r_;
    system_.solveGeneral(tmp_n_, d_);  // Newton step
  }
  applyH(r_, true, g_);  // gradient of ||r||^2 / 2
  applyH(g_, false, hg_);
  const double gg = g_.squaredNorm(), hghg = hg_.squaredNorm();
  if (gg == 0.0) return true;
  const double cauchy = hghg > 0.0 ? gg / hghg : 0.0;
  const double newton_norm = factored && d_.allFinite() ? d_.norm() : 0.0;
  if (radius_ <= 0.0) radius_ = newton_norm > 0.0 ? newton_norm : cauchy * std::sqrt(gg);
  if (factored && newton_norm > 0.0 && newton_norm <= radius_) {
    // Newton step inside the trust region: keep d_.
  } else if (!factored || newton_norm == 0.0 || cauchy * std::sqrt(gg) >= radius_) {
    d_ = -(radius_ / std::sqrt(gg)) * g_;
  } else {
    // d = d_C + tau (d_N - d_C) with ||d|| = radius.
    tmp_n_ = -cauchy * g_;  // d_C
    d_ -= tmp_n_;           // d_N - d_C
    const double a = d_.squaredNorm(), b = 2.0 * tmp_n_.dot(d_),
                 c = tmp_n_.squaredNorm() - radius_ * radius_;
    const double tau = (-b + std::sqrt(std::max(b * b - 4.0 * a * c, 0.0))) / (2.0 * a);
    d_ = tmp_n_ + tau * d_;
  }
  applyH(d_, false, hd_);
  const double f0 = 0.5 * r_.squaredNorm();
  const double predicted = f0 - 0.5 * (r_ + hd_).squaredNorm();
  trial_v_ = v_ + d_;
  residual(trial_v_, trial_jv_, trial_lambda_, trial_r_);
  ++line_search_evaluations_;
  const double actual = f0 - 0.5 * trial_r_.squaredNorm();
  const double rho = predicted > 0.0 ? actual / predicted : -1.0;
  const double step = d_.norm();
  if (rho < 0.25)
    radius_ = 0.25 * step;
  else if (rho > 0.75 && step >= 0.99 * radius_)
    radius_ = 2.0 * radius_;
  if (rho > 1e-4) {
    v_ = trial_v_;
    residual(v_, jv_, lambda_, r_);
  }
  return true;
}

double AlNewtonSolver::penaltyMass(double trace_ratio) {
  if (options_.penalty_rule == AlNewtonOptions::PenaltyRule::Trace) return trace_ratio;
  // d_r = J_r diag(A)^-1 J_r^T, the diagonal estimate of row r's inverse mass (as COND's
  // nodalization estimates it): one pass over J's entries.
  const StepProblem& p = *p_;
  tmp_m_.setZero();
  const auto& J = system_.J();
  for (int k = 0; k < J.outerSize(); ++k)
    for (SparseNewtonSystem::SpMat::InnerIterator it(J, k); it; ++it)
      tmp_m_[it.row()] += it.value() * it.value() * inv_diag_a_[k];
  double log_sum = 0.0;
  int count = 0;
  for (const Constraint& c : p.constraints) {
    double inverse_mass = 0.0;
    const int rows = c.type == ConstraintType::Contact ? 1 : c.rows;  // a contact: its normal
    for (int r = 0; r < rows; ++r) inverse_mass += tmp_m_[c.row_offset + r];
    if (!(inverse_mass > 0.0)) continue;  // moves nothing that has mass
    log_sum += std::log(rows / inverse_mass);
    ++count;
  }
  return count > 0 ? std::exp(log_sum / count) : trace_ratio;
}

double AlNewtonSolver::naturalResidual(double scale, VecX& projected) const {
  // T_s(lambda - s (J v + e~)) with u = -lambda: the operator at penalty s.
  evaluateOperator(jv_, nullptr, 0.0, scale, projected, nullptr);
  double norm = 0.0;
  for (int i = 0; i < projected.size(); ++i)
    norm = std::max(norm, std::abs(projected[i] - lambda_[i]));
  return norm / scale;
}

bool AlNewtonSolver::recordConstraintStates() {
  bool unchanged = true;
  std::size_t k = 0;
  for (const Constraint& c : p_->constraints) {
    const double* l = lambda_.data() + c.row_offset;
    std::uint8_t state = 0;
    if (c.type == ConstraintType::Contact)
      state = l[0] <= 0.0 ? 0 : (std::hypot(l[1], l[2]) < c.mu * l[0] * (1.0 - 1e-9) ? 1 : 2);
    else if (c.type == ConstraintType::Unilateral)
      state = l[0] > 0.0 ? 1 : 0;
    unchanged = unchanged && constraint_state_[k] == state;
    constraint_state_[k++] = state;
  }
  return unchanged;
}

void AlNewtonSolver::solve(const StepProblem& p, const SolverSettings& settings,
                           StepSolution& sol) {
  requireSubsystems(p, name());
  const auto t0 = std::chrono::steady_clock::now();
  p_ = &p;
  const int n = p.numDof(), m = p.numRows();
  system_.setActivePattern(options_.active_pattern);
  system_.assemble(p);
  for (VecX* x : {&v_, &r_, &d_, &ad_, &trial_v_, &trial_r_, &tmp_n_, &g_, &hg_, &hd_, &inv_diag_a_,
                  &best_v_})
    x->resize(n);
  for (VecX* x :
       {&u_, &shift_, &jv_, &lambda_, &jd_, &trial_jv_, &trial_lambda_, &tmp_m_, &best_lambda_})
    x->resize(m);
  blocks_.resize(system_.blockStorageSize());
  trial_blocks_.resize(system_.blockStorageSize());
  for (int i = 0; i < n; ++i) {
    const double a = system_.A().coeff(i, i);
    inv_diag_a_[i] = a > 0.0 ? 1.0 / a : 0.0;
  }

  // Initial penalty: beta0_scale times the penalty rule's mass (AlNewtonOptions::PenaltyRule).
  // The natural-map stopping residual stays at rule (23)'s scale.
  const double base = wholeSystemTraceRatio(p, system_.J());
  const double mass = penaltyMass(base);
  beta_ = options_.beta0_scale * mass;
  const double beta_max = options_.beta_max_scale * mass;

  // Warm start: u = -lambda (journal 39), v = the vhat guess.
  if (sol.lambda.size() == m)
    u_ = -sol.lambda;
  else
    u_.setZero();
  // v^0 = A^{-1} (b - J^T u): the motion the warm-start impulses produce, so that the first Newton
  // step starts next to the previous step's active set (the vhat guess v_k ignores this step's
  // forces and impulses).
  // A is block diagonal: one small factor per subsystem, not a factorisation of K's pattern
  // (which would cost as much as a Newton iteration's).
  if (factored_.build(p, 1)) {
    tmp_m_ = -u_;
    factored_.velocity(tmp_m_.data(), v_.data());
  } else if (sol.vhat.size() == n) {
    v_ = sol.vhat;
  } else {
    v_.setZero();
  }
  // Cascaded convexification (20): z^0 = J v^0, shift_n = mu ||z_t||.
  shift_.setZero();
  jv_.noalias() = system_.J() * v_;
  if (variant_ == Variant::Canal)
    for (const Constraint& c : p.constraints)
      if (c.type == ConstraintType::Contact)
        shift_[c.row_offset] = c.mu * std::hypot(jv_[c.row_offset + 1], jv_[c.row_offset + 2]);

  SolveStats& st = sol.stats;
  requireIsotropicFriction(p, name());
  const int max_it =
      beginStats(st,
                 options_.paper_stop ? "AL primal + scaled Newton residual, max-norm (m/s)"
                                     : "natural-map residual at the mass scale + scaled Newton "
                                       "residual, max-norm (m/s)",
                 settings);
  const double newton_threshold = std::max(0.1 * settings.tolerance, kNewtonFloor);
  al_loops_ = 0;
  line_search_evaluations_ = 0;
  constraint_state_.assign(p.constraints.size(), 255);
  const double settled_beta_max = std::max(beta_max, options_.settled_beta_max_scale * mass);
  double newton_res = residual(v_, jv_, lambda_, r_);
  double primal = 0.0, primal_prev = std::numeric_limits<double>::infinity();
  double complementarity = 0.0;  // the stopping measure's first term, of the last AL loop
  // The best AL iterate is returned: a loop cut short by the budget (or an inner solve that
  // stalls after a penalty increase) can leave a worse one behind.
  double best_total = std::numeric_limits<double>::infinity();
  best_v_ = v_;
  best_lambda_ = -u_;
  double total = newton_res;
  int iterations = 0;
  // A Newton system that could not be factored ends the inner loop; the multiplier update that
  // follows changes the system, so the solve goes on, and fails only if the last one failed.
  bool last_step_failed = false;
  while (iterations < max_it && (options_.max_al_loops == 0 || al_loops_ < options_.max_al_loops)) {
    ++al_loops_;
    int inner = 0;
    const double inner_target = std::max(newton_threshold, options_.inner_ratio * primal_prev);
    radius_ = 0.0;  // the dogleg's trust region restarts from the Newton step of each new surrogate
    do {
      if (settings.on_iteration) settings.on_iteration(iterations);
      evaluateOperator(jv_, nullptr, 0.0, beta_, lambda_, blocks_.data());
      bool ok = true;
      switch (variant_) {
        case Variant::Canal:
          ok = canalStep();
          break;
        case Variant::SemismoothNewton:
          ok = semismoothStep();
          break;
        case Variant::TrustRegionDogleg:
          ok = doglegStep();
          break;
      }
      ++iterations;
      ++inner;
      last_step_failed = !ok;
      newton_res = scaledNorm(r_);
      if (settings.record_history) st.residual_history.push_back(newton_res + complementarity);
      if (!ok) break;
    } while (iterations < max_it && inner < options_.max_inner && newton_res > inner_target);
    if (inner == options_.max_inner && newton_res > inner_target) ++st.inner_unconverged;

    // Multiplier update (12): z = J v + (u + lambda) / beta, u <- -lambda.
    primal = 0.0;
    for (int i = 0; i < m; ++i) {
      const double gap = (u_[i] + lambda_[i]) / beta_;
      primal = std::max(primal, std::abs(gap));
      tmp_m_[i] = jv_[i] + gap;  // z
    }
    u_ = -lambda_;
    if (variant_ == Variant::Canal)
      for (const Constraint& c : p.constraints)
        if (c.type == ConstraintType::Contact)
          shift_[c.row_offset] =
              c.mu * std::hypot(tmp_m_[c.row_offset + 1], tmp_m_[c.row_offset + 2]);
    complementarity = options_.paper_stop ? primal : naturalResidual(base, trial_lambda_);
    total = complementarity + newton_res;
    if (total < best_total) {
      best_total = total;
      best_v_ = v_;
      best_lambda_ = lambda_;
    }
    if (settings.tolerance > 0.0 && total < settings.tolerance) break;
    const bool settled =
        settled_beta_max > beta_max && recordConstraintStates() && inner == 1 && al_loops_ > 1;
    if (primal > options_.zeta * primal_prev)
      beta_ = std::min(options_.kappa * beta_, settled ? settled_beta_max : beta_max);
    primal_prev = primal;
    if (iterations < max_it) newton_res = residual(v_, jv_, lambda_, r_);
  }
  sol.vhat = best_v_;
  sol.lambda = best_lambda_;
  if (last_step_failed && !(settings.tolerance > 0.0 && best_total < settings.tolerance))
    noteFailure(st, SolveStatus::FactorizationFailed);
  finishStats(sol, iterations, std::isfinite(best_total) ? best_total : total, settings, t0);
  st.outer_iterations = al_loops_;
}

}  // namespace subsim
