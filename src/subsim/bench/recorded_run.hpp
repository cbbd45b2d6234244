#pragma once
// A recorded run: the problems (and warm starts) a reference World posed, kept so that every
// solver of `subsim bench --problems` and the convergence study solve the very same inputs.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "subsim/model/model.hpp"
#include "subsim/problem/step_problem.hpp"
#include "subsim/sim/world.hpp"

namespace subsim::bench {

/// Called with a short line of what is being done, for a progress display; may be empty.
using Progress = std::function<void(const std::string&)>;

struct RecordedRun {
  std::vector<StepProblem> problems;
  std::vector<StepSolution> warm_starts;
  /// What the reference solver returned for each problem (empty parts where unknown, as for a
  /// problem file written before solutions were stored).
  std::vector<StepSolution> solutions;
  std::string note;   // why it ended early
  int steps_run = 0;  // steps the reference run completed (problems holds a sample of them)
};

/// A mask over n problems marking `count` evenly spaced ones: the middle of each of `count` equal
/// stretches of the run, so a sample of a 300-step run covers its whole course.  count <= 0 or
/// >= n marks every problem.
std::vector<char> evenlySpaced(std::size_t n, int count);

/// Steps a reference World of `model` `steps` times and keeps the problems (and warm starts) that
/// `evenlySpaced(steps, keep)` selects: only those are held in memory (a beam problem stores its
/// blocks densely, about 30 MB).  A step that throws or diverges ends the run; `note` says why.
/// `scene` names the run in the progress lines.
RecordedRun recordProblems(const std::shared_ptr<const Model>& model, const std::string& scene,
                           int steps, int keep, const WorldSettings& settings,
                           const Progress& progress = {});

/// Keeps `count` evenly spaced problems of a run held in full (a problem file).
void keepEvenlySpaced(RecordedRun& run, int count);

/// The problem and warm start of one step of a reference run.
struct RecordedStep {
  StepProblem problem;
  StepSolution warm_start;
  int diverged_at = 0;     // the step at which the run diverged before `step`; 0 when it did not
  std::string divergence;  // why (StepReport::divergence)
};

/// Steps a reference World of `model` up to step `step` (1-based) and returns that step's problem
/// and warm start, or where and why the run diverged before reaching it.  A step that throws
/// propagates.
RecordedStep recordStep(const std::shared_ptr<const Model>& model, const std::string& scene,
                        int step, const WorldSettings& settings, const Progress& progress = {});

}  // namespace subsim::bench
