#include "subsim/bench/problems_cell.hpp"

#include <cstdio>
#include <memory>

#include "subsim/math/fnv1a_hash.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/problem/problem_hash.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim::bench {

Cell runProblemsCell(const std::string& scene, const RecordedRun& run, const std::string& solver,
                     int level, int threads, const SolverOptionValues& options) {
  Cell cell;
  cell.scene = scene;
  cell.solver = solver;
  cell.level = level;
  cell.iterations = iterationsAtLevel(solver, level);
  cell.threads = threads;
  cell.steps = static_cast<int>(run.problems.size());
  SolverSettings settings;
  settings.max_iterations = cell.iterations;
  settings.tolerance = 0.0;
  settings.threads = threads;
  // One solver object for the whole cell, as a World keeps it across steps.
  std::unique_ptr<Solver> s = makeSolver(solver, options);
  Fnv1a64 hash;
  CellAverages avg;
  for (std::size_t k = 0; k < run.problems.size(); ++k) {
    const StepProblem& problem = run.problems[k];
    StepSolution solution = run.warm_starts[k];
    // Hashed just before the solve: what the solver actually receives.
    hash.add(problemHash(problem));
    hash.add(solutionHash(solution));
    // After a failure the remaining inputs are still hashed (not solved), so the hash always
    // certifies the whole recorded input set and stays comparable between cells.
    if (cell.failed) continue;
    s->solve(problem, settings, solution);
    ++cell.solve_status[static_cast<int>(solution.stats.status)];
    const int step = static_cast<int>(k) + 1;
    if (!solution.vhat.allFinite() || !solution.lambda.allFinite()) {
      markFailed(cell, step, "diverged", "non-finite vhat or lambda", "problem");
      continue;
    }
    const double speed = solution.vhat.size() > 0 ? solution.vhat.cwiseAbs().maxCoeff() : 0.0;
    if (speed > kReplaySpeedLimit) {
      char what[128];
      std::snprintf(what, sizeof what, "a velocity of %.3g in the solution (limit %g)", speed,
                    kReplaySpeedLimit);
      markFailed(cell, step, "diverged", what, "problem");
      continue;
    }
    const StepMetrics m = evaluateStep(problem, solution);
    if (!finiteMetrics(m)) {
      markFailed(cell, step, "diverged", "non-finite residual", "problem");
      continue;
    }
    avg.add(solution.stats.solve_ms, m);
  }
  avg.into(cell);
  cell.input_hash = hex64(hash.value());
  return cell;
}

}  // namespace subsim::bench
