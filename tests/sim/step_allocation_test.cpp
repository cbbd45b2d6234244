// No allocation in a whole World::step of a steady scene (ARCHITECTURE.md, "No hidden globals":
// workspaces are allocated once and reused), not only in the solvers' iteration loops
// (tests/solvers/no_allocation.hpp): after warm-up steps, a step of a scene whose contacts no
// longer change in number allocates nothing, neither through operator new nor through Eigen.
// Rigid bodies, jointed chains and robots (quadrupeds: the articulated assembly and SubADMM's
// per-body factorisation) are covered.  Not yet: fadmm and the AL family (canal, ssn, tr-dogleg),
// whose SparseNewtonSystem::assemble rebuilds its sparse matrices with setFromTriplets each solve,
// nor the box-MLCP solvers, whose pivoting factors a new free block with Eigen's sparse LDL^T.
#include <gtest/gtest.h>

#include <string>

#include "support/allocation_count.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

struct SteadyScene {
  const char* spec;
  const char* solver;
};

class StepAllocation : public ::testing::TestWithParam<SteadyScene> {};

TEST_P(StepAllocation, AWarmStepAllocatesNothing) {
  WorldSettings ws;
  ws.solver = GetParam().solver;
  World w = test::makeWorld(GetParam().spec, 30, 0.0, 1, 0.0, ws);
  for (int k = 0; k < 100; ++k) ASSERT_FALSE(w.step().diverged) << "warm-up step " << k;
  for (int k = 0; k < 5; ++k) {
    const int rows = w.lastProblem().numRows();
    // From here Eigen asserts on any allocation (builds with assertions).
    Eigen::internal::set_is_malloc_allowed(false);
    const long before = test::allocationCount();
    const StepReport r = w.step();
    const long after = test::allocationCount();
    Eigen::internal::set_is_malloc_allowed(true);
    ASSERT_FALSE(r.diverged);
    ASSERT_EQ(w.lastProblem().numRows(), rows)
        << "the scene is not steady: the test proves nothing";
    EXPECT_EQ(after, before) << GetParam().spec << " with " << GetParam().solver << ", step " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, StepAllocation,
    ::testing::Values(SteadyScene{"stack:boxes=3", "subadmm"},
                      SteadyScene{"pendulum:links=3", "subadmm"}, SteadyScene{"incline", "subadmm"},
                      SteadyScene{"stack:boxes=3", "pgs"}, SteadyScene{"stack:boxes=3", "pgs-cg"},
                      SteadyScene{"stack:boxes=3", "pj"}, SteadyScene{"stack:boxes=3", "nnewton"},
                      SteadyScene{"quadrupeds:robots=1", "subadmm"},
                      SteadyScene{"quadrupeds:robots=1", "pgs"}),
    [](const ::testing::TestParamInfo<SteadyScene>& param_info) {
      std::string name = std::string(param_info.param.spec) + "_" + param_info.param.solver;
      for (char& c : name)
        if (c == ':' || c == '=' || c == '-') c = '_';
      return name;
    });

}  // namespace
}  // namespace subsim
