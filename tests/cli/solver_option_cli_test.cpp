// Solver options on the command line (--solver-option, its aliases, `subsim solvers NAME`) and
// from a scene file's solver section, end to end through the `subsim` binary.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "subsim/solvers/solver.hpp"

namespace {

using subsim::cli_test::contains;
using subsim::cli_test::Result;
using subsim::cli_test::run;

nlohmann::json runJson(const std::string& args) {
  const Result r = run(args + " --json");
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json();
}

/// A scene file with `section` at its top, in the test's temporary directory.
std::string writeScene(const std::string& name, const std::string& section) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << section << R"(
dt: 0.01
bodies:
  - {name: ground, type: static, shapes: [{type: plane}]}
  - {name: ball, mass: 1, position: [0, 0, 0.1], shapes: [{type: sphere, radius: 0.1}]}
)";
  return path;
}

TEST(CliSolverOptions, AnOptionChangesTheRunAndTheAliasIsTheSameOption) {
  const std::string scene = "run granular:spheres=8 --steps 15 --iterations 20 --tolerance 0";
  const nlohmann::json plain = runJson(scene);
  const nlohmann::json relaxed = runJson(scene + " --solver-option relaxation=1");
  const nlohmann::json alias = runJson(scene + " --relaxation 1");
  EXPECT_NE(plain["final_state_hash"], relaxed["final_state_hash"]);
  EXPECT_EQ(relaxed["final_state_hash"], alias["final_state_hash"]);
  EXPECT_EQ(plain["solver_options"], nlohmann::json::object());
  EXPECT_EQ(relaxed["solver_options"], nlohmann::json({{"relaxation", "1"}}));
  // The default stated explicitly changes nothing; SOLVER.NAME names the run's solver.
  EXPECT_EQ(runJson(scene + " --solver-option subadmm.relaxation=1.5")["final_state_hash"],
            plain["final_state_hash"]);
  const nlohmann::json pj =
      runJson("run granular:spheres=8 --steps 3 --solver pj --solver-option pj.omega=0.5");
  EXPECT_EQ(pj["solver_options"], nlohmann::json({{"omega", "0.5"}}));
}

TEST(CliSolverOptions, BadOptionsAreBadInputWithAMessage) {
  struct Case {
    std::string args;
    std::string message;
  };
  const Case cases[] = {
      {"run granular --solver-option relaxation",
       "subsim: --solver-option: expected NAME=VALUE or SOLVER.NAME=VALUE (subsim solvers lists "
       "the options), got 'relaxation'"},
      {"run granular --solver-option =1", "got '=1'"},
      {"run granular --solver-option relaxation=", "got 'relaxation='"},
      {"run granular --solver-option .relaxation=1", "got '.relaxation=1'"},
      {"run granular --solver-option rho=1",
       "subsim: --solver-option: solver 'subadmm' has no option 'rho' (its options: "
       "adaptive_beta, residual, penalty_rule, beta_scale, relaxation, factorization, "
       "anderson_window, sparse_min_dof)"},
      {"run granular --solver-option relaxation=2",
       "subsim: --solver-option: solver 'subadmm': option 'relaxation': expected a number in (0, "
       "2), got '2'"},
      {"run granular --solver pgs --solver-option relaxation=1",
       "subsim: --solver-option: solver 'pgs' has no option 'relaxation' (it has none)"},
      {"run granular --solver-option fadmm.relaxation=1",
       "subsim: --solver-option: 'fadmm.relaxation=1' is an option of fadmm, but the run's solver "
       "is subadmm"},
      {"run granular --solver-option admm.relaxation=1",
       "subsim: --solver-option: unknown solver 'admm' in 'admm.relaxation=1' (known: " +
           subsim::solverNameList() + ")"},
      {"run granular --relaxation 1.2 --solver-option relaxation=1.3",
       "subsim: --solver-option: option 'relaxation' of subadmm is given twice ('--relaxation "
       "1.2', then 'relaxation=1.3')"},
      {"run granular --solver pgs --anderson 2",
       "subsim: --anderson: solver 'pgs' has no option 'anderson_window' (it has none)"},
      {"run granular --solver nnewton --solver-option restart=0",
       "subsim: --solver-option: solver 'nnewton': option 'restart': expected a whole number "
       "from 1 to 1000, got '0'"},
      {"bench granular --solvers pgs,pj --solver-option relaxation=1",
       "subsim: --solver-option: no compared solver has an option 'relaxation' (solvers: pgs, pj; "
       "subsim solvers lists them)"},
      {"bench granular --solvers pgs,pj --solver-option fadmm.relaxation=1",
       "subsim: --solver-option: 'fadmm.relaxation=1' is an option of fadmm, which this bench "
       "does not compare (solvers: pgs, pj)"},
      {"bench granular --solvers subadmm,fadmm --solver-option relaxation=1 --solver-option "
       "fadmm.relaxation=1.2",
       "subsim: --solver-option: option 'relaxation' of fadmm is given twice ('relaxation=1', "
       "then 'fadmm.relaxation=1.2')"},
      {"bench granular --solvers pj --solver-option omega=1.5",
       "subsim: --solver-option: solver 'pj': option 'omega': expected a number in (0, 1], got "
       "'1.5'"},
      {"bench --scaling --solver-option relaxation=1", "--scaling measures SubADMM alone"},
      {"bench --paper-table --solver-option relaxation=1", "--paper-table fixes the scenes"},
      {"solvers admm",
       "subsim: solvers: unknown solver 'admm' (known: " + subsim::solverNameList() + ")"},
  };
  for (const Case& c : cases) {
    const Result r = run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.err;
    EXPECT_TRUE(contains(r.err, c.message)) << c.args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args << ": " << r.out;
  }
}

TEST(CliSolverOptions, SceneFileSolverSectionWithCommandLineOverrides) {
  const std::string file =
      writeScene("cli_solver_section.yaml",
                 "solver: {name: fadmm, iterations: 17, tolerance: 0, options: {relaxation: 1.2}}");
  const nlohmann::json scene = runJson("run " + file + " --steps 3");
  EXPECT_EQ(scene["solver"], "fadmm");
  EXPECT_EQ(scene["iterations_cap"], 17);
  EXPECT_EQ(scene["tolerance"], 0.0);
  EXPECT_EQ(scene["solver_options"], nlohmann::json({{"relaxation", "1.2"}}));
  const nlohmann::json over = runJson("run " + file +
                                      " --steps 3 --iterations 5 --tolerance 1e-3 "
                                      "--solver-option relaxation=1.1 --fixed-beta");
  EXPECT_EQ(over["solver"], "fadmm");
  EXPECT_EQ(over["iterations_cap"], 5);
  EXPECT_EQ(over["tolerance"], 1e-3);
  EXPECT_EQ(over["solver_options"],
            nlohmann::json({{"relaxation", "1.1"}, {"adaptive_beta", "false"}}));
  // Another solver on the command line runs without the scene's solver's options.
  const Result other = run("run " + file + " --steps 3 --solver pgs --json");
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_TRUE(contains(other.err,
                       "subsim: note: the scene's solver options are fadmm's; "
                       "pgs runs without them"))
      << other.err;
  const nlohmann::json j = nlohmann::json::parse(other.out);
  EXPECT_EQ(j["solver"], "pgs");
  EXPECT_EQ(j["iterations_cap"], 17);
  // The command-line options are checked against the scene's solver once the file is read.
  const Result bad = run("run " + file + " --steps 3 --solver-option omega=0.5");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err,
                       "subsim: --solver-option: solver 'fadmm' has no option 'omega' "
                       "(its options: adaptive_beta, beta_scale, relaxation)"))
      << bad.err;
  // A bad section is a scene error naming the file.
  const std::string broken =
      writeScene("cli_solver_section_bad.yaml", "solver: {name: fadmm, options: {rho: 1}}");
  const Result r = run("run " + broken + " --steps 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, broken + ": solver.options.rho: unknown option of solver 'fadmm'"))
      << r.err;
}

TEST(CliSolverOptions, BenchAppliesAPlainNameToEverySolverThatHasIt) {
  const Result r =
      run("bench granular:spheres=8 --steps 2 --iterations 5 --solvers subadmm,fadmm,pj --format "
          "json --solver-option relaxation=1.25 --solver-option pj.omega=0.5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["solver_options"], nlohmann::json({{"subadmm", {{"relaxation", "1.25"}}},
                                                 {"fadmm", {{"relaxation", "1.25"}}},
                                                 {"pj", {{"omega", "0.5"}}}}));
  const Result md =
      run("bench granular:spheres=8 --steps 2 --iterations 5 --solvers subadmm,pgs "
          "--solver-option subadmm.anderson_window=2");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(
      contains(md.out, "Solver options (others at their defaults): subadmm anderson_window=2.\n"))
      << md.out;
}

TEST(CliSolverOptions, SolversListsEachSolversOptions) {
  Result r = run("solvers");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"relaxation", "double in (0, 2)", "default 1.5", "omega",
                           "linear_max_iterations", "beta0_scale", "(no options)",
                           "enum: per-body | dense", "int from 0 to 8", "default 48 DOF"})
    EXPECT_TRUE(contains(r.out, text)) << text;
  r = run("solvers pj");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "omega  double in (0, 1]  default 0.3")) << r.out;
  EXPECT_FALSE(contains(r.out, "subadmm")) << r.out;
}

}  // namespace
