#include "subsim/sim/recording_summary.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "subsim/metrics/step_metrics.hpp"

namespace subsim {

void checkStepRange(const Recording& recording, const StepRange& range) {
  const int n = static_cast<int>(recording.steps.size());
  if (range.first < 1 || range.last < range.first || range.last > n)
    throw std::invalid_argument("steps " + std::to_string(range.first) + ":" +
                                std::to_string(range.last) + " do not lie within the recording's " +
                                std::to_string(n) + " steps (1:" + std::to_string(n) + ")");
}

std::vector<StepFigures> stepFigures(const Recording& recording, const StepRange& range) {
  checkStepRange(recording, range);
  std::vector<StepFigures> figures;
  figures.reserve(range.count());
  for (int k = range.first; k <= range.last; ++k) {
    const RecordedStep& s = recording.steps[k - 1];
    StepFigures f;
    f.step = k;
    f.time = s.time;
    f.iterations = s.iterations;
    f.solve_status = s.solve_status;
    f.residual = s.residual;
    f.constraint_residual = s.constraint_residual;
    // evaluateStep gives exactly 0 without constraints, where accuracyOf would claim 16.
    if (s.constraint_residual != 0.0) f.accuracy = accuracyOf(s.constraint_residual);
    f.solver_ms = s.solver_ms;
    f.step_ms = s.step_ms;
    f.contacts = static_cast<int>(s.contact_impulse.size());
    f.max_penetration_mm = 1e3 * s.max_penetration;
    double normal_impulse = 0.0;
    for (const Vec3& impulse : s.contact_impulse) normal_impulse += impulse[0];
    f.normal_force = normal_impulse / recording.dt;
    f.energy = s.energy;
    f.joint_error = s.joint_error;
    figures.push_back(f);
  }
  return figures;
}

RecordingSummary summarizeRecording(const Recording& recording, const StepRange& range) {
  RecordingSummary s;
  s.range = range;
  s.steps_recorded = static_cast<int>(recording.steps.size());
  const std::vector<StepFigures> figures = stepFigures(recording, range);
  // The time before step k is step k-1's, or that time less one dt before the first recorded
  // step (a run starts at t = 0, but a World may have been stepped before recording began).
  const double before = range.first > 1 ? recording.steps[range.first - 2].time
                                        : recording.steps[0].time - recording.dt;
  s.simulated_time = figures.back().time - before;
  s.has_energy = s.has_joint_error = true;
  double residual_sum = 0.0, constraint_sum = 0.0, accuracy_sum = 0.0;
  for (const StepFigures& f : figures) {
    s.solver_ms_total += f.solver_ms;
    s.step_ms_total += f.step_ms;
    s.iterations_total += f.iterations;
    residual_sum += f.residual;
    if (f.accuracy) {
      ++s.steps_judged;
      constraint_sum += f.constraint_residual;
      accuracy_sum += *f.accuracy;
    }
    s.max_penetration_mm = std::max(s.max_penetration_mm, f.max_penetration_mm);
    s.contacts_total += f.contacts;
    bool known = false;
    for (int k = 0; k < kSolveStatusCount; ++k)
      if (f.solve_status == solveStatusName(static_cast<SolveStatus>(k))) {
        ++s.solve_status[k];
        known = true;
      }
    if (!known) ++s.solve_status_unknown;
    s.has_energy = s.has_energy && f.energy.has_value();
    s.has_joint_error = s.has_joint_error && f.joint_error.has_value();
  }
  const double n = range.count();
  s.solver_ms_mean = s.solver_ms_total / n;
  s.step_ms_mean = s.step_ms_total / n;
  s.iterations_mean = s.iterations_total / n;
  s.residual_mean = residual_sum / n;
  s.contacts_mean = s.contacts_total / n;
  if (s.steps_judged > 0) {
    s.constraint_residual_mean = constraint_sum / s.steps_judged;
    s.accuracy_mean = accuracy_sum / s.steps_judged;
  }
  return s;
}

}  // namespace subsim
