// Determinism as a cross-machine contract (docs/determinism.md): the final state of a granular
// and a stir run, hashed bit for bit (State::hash), equals a committed value, with 1 and with 2
// threads.  The values hold for the portable build (SUBSIM_ARCH=x86-64) on every x86-64
// processor: the build fixes the flags that change rounding, and the simulator takes its sines
// and cosines from math/portable_math.hpp instead of libm, whose variants differ between
// processors.  CMake also runs these tests with glibc told to ignore AVX, AVX2 and FMA
// (GLIBC_TUNABLES), so that libm picks the variants an older processor would get; the hashes must
// not move.  A build for another instruction set (SUBSIM_ARCH=native, x86-64-v3) vectorises
// Eigen's sums differently and so has other bits: there only the thread and rerun checks apply.
#include <gtest/gtest.h>

#include <string>

#include "subsim/math/fnv1a_hash.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

struct GoldenRun {
  const char* name;
  const char* spec;
  int steps;
  const char* hash;  // hex64(State::hash()) after `steps` steps, SUBSIM_ARCH=x86-64
};

// `subsim run granular --steps 200 --json` and `subsim run stir --json` print the same values as
// final_state_hash (tests/cli checks that the command line agrees).
const GoldenRun kGoldenRuns[] = {
    {"granular", "granular", 200, "cdc2ff938966f085"},
    {"stir", "stir", 300, "2de0cee8095fcbd9"},
    // Large enough that the step's own loops (sweep, narrow phase, rigid blocks, warm start,
    // integration) split across threads (math/parallel_team.hpp).
    {"granular1331", "granular:spheres=1331", 20, "79bd1975c474d199"},
    // The same with the robot: its stirrer touches the spheres from step 11, so contacts on a
    // robot link (filled as they are placed) sit between the others (filled in parallel).
    {"stir1331", "stir:spheres=1331", 20, "896a9cfb7d8e24df"},
};

/// The command line's defaults: SubADMM, 60 iterations, tolerance 1e-6.
std::string finalStateHash(const GoldenRun& run, int threads) {
  World w = test::makeWorld(run.spec, 60, 1e-6, threads);
  for (int k = 0; k < run.steps; ++k) {
    const StepReport r = w.step();
    EXPECT_FALSE(r.diverged) << run.name << " step " << k;
    if (r.diverged) break;
  }
  return hex64(w.state().hash());
}

class GoldenState : public ::testing::TestWithParam<GoldenRun> {};

TEST_P(GoldenState, SameBitsWithOneAndTwoThreadsAndOnRerun) {
  const GoldenRun& run = GetParam();
  const std::string one = finalStateHash(run, 1);
  EXPECT_EQ(finalStateHash(run, 2), one);
  EXPECT_EQ(finalStateHash(run, 1), one);
#if SUBSIM_PORTABLE_BITS
  EXPECT_EQ(one, run.hash) << run.name
                           << ": the final state differs from the committed golden hash.  If a "
                              "change meant to alter the trajectory, update kGoldenRuns and say "
                              "why in the commit; otherwise a result now depends on the machine.";
#endif
}

INSTANTIATE_TEST_SUITE_P(Runs, GoldenState, ::testing::ValuesIn(kGoldenRuns),
                         [](const ::testing::TestParamInfo<GoldenRun>& param_info) {
                           return std::string(param_info.param.name);
                         });

}  // namespace
}  // namespace subsim
