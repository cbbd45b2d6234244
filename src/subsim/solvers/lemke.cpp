#include "subsim/solvers/lemke.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>

namespace subsim {

namespace {

// A pivot element below this fraction of the entering column's largest entry is treated as zero
// (it would divide the basis by round-off).
constexpr double kPivotTolerance = 1e-9;
// Ratios (and lexicographic entries) this close, relatively, are ties.
constexpr double kTieTolerance = 1e-12;
// Refactoring costs O(n^3) against a pivot's O(n^2): every n pivots (at least 16) keeps it to a
// few pivots' worth per pivot.
constexpr int kMinRefactorInterval = 16;

bool tied(double a, double b) {
  return std::abs(a - b) <= kTieTolerance * std::max({1.0, std::abs(a), std::abs(b)});
}

}  // namespace

const char* lemkeStatusName(LemkeStatus status) {
  switch (status) {
    case LemkeStatus::Solved:
      return "solved";
    case LemkeStatus::RayTermination:
      return "ray-termination";
    case LemkeStatus::PivotCap:
      break;
  }
  return "pivot-cap";
}

void Lemke::reserve(int n) {
  if (binv_.rows() >= n) return;
  binv_.resize(n, n);
  x_.resize(n);
  column_.resize(n);
  col_.resize(n);
  basis_.reserve(n);
  candidates_.reserve(n);
  kept_.reserve(n);
}

void Lemke::basisColumn(const Eigen::Ref<const RowMajorMatX>& m, int n, int v) {
  auto c = column_.head(n);
  if (v < n) {
    c.setZero();
    c[v] = 1.0;  // w_v
  } else if (v < 2 * n) {
    c = -m.col(v - n);  // z_v
  } else {
    c.setConstant(-1.0);  // z0, covering vector d = 1
  }
}

int Lemke::ratioTest(int n) {
  const double col_max = col_.head(n).cwiseAbs().maxCoeff();
  const double tol = kPivotTolerance * col_max;
  double min_ratio = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i)
    if (col_[i] > tol) min_ratio = std::min(min_ratio, std::max(x_[i], 0.0) / col_[i]);
  if (!std::isfinite(min_ratio)) return -1;
  candidates_.clear();
  for (int i = 0; i < n; ++i)
    if (col_[i] > tol && tied(std::max(x_[i], 0.0) / col_[i], min_ratio)) candidates_.push_back(i);
  for (int i : candidates_)
    if (basis_[i] == 2 * n) return i;  // z0 leaves: a solution
  // Lexicographic minimum of (B^-1 row i) / col_i, column by column.
  for (int k = 0; k < n && candidates_.size() > 1; ++k) {
    double best = std::numeric_limits<double>::infinity();
    for (int i : candidates_) best = std::min(best, binv_(i, k) / col_[i]);
    kept_.clear();
    for (int i : candidates_)
      if (tied(binv_(i, k) / col_[i], best)) kept_.push_back(i);
    candidates_.swap(kept_);
  }
  return candidates_.front();
}

void Lemke::pivot(int n, int r) {
  auto binv = binv_.topLeftCorner(n, n);
  const double p = col_[r];
  column_.head(n) = binv.row(r).transpose() / p;  // reused as the new row r
  const double xr = x_[r] / p;
  binv.noalias() -= col_.head(n) * column_.head(n).transpose();
  x_.head(n) -= col_.head(n) * xr;
  binv.row(r) = column_.head(n).transpose();
  x_[r] = xr;
}

bool Lemke::refactor(const Eigen::Ref<const RowMajorMatX>& m, const Eigen::Ref<const VecX>& q,
                     int n) {
  basis_matrix_.resize(n, n);
  for (int i = 0; i < n; ++i) {
    basisColumn(m, n, basis_[i]);
    basis_matrix_.col(i) = column_.head(n);
  }
  lu_.compute(basis_matrix_);
  const double scale = basis_matrix_.cwiseAbs().maxCoeff();
  if (!(lu_.matrixLU().diagonal().cwiseAbs().minCoeff() > 1e-14 * scale)) return false;
  binv_.topLeftCorner(n, n) = lu_.inverse();
  auto x = col_.head(n);  // free until the next column
  x = lu_.solve(q);
  x += lu_.solve(q - basis_matrix_ * x);
  if (!x.allFinite()) return false;
  x_.head(n) = x;
  return true;
}

LemkeResult Lemke::solve(const Eigen::Ref<const RowMajorMatX>& m, const Eigen::Ref<const VecX>& q,
                         Eigen::Ref<VecX> z, int max_pivots) {
  const int n = static_cast<int>(q.size());
  LemkeResult result;
  z.setZero();
  if (n == 0 || q.minCoeff() >= 0.0) return result;  // z = 0, w = q
  reserve(n);
  if (max_pivots <= 0) max_pivots = 50 * n + 100;
  const int refactor_interval = std::max(kMinRefactorInterval, n);
  auto binv = binv_.topLeftCorner(n, n);
  binv.setIdentity();
  x_.head(n) = q;
  basis_.resize(n);
  for (int i = 0; i < n; ++i) basis_[i] = i;

  // z0 enters where q_i / d_i is least; among ties the last row keeps [x, B^-1] lexico-positive.
  int r = 0;
  for (int i = 1; i < n; ++i)
    if (q[i] <= q[r]) r = i;
  col_.head(n).setConstant(-1.0);
  pivot(n, r);
  basis_[r] = 2 * n;
  int entering = n + r;  // z_r, the complement of w_r that left
  result.pivots = 1;

  while (true) {
    if (result.pivots >= max_pivots) {
      result.status = LemkeStatus::PivotCap;
      z.setZero();
      return result;
    }
    // The updated inverse gathers the round-off of every pivot, and the Stewart-Trinkle matrix
    // of coplanar contacts is nearly singular (a box's four corners: rank 3 plus the compliance;
    // a stack of boxes ended in false rays): refactor the basis every refactor_interval pivots,
    // and before believing a ray.
    if (result.pivots % refactor_interval == 0) refactor(m, q, n);
    basisColumn(m, n, entering);
    col_.head(n).noalias() = binv * column_.head(n);
    r = ratioTest(n);
    if (r < 0 && refactor(m, q, n)) {
      basisColumn(m, n, entering);
      col_.head(n).noalias() = binv * column_.head(n);
      r = ratioTest(n);
    }
    if (r < 0) {
      result.status = LemkeStatus::RayTermination;
      z.setZero();
      return result;
    }
    pivot(n, r);
    ++result.pivots;
    const int leaving = basis_[r];
    basis_[r] = entering;
    if (leaving == 2 * n) break;
    entering = leaving < n ? leaving + n : leaving - n;
  }
  // The final basis solved afresh (LU and one step of refinement): a residual at round-off.
  refactor(m, q, n);
  for (int i = 0; i < n; ++i)
    if (basis_[i] >= n && basis_[i] < 2 * n) z[basis_[i] - n] = std::max(x_[i], 0.0);
  return result;
}

LemkeResult Lemke::solveRegularized(const Eigen::Ref<const RowMajorMatX>& m,
                                    const Eigen::Ref<const VecX>& q, Eigen::Ref<VecX> z,
                                    int max_pivots) {
  const int n = static_cast<int>(q.size());
  reserve(n);
  // w = M z + q into column_, free between solves.
  const auto residual_of = [&] {
    column_.head(n).noalias() = m * z + q;
    return pureNaturalResidualMax(z, column_.head(n));
  };
  LemkeResult result = solve(m, q, z, max_pivots);
  result.residual = result.status == LemkeStatus::Solved ? residual_of()
                                                         : std::numeric_limits<double>::infinity();
  const double accept = 1e-9 * std::max(1.0, n > 0 ? q.cwiseAbs().maxCoeff() : 0.0);
  if (n == 0 || result.residual <= accept) return result;
  const double scale = m.diagonal().cwiseAbs().maxCoeff();
  if (!(scale > 0.0)) return result;
  best_ = z;
  LemkeStatus last = result.status;
  for (double eps = 1e-10 * scale; eps <= 1e-2 * scale * (1.0 + 1e-9); eps *= 100.0) {
    regularized_ = m;
    regularized_.diagonal().array() += eps;
    const LemkeResult r = solve(regularized_, q, z, max_pivots);
    result.pivots += r.pivots;
    last = r.status;
    if (r.status != LemkeStatus::Solved) continue;
    const double residual = residual_of();
    if (residual < result.residual) {
      result.residual = residual;
      result.status = LemkeStatus::Solved;
      best_ = z;
    }
    if (residual <= accept) break;
  }
  if (result.status != LemkeStatus::Solved) result.status = last;
  z = best_;
  return result;
}

}  // namespace subsim
