// The run-time thread count (sim/thread_governor.hpp), on synthetic solver times: it falls back to
// one thread while one is faster (a loaded machine), keeps more while they pay, follows a change
// of load both ways, is not flipped by noise, and with one thread never probes.  That the count
// changes no result is the determinism contract (Cli.AGovernedRunEndsInTheSameState).
#include <gtest/gtest.h>

#include <functional>

#include "subsim/sim/thread_governor.hpp"

namespace {

using subsim::ThreadGovernor;

/// Runs `steps` steps whose solver time is time(step, threads); returns the threads of the last.
int drive(ThreadGovernor& g, int first, int steps, const std::function<double(int, int)>& time) {
  for (int k = first; k < first + steps; ++k) g.record(time(k, g.threads()));
  return g.threads();
}

const auto loaded = [](int, int threads) { return threads == 1 ? 10.0 : 20.0; };
const auto idle = [](int, int threads) { return threads == 1 ? 10.0 : 6.0; };

TEST(ThreadGovernor, OneThreadNeverProbes) {
  ThreadGovernor g(1);
  EXPECT_EQ(drive(g, 0, 1000, loaded), 1);
  EXPECT_EQ(g.stepsAtOne(), 1000);
  EXPECT_EQ(g.stepsAtMax(), 0);
}

TEST(ThreadGovernor, FallsBackToOneThreadWhileItIsFaster) {
  ThreadGovernor g(2);
  EXPECT_EQ(g.threads(), 2);
  EXPECT_EQ(drive(g, 0, 50, loaded), 1);  // 50 steps on 2, then the first probe, on 1
  EXPECT_EQ(drive(g, 50, 3, loaded), 1);  // which switched
  EXPECT_EQ(drive(g, 53, 2000, loaded), 1);
  // Later probes of 2 threads fail and back off: 50, 100, 200, 400, 800 steps apart (the sixth
  // would come after step 2053).
  EXPECT_EQ(g.stepsAtMax(), 50 + 3 * 5);
}

TEST(ThreadGovernor, KeepsTheThreadsWhileTheyPay) {
  ThreadGovernor g(4);
  EXPECT_EQ(drive(g, 0, 2000, idle), 4);
  EXPECT_EQ(g.stepsAtOne(), 3 * 5);  // the probes, after 50, 100, 200, 400 and 800 more steps
}

TEST(ThreadGovernor, FollowsTheLoadBothWays) {
  ThreadGovernor g(2);
  EXPECT_EQ(drive(g, 0, 300, loaded), 1);
  // Once the other process ends, the next probe (at most 16 x 50 steps later) finds 2 faster.
  EXPECT_EQ(drive(g, 300, 1000, idle), 2);
  EXPECT_EQ(drive(g, 1300, 850, loaded), 1);  // and back, the probes at most 800 steps apart
}

TEST(ThreadGovernor, NoiseWithinTheMarginDoesNotFlipIt) {
  ThreadGovernor g(2);
  // Two threads 3 % slower than one, with +-2 % noise: within the 10 % margin either way.
  const auto noisy = [](int k, int threads) {
    return (threads == 1 ? 10.0 : 10.3) * (k % 2 ? 1.02 : 0.98);
  };
  EXPECT_EQ(drive(g, 0, 3000, noisy), 2);
  EXPECT_LT(g.stepsAtOne(), 30);
}

}  // namespace
