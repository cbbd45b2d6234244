// A recording's per-step figures and totals (sim/recording_summary.hpp): each figure is the
// recorded value in the units it is shown in, the totals are the sums over the chosen steps, and
// a range outside the recording is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "subsim/metrics/step_metrics.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/recorder.hpp"
#include "subsim/sim/recording_summary.hpp"
#include "subsim/sim/world.hpp"

namespace subsim {
namespace {

namespace fs = std::filesystem;

/// `steps` steps of `scene` recorded and read back (the file is removed again).
Recording recordRun(const std::string& scene, int steps) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path path = fs::temp_directory_path() / (std::string("subsim_summary_") + info->name() +
                                                     "_" + std::to_string(::getpid()) + ".h5");
  {
    World world(buildScenario(scene).model);
    Recorder recorder(path.string(), world.model(),
                      RecordingInfo{scene, world.settings().solver, world.model().dt, 1, 60, 1e-6});
    for (int k = 0; k < steps; ++k) {
      const StepReport report = world.step();
      recorder.record(world, report, evaluateStep(world.lastProblem(), world.lastSolution()));
    }
  }
  Recording rec = readRecording(path.string());
  fs::remove(path);
  return rec;
}

TEST(RecordingSummary, FiguresAreTheRecordedValuesInTheirDisplayUnits) {
  const Recording rec = recordRun("granular:spheres=8", 12);
  const std::vector<StepFigures> figures = stepFigures(rec, StepRange{3, 10});
  ASSERT_EQ(figures.size(), 8u);
  int with_contacts = 0;
  for (const StepFigures& f : figures) {
    SCOPED_TRACE("step " + std::to_string(f.step));
    const RecordedStep& s = rec.steps[f.step - 1];
    EXPECT_EQ(f.time, s.time);
    EXPECT_EQ(f.iterations, s.iterations);
    EXPECT_EQ(f.residual, s.residual);
    EXPECT_EQ(f.constraint_residual, s.constraint_residual);
    ASSERT_TRUE(f.accuracy.has_value());  // the spheres lie in their box: constraints every step
    EXPECT_EQ(*f.accuracy, accuracyOf(s.constraint_residual));
    EXPECT_EQ(f.solve_status, s.solve_status);
    EXPECT_EQ(f.contacts, static_cast<int>(s.contact_impulse.size()));
    EXPECT_DOUBLE_EQ(f.max_penetration_mm, 1e3 * s.max_penetration);
    double normal = 0.0;
    for (const Vec3& impulse : s.contact_impulse) normal += impulse[0];
    EXPECT_DOUBLE_EQ(f.normal_force, normal / rec.dt);
    EXPECT_EQ(f.energy, s.energy);
    with_contacts += f.contacts > 0 ? 1 : 0;
  }
  EXPECT_EQ(figures.front().step, 3);
  EXPECT_EQ(figures.back().step, 10);
  EXPECT_GT(with_contacts, 0);
}

TEST(RecordingSummary, TotalsAndMeansAreOverTheChosenSteps) {
  const Recording rec = recordRun("granular:spheres=8", 12);
  const StepRange range{4, 9};
  const RecordingSummary s = summarizeRecording(rec, range);
  double solver_ms = 0, step_ms = 0, residual = 0, penetration = 0;
  long iterations = 0, contacts = 0;
  for (int k = range.first; k <= range.last; ++k) {
    const RecordedStep& step = rec.steps[k - 1];
    solver_ms += step.solver_ms;
    step_ms += step.step_ms;
    residual += step.residual;
    iterations += step.iterations;
    contacts += static_cast<long>(step.contact_impulse.size());
    penetration = std::max(penetration, 1e3 * step.max_penetration);
  }
  EXPECT_EQ(s.steps_recorded, 12);
  EXPECT_DOUBLE_EQ(s.solver_ms_total, solver_ms);
  EXPECT_DOUBLE_EQ(s.solver_ms_mean, solver_ms / 6);
  EXPECT_DOUBLE_EQ(s.step_ms_total, step_ms);
  EXPECT_EQ(s.iterations_total, iterations);
  EXPECT_DOUBLE_EQ(s.iterations_mean, iterations / 6.0);
  EXPECT_DOUBLE_EQ(s.residual_mean, residual / 6);
  EXPECT_EQ(s.contacts_total, contacts);
  EXPECT_EQ(s.max_penetration_mm, penetration);
  EXPECT_EQ(s.steps_judged, 6);
  // Six steps of dt: from the time after step 3 to the time after step 9.
  EXPECT_NEAR(s.simulated_time, 6 * rec.dt, 1e-12);
  int statuses = s.solve_status_unknown;
  for (int n : s.solve_status) statuses += n;
  EXPECT_EQ(statuses, 6);
  EXPECT_TRUE(s.has_energy);
  EXPECT_TRUE(s.has_joint_error);
}

TEST(RecordingSummary, StepsWithoutConstraintsHaveNoAccuracy) {
  // The spinner flies free: no contacts, no joints, a constraint residual of exactly 0, which
  // accuracyOf would score a perfect 16.
  const Recording rec = recordRun("spinner", 5);
  const RecordingSummary s = summarizeRecording(rec, StepRange{1, 5});
  EXPECT_EQ(s.steps_judged, 0);
  EXPECT_FALSE(s.accuracy_mean.has_value());
  EXPECT_FALSE(s.constraint_residual_mean.has_value());
  for (const StepFigures& f : stepFigures(rec, StepRange{1, 5})) EXPECT_FALSE(f.accuracy);
  EXPECT_NEAR(s.simulated_time, 5 * rec.dt, 1e-12);
}

TEST(RecordingSummary, RangesOutsideTheRecordingAreRefused) {
  const Recording rec = recordRun("sphere", 3);
  EXPECT_NO_THROW(checkStepRange(rec, StepRange{1, 3}));
  EXPECT_NO_THROW(checkStepRange(rec, StepRange{2, 2}));
  for (const StepRange bad : {StepRange{0, 2}, StepRange{2, 1}, StepRange{1, 4}, StepRange{4, 4}}) {
    SCOPED_TRACE(std::to_string(bad.first) + ":" + std::to_string(bad.last));
    EXPECT_THROW(checkStepRange(rec, bad), std::invalid_argument);
    EXPECT_THROW(summarizeRecording(rec, bad), std::invalid_argument);
  }
  try {
    checkStepRange(rec, StepRange{2, 7});
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "steps 2:7 do not lie within the recording's 3 steps (1:3)");
  }
}

}  // namespace
}  // namespace subsim
