#pragma once
// The results of `subsim bench` and their three renderings (markdown in the papers' table shape,
// CSV and JSON with one row per cell).  Kept apart from the runs so the shape of the output can be
// read (and changed) in one place.
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "subsim/bench/bench_cell.hpp"
#include "subsim/problem/step_problem.hpp"
#include "subsim/solvers/solver_options.hpp"

namespace subsim::cli::bench {

/// One (scene, solver, iteration level) cell of the matrix (bench/bench_cell.hpp).
using ::subsim::bench::Cell;
using ::subsim::bench::iterationsAtLevel;

/// "iteration-cap 297, stalled 3": the statuses a cell (or run) met, in the enum's order.
std::string statusSummary(const std::array<int, kSolveStatusCount>& counts);
/// True when some solve ended other than converged or at the iteration cap.
bool hasFailedSolves(const std::array<int, kSolveStatusCount>& counts);

struct SceneInfo {
  std::string spec;
  int steps = 0;
  double dt = 0.0;
  int dof = 0;
  double penetration_limit = 0.0;  // m; infinite without dynamic shapes
  bool penetration_limit_from_user = false;
  // Problems mode.
  int problems_recorded = 0;
  int problems_replayed = 0;   // solved per cell: all recorded, or an evenly spaced --replay sample
  std::string reference_note;  // why the reference run ended early, if it did
  std::string input_hash;      // the first cell's; "" when the cells disagree
  bool input_hashes_agree = true;
};

struct Report {
  bool problems_mode = false;
  bool paper_table = false;  // markdown in Table I's shape with the paper's figures
  int threads = 1;
  std::vector<int> levels;
  std::vector<std::string> solvers;
  std::string reference_solver;
  int reference_iterations = 0;
  std::vector<SceneInfo> scenes;
  std::vector<Cell> cells;  // scene-major, then solver, then level
  /// Per compared solver, the options --solver-option set (none: its defaults).
  std::map<std::string, SolverOptionValues> solver_options;
};

std::string formatMarkdown(const Report& report);
std::string formatCsv(const Report& report);
std::string formatJson(const Report& report);

/// "subadmm relaxation=1.2; fadmm relaxation=1.2": the options --solver-option set, or empty
/// when every compared solver has its defaults.
std::string optionsText(const Report& report);

/// A CSV field, quoted when it holds a comma, quote or line break.
std::string csvField(const std::string& text);

}  // namespace subsim::cli::bench
