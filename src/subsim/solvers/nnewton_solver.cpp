#include "subsim/solvers/nnewton_solver.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>

namespace subsim {

namespace {

using Block = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor, 6, 6>;

double dot(const double* a, const double* b, int n) {
  double s = 0.0;
  for (int k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}

double maxAbs(const double* a, int n) {
  double m = 0.0;
  for (int k = 0; k < n; ++k) m = std::max(m, std::abs(a[k]));
  return m;
}

/// fb(a, b) = a + b - sqrt(a^2 + b^2) and its partial derivatives.  At the kink a = b = 0 any
/// (1 - xi, 1 - zeta) with xi^2 + zeta^2 <= 1 is in the generalised Jacobian (Fischer 1992); the
/// symmetric xi = zeta = 1/sqrt(2) keeps both partials positive.
double fischerBurmeister(double a, double b, double& da, double& db) {
  const double r = std::hypot(a, b);
  if (r > 0.0) {
    da = 1.0 - a / r;
    db = 1.0 - b / r;
  } else {
    da = db = 1.0 - std::numbers::sqrt2 / 2.0;
  }
  return a + b - r;
}

}  // namespace

const OptionTable<NnewtonOptions>& NnewtonSolver::optionTable() {
  using O = NnewtonOptions;
  static const OptionTable<O> table =
      OptionTable<O>()
          .number("linear_tolerance", &O::linear_tolerance, NumberRange::open(0.0, 1.0), "-",
                  "largest GMRES forcing term eta, relative to ||Phi||_2 (Eisenstat-Walker cap)")
          .integer("linear_max_iterations", &O::linear_max_iterations, 1, 1000000, "iterations",
                   "GMRES iterations per Newton step at most")
          .integer("restart", &O::restart, 1, 1000, "iterations",
                   "GMRES restart length (Krylov basis size)")
          .integer("max_halvings", &O::max_halvings, 0, 100, "halvings",
                   "Armijo backtracking halvings per line search at most");
  return table;
}

void NnewtonSolver::constraintPhi(int j, const double* lambda, const double* w, double* phi,
                                  double* B, double* C) const {
  const Constraint& c = p_->constraints[j];
  const int o = c.row_offset;
  const int n = c.rows;
  if (B) std::fill_n(B, n * n, 0.0);
  if (C) std::fill_n(C, n * n, 0.0);
  if (c.type == ConstraintType::Contact) {
    // Normal: Signorini through FB on (D_n lambda_n, w_n).
    const double sn = s_[o];
    double da = 0.0, db = 0.0;
    phi[0] = fischerBurmeister(sn * lambda[o], w[o], da, db);
    // Tangential natural map in impulse units, times D_t: with y = lambda_t - w_t / D_t and
    // rho = mu max(lambda_n, 0), Phi_t = D_t (lambda_t - P(y, rho)).  P = y inside the disc
    // (G = dP/dy = I); outside P = rho y / |y|, G = rho / |y| (I - yhat yhat^T), dP/drho = yhat.
    const double st = s_[o + 1];
    const Eigen::Vector2d lt(lambda[o + 1], lambda[o + 2]);
    const Eigen::Vector2d y = lt - Eigen::Vector2d(w[o + 1], w[o + 2]) / st;
    const double rho = c.mu * std::max(lambda[o], 0.0);
    const double ny = y.norm();
    Eigen::Vector2d proj = y;
    Eigen::Matrix2d G = Eigen::Matrix2d::Identity();
    Eigen::Vector2d dproj_drho = Eigen::Vector2d::Zero();
    if (!(ny <= rho && rho > 0.0)) {
      if (ny > 0.0) {
        const Eigen::Vector2d yhat = y / ny;
        proj = rho * yhat;
        G = (rho / ny) * (Eigen::Matrix2d::Identity() - yhat * yhat.transpose());
        dproj_drho = yhat;
      } else {
        proj.setZero();
        G.setZero();
      }
    }
    phi[1] = st * (lt[0] - proj[0]);
    phi[2] = st * (lt[1] - proj[1]);
    if (B) {
      // dy/dw_t = -I / D_t, so D_t * (-G) * (-1 / D_t) = G.
      B[0] = db;
      B[4] = G(0, 0);
      B[5] = G(0, 1);
      B[7] = G(1, 0);
      B[8] = G(1, 1);
    }
    if (C) {
      C[0] = da * sn;
      // drho/dlambda_n = mu for lambda_n > 0; at lambda_n = 0 the one-sided mu is taken, so a
      // closing contact sees its friction grow with the normal impulse from the first step.
      const double drho = lambda[o] >= 0.0 ? c.mu : 0.0;
      C[3] = -st * drho * dproj_drho[0];
      C[6] = -st * drho * dproj_drho[1];
      C[4] = st * (1.0 - G(0, 0));
      C[5] = -st * G(0, 1);
      C[7] = -st * G(1, 0);
      C[8] = st * (1.0 - G(1, 1));
    }
    return;
  }
  for (int r = 0; r < n; ++r) {
    const int row = o + r;
    if (w_.fixedRow(row)) {
      phi[r] = lambda[row] - w_.fixedValue(row);
      if (C) C[r * n + r] = 1.0;
    } else if (c.type == ConstraintType::Unilateral) {
      double da = 0.0, db = 0.0;
      phi[r] = fischerBurmeister(s_[row] * lambda[row], w[row], da, db);
      if (B) B[r * n + r] = db;
      if (C) C[r * n + r] = da * s_[row];
    } else {  // bilateral, damped soft: the regularised equality w = 0
      phi[r] = w[row];
      if (B) B[r * n + r] = 1.0;
    }
  }
}

double NnewtonSolver::evaluate(const double* lambda, const double* w, double* phi) const {
  double sum = 0.0;
  for (int j = 0; j < p_->numConstraints(); ++j) {
    const Constraint& c = p_->constraints[j];
    constraintPhi(j, lambda, w, phi + c.row_offset, nullptr, nullptr);
    for (int r = 0; r < c.rows; ++r) sum += phi[c.row_offset + r] * phi[c.row_offset + r];
  }
  return 0.5 * sum;
}

void NnewtonSolver::linearise(const double* lambda, const double* w) {
  double phi[6];
  for (int j = 0; j < p_->numConstraints(); ++j) {
    const int n = p_->constraints[j].rows;
    const int off = block_offset_[j];
    double* B = B_.data() + off;
    double* C = C_.data() + off;
    constraintPhi(j, lambda, w, phi, B, C);
    // The block-Jacobi block (B W + C)_jj = B_j W_jj + C_j, since B and C are block diagonal.
    Block Mjj(n, n);
    const double* Wjj = w_.diagonalBlock(j);
    for (int r = 0; r < n; ++r)
      for (int q = 0; q < n; ++q) {
        double acc = C[r * n + q];
        for (int k = 0; k < n; ++k) acc += B[r * n + k] * Wjj[k * n + q];
        Mjj(r, q) = acc;
      }
    double* Minv = M_.data() + off;
    const Eigen::FullPivLU<Block> lu(Mjj);
    if (lu.isInvertible()) {
      const Block inv = lu.inverse();
      for (int r = 0; r < n; ++r)
        for (int q = 0; q < n; ++q) Minv[r * n + q] = inv(r, q);
    } else {
      // Singular block (e.g. redundant bilateral rows): its diagonal keeps GMRES well defined.
      std::fill_n(Minv, n * n, 0.0);
      for (int r = 0; r < n; ++r) {
        const double d = Mjj(r, r);
        Minv[r * n + r] = std::abs(d) > 0.0 ? 1.0 / d : 1.0;
      }
    }
  }
}

void NnewtonSolver::applyH(const double* x, double* y) const {
  for (int j = 0; j < p_->numConstraints(); ++j) {
    const Constraint& c = p_->constraints[j];
    const int rj = c.rows;
    const int off = block_offset_[j];
    const double* xj = x + c.row_offset;
    // (W x)_j fused with the B_j and C_j products in this loop: the same sums as
    // DelassusForm::multiplyBlock, written out because that call, inlined here, measured 2-4 %
    // slower on granular and stir (GCC 12 schedules the fused loop better).
    double t[6];
    const double* Wjj = w_.diagonalBlock(j);
    for (int r = 0; r < rj; ++r) t[r] = dot(Wjj + r * rj, xj, rj);
    for (int e = w_.neighbourBegin(j); e < w_.neighbourEnd(j); ++e) {
      const Constraint& ck = p_->constraints[w_.neighbourConstraint(e)];
      const double* Wjk = w_.neighbourBlock(e);
      for (int r = 0; r < rj; ++r) t[r] += dot(Wjk + r * ck.rows, x + ck.row_offset, ck.rows);
    }
    const double* B = B_.data() + off;
    const double* C = C_.data() + off;
    double* yj = y + c.row_offset;
    for (int r = 0; r < rj; ++r) yj[r] = dot(B + r * rj, t, rj) + dot(C + r * rj, xj, rj);
  }
}

void NnewtonSolver::applyHTranspose(const double* x, double* y) {
  // H^T = W B^T + C^T with W symmetric: u = B^T x block by block, then y = W u + C^T x.
  for (int j = 0; j < p_->numConstraints(); ++j) {
    const Constraint& c = p_->constraints[j];
    const int rj = c.rows;
    const double* B = B_.data() + block_offset_[j];
    for (int q = 0; q < rj; ++q) {
      double acc = 0.0;
      for (int r = 0; r < rj; ++r) acc += B[r * rj + q] * x[c.row_offset + r];
      u_[c.row_offset + q] = acc;
    }
  }
  w_.multiply(u_.data(), y);
  for (int j = 0; j < p_->numConstraints(); ++j) {
    const Constraint& c = p_->constraints[j];
    const int rj = c.rows;
    const double* C = C_.data() + block_offset_[j];
    for (int q = 0; q < rj; ++q)
      for (int r = 0; r < rj; ++r) y[c.row_offset + q] += C[r * rj + q] * x[c.row_offset + r];
  }
}

void NnewtonSolver::applyPreconditionerTranspose(const double* x, double* y) const {
  for (int j = 0; j < p_->numConstraints(); ++j) {
    const Constraint& c = p_->constraints[j];
    const int rj = c.rows;
    const double* Minv = M_.data() + block_offset_[j];
    for (int q = 0; q < rj; ++q) {
      double acc = 0.0;
      for (int r = 0; r < rj; ++r) acc += Minv[r * rj + q] * x[c.row_offset + r];
      y[c.row_offset + q] = acc;
    }
  }
}

void NnewtonSolver::applyPreconditioner(const double* x, double* y) const {
  for (int j = 0; j < p_->numConstraints(); ++j) {
    const Constraint& c = p_->constraints[j];
    const int rj = c.rows;
    const double* Minv = M_.data() + block_offset_[j];
    for (int r = 0; r < rj; ++r) y[c.row_offset + r] = dot(Minv + r * rj, x + c.row_offset, rj);
  }
}

int NnewtonSolver::gmres(const double* rhs, double tolerance, double* x) {
  const int m = p_->numRows();
  const int kmax = std::max(options_.restart, 1);
  const int ld = kmax + 1;  // leading dimension of the column-major Hessenberg matrix
  std::fill_n(x, m, 0.0);
  std::copy_n(rhs, m, r_.data());
  double beta = std::sqrt(dot(r_.data(), r_.data(), m));
  int total = 0;
  while (beta > tolerance && total < options_.linear_max_iterations) {
    double* v0 = basis_.data();
    for (int i = 0; i < m; ++i) v0[i] = r_[i] / beta;
    std::fill(g_.begin(), g_.end(), 0.0);
    g_[0] = beta;
    int k = 0;
    bool done = false;
    while (k < kmax && total < options_.linear_max_iterations && !done) {
      // Arnoldi with modified Gram-Schmidt on H M^{-1} v_k.
      double* vk = basis_.data() + static_cast<size_t>(k) * m;
      double* vn = basis_.data() + static_cast<size_t>(k + 1) * m;
      applyPreconditioner(vk, z_.data());
      applyH(z_.data(), vn);
      double* h = hess_.data() + static_cast<size_t>(k) * ld;
      for (int i = 0; i <= k; ++i) {
        const double* vi = basis_.data() + static_cast<size_t>(i) * m;
        h[i] = dot(vn, vi, m);
        for (int q = 0; q < m; ++q) vn[q] -= h[i] * vi[q];
      }
      const double hn = std::sqrt(dot(vn, vn, m));
      h[k + 1] = hn;
      if (hn > 0.0)
        for (int q = 0; q < m; ++q) vn[q] /= hn;
      // Givens rotations keep the Hessenberg least-squares problem triangular.
      for (int i = 0; i < k; ++i) {
        const double a = cs_[i] * h[i] + sn_[i] * h[i + 1];
        h[i + 1] = -sn_[i] * h[i] + cs_[i] * h[i + 1];
        h[i] = a;
      }
      const double den = std::hypot(h[k], h[k + 1]);
      cs_[k] = den > 0.0 ? h[k] / den : 1.0;
      sn_[k] = den > 0.0 ? h[k + 1] / den : 0.0;
      h[k] = den;
      h[k + 1] = 0.0;
      g_[k + 1] = -sn_[k] * g_[k];
      g_[k] = cs_[k] * g_[k];
      ++k;
      ++total;
      // A zero subdiagonal means the Krylov space is invariant: the least-squares solution in it
      // is final.
      done = std::abs(g_[k]) <= tolerance || !(hn > 1e-14 * den);
    }
    // y = R^{-1} g, skipping directions the (possibly singular) H annihilated.
    for (int i = k - 1; i >= 0; --i) {
      double acc = g_[i];
      for (int q = i + 1; q < k; ++q) acc -= hess_[static_cast<size_t>(q) * ld + i] * y_[q];
      const double rii = hess_[static_cast<size_t>(i) * ld + i];
      y_[i] = std::abs(rii) > 1e-300 ? acc / rii : 0.0;
    }
    std::fill_n(u_.data(), m, 0.0);
    for (int i = 0; i < k; ++i) {
      const double* vi = basis_.data() + static_cast<size_t>(i) * m;
      for (int q = 0; q < m; ++q) u_[q] += y_[i] * vi[q];
    }
    applyPreconditioner(u_.data(), z_.data());
    for (int q = 0; q < m; ++q) x[q] += z_[q];
    // The true residual for the restart (and the stopping test).
    applyH(x, r_.data());
    for (int q = 0; q < m; ++q) r_[q] = rhs[q] - r_[q];
    beta = std::sqrt(dot(r_.data(), r_.data(), m));
    if (done) break;
  }
  return total;
}

void NnewtonSolver::solve(const StepProblem& p, const SolverSettings& settings, StepSolution& sol) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool factored = w_.build(p, settings.threads);
  const auto t_built = std::chrono::steady_clock::now();
  p_ = &p;
  const int nc = p.numConstraints();
  const int m = p.numRows();
  if (sol.lambda.size() != m) sol.lambda.setZero(m);
  if (sol.vhat.size() != p.numDof()) sol.vhat.resize(p.numDof());
  SolveStats& st = sol.stats;
  requireIsotropicFriction(p, name());
  const int max_it = beginStats(st, "Fischer-Burmeister ||Phi||_inf (m/s)", settings);
  recordSetup(st, t0, t_built);
  if (!factored) return finishUnfactored(p, sol, settings, t0);
  linear_iterations_ = 0;
  fallbacks_ = 0;
  gradient_steps_ = 0;

  // Workspace, sized once per solve.
  block_offset_.resize(nc);
  int bsize = 0;
  for (int j = 0; j < nc; ++j) {
    block_offset_[j] = bsize;
    bsize += p.constraints[j].rows * p.constraints[j].rows;
  }
  B_.resize(bsize);
  C_.resize(bsize);
  M_.resize(bsize);
  s_.resize(m);
  for (int r = 0; r < m; ++r) s_[r] = w_.scale(r) > 0.0 ? w_.scale(r) : 1.0;
  for (auto* v : {&grad_, &vel_, &phi_, &step_, &wstep_, &trial_lambda_, &trial_w_, &trial_phi_,
                  &r_, &z_, &u_})
    v->resize(m);
  const int kmax = std::max(options_.restart, 1);
  basis_.resize(static_cast<size_t>(kmax + 1) * m);
  hess_.resize(static_cast<size_t>(kmax + 1) * kmax);
  cs_.resize(kmax);
  sn_.resize(kmax);
  g_.resize(kmax + 1);
  y_.resize(kmax);

  double* lambda = sol.lambda.data();
  for (int r = 0; r < m; ++r)
    if (w_.fixedRow(r)) lambda[r] = w_.fixedValue(r);
  const DoubleBuffer& c = w_.rhs();
  auto velocity = [&](const double* l, double* w) {
    w_.multiply(l, w);
    for (int r = 0; r < m; ++r) w[r] += c[r];
  };
  velocity(lambda, vel_.data());
  double merit = evaluate(lambda, vel_.data(), phi_.data());
  double residual = maxAbs(phi_.data(), m);
  double eta = options_.linear_tolerance;
  double previous_norm = 0.0;

  int iterations = max_it;
  if (settings.tolerance > 0.0 && residual < settings.tolerance) iterations = 0;
  for (int l = 0; l < iterations; ++l) {
    if (settings.on_iteration) settings.on_iteration(l);
    const double norm = std::sqrt(2.0 * merit);
    // Eisenstat-Walker choice 2 with its safeguard; no need to solve far below the tolerance.
    if (l > 0 && previous_norm > 0.0) {
      const double ratio = norm / previous_norm;
      double next = 0.9 * ratio * ratio;
      const double safeguard = 0.9 * eta * eta;
      if (safeguard > 0.1) next = std::max(next, safeguard);
      if (settings.tolerance > 0.0 && residual > 0.0)
        next = std::max(next, 0.1 * settings.tolerance / residual);
      eta = std::min(next, options_.linear_tolerance);
    }
    previous_norm = norm;

    // Newton direction: H d = -Phi.
    linearise(lambda, vel_.data());
    for (int r = 0; r < m; ++r) trial_phi_[r] = -phi_[r];
    linear_iterations_ += gmres(trial_phi_.data(), eta * norm, step_.data());
    for (int r = 0; r < m; ++r)
      if (w_.fixedRow(r)) step_[r] = 0.0;
    // grad f = H^T Phi (f = 1/2 ||Phi||^2 is C^1 for the FB rows, De Luca, Facchinei, Kanzow,
    // Math. Prog. 75, 1996).  A direction failing the angle test (singular or inconsistent H)
    // is replaced by the block-scaled gradient step -M^{-1} M^{-T} grad f, a descent direction
    // that equals the Newton step where H is block diagonal.
    applyHTranspose(phi_.data(), grad_.data());
    double slope = dot(grad_.data(), step_.data(), m);
    const double angle =
        1e-6 * std::sqrt(dot(grad_.data(), grad_.data(), m) * dot(step_.data(), step_.data(), m));
    if (!(slope < -angle)) {
      ++gradient_steps_;
      applyPreconditionerTranspose(grad_.data(), z_.data());
      applyPreconditioner(z_.data(), step_.data());
      for (int r = 0; r < m; ++r) step_[r] = w_.fixedRow(r) ? 0.0 : -step_[r];
      slope = dot(grad_.data(), step_.data(), m);
    }
    w_.multiply(step_.data(), wstep_.data());

    // Backtracking on f (Armijo, sigma = 1e-4).
    constexpr double sigma = 1e-4;
    double alpha = 1.0, best_alpha = 1.0, best_merit = -1.0;
    bool accepted = false;
    for (int halving = 0; halving <= options_.max_halvings; ++halving, alpha *= 0.5) {
      for (int r = 0; r < m; ++r) {
        trial_lambda_[r] = lambda[r] + alpha * step_[r];
        trial_w_[r] = vel_[r] + alpha * wstep_[r];
      }
      const double f = evaluate(trial_lambda_.data(), trial_w_.data(), trial_phi_.data());
      if (std::isfinite(f) && (best_merit < 0.0 || f < best_merit)) {
        best_merit = f;
        best_alpha = alpha;
      }
      if (f <= merit + sigma * alpha * slope) {
        accepted = true;
        best_alpha = alpha;
        break;
      }
    }
    if (!accepted) ++fallbacks_;
    if (best_merit >= 0.0)
      for (int r = 0; r < m; ++r) lambda[r] += best_alpha * step_[r];
    // Fresh w from lambda so the rounding of the incremental update does not accumulate.
    velocity(lambda, vel_.data());
    merit = evaluate(lambda, vel_.data(), phi_.data());
    residual = maxAbs(phi_.data(), m);
    if (recordIteration(st, residual, settings)) {
      iterations = l + 1;
      break;
    }
  }
  w_.velocity(lambda, sol.vhat.data());
  finishStats(sol, iterations, residual, settings, t0);
}

}  // namespace subsim
