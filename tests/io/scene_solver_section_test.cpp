// A scene file's `solver:` section (io/scene_solver_section.hpp): read into name, iterations,
// tolerance and options checked against the named solver; every refusal names the file, the
// field, what was expected and the line.
#include <gtest/gtest.h>

#include <string>

#include "subsim/io/scene_file.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {
namespace {

const std::string kSectionFile = "scenes/s.yaml";
const std::string kSectionBodies = R"(
bodies:
  - {name: ground, type: static, shapes: [{type: plane}]}
  - {name: ball, mass: 1, position: [0, 0, 1], shapes: [{type: sphere, radius: 0.1}]}
)";

SceneSolver solverOf(const std::string& section) {
  return parseScene(section + kSectionBodies, kSectionFile).solver;
}

std::string sectionError(const std::string& section) {
  try {
    parseScene(section + kSectionBodies, kSectionFile);
  } catch (const SceneError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a SceneError for " << section;
  return "";
}

TEST(SceneSolverSection, AbsentLeavesEverythingToTheCommandLine) {
  const SceneSolver s = solverOf("dt: 0.01");
  EXPECT_EQ(s.name, "");
  EXPECT_FALSE(s.iterations);
  EXPECT_FALSE(s.tolerance);
  EXPECT_TRUE(s.options.empty());
}

TEST(SceneSolverSection, ReadsNameSettingsAndOptionsInOrder) {
  const SceneSolver s = solverOf(R"(
solver:
  name: subadmm
  iterations: 90
  tolerance: 1e-8
  options: {relaxation: 1.2, factorization: dense, adaptive_beta: false, anderson_window: 3}
)");
  EXPECT_EQ(s.name, "subadmm");
  EXPECT_EQ(s.iterations, 90);
  EXPECT_EQ(s.tolerance, 1e-8);
  EXPECT_EQ(s.options, (SolverOptionValues{{"relaxation", "1.2"},
                                           {"factorization", "dense"},
                                           {"adaptive_beta", "false"},
                                           {"anderson_window", "3"}}));
  const SceneSolver n = solverOf("solver: {name: nnewton, options: {restart: 10}}");
  EXPECT_EQ(n.options, (SolverOptionValues{{"restart", "10"}}));
  EXPECT_EQ(solverOf("solver: {iterations: 0}").iterations, 0);
  EXPECT_EQ(solverOf("solver: {name: pgs}").name, "pgs");
  EXPECT_EQ(solverOf("solver: {name: subadmm, options: {factorization: \"dense\"}}").options,
            (SolverOptionValues{{"factorization", "dense"}}));
}

TEST(SceneSolverSection, ErrorsNameFileFieldExpectationAndLine) {
  struct Case {
    std::string section;
    std::string message;
  };
  const Case cases[] = {
      {"solver: fadmm",
       "scenes/s.yaml: solver: expected a map {name: SOLVER, iterations: N, tolerance: T, options: "
       "{...}} (see docs/scene-format.md), got fadmm (line 1, column 9)"},
      {"solver: {name: admm}", "scenes/s.yaml: solver.name: expected a solver name (known: " +
                                   solverNameList() + "), got admm (line 1, column 16)"},
      {"solver: {name: fadmm, iters: 3}",
       "scenes/s.yaml: solver.iters: unknown key, expected one of: name, iterations, tolerance, "
       "options (line 1, column 23)"},
      {"solver: {iterations: 2.5}",
       "scenes/s.yaml: solver.iterations: expected a whole number of iterations from 0 to "
       "100000000, got 2.5 (line 1, column 22)"},
      {"solver: {tolerance: -1}",
       "scenes/s.yaml: solver.tolerance: expected a residual >= 0 (0 runs exactly the "
       "iterations), got -1 (line 1, column 21)"},
      {"solver: {options: {relaxation: 1}}",
       "scenes/s.yaml: solver.options: expected solver.name beside the options: they belong to "
       "one solver (line 1, column 19)"},
      {"solver: {name: fadmm, options: {rho: 1}}",
       "scenes/s.yaml: solver.options.rho: unknown option of solver 'fadmm', expected one of: "
       "adaptive_beta, beta_scale, relaxation (line 1, column 33)"},
      {"solver: {name: pgs, options: {omega: 1}}",
       "scenes/s.yaml: solver.options.omega: unknown option: solver 'pgs' has no options (line 1, "
       "column 31)"},
      {"solver: {name: fadmm, options: {relaxation: 2}}",
       "scenes/s.yaml: solver.options.relaxation: expected a number in (0, 2), got 2 (line 1, "
       "column 45)"},
      {"solver: {name: fadmm, options: {relaxation: \"1\"}}",
       "scenes/s.yaml: solver.options.relaxation: expected a number in (0, 2), got the string "
       "\"1\" (line 1, column 45)"},
      {"solver: {name: fadmm, options: {adaptive_beta: yes}}",
       "scenes/s.yaml: solver.options.adaptive_beta: expected true or false, got yes (line 1, "
       "column 48)"},
      {"solver: {name: subadmm, options: {factorization: [dense]}}",
       "scenes/s.yaml: solver.options.factorization: expected per-body or dense, got a list of 1 "
       "item (line 1, column 50)"},
      {"solver: {name: fadmm, options: [relaxation]}",
       "scenes/s.yaml: solver.options: expected a map of fadmm's options (subsim solvers fadmm "
       "lists them), got a list of 1 item (line 1, column 32)"},
      {"solver: {name: fadmm, options: {relaxation: 1, relaxation: 1.2}}",
       "scenes/s.yaml: solver.options.relaxation: duplicate key: expected each key at most once "
       "(line 1, column 48)"},
  };
  for (const Case& c : cases) EXPECT_EQ(sectionError(c.section), c.message) << c.section;
}

}  // namespace
}  // namespace subsim
