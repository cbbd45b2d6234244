#include "subsim/solvers/anderson_acceleration.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cstddef>

namespace subsim {

namespace {
// Relative Tikhonov term of the normal equations: nearly dependent differences (a stagnating
// iteration) would otherwise give huge, cancelling gamma.
constexpr double kRegularisation = 1e-10;
}  // namespace

void AndersonAcceleration::resize(int n, int window) {
  n_ = n;
  m_ = std::clamp(window, 1, kMaxWindow);
  weights_.assign(n, 1.0);
  f_.assign(n, 0.0);
  f_prev_.assign(n, 0.0);
  g_prev_.assign(n, 0.0);
  df_.assign(static_cast<size_t>(n) * m_, 0.0);
  dg_.assign(static_cast<size_t>(n) * m_, 0.0);
  gram_.setZero(m_, m_);
  head_ = 0;
  reset();
}

double AndersonAcceleration::dot(const double* a, const double* b) const {
  double s = 0.0;
  for (int r = 0; r < n_; ++r) s += weights_[r] * a[r] * b[r];
  return s;
}

double AndersonAcceleration::step(const double* x, double* g, double restart_above) {
  for (int r = 0; r < n_; ++r) f_[r] = g[r] - x[r];
  const double f_norm2 = dot(f_.data(), f_.data());
  if (f_norm2 > restart_above) {
    count_ = 0;
    head_ = 0;
    std::copy_n(f_.data(), n_, f_prev_.data());
    std::copy_n(g, n_, g_prev_.data());
    have_previous_ = true;
    return f_norm2;
  }
  if (have_previous_) {
    // The newest differences into slot head_, and its row and column of the Gram matrix.
    const int slot = head_;
    double* df = df_.data() + static_cast<size_t>(slot) * n_;
    double* dg = dg_.data() + static_cast<size_t>(slot) * n_;
    for (int r = 0; r < n_; ++r) {
      df[r] = f_[r] - f_prev_[r];
      dg[r] = g[r] - g_prev_[r];
    }
    head_ = (head_ + 1) % m_;
    count_ = std::min(count_ + 1, m_);
    for (int k = 0; k < count_; ++k) {
      const int other = (slot - k + m_) % m_;
      gram_(slot, other) = gram_(other, slot) =
          dot(df, df_.data() + static_cast<size_t>(other) * n_);
    }
  }
  std::copy_n(f_.data(), n_, f_prev_.data());
  std::copy_n(g, n_, g_prev_.data());
  have_previous_ = true;
  if (count_ == 0) return f_norm2;

  // Slots 0..count_-1 hold differences while the ring fills, all m_ slots afterwards.
  double scale = 0.0;
  for (int k = 0; k < count_; ++k) scale = std::max(scale, gram_(k, k));
  if (!(scale > 0.0)) return f_norm2;
  Small gram(count_, count_);
  SmallVec rhs(count_);
  for (int k = 0; k < count_; ++k) {
    for (int l = 0; l < count_; ++l) gram(k, l) = gram_(k, l);
    gram(k, k) += kRegularisation * scale;
    rhs[k] = dot(df_.data() + static_cast<size_t>(k) * n_, f_.data());
  }
  const Eigen::LDLT<Small> ldlt(gram);
  const SmallVec gamma = ldlt.solve(rhs);
  if (ldlt.info() != Eigen::Success || !gamma.allFinite()) return f_norm2;
  for (int k = 0; k < count_; ++k) {
    const double* dg = dg_.data() + static_cast<size_t>(k) * n_;
    const double c = gamma[k];
    for (int r = 0; r < n_; ++r) g[r] -= c * dg[r];
  }
  return f_norm2;
}

}  // namespace subsim
