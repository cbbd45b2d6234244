// The NCP form (formulation/ncp_form.hpp) as the solvers take it, on every built-in scene: the
// problems a World poses over a short run, hashed bit for bit (problemHash over A_i, b_i, J, e,
// soft rows), equal the values committed before the formulation layer existed.  The StepProblem
// became the step's data (raw errors, stabilisation, contact frames, mass blocks) and e is now
// built from it; these hashes are what says the solvers still see the same problems.  Like the
// golden state hashes they hold for the portable build (SUBSIM_ARCH=x86-64).
#include <gtest/gtest.h>

#include <string>

#include "subsim/math/fnv1a_hash.hpp"
#include "subsim/problem/problem_hash.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

struct ProblemRun {
  const char* name;
  const char* spec;
  int steps;
  const char* hash;  // FNV-1a over problemHash of every step's problem, SUBSIM_ARCH=x86-64
};

const ProblemRun kProblemRuns[] = {
    {"granular", "granular:spheres=64", 40, "13e67be0f66b9074"},
    {"stir", "stir:spheres=27", 40, "ba74728360eee5b3"},
    {"quadrupeds", "quadrupeds:robots=2", 40, "f8ac17c94139fe0b"},
    {"mobile", "mobile", 40, "d0c36597c9969f7e"},
    {"cable", "cable:segments=32", 30, "92a1fa6de4da2bab"},
    {"beam", "beam:pieces=4,cells=8,across=2", 20, "6f6cc9e28ff2914d"},
    {"stack", "stack:boxes=4", 40, "2967f2b88fccbf1b"},
    {"incline", "incline", 40, "cdc46d40b886321c"},
    {"pendulum", "pendulum:links=3", 40, "1d14dc5932466852"},
    {"spinner", "spinner", 20, "eb5d2414df463a2a"},
    {"sphere", "sphere", 40, "22fdd07099321fa9"},
};

std::string problemSequenceHash(const ProblemRun& run) {
  World w = test::makeWorld(run.spec, 60, 0.0);
  Fnv1a64 hash;
  for (int k = 0; k < run.steps; ++k) {
    const StepReport r = w.step();
    EXPECT_FALSE(r.diverged) << run.name << " step " << k << ": " << r.divergence;
    if (r.diverged) break;
    hash.add(problemHash(w.lastProblem()));
  }
  return hex64(hash.value());
}

class NcpFormGolden : public ::testing::TestWithParam<ProblemRun> {};

TEST_P(NcpFormGolden, SolversSeeTheProblemsTheyDidBeforeTheFormulationLayer) {
  const ProblemRun& run = GetParam();
  const std::string hash = problemSequenceHash(run);
  EXPECT_EQ(problemSequenceHash(run), hash) << run.name << ": not deterministic";
#if SUBSIM_PORTABLE_BITS
  EXPECT_EQ(hash, run.hash) << run.name
                            << ": the NCP problems differ from the committed hashes.  If a change "
                               "meant to alter the problems, update kProblemRuns and say why.";
#endif
}

INSTANTIATE_TEST_SUITE_P(Scenes, NcpFormGolden, ::testing::ValuesIn(kProblemRuns),
                         [](const ::testing::TestParamInfo<ProblemRun>& param_info) {
                           return std::string(param_info.param.name);
                         });

}  // namespace
}  // namespace subsim
