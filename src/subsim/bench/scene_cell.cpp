#include "subsim/bench/scene_cell.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "subsim/metrics/step_metrics.hpp"
#include "subsim/sim/world.hpp"

namespace subsim::bench {

namespace {

std::string millimetres(double metres) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g mm", metres * 1e3);
  return buf;
}

}  // namespace

Cell runSceneCell(const std::shared_ptr<const Model>& model, const std::string& scene, int steps,
                  double limit, const std::string& solver, int level, int threads,
                  const SolverOptionValues& options) {
  Cell cell;
  cell.scene = scene;
  cell.solver = solver;
  cell.level = level;
  cell.iterations = iterationsAtLevel(solver, level);
  cell.threads = threads;
  cell.steps = steps;
  World world(model, benchWorldSettings(solver, cell.iterations, threads, limit, options));
  CellAverages avg;
  for (int k = 1; k <= steps; ++k) {
    StepReport r;
    try {
      r = world.step();
    } catch (const std::exception& e) {
      markFailed(cell, k, "diverged", std::string("the step threw: ") + e.what());
      break;
    }
    // A step that diverged before its solve (a non-finite problem) has no status to count.
    if (!r.diverged || r.solve_status == SolveStatus::FactorizationFailed)
      ++cell.solve_status[static_cast<int>(r.solve_status)];
    cell.max_penetration = std::max(cell.max_penetration, r.max_penetration);
    if (r.max_penetration > limit) {
      markFailed(cell, k, "pen " + millimetres(r.max_penetration),
                 "penetration " + millimetres(r.max_penetration) + " exceeds the limit " +
                     millimetres(limit));
      break;
    }
    if (r.diverged) {
      markFailed(cell, k, "diverged", r.divergence);
      break;
    }
    const StepMetrics m = evaluateStep(world.lastProblem(), world.lastSolution());
    if (!finiteMetrics(m)) {
      markFailed(cell, k, "diverged", "non-finite residual");
      break;
    }
    avg.add(r.solver_ms, m);
  }
  avg.into(cell);
  return cell;
}

}  // namespace subsim::bench
