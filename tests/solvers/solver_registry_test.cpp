// Every registered solver runs every built-in scene, and unknown names are rejected.
#include <gtest/gtest.h>

#include "subsim/solvers/solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

TEST(SolverRegistry, EverySolverRunsEveryBuiltInScene) {
  for (const std::string& name : solverNames()) {
    EXPECT_EQ(makeSolver(name)->name(), name);
    for (const Scenario& s : builtinScenarios()) {
      const std::string spec = s.name == "granular" ? "granular:spheres=27" : s.name;
      WorldSettings ws;
      ws.solver = name;
      ws.solver_settings.max_iterations = 60;
      World w = test::makeWorld(spec, 60, 1e-6, 1, 0.0, ws);
      for (int k = 0; k < 40; ++k) {
        const StepReport r = w.step();
        ASSERT_FALSE(r.diverged) << name << " on " << spec << ": " << r.divergence;
      }
    }
  }
}

TEST(SolverRegistry, UnknownNameListsTheKnownOnes) {
  try {
    makeSolver("nosuch");
    FAIL();
  } catch (const std::invalid_argument& e) {
    for (const std::string& name : solverNames())
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace subsim
