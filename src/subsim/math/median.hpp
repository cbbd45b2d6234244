#pragma once
// The median of a sample, one definition for every figure that reports one (a run's solver time,
// the thread governor's probes, bench's sampled studies).
#include <algorithm>

namespace subsim {

/// The middle value of v (the mean of the two middle ones for an even count); 0 for none.
template <class Values>
double median(Values v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace subsim
