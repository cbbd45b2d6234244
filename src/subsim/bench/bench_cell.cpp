#include "subsim/bench/bench_cell.hpp"

#include <algorithm>
#include <cmath>

#include "subsim/solvers/solver.hpp"

namespace subsim::bench {

int iterationsAtLevel(const std::string& solver, int level) {
  return isNewtonTypeSolver(solver) ? std::max(1, level / 10) : level;
}

WorldSettings benchWorldSettings(const std::string& solver, int iterations, int threads,
                                 double penetration_limit, const SolverOptionValues& options) {
  WorldSettings ws;
  ws.solver = solver;
  ws.solver_options = options;
  ws.solver_settings.max_iterations = iterations;
  ws.solver_settings.tolerance = 0.0;  // equal work per cell: exactly the iteration count
  ws.solver_settings.threads = threads;
  // Handed over explicitly so the World and the bench judge against the very same number.
  ws.penetration_limit = std::isfinite(penetration_limit) ? penetration_limit : 0.0;
  return ws;
}

void markFailed(Cell& cell, int step, const std::string& mark, const std::string& reason,
                const char* where) {
  cell.failed = true;
  cell.failure_mark = mark;
  cell.failure_reason = std::string(where) + " " + std::to_string(step) + ": " + reason;
}

bool finiteMetrics(const StepMetrics& m) {
  return std::isfinite(m.constraint_residual) && std::isfinite(m.contact_fb_residual);
}

void CellAverages::add(double solve_ms, const StepMetrics& m) {
  at += solve_ms;
  ++n;
  // Steps without constraints have nothing to judge (accuracyOf would report a perfect 16).
  if (m.constraints > 0) {
    aa += accuracyOf(m.constraint_residual);
    ++n_aa;
  }
  if (m.contacts > 0) {
    fb += accuracyOf(m.contact_fb_residual);
    nm += accuracyOf(m.contact_natural_map_error);
    ++n_fb;
  }
}

void CellAverages::into(Cell& c) const {
  c.steps_done = n;
  if (n > 0) c.at_ms = at / n;
  if (n_aa > 0) c.aa = aa / n_aa;
  if (n_fb > 0) c.aa_fb = fb / n_fb;
  if (n_fb > 0) c.aa_nm = nm / n_fb;
}

}  // namespace subsim::bench
