// `subsim solve` as a library (src/subsim/bench/solve_problems.hpp): a recorded run re-solved by
// its recording solver reproduces the recorded solutions bit for bit; the judge stops a solve at
// its tolerance; FCLib files from subsim's export solve to what the original problems did.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "subsim/bench/bench_cell.hpp"
#include "subsim/bench/recorded_run.hpp"
#include "subsim/bench/solve_problems.hpp"
#include "subsim/io/fclib_convert.hpp"
#include "subsim/io/fclib_file.hpp"
#include "subsim/io/problem_file.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "test_files.hpp"

namespace subsim::bench {
namespace {

using ::subsim::test::TempFile;
using ::subsim::test::tempPath;

/// Every problem of a `steps`-step run of `spec` with `solver` (tolerance 0, as the bench runs),
/// written with its warm starts and solutions to `path`.
void recordRun(const std::string& spec, const std::string& solver, int iterations, int steps,
               const std::string& path) {
  const auto model = std::make_shared<const Model>(buildScenario(spec).model);
  const RecordedRun run =
      recordProblems(model, spec, steps, steps, benchWorldSettings(solver, iterations, 1, 0.0));
  ASSERT_TRUE(run.note.empty()) << run.note;
  ASSERT_EQ(run.solutions.size(), run.problems.size());
  std::vector<RecordedProblem> problems;
  for (std::size_t k = 0; k < run.problems.size(); ++k)
    problems.push_back({run.problems[k], run.warm_starts[k], run.solutions[k]});
  writeProblemFile(path, {spec, solver, model->dt}, problems);
}

TEST(SolveProblems, TheRecordingSolverReproducesTheRecordedSolutions) {
  for (const auto& [spec, solver, iterations] :
       {std::tuple<const char*, const char*, int>{"granular:spheres=8", "subadmm", 40},
        {"stack:boxes=2", "pgs-cg", 30},
        {"pendulum:links=3", "nnewton", 5}}) {
    SCOPED_TRACE(solver);
    TempFile file(tempPath(std::string(solver) + ".h5"));
    recordRun(spec, solver, iterations, 12, file.path);
    const std::vector<StoredProblem> problems = loadStoredProblems({file.path});
    ASSERT_EQ(problems.size(), 12u);
    SolveSettings settings;
    settings.iterations = iterations;
    settings.newton_iterations = iterations;
    settings.tolerance = 0.0;
    const std::vector<SolveRecord> rows = solveStoredProblems(problems, {solver}, settings);
    int solved = 0;
    for (const SolveRecord& r : rows) {
      if (r.solver == "stored") continue;
      ++solved;
      EXPECT_EQ(r.iterations, iterations);
      EXPECT_EQ(r.status, "iteration-cap");
      ASSERT_TRUE(r.stored_difference.has_value());
      EXPECT_EQ(*r.stored_difference, 0.0) << "problem " << r.problem->index_in_file;
    }
    EXPECT_EQ(solved, 12);
  }
}

TEST(SolveProblems, TheJudgeStopsASolveAtItsTolerance) {
  TempFile file(tempPath(".h5"));
  recordRun("granular:spheres=8", "subadmm", 60, 30, file.path);
  std::vector<StoredProblem> problems = loadStoredProblems({file.path});
  problems.erase(problems.begin(), problems.end() - 1);  // the last: a settled pile
  ASSERT_GT(problems[0].problem.numContacts(), 0);
  SolveSettings settings;
  settings.iterations = 5000;
  settings.tolerance = 1e-6;
  settings.check_every = 5;
  settings.history = true;
  const std::vector<SolveRecord> rows = solveStoredProblems(problems, {"pgs", "nnewton"}, settings);
  ASSERT_EQ(rows.size(), 3u);  // the stored solution, pgs, nnewton
  EXPECT_EQ(rows[0].solver, "stored");
  for (std::size_t k = 1; k < rows.size(); ++k) {
    const SolveRecord& r = rows[k];
    SCOPED_TRACE(r.solver);
    EXPECT_EQ(r.status, "converged");
    EXPECT_LE(r.judge, 1e-6);
    EXPECT_EQ(r.judge, r.natural_map_error);  // a problem with contacts: the natural map
    EXPECT_EQ(r.iterations % 5, 0);
    // The history: the reported solve's own residual at every iteration, and the judge at every
    // k tried: at k = iterations it is the reported error, 5 iterations fewer it was not enough.
    int own = 0;
    bool at_k = false;
    for (const HistoryPoint& h : r.history) {
      if (h.residual_name != std::string("natural-map")) {
        ++own;
        continue;
      }
      if (h.iteration == r.iterations) at_k = h.residual == r.judge;
      if (h.iteration == r.iterations - 5) {
        EXPECT_GT(h.residual, 1e-6);
      }
    }
    EXPECT_TRUE(at_k);
    EXPECT_EQ(own, r.iterations);
  }
}

TEST(SolveProblems, FclibFilesOfLocalAndGlobalFormSolve) {
  TempFile problems_file(tempPath(".h5"));
  recordRun("granular:spheres=8", "subadmm", 60, 20, problems_file.path);
  const ProblemFile recorded = readProblemFile(problems_file.path);
  const RecordedProblem& last = recorded.problems.back();
  TempFile global(tempPath("-global.hdf5")), local(tempPath("-local.hdf5"));
  FclibExportOptions options;
  options.guess = &last.warm_start;
  options.solution = &last.solution;
  writeFclibFile(global.path, fclibGlobalFromStepProblem(last.problem, options));
  writeFclibFile(local.path, fclibLocalFromStepProblem(last.problem, options));
  const std::vector<StoredProblem> problems = loadStoredProblems({global.path, local.path});
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_TRUE(problems[0].fclib);
  EXPECT_FALSE(problems[0].problem.hasLocalForm());
  EXPECT_TRUE(problems[1].problem.hasLocalForm());
  // The stored solution is SubADMM's after 60 iterations: the same error in both forms.
  SolveSettings settings;
  settings.iterations = 3000;
  settings.tolerance = 1e-9;
  const std::vector<SolveRecord> rows =
      solveStoredProblems(problems, {"subadmm", "pgs", "nnewton"}, settings);
  std::map<std::string, std::vector<const SolveRecord*>> by_solver;
  for (const SolveRecord& r : rows) by_solver[r.solver].push_back(&r);
  ASSERT_EQ(by_solver["stored"].size(), 2u);
  EXPECT_NEAR(by_solver["stored"][0]->natural_map_error, by_solver["stored"][1]->natural_map_error,
              1e-9 + 1e-6 * by_solver["stored"][0]->natural_map_error);
  ASSERT_EQ(by_solver["subadmm"].size(), 2u);
  EXPECT_NE(by_solver["subadmm"][0]->status, "not-applicable");
  EXPECT_EQ(by_solver["subadmm"][1]->status, "not-applicable");  // a local problem
  EXPECT_NE(by_solver["subadmm"][1]->note.find("needs a dual solver"), std::string::npos);
  for (const char* name : {"pgs", "nnewton"})
    for (const SolveRecord* r : by_solver[name]) {
      SCOPED_TRACE(name);
      EXPECT_EQ(r->status, "converged");
      EXPECT_LE(r->natural_map_error, 1e-9);
    }
}

}  // namespace
}  // namespace subsim::bench
