#include "subsim/sim/thread_governor.hpp"

#include <algorithm>

#include "subsim/math/median.hpp"

namespace subsim {

ThreadGovernor::ThreadGovernor(int max_threads) : ThreadGovernor(max_threads, Settings{}) {}

ThreadGovernor::ThreadGovernor(int max_threads, const Settings& settings)
    : max_(std::max(max_threads, 1)), s_(settings), current_(max_) {
  s_.window = std::max(s_.window, 1);
  s_.probe_every = std::max(s_.probe_every, s_.window);
  interval_ = s_.probe_every;
}

void ThreadGovernor::record(double solver_ms) {
  (threads() == 1 ? at_one_ : at_max_) += 1;
  if (max_ == 1) return;
  if (probing_) {
    probe_.push_back(solver_ms);
    if (static_cast<int>(probe_.size()) < s_.window) return;
    if (median(probe_) < (1.0 - s_.margin) * median(recent_)) {
      current_ = other();
      recent_ = probe_;
      interval_ = s_.probe_every;
    } else {
      interval_ = std::min(2 * interval_, 16 * s_.probe_every);
    }
    probe_.clear();
    probing_ = false;
    since_probe_ = 0;
    return;
  }
  recent_.push_back(solver_ms);
  if (static_cast<int>(recent_.size()) > s_.window) recent_.erase(recent_.begin());
  if (++since_probe_ >= interval_ && static_cast<int>(recent_.size()) == s_.window) probing_ = true;
}

}  // namespace subsim
