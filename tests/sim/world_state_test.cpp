// One Model, many States (ARCHITECTURE.md, "No hidden globals"): a Model shared (const) by several
// Worlds, and a State that carries the solver's warm start, so that a restored state steps
// bit for bit as the original run did, on the World that saved it or on another one.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "subsim/math/fnv1a_hash.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

namespace subsim {
namespace {

/// The command line's defaults: SubADMM, 60 iterations, tolerance 1e-6 (so that the warm start
/// also decides how many iterations a solve takes).
WorldSettings settings(const std::string& solver = "subadmm") {
  WorldSettings ws;
  ws.solver = solver;
  ws.solver_settings.max_iterations = 60;
  ws.solver_settings.tolerance = 1e-6;
  return ws;
}

std::shared_ptr<const Model> sharedModel(const std::string& spec) {
  return std::make_shared<const Model>(buildScenario(spec).model);
}

/// Steps `world` `steps` times; the hash of the state and of every step's lambda on the way.
std::string run(World& world, int steps) {
  Fnv1a64 hash;
  for (int k = 0; k < steps; ++k) {
    const StepReport r = world.step();
    EXPECT_FALSE(r.diverged) << "step " << k << ": " << r.divergence;
    hash.add(world.lastSolution().lambda);
  }
  hash.add(world.state().hash());
  return hex64(hash.value());
}

class RestoredState : public ::testing::TestWithParam<const char*> {};

TEST_P(RestoredState, StepsBitIdenticallyToTheOriginalRun) {
  constexpr int kBefore = 30, kAfter = 30;
  World world(sharedModel(GetParam()), settings());
  run(world, kBefore);
  const State saved = world.state();
  ASSERT_FALSE(saved.warm_start.keys.empty()) << "no keyed constraint: the test proves nothing";
  const std::string original = run(world, kAfter);

  world.setState(saved);
  EXPECT_EQ(run(world, kAfter), original) << "restored on the World that saved it";

  World other(world.sharedModel(), settings());
  other.setState(saved);
  EXPECT_EQ(run(other, kAfter), original) << "restored on another World of the same Model";

  // Without its warm start the same state takes another path: the warm start is what makes the
  // restored run identical.
  State cold = saved;
  cold.warm_start = WarmStart{};
  World cold_world(world.sharedModel(), settings());
  cold_world.setState(cold);
  EXPECT_NE(run(cold_world, kAfter), original);
}

INSTANTIATE_TEST_SUITE_P(Scenes, RestoredState,
                         ::testing::Values("granular:spheres=27", "quadrupeds:robots=1",
                                           "pendulum:links=4"),
                         [](const ::testing::TestParamInfo<const char*>& param_info) {
                           std::string name = param_info.param;
                           return name.substr(0, name.find(':'));
                         });

TEST(SharedModel, WorldsStepIndependentlyWithTheResultsOfSeparateOnes) {
  const std::string spec = "granular:spheres=27";
  const std::shared_ptr<const Model> model = sharedModel(spec);
  World a(model, settings("subadmm"));
  World b(model, settings("pgs"));
  EXPECT_EQ(&a.model(), &b.model()) << "shared, not copied";
  EXPECT_EQ(&a.model(), model.get());

  // Interleaved on the shared model, each as if alone on its own copy.
  std::string hash_a, hash_b;
  for (int k = 0; k < 3; ++k) {
    hash_a = run(a, 10);
    hash_b = run(b, 10);
  }
  World alone_a(buildScenario(spec).model, settings("subadmm"));
  World alone_b(buildScenario(spec).model, settings("pgs"));
  std::string expected_a, expected_b;
  for (int k = 0; k < 3; ++k) expected_a = run(alone_a, 10);
  for (int k = 0; k < 3; ++k) expected_b = run(alone_b, 10);
  EXPECT_EQ(hash_a, expected_a);
  EXPECT_EQ(hash_b, expected_b);
  EXPECT_NE(hash_a, hash_b);
}

TEST(SharedModel, NullModelIsRefused) {
  EXPECT_THROW(World(std::shared_ptr<const Model>()), std::invalid_argument);
}

TEST(SetState, WarmStartPointingOutsideItsLambdaIsRefused) {
  World world(sharedModel("stack:boxes=2"), settings());
  world.step();
  State bad = world.state();
  ASSERT_FALSE(bad.warm_start.keys.empty());
  bad.warm_start.keys.back().second = static_cast<int>(bad.warm_start.lambda.size());
  EXPECT_THROW(world.setState(bad), std::invalid_argument);
  State unsorted = world.state();
  ASSERT_GE(unsorted.warm_start.keys.size(), 2u);
  std::swap(unsorted.warm_start.keys.front(), unsorted.warm_start.keys.back());
  EXPECT_THROW(world.setState(unsorted), std::invalid_argument);
}

// The step's phases are disjoint parts of it (a bookkeeping contract, not a timing).
TEST(StepReport, PhasesArePartsOfTheStep) {
  World world(sharedModel("granular:spheres=27"), settings());
  for (int k = 0; k < 5; ++k) {
    const StepReport r = world.step();
    EXPECT_GT(r.collision_ms, 0.0);
    EXPECT_GT(r.assembly_ms, 0.0);
    EXPECT_LE(r.collision_ms + r.assembly_ms + r.solver_ms, r.step_ms);
  }
}

}  // namespace
}  // namespace subsim
