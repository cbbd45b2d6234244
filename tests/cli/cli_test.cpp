// End-to-end tests of the `subsim` command line: the JSON contract, exit codes and error messages.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"

namespace {

using subsim::cli_test::contains;
using subsim::cli_test::Result;
using subsim::cli_test::run;

TEST(Cli, ScenariosListsEveryBuiltInScene) {
  const Result r = run("scenarios");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* name : {"granular", "stack", "incline", "pendulum", "spinner", "sphere"})
    EXPECT_TRUE(contains(r.out, name)) << name;
}

TEST(Cli, JsonRunPrintsExactlyOneObjectWithTheContractFields) {
  const Result r = run("run granular:spheres=27 --steps 20 --iterations 30 --tolerance 0 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Only one JSON object on stdout: it starts with '{' and ends with '}' and a newline.
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_EQ(r.out[r.out.find_last_not_of('\n')], '}');
  EXPECT_EQ(r.out.find("}\n{"), std::string::npos);
  for (const char* field : {"schema_version",
                            "scene",
                            "solver",
                            "threads",
                            "iterations_cap",
                            "iterations_mean",
                            "tolerance",
                            "steps",
                            "steps_completed",
                            "dt",
                            "dof",
                            "subsystems",
                            "contacts_mean",
                            "solver_ms_mean",
                            "solver_ms_median",
                            "solver_setup_ms_mean",
                            "step_ms_mean",
                            "collision_ms_mean",
                            "assembly_ms_mean",
                            "accuracy_mean",
                            "accuracy_fb_mean",
                            "natural_map_error_mean",
                            "bilateral_residual_max",
                            "max_penetration_m",
                            "final_kinetic_energy",
                            "diverged"})
    EXPECT_TRUE(contains(r.out, std::string("\"") + field + "\"")) << field;
  EXPECT_TRUE(contains(r.out, "\"dof\": 168"));  // 27 spheres and the rod, 6 DOF each
  EXPECT_TRUE(contains(r.out, "\"subsystems\": 28"));
  EXPECT_TRUE(contains(r.out, "\"iterations_mean\": 30.0"));
  EXPECT_TRUE(contains(r.out, "\"steps_completed\": 20"));
  EXPECT_TRUE(contains(r.out, "\"diverged\": false"));
  // Tolerance 0: each of the 20 solves ran to its cap; every status is named.
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["solve_status"], nlohmann::json({{"converged", 0},
                                               {"iteration-cap", 20},
                                               {"factorization-failed", 0},
                                               {"non-finite", 0},
                                               {"stalled", 0}}));
}

// The thread count chosen at run time (sim/thread_governor.hpp) changes no result: a run on 2
// threads, governed or fixed, ends in the 1-thread run's state, bit for bit.
TEST(Cli, AGovernedRunEndsInTheSameState) {
  const std::string args =
      "run granular:spheres=27 --steps 60 --iterations 30 --tolerance 0 --json";
  std::string hash;
  for (const char* threads : {" --threads 1", " --threads 2", " --threads 2 --fixed-threads"}) {
    const Result r = run(args + threads);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    if (hash.empty()) hash = j["final_state_hash"];
    EXPECT_EQ(j["final_state_hash"], hash) << threads;
    // The governed run moved: its first probe runs steps 51-53 on 1 thread whatever it then
    // chooses (up to the 10 after it); the others never do.
    const int on_one = j["steps_on_one_thread"].get<int>();
    if (std::string(threads) == " --threads 2") {
      EXPECT_GE(on_one, 3);
      EXPECT_LE(on_one, 10);
    } else {
      EXPECT_EQ(on_one, 0) << threads;
    }
  }
}

TEST(Cli, AScenesOwnIterationCapHoldsUnlessGiven) {
  // SubADMM diverges on the cable winding's stiff 320-link chain at 60 iterations: the scene
  // asks for 200.  The beam, which asked for 300, runs at the solver's 60 since its pieces'
  // node copies are unified after each step (docs/deformables.md).
  Result r = run("run cablewind --steps 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"iterations_cap\": 200")) << r.out;
  r = run("run beam --steps 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"iterations_cap\": 60")) << r.out;
  r = run("run cablewind --steps 1 --iterations 7 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"iterations_cap\": 7")) << r.out;
  r = run("run granular:spheres=8 --steps 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"iterations_cap\": 60")) << r.out;
}

TEST(Cli, NoConstraintsGiveANullAccuracy) {
  const Result r = run("run spinner --steps 5 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"accuracy_mean\": null"));
}

TEST(Cli, UnknownSceneIsBadInput) {
  const Result r = run("run nosuchscene --steps 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "unknown scene 'nosuchscene'")) << r.err;
}

TEST(Cli, UnknownScenarioParameterIsBadInput) {
  const Result r = run("run granular:sphres=10 --steps 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "unknown parameter 'sphres'")) << r.err;
  EXPECT_TRUE(contains(r.err, "spheres")) << r.err;
}

TEST(Cli, MalformedScenarioValueIsBadInput) {
  for (const char* spec : {"granular:spheres=abc", "granular:spheres=2.5", "granular:spheres=0",
                           "granular:mu=-1", "granular:spheres", "granular:mu=nan"}) {
    const Result r = run(std::string("run ") + spec + " --steps 1");
    EXPECT_EQ(r.exit_code, 2) << spec;
    EXPECT_TRUE(contains(r.err, "granular")) << spec << ": " << r.err;
  }
}

TEST(Cli, BadCommandLineValuesAreBadInput) {
  for (const char* args :
       {"run granular --steps -1", "run granular --dt 0", "run granular --dt -0.1",
        "run granular --threads 0", "run granular --iterations -3", "run granular --tolerance -1",
        "run granular --steps many", "run granular --solver nosuch", "run", "frobnicate",
        "run granular --beta-scale 0", "run granular --relaxation 2",
        "run granular --relaxation -1", "run granular --json extra", "run granular --anderson 9",
        "run granular --anderson -1"}) {
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_FALSE(r.err.empty()) << args;
  }
}

TEST(Cli, UnknownSolverNamesTheKnownOnes) {
  const Result r = run("run granular --solver nosuch --steps 1");
  EXPECT_TRUE(contains(r.err, "unknown solver 'nosuch'")) << r.err;
  EXPECT_TRUE(contains(r.err, "subadmm")) << r.err;
}

TEST(Cli, MissingSceneFileIsBadInput) {
  const Result r = run("run /nonexistent/scene.yaml --steps 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "/nonexistent/scene.yaml")) << r.err;
}

TEST(Cli, DivergenceIsReportedWithExitCodeThree) {
  // A time step of 10 s lets the spheres fall hundreds of metres through the floor in one step
  // before any contact exists: the penetration limit trips on the next collision pass.
  const Result r = run("run granular:spheres=8 --dt 10 --steps 5 --json");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "\"diverged\": true"));
  EXPECT_TRUE(contains(r.err, "diverged")) << r.err;
}

TEST(Cli, RecordWritesAFile) {
  const std::string path = ::testing::TempDir() + "subsim_cli_record.h5";
  std::remove(path.c_str());
  const Result r = run("run granular:spheres=8 --steps 3 --record " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good());
}

TEST(Cli, RecordToAnImpossiblePathIsBadInput) {
  const Result r = run("run granular:spheres=8 --steps 3 --record /nonexistent/dir/x.h5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "/nonexistent/dir/x.h5")) << r.err;
}

}  // namespace
