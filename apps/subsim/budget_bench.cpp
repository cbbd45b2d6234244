// `subsim bench SCENE... --budget MS`: every solver under one solve time per step (the AL paper's
// budget study: each scene run with each solver at the paper's 0.5 ms or 1 ms a step, which ones
// complete and how deep they penetrate).
//
// The budget is turned into an iteration count per solver and scene, not enforced by a clock:
// a solve stopped by wall time would make the trajectory depend on the machine's load and on
// the run, and the bench's results would not repeat.  Two probe runs on the scene's first steps
// (10 and 40 first-order iterations; 1 and 4 for a Newton-type solver) give each solver's setup
// and per-iteration time; the iterations that fit the budget on average are then run for the
// whole scene, refitted from that run's mean while it misses the budget by more than 10 % (at
// most three times); the run of most iterations within the budget is kept, and the table states
// its count and the time each step took.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "option_checks.hpp"
#include "progress_line.hpp"
#include "scene_loading.hpp"
#include "subsim/bench/scene_cell.hpp"
#include "subsim/sim/world.hpp"
#include "table_text.hpp"

namespace subsim::cli {

namespace {

constexpr int kProbeSteps = 20;
constexpr int kProbeLevels[2] = {10, 40};  // first-order iterations (a tenth for Newton-type)
constexpr int kMaxIterations = 100000;
constexpr int kMaxRuns = 4;            // whole runs per solver: the first and 3 refits
constexpr double kFitTolerance = 0.1;  // a run within 10 % of the budget is kept

/// A solver's fit of the probe runs: solve time = setup + per_iteration * iterations (ms).
struct TimeModel {
  double setup = 0.0, per_iteration = 0.0;
  std::string failure;  // a probe that could not be timed
};

TimeModel probeSolver(const std::shared_ptr<const Model>& model, const std::string& spec, int steps,
                      double limit, const std::string& solver, int threads,
                      const SolverOptionValues& options) {
  TimeModel m;
  double t[2] = {0.0, 0.0};
  int it[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const ::subsim::bench::Cell probe =
        ::subsim::bench::runSceneCell(model, spec, std::min(steps, kProbeSteps), limit, solver,
                                      kProbeLevels[k], threads, options);
    if (!probe.at_ms) {  // its first step failed
      m.failure = "its probe at " + std::to_string(probe.iterations) +
                  " iterations failed at once: " + probe.failure_reason;
      return m;
    }
    t[k] = *probe.at_ms;
    it[k] = probe.iterations;
  }
  // Timing noise can make the longer probe no slower: then the whole time is per iteration.
  m.per_iteration = t[1] > t[0] ? (t[1] - t[0]) / (it[1] - it[0]) : t[1] / it[1];
  m.setup = std::max(0.0, t[1] - m.per_iteration * it[1]);
  return m;
}

std::string millimetres(double metres) {
  return fixedText(metres * 1e3, 2);
}

}  // namespace

int runBudgetBench(const BenchOptions& o) {
  const double budget = *o.budget;
  const std::vector<std::string> solvers = parseSolverList(o.solvers);
  const std::map<std::string, SolverOptionValues> options = benchSolverOptions(o, solvers);
  std::ostringstream out;
  out << "# subsim bench --budget " << exactText(budget) << " ms\n\n"
      << "Each solver runs the iterations whose solve takes " << exactText(budget)
      << " ms per step on average on this machine, fitted from two probe runs of the scene's "
         "first "
      << kProbeSteps << " steps (" << kProbeLevels[0] << " and " << kProbeLevels[1]
      << " iterations; a tenth for Newton-type solvers) as setup + iterations x per-iteration "
         "time, then refitted from a whole run's mean while that misses the budget by more than "
         "10 % (at most three times); each run keeps its count for every step (a clock would "
         "make the run depend on the machine's load), and the run of most iterations within the "
         "budget (or 10 % over it) is shown, else the last.  AT: its mean solve time per step.  "
         "Threads: "
      << o.threads << ".\n";
  for (const std::string& spec : o.scenes) {
    std::shared_ptr<const Model> model;
    int default_steps = 0;
    progressDone();
    if (!loadSharedModel(spec, model, default_steps)) return kExitBadInput;
    const int steps = o.steps.value_or(default_steps);
    const World probe(model, ::subsim::bench::benchWorldSettings(
                                 solvers.front(), 1, 1, o.penetration_limit.value_or(0.0)));
    const double limit = probe.penetrationLimit();
    out << "\n## " << spec << "\n\n"
        << probe.dof() << " DOF, dt " << exactText(model->dt) << " s, " << steps
        << " steps; a run fails at a penetration beyond " << millimetres(limit) << " mm.\n\n"
        << "| solver | iterations | AT (ms) | steps | max penetration (mm) | AA | result |\n"
        << "|---|---:|---:|---:|---:|---:|---|\n";
    for (const std::string& solver : solvers) {
      progressLine("bench", spec + ": " + solver + ": probing");
      const TimeModel time =
          probeSolver(model, spec, steps, limit, solver, o.threads, options.at(solver));
      const double fit = (budget - time.setup) / time.per_iteration;
      const int iterations =
          time.failure.empty() && std::isfinite(fit)
              ? static_cast<int>(std::min<double>(kMaxIterations, std::floor(fit)))
              : 0;
      if (iterations < 1) {
        out << "| " << solver << " | 0 | - | 0 | - | - | "
            << (time.failure.empty()
                    ? "not run: its setup (" + fixedText(time.setup, 3) +
                          " ms) and one iteration (" + fixedText(time.per_iteration, 3) +
                          " ms) exceed the budget"
                    : "not run: " + time.failure)
            << " |\n";
        continue;
      }
      // The first steps need not cost what the whole run does (contacts build up, active sets
      // change): the count is refitted from each whole run's mean, a few times at most, and the
      // run kept is the one of most iterations within the budget (10 % over counts as within),
      // else the last.
      // A Newton-type solver runs a tenth of a level's iterations (bench::iterationsAtLevel).
      const bool newton = ::subsim::bench::iterationsAtLevel(solver, 10) == 1;
      ::subsim::bench::Cell cell;
      bool kept_within = false;
      for (int run = 0, count = iterations; run < kMaxRuns; ++run) {
        progressLine("bench",
                     spec + ": " + solver + " at " + std::to_string(count) + " iterations");
        ::subsim::bench::Cell next_cell = ::subsim::bench::runSceneCell(
            model, spec, steps, limit, solver, newton ? 10 * count : count, o.threads,
            options.at(solver));
        const bool within = next_cell.at_ms && *next_cell.at_ms <= (1.0 + kFitTolerance) * budget;
        if ((within && (!kept_within || next_cell.iterations > cell.iterations)) ||
            (!within && !kept_within))
          cell = next_cell;
        kept_within = kept_within || within;
        if (!next_cell.at_ms || std::abs(*next_cell.at_ms - budget) <= kFitTolerance * budget)
          break;
        const double at = *next_cell.at_ms;
        const double per_iteration = at > time.setup ? (at - time.setup) / count : at / count;
        const int next = static_cast<int>(std::clamp<double>(
            std::floor((budget - time.setup) / per_iteration), 1.0, kMaxIterations));
        if (next == count) break;
        count = next;
      }
      out << "| " << solver << " | " << cell.iterations << " | "
          << (cell.at_ms ? fixedText(*cell.at_ms, 3) : "-") << " | " << cell.steps_done << "/"
          << cell.steps << " | " << millimetres(cell.max_penetration) << " | "
          << (cell.aa ? fixedText(*cell.aa, 2) : "-") << " | "
          << (cell.failed ? "failed: " + cell.failure_reason : "completed") << " |\n";
    }
  }
  progressDone();
  return writeTable(out.str(), o.output);
}

}  // namespace subsim::cli
