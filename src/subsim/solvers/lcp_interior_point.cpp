#include "subsim/solvers/lcp_interior_point.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>

namespace subsim {

namespace {

/// The longest alpha in (0, 1] with x + alpha dx >= 0 (x > 0).
double stepToBoundary(const VecX& x, const VecX& dx) {
  double alpha = 1.0;
  for (int i = 0; i < x.size(); ++i)
    if (dx[i] < 0.0) alpha = std::min(alpha, -x[i] / dx[i]);
  return alpha;
}

}  // namespace

LcpInteriorPointResult solveLcpInteriorPoint(const RowMajorMatX& m, const VecX& q, VecX& z,
                                             int max_iterations, double tolerance,
                                             const std::function<void(int)>& on_iteration,
                                             DoubleBuffer* history) {
  const int n = static_cast<int>(q.size());
  LcpInteriorPointResult result;
  z.setZero(n);
  if (n == 0) return result;
  VecX w_true = q;
  result.residual = pureNaturalResidualMax(z, w_true);
  if (q.minCoeff() >= 0.0) return result;  // z = 0 solves it
  z.setOnes(n);
  VecX w = VecX::Ones(n);
  const double scale = std::max(1.0, m.cwiseAbs().maxCoeff());
  const double round_off = lcpRoundOff(q);
  MatX h(n, n);
  Eigen::PartialPivLU<MatX> lu;
  VecX r(n), dz(n), dw(n), dz_aff(n), dw_aff(n), rhs(n);
  for (int it = 0; it < max_iterations; ++it) {
    w_true.noalias() = m * z + q;
    result.residual = pureNaturalResidualMax(z, w_true);
    if (tolerance > 0.0 && result.residual < tolerance) break;
    if (on_iteration) on_iteration(it);
    // At round-off the steps vanish: a solution, not a stall; with tolerance 0 the iterations go
    // on to the cap without work, as lcp_newton.cpp's do.
    if (result.residual <= round_off) {
      result.iterations = it + 1;
      if (history != nullptr) history->push_back(result.residual);
      continue;
    }
    r = w_true - w;
    const double mu = z.dot(w) / n;
    h = m;
    h.diagonal() += w.cwiseQuotient(z);
    lu.compute(h);
    if (!(lu.matrixLU().diagonal().cwiseAbs().minCoeff() > 1e-15 * scale)) {
      result.stalled = true;
      break;
    }
    // Affine-scaling (predictor) step, then Mehrotra's centring and second-order correction.
    rhs = -r - w;
    dz_aff = lu.solve(rhs);
    dw_aff = -w - w.cwiseQuotient(z).cwiseProduct(dz_aff);
    const double alpha_aff = std::min(stepToBoundary(z, dz_aff), stepToBoundary(w, dw_aff));
    const double mu_aff = (z + alpha_aff * dz_aff).dot(w + alpha_aff * dw_aff) / n;
    const double sigma = std::clamp(std::pow(mu_aff / mu, 3.0), 1e-4, 0.5);
    const VecX corr = (sigma * mu - dz_aff.cwiseProduct(dw_aff).array()).matrix();
    rhs = -r - w + corr.cwiseQuotient(z);
    dz = lu.solve(rhs);
    dw = corr.cwiseQuotient(z) - w - w.cwiseQuotient(z).cwiseProduct(dz);
    const double alpha = 0.995 * std::min(stepToBoundary(z, dz), stepToBoundary(w, dw));
    if (!dz.allFinite() || !(alpha > 1e-12)) {
      result.stalled = true;
      break;
    }
    z += alpha * dz;
    w += alpha * dw;
    z = z.cwiseMax(std::numeric_limits<double>::min());
    w = w.cwiseMax(std::numeric_limits<double>::min());
    result.iterations = it + 1;
    w_true.noalias() = m * z + q;
    result.residual = pureNaturalResidualMax(z, w_true);
    if (history != nullptr) history->push_back(result.residual);
  }
  return result;
}

}  // namespace subsim
