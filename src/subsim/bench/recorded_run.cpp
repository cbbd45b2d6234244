#include "subsim/bench/recorded_run.hpp"

#include <exception>

namespace subsim::bench {

std::vector<char> evenlySpaced(std::size_t n, int count) {
  if (count <= 0 || static_cast<std::size_t>(count) >= n) return std::vector<char>(n, 1);
  std::vector<char> keep(n, 0);
  const std::size_t c = static_cast<std::size_t>(count);
  for (std::size_t k = 0; k < c; ++k) keep[((2 * k + 1) * n) / (2 * c)] = 1;
  return keep;
}

RecordedRun recordProblems(const std::shared_ptr<const Model>& model, const std::string& scene,
                           int steps, int keep, const WorldSettings& settings,
                           const Progress& progress) {
  RecordedRun run;
  const std::vector<char> kept = evenlySpaced(static_cast<std::size_t>(steps), keep);
  World world(model, settings);
  for (int k = 1; k <= steps; ++k) {
    if (progress)
      progress(scene + ": recording step " + std::to_string(k) + "/" + std::to_string(steps));
    StepReport r;
    try {
      r = world.step();
    } catch (const std::exception& e) {
      run.note = "the reference run threw at step " + std::to_string(k) + ": " + e.what();
      break;
    }
    // A diverged step's problem comes from a state no solver should be judged on.
    if (r.diverged) {
      run.note = "the reference run diverged at step " + std::to_string(k) + ": " + r.divergence;
      break;
    }
    run.steps_run = k;
    if (!kept[k - 1]) continue;
    run.problems.push_back(world.lastProblem());
    run.warm_starts.push_back(world.lastWarmStart());
    run.solutions.push_back(world.lastSolution());
  }
  return run;
}

void keepEvenlySpaced(RecordedRun& run, int count) {
  const std::vector<char> kept = evenlySpaced(run.problems.size(), count);
  std::size_t to = 0;
  for (std::size_t from = 0; from < kept.size(); ++from) {
    if (!kept[from]) continue;
    if (to != from) {
      run.problems[to] = std::move(run.problems[from]);
      run.warm_starts[to] = std::move(run.warm_starts[from]);
      if (from < run.solutions.size()) run.solutions[to] = std::move(run.solutions[from]);
    }
    ++to;
  }
  run.problems.resize(to);
  run.warm_starts.resize(to);
  if (run.solutions.size() > to) run.solutions.resize(to);
}

RecordedStep recordStep(const std::shared_ptr<const Model>& model, const std::string& scene,
                        int step, const WorldSettings& settings, const Progress& progress) {
  RecordedStep out;
  World world(model, settings);
  for (int k = 1; k <= step; ++k) {
    if (progress)
      progress(scene + ": reference step " + std::to_string(k) + "/" + std::to_string(step));
    const StepReport r = world.step();
    if (r.diverged) {
      out.diverged_at = k;
      out.divergence = r.divergence;
      return out;
    }
  }
  out.problem = world.lastProblem();
  out.warm_start = world.lastWarmStart();
  return out;
}

}  // namespace subsim::bench
