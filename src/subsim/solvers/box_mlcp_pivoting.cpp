#include "subsim/solvers/box_mlcp_pivoting.hpp"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace subsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Judice-Pires: block pivots allowed without a fall in the number of infeasible rows.
constexpr int kJudicePiresP = 3;

void multiply(const DenseBoxMatrix& a, const VecX& x, VecX& y) {
  y.noalias() = *a.a * x;
}
void multiply(const SparseBoxMatrix& a, const VecX& x, VecX& y) {
  y.noalias() = *a.a * x;
}

/// (A x)_r and A_rr, A symmetric (column r is row r).
void rowProduct(const DenseBoxMatrix& a, int r, const VecX& x, double& dot, double& diag) {
  dot = a.a->col(r).dot(x);
  diag = (*a.a)(r, r);
}
void rowProduct(const SparseBoxMatrix& a, int r, const VecX& x, double& dot, double& diag) {
  dot = 0.0;
  diag = 0.0;
  for (SparseMatrixCsc::InnerIterator it(*a.a, r); it; ++it) {
    dot += it.value() * x[it.row()];
    if (it.row() == r) diag = it.value();
  }
}

bool fixedRow(const VecX& lower, const VecX& upper, int r) {
  return lower[r] == upper[r];
}

/// Sets that fit the bounds: rows with two infinite bounds are free, rows with l = u at their
/// lower bound, and no row at an infinite bound.
void fitSets(const VecX& lower, const VecX& upper, std::vector<BoxIndex>& sets) {
  const int n = static_cast<int>(lower.size());
  sets.resize(n, BoxIndex::Free);
  for (int r = 0; r < n; ++r) {
    if (fixedRow(lower, upper, r))
      sets[r] = BoxIndex::Lower;
    else if (sets[r] == BoxIndex::Lower && lower[r] == -kInf)
      sets[r] = BoxIndex::Free;
    else if (sets[r] == BoxIndex::Upper && upper[r] == kInf)
      sets[r] = BoxIndex::Free;
  }
}

}  // namespace

std::uint64_t hashSets(const std::vector<BoxIndex>& sets, std::uint64_t seed) {
  std::uint64_t h = seed;  // FNV-1a
  for (BoxIndex s : sets) h = (h ^ static_cast<std::uint64_t>(s)) * 1099511628211ull;
  return h;
}

namespace {

/// The natural residual's maximum over rows, (29), with w = A x + b given.
double maxNaturalResidual(const VecX& x, const VecX& w, const VecX& lower, const VecX& upper) {
  double residual = 0.0;
  for (int r = 0; r < x.size(); ++r)
    residual = std::max(residual, naturalResidualRow(x[r], w[r], lower[r], upper[r]));
  return residual;
}

void clampInto(const VecX& lower, const VecX& upper, VecX& x) {
  x = x.cwiseMax(lower).cwiseMin(upper);
}

}  // namespace

void indexSetsFrom(const VecX& x, const VecX& lower, const VecX& upper, double eta,
                   std::vector<BoxIndex>& sets) {
  const int n = static_cast<int>(x.size());
  sets.resize(n);
  for (int r = 0; r < n; ++r) {
    if (x[r] <= lower[r] + eta)
      sets[r] = BoxIndex::Lower;
    else if (x[r] >= upper[r] - eta)
      sets[r] = BoxIndex::Upper;
    else
      sets[r] = BoxIndex::Free;
  }
  fitSets(lower, upper, sets);
}

template <class Matrix>
bool BoxMlcpPivoting<Matrix>::factorFree(const Matrix& a, const std::vector<BoxIndex>& sets,
                                         PivotingResult& result, double damping) {
  const int n = a.size();
  free_.clear();
  for (int r = 0; r < n; ++r)
    if (sets[r] == BoxIndex::Free) free_.push_back(r);
  if (has_factor_ && free_ == factored_ && damping == factored_damping_) return true;
  const int nf = static_cast<int>(free_.size());
  bool ok = true;
  if (nf == 0) {
    // nothing to factor
  } else if constexpr (std::is_same_v<Matrix, DenseBoxMatrix>) {
    dense_free_.resize(nf, nf);
    for (int k = 0; k < nf; ++k)
      for (int i = 0; i < nf; ++i) dense_free_(i, k) = (*a.a)(free_[i], free_[k]);
    dense_free_.diagonal() *= 1.0 + damping;
    dense_factor_.compute(dense_free_);
    ok = dense_factor_.info() == Eigen::Success;
  } else {
    position_.assign(n, -1);
    for (int i = 0; i < nf; ++i) position_[free_[i]] = i;
    triplets_.clear();
    for (int k = 0; k < nf; ++k)
      for (SparseMatrixCsc::InnerIterator it(*a.a, free_[k]); it; ++it)
        if (position_[it.row()] >= 0)
          triplets_.emplace_back(position_[it.row()], k,
                                 it.row() == free_[k] ? (1.0 + damping) * it.value() : it.value());
    sparse_free_.resize(nf, nf);
    sparse_free_.setFromTriplets(triplets_.begin(), triplets_.end());
    sparse_factor_.compute(sparse_free_);
    ok = sparse_factor_.info() == Eigen::Success &&
         (nf == 0 || sparse_factor_.vectorD().cwiseAbs().minCoeff() > 0.0);
  }
  ++result.factorizations;
  has_factor_ = ok;
  factored_ = free_;
  factored_damping_ = damping;
  return ok;
}

template <class Matrix>
void BoxMlcpPivoting<Matrix>::solveFreeBlock(MatX& rhs) const {
  if (rhs.size() == 0) return;  // (Eigen's sparse solve offsets a null pointer on 0 columns)
  if constexpr (std::is_same_v<Matrix, DenseBoxMatrix>) {
    dense_factor_.solveInPlace(rhs);
  } else {
    rhs = sparse_factor_.solve(rhs);
  }
}

template <class Matrix>
void BoxMlcpPivoting<Matrix>::solveFreeRhs() {
  if constexpr (std::is_same_v<Matrix, DenseBoxMatrix>) {
    dense_factor_.solveInPlace(xf_);
  } else {
    rhs_ = sparse_factor_.solve(xf_);
    xf_.swap(rhs_);
  }
}

template <class Matrix>
bool BoxMlcpPivoting<Matrix>::solveFree(const Matrix& a, const VecX& b, const VecX& lower,
                                        const VecX& upper, const std::vector<BoxIndex>& sets,
                                        VecX& x, PivotingResult& result) {
  const int n = a.size();
  x.resize(n);
  for (int r = 0; r < n; ++r)
    x[r] = sets[r] == BoxIndex::Lower ? lower[r] : sets[r] == BoxIndex::Upper ? upper[r] : 0.0;
  if (!factorFree(a, sets, result)) return false;
  const int nf = static_cast<int>(free_.size());
  if (nf == 0) return true;
  // rhs_F = -(b_F + A_FT x_T): the product with x holding the tight values and zeros.
  multiply(a, x, w_);
  xf_.resize(nf);
  for (int i = 0; i < nf; ++i) xf_[i] = -(b[free_[i]] + w_[free_[i]]);
  solveFreeRhs();
  for (int i = 0; i < nf; ++i) x[free_[i]] = xf_[i];
  return true;
}

template <class Matrix>
PivotingResult BoxMlcpPivoting<Matrix>::blockPivoting(const Matrix& a, const VecX& b,
                                                      const VecX& lower, const VecX& upper,
                                                      const PivotingSettings& settings,
                                                      std::vector<BoxIndex>& sets, VecX& x) {
  PivotingResult result;
  const int n = a.size();
  start_x_ = x;
  if (start_x_.size() != n) start_x_.setZero(n);
  fitSets(lower, upper, sets);
  seen_.clear();
  int best = std::numeric_limits<int>::max();
  int p = kJudicePiresP;
  int single_left = 0;
  double best_residual = std::numeric_limits<double>::infinity();
  const double eta = settings.eta;
  while (result.pivots < settings.max_pivots) {
    if (!solveFree(a, b, lower, upper, sets, x, result)) {
      result.factor_failed = true;
      break;
    }
    ++result.pivots;
    multiply(a, x, w_);
    w_ += b;
    infeasible_.clear();
    for (int r = 0; r < n; ++r) {
      if (fixedRow(lower, upper, r)) continue;
      const bool bad = sets[r] == BoxIndex::Free ? (x[r] < lower[r] - eta || x[r] > upper[r] + eta)
                       : sets[r] == BoxIndex::Lower ? w_[r] < -eta
                                                    : w_[r] > eta;
      if (bad) infeasible_.push_back(r);
    }
    if (infeasible_.empty()) {
      result.solved = true;
      break;
    }
    // The best iterate so far by the natural residual: what is returned if the pivots run out
    // (a degenerate or badly conditioned A can make the last one far worse than the best).
    const double residual = maxNaturalResidual(x, w_, lower, upper);
    if (residual < best_residual) {
      best_residual = residual;
      best_x_ = x;
      best_sets_ = sets;
    }
    const std::uint64_t h = hashSets(sets);
    if (std::find(seen_.begin(), seen_.end(), h) != seen_.end())
      single_left = settings.single_pivot_steps;
    seen_.push_back(h);
    const int count = static_cast<int>(infeasible_.size());
    bool single = false;
    if (single_left > 0) {
      single = true;
      --single_left;
    } else if (count < best) {
      best = count;
      p = kJudicePiresP;
    } else if (p > 0) {
      --p;
    } else {
      single = true;
    }
    const auto move = [&](int r) {
      if (sets[r] == BoxIndex::Free)
        sets[r] = x[r] < lower[r] ? BoxIndex::Lower : BoxIndex::Upper;
      else
        sets[r] = BoxIndex::Free;
    };
    // Single pivots mend about a row each: with more infeasible rows than pivots left they
    // cannot finish, and the fallback is given the time instead (chaindrop's first 40 steps:
    // 306 ms of solves a step instead of 466, the same natural residual at every step).
    if (single && settings.fallback && count > settings.max_pivots - result.pivots) break;
    if (single) {
      move(infeasible_.back());  // Murty's rule: the infeasible row of largest index
    } else {
      for (int r : infeasible_) move(r);
    }
  }
  if (!result.solved && best_residual < std::numeric_limits<double>::infinity()) {
    x = best_x_;
    sets = best_sets_;
  }
  clampInto(lower, upper, x);
  if (!result.solved && settings.fallback) fallBack(a, b, lower, upper, settings, sets, x, result);
  return result;
}

template <class Matrix>
void BoxMlcpPivoting<Matrix>::fallBack(const Matrix& a, const VecX& b, const VecX& lower,
                                       const VecX& upper, const PivotingSettings& settings,
                                       std::vector<BoxIndex>& sets, VecX& x,
                                       PivotingResult& result) {
  // Pivoting that ran out (index sets cycling on a degenerate, C-regularised A) can leave its
  // best iterate far from any solution: chaindrop's 250 links landing on the ramp, 519 contacts,
  // ended with a natural residual of 290 N s and links thrown at 127 m/s.  Projected Newton from
  // the warm start decreases the objective at every step; where it runs out too (a pile of boxes,
  // half its contact rows redundant), PGS-SM from the warm start as well.  Of the pivoting's best
  // iterate and theirs, the one of least natural residual is kept.
  multiply(a, x, w_);
  w_ += b;
  double best = maxNaturalResidual(x, w_, lower, upper);
  pivoted_x_ = x;
  pivoted_sets_ = sets;
  bool solved = false;
  const auto keepIfBetter = [&](const PivotingResult& r) {
    result.pivots += r.pivots;
    result.factorizations += r.factorizations;
    multiply(a, x, w_);
    w_ += b;
    const double residual = maxNaturalResidual(x, w_, lower, upper);
    if (residual < best) {
      best = residual;
      solved = r.solved;
      pivoted_x_ = x;
      pivoted_sets_ = sets;
    }
  };
  x = start_x_;
  const PivotingResult newton = projectedNewton(a, b, lower, upper, settings, sets, x);
  keepIfBetter(newton);
  if (!newton.solved) {
    x = start_x_;
    PivotingSettings subspace = settings;
    subspace.fallback = false;
    keepIfBetter(pgsSubspace(a, b, lower, upper, subspace, sets, x));
  }
  x = pivoted_x_;
  sets = pivoted_sets_;
  result.solved = solved;
  result.fell_back = true;
}

template <class Matrix>
PivotingResult BoxMlcpPivoting<Matrix>::projectedNewton(const Matrix& a, const VecX& b,
                                                        const VecX& lower, const VecX& upper,
                                                        const PivotingSettings& settings,
                                                        std::vector<BoxIndex>& sets, VecX& x) {
  // Bertsekas (1982), with D = diag(A) scaling the held rows' gradient step and the test of
  // which rows are held; sigma is his Armijo constant.
  constexpr double kSigma = 1e-4;
  constexpr int kHalvings = 60;
  // epsilon_k = min(kEpsilon0 (1 + |x|_inf), |x - P(x - D^-1 g)|): rows this close to a bound
  // that the gradient presses onto it are held (Bertsekas' epsilon-active set).
  constexpr double kEpsilon0 = 1e-3;
  // Levenberg-Marquardt damping of the Newton block, A_FF + mu diag(A_FF) (any positive definite
  // scaling of the free rows keeps Bertsekas' descent): where contacts are redundant the free
  // block is definite by C alone, the undamped step is about 1e9 too long along its near-null
  // space and the arc search shortens it to alpha ~ 1e-9 step after step (chaindrop's 8th
  // problem, 2496 rows: natural residual 12 after 200 steps; its steps 7 to 29 ended at 0.03 ..
  // 0.7 N s undamped, at 2.5e-12 .. 1.4e-3 damped).
  // mu grows tenfold after a step the search had to shorten, shrinks tenfold after a full one.
  constexpr double kMinDamping = 1e-12, kMaxDamping = 1.0;
  PivotingResult result;
  const int n = a.size();
  if (x.size() != n) x.setZero(n);
  clampInto(lower, upper, x);
  diagonal_ = a.a->diagonal();
  held_.resize(n);
  double best_residual = std::numeric_limits<double>::infinity();
  double damping = 0.0;
  for (;;) {
    multiply(a, x, gradient_);
    gradient_ += b;
    const double residual = maxNaturalResidual(x, gradient_, lower, upper);
    if (residual < best_residual) {
      best_residual = residual;
      best_x_ = x;
    }
    if (residual < settings.epsilon) {
      result.solved = true;
      break;
    }
    if (result.pivots >= settings.newton_steps) break;
    double projected = 0.0;
    for (int r = 0; r < n; ++r) {
      const double d = diagonal_[r] > 0.0 ? gradient_[r] / diagonal_[r] : 0.0;
      const double step = x[r] - std::clamp(x[r] - d, lower[r], upper[r]);
      projected += step * step;
    }
    const double epsilon =
        std::min(kEpsilon0 * (1.0 + x.cwiseAbs().maxCoeff()), std::sqrt(projected));
    for (int r = 0; r < n; ++r) {
      const bool at_lower = x[r] <= lower[r] + epsilon && gradient_[r] > 0.0;
      const bool at_upper = x[r] >= upper[r] - epsilon && gradient_[r] < 0.0;
      held_[r] = fixedRow(lower, upper, r) || at_lower ? BoxIndex::Lower
                 : at_upper                            ? BoxIndex::Upper
                                                       : BoxIndex::Free;
    }
    if (!factorFree(a, held_, result, damping)) {
      result.factor_failed = true;
      break;
    }
    ++result.pivots;
    // d: a diagonally scaled gradient step on the held rows, the free block's Newton step on the
    // others.
    direction_.resize(n);
    for (int r = 0; r < n; ++r)
      direction_[r] = diagonal_[r] > 0.0 ? -gradient_[r] / diagonal_[r] : 0.0;
    const int nf = static_cast<int>(free_.size());
    if (nf > 0) {
      xf_.resize(nf);
      for (int i = 0; i < nf; ++i) xf_[i] = -gradient_[free_[i]];
      solveFreeRhs();
      for (int i = 0; i < nf; ++i) direction_[free_[i]] = xf_[i];
    }
    // Armijo along the projection arc: f(x) - f(x(alpha)) >= sigma (-alpha g_F.d_F + g_H.(x_H -
    // x_H(alpha))), halving alpha from 1.
    int halvings = 0;
    for (double alpha = 1.0; halvings < kHalvings; ++halvings, alpha *= 0.5) {
      trial_ = (x + alpha * direction_).cwiseMax(lower).cwiseMin(upper);
      double predicted = 0.0;
      for (int r = 0; r < n; ++r)
        predicted += held_[r] == BoxIndex::Free ? -alpha * gradient_[r] * direction_[r]
                                                : gradient_[r] * (x[r] - trial_[r]);
      // f(x) - f(x + s) = -(g.s + s'As / 2) from the step s itself: the difference of the two
      // objectives loses the last digits the tail of the search needs (random redundant
      // contacts stopped short of 1e-9 with it, 24-35 steps in).
      step_ = trial_ - x;
      multiply(a, step_, w_);
      const double decrease = -(gradient_.dot(step_) + 0.5 * step_.dot(w_));
      if (decrease >= kSigma * predicted && decrease > 0.0) break;
    }
    // No measurable decrease left: the objective's round-off is reached.
    if (halvings == kHalvings) break;
    x.swap(trial_);
    if (halvings == 0)
      damping = damping > kMinDamping ? 0.1 * damping : 0.0;
    else
      damping = damping > 0.0 ? std::min(10.0 * damping, kMaxDamping) : kMinDamping;
  }
  x = best_x_;
  indexSetsFrom(x, lower, upper, settings.eta, sets);
  return result;
}

template <class Matrix>
double BoxMlcpPivoting<Matrix>::pgsSweep(const Matrix& a, const VecX& b, const VecX& lower,
                                         const VecX& upper, VecX& x) {
  double change = 0.0;
  for (int r = 0; r < a.size(); ++r) {
    if (fixedRow(lower, upper, r)) {
      x[r] = lower[r];
      continue;
    }
    double dot = 0.0, diag = 0.0;
    rowProduct(a, r, x, dot, diag);
    if (!(diag > 0.0)) continue;
    const double next = std::clamp(x[r] - (dot + b[r]) / diag, lower[r], upper[r]);
    change = std::max(change, diag * std::abs(next - x[r]));
    x[r] = next;
  }
  return change;
}

template <class Matrix>
PivotingResult BoxMlcpPivoting<Matrix>::pgsSubspace(const Matrix& a, const VecX& b,
                                                    const VecX& lower, const VecX& upper,
                                                    const PivotingSettings& settings,
                                                    std::vector<BoxIndex>& sets, VecX& x) {
  PivotingResult result;
  const int n = a.size();
  if (x.size() != n) x.setZero(n);
  clampInto(lower, upper, x);
  double best_residual = std::numeric_limits<double>::infinity();
  // The natural residual's maximum at x (clamped into the box).
  const auto residualAt = [&](const VecX& at) {
    multiply(a, at, w_);
    w_ += b;
    return maxNaturalResidual(at, w_, lower, upper);
  };
  while (result.pivots < settings.max_pivots) {
    for (int s = 0; s < settings.pgs_sweeps; ++s) pgsSweep(a, b, lower, upper, x);
    const double swept = residualAt(x);
    if (swept < best_residual) {
      best_residual = swept;
      best_x_ = x;
    }
    if (swept < settings.epsilon) {
      result.solved = true;
      break;
    }
    indexSetsFrom(x, lower, upper, settings.eta, sets);
    if (!solveFree(a, b, lower, upper, sets, x, result)) {
      result.factor_failed = true;
      break;
    }
    ++result.pivots;
    clampInto(lower, upper, x);
    const double minimized = residualAt(x);
    if (minimized < settings.epsilon) {
      result.solved = true;
      break;
    }
    // A subspace step that made things worse (a nearly singular free block: redundant contacts
    // held apart by C alone) is undone, so the next sweeps go on from the best iterate.
    if (minimized < best_residual) {
      best_residual = minimized;
      best_x_ = x;
    } else {
      x = best_x_;
    }
  }
  if (!result.solved && best_residual < std::numeric_limits<double>::infinity()) x = best_x_;
  clampInto(lower, upper, x);
  indexSetsFrom(x, lower, upper, settings.eta, sets);
  return result;
}

template class BoxMlcpPivoting<DenseBoxMatrix>;
template class BoxMlcpPivoting<SparseBoxMatrix>;

}  // namespace subsim
