#include "subsim/bench/accuracy_front.hpp"

#include <algorithm>
#include <cmath>

namespace subsim::bench {

namespace {

/// The points by increasing time with each AA replaced by the best reached so far: what a user
/// who may stop the solver at any of the swept counts gets within that time.
std::vector<FrontPoint> envelope(std::vector<FrontPoint> curve) {
  std::stable_sort(curve.begin(), curve.end(),
                   [](const FrontPoint& a, const FrontPoint& b) { return a.ms < b.ms; });
  for (std::size_t k = 1; k < curve.size(); ++k)
    curve[k].aa = std::max(curve[k].aa, curve[k - 1].aa);
  return curve;
}

/// log(ms), a zero time clamped to the smallest positive double so that it stays finite.
double logMs(double ms) {
  return std::log(std::max(ms, 1e-300));
}

}  // namespace

std::vector<std::vector<bool>> paretoFront(const std::vector<std::vector<FrontPoint>>& curves) {
  std::vector<std::vector<bool>> on(curves.size());
  for (std::size_t i = 0; i < curves.size(); ++i) {
    on[i].assign(curves[i].size(), true);
    for (std::size_t p = 0; p < curves[i].size(); ++p) {
      const FrontPoint& a = curves[i][p];
      for (const std::vector<FrontPoint>& other : curves)
        for (const FrontPoint& b : other)
          if (b.ms <= a.ms && b.aa >= a.aa && (b.ms < a.ms || b.aa > a.aa)) on[i][p] = false;
    }
  }
  return on;
}

std::optional<double> timeToReach(std::vector<FrontPoint> curve, double target) {
  const std::vector<FrontPoint> e = envelope(std::move(curve));
  for (std::size_t k = 0; k < e.size(); ++k) {
    if (e[k].aa < target) continue;
    if (k == 0) return e[0].ms;
    const double f = (target - e[k - 1].aa) / (e[k].aa - e[k - 1].aa);
    return std::exp(logMs(e[k - 1].ms) + f * (logMs(e[k].ms) - logMs(e[k - 1].ms)));
  }
  return std::nullopt;
}

std::optional<double> accuracyWithin(std::vector<FrontPoint> curve, double ms) {
  const std::vector<FrontPoint> e = envelope(std::move(curve));
  if (e.empty() || ms < e.front().ms) return std::nullopt;
  for (std::size_t k = 1; k < e.size(); ++k) {
    if (ms >= e[k].ms) continue;
    const double la = logMs(e[k - 1].ms), lb = logMs(e[k].ms);
    const double f = lb > la ? (logMs(ms) - la) / (lb - la) : 1.0;
    return e[k - 1].aa + f * (e[k].aa - e[k - 1].aa);
  }
  return e.back().aa;
}

}  // namespace subsim::bench
