#pragma once
// One cell of the solver comparison (`subsim bench`): a (scene, solver, iteration level) triple
// and what its runs measured.  The runners that fill a cell are beside it (scene_cell.hpp,
// problems_cell.hpp); the command line (apps/subsim) only reads options and prints tables.
#include <array>
#include <optional>
#include <string>

#include "subsim/metrics/step_metrics.hpp"
#include "subsim/problem/step_problem.hpp"
#include "subsim/sim/world.hpp"

namespace subsim::bench {

/// One (scene, solver, iteration level) cell of the matrix.
struct Cell {
  std::string scene;
  std::string solver;
  int level = 0;       // the column: the first-order iteration count
  int iterations = 0;  // what the solver ran: level, or level / 10 for a Newton-type solver
  int threads = 1;     // the solver's OpenMP threads
  int steps = 0;       // planned
  int steps_done = 0;  // completed without failure; AT and AA average over these
  std::optional<double> at_ms;
  std::optional<double> aa;      // steps with at least one constraint
  std::optional<double> aa_fb;   // steps with at least one contact
  std::optional<double> aa_nm;   // -log10 of FCLib's natural-map error, the same steps
  double max_penetration = 0.0;  // scene mode: the deepest over the steps run (m)
  bool failed = false;
  std::string failure_mark;    // short, for the markdown cell: "diverged", "pen 12.3 mm"
  std::string failure_reason;  // full: step, value, limit
  std::string input_hash;      // problems mode only
  /// How each solve ended (SolveStats::status), counted per status over the solves run.
  std::array<int, kSolveStatusCount> solve_status{};
};

/// Iterations a solver runs at a first-order level: a tenth (at least 1) for Newton-type solvers,
/// whose iterations each solve the full linear system (the papers' tables: 3/6/9 beside 30/60/90).
int iterationsAtLevel(const std::string& solver, int level);

/// The settings of every World the bench steps: exactly `iterations` per solve (tolerance 0, so
/// each cell does equal work) and the penetration limit handed over explicitly (0 or non-finite:
/// World's default), so that the World and the bench judge against the very same number.
/// `options` are the solver's own (SolverEntry::options).
WorldSettings benchWorldSettings(const std::string& solver, int iterations, int threads,
                                 double penetration_limit, const SolverOptionValues& options = {});

/// Marks `cell` failed at `step`; `where`: "step" of a scene run, "problem" of a replayed sample.
void markFailed(Cell& cell, int step, const std::string& mark, const std::string& reason,
                const char* where = "step");

/// True when both residuals the cell averages are finite.
bool finiteMetrics(const StepMetrics& m);

/// Sums for the cell averages (AT over every step, AA over steps with constraints, the FB
/// accuracy over steps with contacts).
struct CellAverages {
  double at = 0.0, aa = 0.0, fb = 0.0, nm = 0.0;
  int n = 0, n_aa = 0, n_fb = 0;

  void add(double solve_ms, const StepMetrics& m);
  void into(Cell& c) const;
};

}  // namespace subsim::bench
