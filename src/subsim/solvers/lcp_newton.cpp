#include "subsim/solvers/lcp_newton.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace subsim {

namespace {

constexpr int kMaxBacktracks = 30;

}  // namespace

double LcpNewton::evaluate(const MixedLcp& lcp, const VecX& z, LcpReformulation reformulation) {
  const int n = lcp.size();
  lcp.slack(z, w_);
  phi_.resize(n);
  a_.resize(n);
  b_.resize(n);
  const double kCorner = 1.0 / std::sqrt(2.0) - 1.0;
  for (int i = 0; i < n; ++i) {
    const double zi = z[i], wi = w_[i];
    if (lcp.isFree(i)) {
      phi_[i] = wi;
      a_[i] = 0.0;
      b_[i] = 1.0;
    } else if (reformulation == LcpReformulation::MinMap) {
      const bool z_side = zi <= wi;
      phi_[i] = z_side ? zi : wi;
      a_[i] = z_side ? 1.0 : 0.0;
      b_[i] = z_side ? 0.0 : 1.0;
    } else {
      const double rho = std::hypot(zi, wi);
      phi_[i] = rho - zi - wi;
      a_[i] = rho > 0.0 ? zi / rho - 1.0 : kCorner;
      b_[i] = rho > 0.0 ? wi / rho - 1.0 : kCorner;
    }
  }
  return 0.5 * phi_.squaredNorm();
}

bool LcpNewton::lineSearch(const MixedLcp& lcp, const VecX& z, LcpReformulation reformulation,
                           double reference, double slope, double& trial_theta) {
  double alpha = 1.0;
  for (int s = 0; s <= kMaxBacktracks; ++s, alpha *= 0.5) {
    trial_ = z + alpha * dz_;
    trial_theta = evaluate(lcp, trial_, reformulation);
    if (trial_theta <= reference - alpha * slope) return true;
  }
  return false;
}

LcpNewtonResult LcpNewton::solve(const MixedLcp& lcp, VecX& z, LcpReformulation reformulation,
                                 const LcpNewtonSettings& settings,
                                 const std::function<void(int)>& on_iteration,
                                 DoubleBuffer* history) {
  const int n = lcp.size();
  LcpNewtonResult result;
  if (z.size() != n) z.setZero(n);
  if (n == 0) return result;
  double theta = evaluate(lcp, z, reformulation);
  result.residual = lcp.naturalResidualMax(z, w_);
  merits_.assign(1, theta);
  const double round_off = lcpRoundOff(lcp.q);
  for (int it = 0; it < settings.max_iterations; ++it) {
    if (settings.tolerance > 0.0 && result.residual < settings.tolerance) break;
    if (on_iteration) on_iteration(it);
    // At round-off no step can decrease the merit: a solution, not a stall; with tolerance 0 the
    // iterations go on to the cap, as every solver's do, without work.
    if (result.residual <= round_off) {
      result.iterations = it + 1;
      if (history != nullptr) history->push_back(result.residual);
      continue;
    }
    // Rows whose Jacobian row is a_i e_i fix their own step; the rest form the dense system.
    active_.clear();
    dz_.setZero(n);
    for (int i = 0; i < n; ++i) {
      if (b_[i] != 0.0)
        active_.push_back(i);
      else if (a_[i] != 0.0)
        dz_[i] = -phi_[i] / a_[i];
    }
    const int k = static_cast<int>(active_.size());
    if (k > 0) {
      rhs_.noalias() = lcp.m(active_, Eigen::all) * dz_;
      system_ = lcp.m(active_, active_);
      for (int r = 0; r < k; ++r) {
        const int i = active_[r];
        system_.row(r) *= b_[i];
        system_(r, r) += a_[i];
        rhs_[r] = -phi_[i] - b_[i] * rhs_[r];
      }
      lu_.compute(system_);
      const double scale = system_.cwiseAbs().maxCoeff();
      if (!(lu_.matrixLU().diagonal().cwiseAbs().minCoeff() > 1e-14 * scale)) {
        // A singular generalised Jacobian (a degenerate row pair, a sliding-speed row whose
        // column is empty): the Levenberg-Marquardt step of J^T J + delta I instead.
        const MatX jt = system_.transpose();
        system_ = jt * system_;
        rhs_ = jt * rhs_;
        system_.diagonal().array() += 1e-10 * std::max(scale * scale, 1e-300);
        lu_.compute(system_);
      }
      trial_ = lu_.solve(rhs_);
      dz_(active_) = trial_;
    }
    if (!dz_.allFinite()) {
      result.stalled = true;
      break;
    }
    const int memory = std::max(settings.nonmonotone_memory, 1);
    const double reference =
        *std::max_element(merits_.end() - std::min<int>(memory, merits_.size()), merits_.end());
    double trial_theta = theta;
    // The Newton direction, whose merit slope is -2 theta; where no step along it decreases the
    // merit enough (a singular or badly scaled generalised Jacobian, as the sliding-speed rows
    // of the Stewart-Trinkle LCP give), the merit's steepest descent -J^T Phi, whose slope is
    // -|J^T Phi|^2.
    bool accepted =
        lineSearch(lcp, z, reformulation, reference, 2.0 * theta * settings.armijo, trial_theta);
    if (!accepted) {
      gradient_ = a_.cwiseProduct(phi_);
      gradient_.noalias() += lcp.m.transpose() * b_.cwiseProduct(phi_);
      dz_ = -gradient_;
      accepted =
          dz_.allFinite() && lineSearch(lcp, z, reformulation, reference,
                                        gradient_.squaredNorm() * settings.armijo, trial_theta);
    }
    if (!accepted) {
      evaluate(lcp, z, reformulation);
      result.stalled = true;
      break;
    }
    z.swap(trial_);
    theta = trial_theta;
    merits_.push_back(theta);
    result.residual = lcp.naturalResidualMax(z, w_);
    result.iterations = it + 1;
    if (history != nullptr) history->push_back(result.residual);
  }
  return result;
}

}  // namespace subsim
