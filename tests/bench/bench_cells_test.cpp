// The bench's cell runners (src/subsim/bench/) called as a library, without the command line:
// a scene cell, a recorded run replayed by a problems cell, and the convergence study.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "subsim/bench/convergence_study.hpp"
#include "subsim/bench/problems_cell.hpp"
#include "subsim/bench/recorded_run.hpp"
#include "subsim/bench/scene_cell.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim::bench {
namespace {

std::shared_ptr<const Model> stack() {
  return std::make_shared<const Model>(buildScenario("stack:boxes=2").model);
}

TEST(BenchCells, SceneCellAveragesEveryStep) {
  const Cell cell = runSceneCell(stack(), "stack", 20, 0.05, "subadmm", 30, 1);
  EXPECT_FALSE(cell.failed) << cell.failure_reason;
  EXPECT_EQ(cell.iterations, 30);
  EXPECT_EQ(cell.steps, 20);
  EXPECT_EQ(cell.steps_done, 20);
  ASSERT_TRUE(cell.aa.has_value());
  EXPECT_GT(*cell.aa, 0.0);
  EXPECT_EQ(cell.solve_status[static_cast<int>(SolveStatus::IterationCap)], 20);
}

TEST(BenchCells, SceneCellFailsAtThePenetrationLimit) {
  const Cell cell = runSceneCell(stack(), "stack", 20, 1e-12, "pgs", 30, 1);
  EXPECT_TRUE(cell.failed);
  EXPECT_EQ(cell.failure_mark.rfind("pen ", 0), 0u) << cell.failure_mark;
}

TEST(BenchCells, EveryProblemsCellSolvesTheSameRecordedInputs) {
  const RecordedRun run =
      recordProblems(stack(), "stack", 30, 5, benchWorldSettings("subadmm", 60, 1, 0.0));
  EXPECT_TRUE(run.note.empty()) << run.note;
  EXPECT_EQ(run.steps_run, 30);
  ASSERT_EQ(run.problems.size(), 5u);
  ASSERT_EQ(run.warm_starts.size(), 5u);
  const Cell newton = runProblemsCell("stack", run, "nnewton", 60, 1);
  const Cell pgs = runProblemsCell("stack", run, "pgs", 60, 1);
  EXPECT_EQ(newton.iterations, 6) << "Newton-type: a tenth of the level";
  EXPECT_EQ(pgs.iterations, 60);
  EXPECT_FALSE(pgs.input_hash.empty());
  EXPECT_EQ(newton.input_hash, pgs.input_hash);
  EXPECT_EQ(pgs.steps_done, 5);
}

TEST(BenchCells, EvenlySpacedSampleCoversTheRun) {
  const std::vector<char> keep = evenlySpaced(10, 2);
  EXPECT_EQ(keep, (std::vector<char>{0, 0, 1, 0, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(evenlySpaced(3, 0), (std::vector<char>{1, 1, 1}));
}

TEST(BenchCells, ConvergenceStudyHasARowPerIteration) {
  const RecordedStep step =
      recordStep(stack(), "stack", 10, benchWorldSettings("subadmm", 60, 1, 0.0));
  ASSERT_EQ(step.diverged_at, 0) << step.divergence;
  ConvergenceSettings settings;
  settings.iterations = 8;
  const ConvergenceStudy study =
      runConvergenceStudy(step.problem, step.warm_start, {"pgs", "nnewton"}, settings, "stack");
  ASSERT_EQ(study.solvers.size(), 2u);
  EXPECT_EQ(study.solvers[0].iterations, 8);
  EXPECT_EQ(study.solvers[1].iterations, 1) << "Newton-type: a tenth, at least 1";
  int judge_rows = 0;
  for (const ConvergenceRow& r : study.rows) judge_rows += r.residual_name == kJudgeResidualName;
  EXPECT_EQ(judge_rows, 9);
}

}  // namespace
}  // namespace subsim::bench
