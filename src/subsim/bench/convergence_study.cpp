#include "subsim/bench/convergence_study.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

#include "subsim/metrics/step_metrics.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim::bench {

namespace {

const SolverOptionValues& optionsOf(const ConvergenceSettings& settings, const std::string& name) {
  static const SolverOptionValues kNone;
  const auto it = settings.options.find(name);
  return it == settings.options.end() ? kNone : it->second;
}

using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

ConvergenceStudy runConvergenceStudy(const StepProblem& problem, const StepSolution& warm_start,
                                     const std::vector<std::string>& solvers,
                                     const ConvergenceSettings& study, const std::string& scene,
                                     const Progress& progress) {
  const auto report = [&progress](const std::string& text) {
    if (progress) progress(text);
  };
  ConvergenceStudy out;
  std::vector<ConvergenceRow>& rows = out.rows;
  for (const std::string& name : solvers) {
    const int n = isNewtonTypeSolver(name)
                      ? study.newton_iterations.value_or(std::max(1, study.iterations / 10))
                      : study.iterations;
    report(scene + ": " + name);
    SolverSettings settings;
    settings.max_iterations = n;
    settings.tolerance = 0.0;
    settings.threads = study.threads;

    // The time axis comes from one n-iteration run stamped at the start of every iteration: the
    // time to finish iteration k is then monotone by construction, where the solve times of n
    // separate k-iteration runs jitter by more than an iteration costs on a small problem.
    std::vector<Clock::time_point> starts(static_cast<size_t>(n));
    int stamps = 0;
    settings.on_iteration = [&starts, &stamps, n](int l) {
      if (l >= 0 && l < n) starts[static_cast<size_t>(l)] = Clock::now();
      ++stamps;
    };
    std::vector<double> finished_ms(static_cast<size_t>(n));
    {
      std::unique_ptr<Solver> s = makeSolver(name, optionsOf(study, name));
      StepSolution solution = warm_start;
      const Clock::time_point t0 = Clock::now();
      s->solve(problem, settings, solution);
      const Clock::time_point t1 = Clock::now();
      const int done = std::min(solution.stats.iterations, n);
      for (int k = 1; k <= n; ++k)
        finished_ms[k - 1] = msBetween(t0, k < done ? starts[static_cast<size_t>(k)] : t1);
    }
    settings.on_iteration = nullptr;
    const bool stamped = stamps == n;

    // The solver's own residual, from an n-iteration run that records it.
    DoubleBuffer history;
    const char* own_name = "";
    {
      SolverSettings recorded = settings;
      recorded.record_history = true;
      std::unique_ptr<Solver> s = makeSolver(name, optionsOf(study, name));
      StepSolution solution = warm_start;
      s->solve(problem, recorded, solution);
      history = solution.stats.residual_history;
      own_name = solution.stats.residual_name;
    }

    // The common judge after k iterations: a fresh solver from the identical input each time,
    // since the solvers expose no iterate mid-solve.
    double last_residual = 0.0;
    for (int k = 1; k <= n; ++k) {
      report(scene + ": " + name + " " + std::to_string(k) + "/" + std::to_string(n));
      SolverSettings limited = settings;
      limited.max_iterations = k;
      std::unique_ptr<Solver> s = makeSolver(name, optionsOf(study, name));
      StepSolution solution = warm_start;
      s->solve(problem, limited, solution);
      const double ms = stamped ? finished_ms[k - 1] : solution.stats.solve_ms;
      if (!stamped) finished_ms[k - 1] = ms;
      last_residual = evaluateStep(problem, solution).constraint_residual;
      rows.push_back({name, k, kJudgeResidualName, last_residual, ms});
    }
    for (size_t k = 0; k < history.size(); ++k)
      rows.push_back({name, static_cast<int>(k) + 1, own_name, history[k],
                      k < finished_ms.size() ? finished_ms[k] : finished_ms.back()});
    out.solvers.push_back({name, n, last_residual, finished_ms.back(), stamped});
  }
  return out;
}

}  // namespace subsim::bench
