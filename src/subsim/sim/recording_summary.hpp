#pragma once
// A recording's per-step figures and their totals, as `subsim replay` prints them and
// `subsim plot` draws them: everything here is derived from what readRecording returns, so the
// recording stays the one source of the numbers (docs/recording-format.md).
//
// Example:
//   const subsim::Recording rec = subsim::readRecording("run.h5");
//   const subsim::StepRange all{1, static_cast<int>(rec.steps.size())};
//   for (const subsim::StepFigures& f : subsim::stepFigures(rec, all)) use(f.time, f.energy);
//   const subsim::RecordingSummary s = subsim::summarizeRecording(rec, all);
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "subsim/problem/step_problem.hpp"
#include "subsim/sim/recorder.hpp"

namespace subsim {

/// Steps first..last of a recording, numbered from 1 (step k is the group /steps/(k-1)),
/// inclusive: 1 <= first <= last <= the number of steps.
struct StepRange {
  int first = 1;
  int last = 0;
  int count() const { return last - first + 1; }
};

/// std::invalid_argument naming both when `range` does not lie within the recording's steps.
void checkStepRange(const Recording& recording, const StepRange& range);

/// One recorded step's figures, in the units a person reads them in.
struct StepFigures {
  int step = 0;     // from 1
  double time = 0;  // s, after the step
  int iterations = 0;
  std::string solve_status;  // empty in recordings made before it existed
  double residual = 0;       // the solver's own stopping residual
  double constraint_residual = 0;
  /// -log10(constraint_residual), the papers' AA; none when the residual is 0, which is a step
  /// without constraints (nothing to judge; metrics/step_metrics.hpp).
  std::optional<double> accuracy;
  double solver_ms = 0, step_ms = 0;
  int contacts = 0;
  double max_penetration_mm = 0;
  /// Sum of the contacts' normal impulses divided by dt: the mean total normal force (N).
  double normal_force = 0;
  std::optional<double> energy;       // J; none in recordings made before it existed
  std::optional<double> joint_error;  // the bilateral rows' own units; likewise
};

std::vector<StepFigures> stepFigures(const Recording& recording, const StepRange& range);

/// Totals and means over a range of steps.
struct RecordingSummary {
  StepRange range;
  int steps_recorded = 0;
  double simulated_time = 0;  // s: the range's last time minus the time before its first step
  double solver_ms_total = 0, solver_ms_mean = 0;
  double step_ms_total = 0, step_ms_mean = 0;
  long iterations_total = 0;
  double iterations_mean = 0;
  double residual_mean = 0;
  std::optional<double> constraint_residual_mean;  // over the steps with an accuracy
  std::optional<double> accuracy_mean;             // mean AA over the same steps
  int steps_judged = 0;                            // steps with an accuracy
  double max_penetration_mm = 0;                   // the largest of the range
  long contacts_total = 0;
  double contacts_mean = 0;
  /// Solves per status, in SolveStatus order (solveStatusName), and those recorded without one.
  std::array<int, kSolveStatusCount> solve_status{};
  int solve_status_unknown = 0;
  bool has_energy = false, has_joint_error = false;  // every step of the range carries it
};

/// std::invalid_argument for a range outside the recording (checkStepRange).
RecordingSummary summarizeRecording(const Recording& recording, const StepRange& range);

}  // namespace subsim
