#include "subsim/solvers/lcp_fixed_point.hpp"

#include <algorithm>

namespace subsim {

namespace {

constexpr double kShrink = 0.5;
constexpr double kGrow = 1.1;

}  // namespace

void LcpFixedPoint::prepare(const MixedLcp& lcp, const VecX& z, double omega) {
  const int n = lcp.size();
  r_.resize(n);
  for (int b = 0; b < lcp.numBlocks(); ++b) {
    double largest = 0.0;
    for (int i = lcp.blockBegin(b); i < lcp.blockEnd(b); ++i)
      largest = std::max(largest, lcp.m(i, i));
    for (int i = lcp.blockBegin(b); i < lcp.blockEnd(b); ++i) {
      const double d = lcp.m(i, i) > 0.0 ? lcp.m(i, i) : largest;
      r_[i] = d > 0.0 ? 1.0 / d : 0.0;  // a block without a positive diagonal stays put
    }
  }
  omega_ = omega;
  lcp.slack(z, w_);
  lcp.naturalResidual(z, w_, residual_, norm2_);
  trial_.resize(n);
  trial_w_.resize(n);
}

double LcpFixedPoint::sweep(const MixedLcp& lcp, VecX& z) {
  trial_.noalias() = z - omega_ * r_.cwiseProduct(w_);
  for (int i = 0; i < lcp.size(); ++i)
    if (!lcp.isFree(i)) trial_[i] = std::max(0.0, trial_[i]);
  lcp.slack(trial_, trial_w_);
  double residual = 0.0, norm2 = 0.0;
  lcp.naturalResidual(trial_, trial_w_, residual, norm2);
  if (!(norm2 <= norm2_)) {
    omega_ *= kShrink;
    return residual_;
  }
  z.swap(trial_);
  w_.swap(trial_w_);
  residual_ = residual;
  norm2_ = norm2;
  omega_ = std::min(1.0, omega_ * kGrow);
  return residual_;
}

}  // namespace subsim
