#pragma once
// The single-step convergence study of `subsim bench --convergence`: one problem, each solver's
// residual after 1..n iterations against the time to reach it.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "subsim/bench/recorded_run.hpp"
#include "subsim/problem/step_problem.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim::bench {

/// The name of the common judge's residual in the study's rows (metrics/step_metrics.hpp).
constexpr const char* kJudgeResidualName = "constraint (AL sec. 6)";

struct ConvergenceRow {
  std::string solver;
  int iteration = 0;
  std::string residual_name;
  double residual = 0.0;
  double cumulative_ms = 0.0;
};

/// One solver's line of the study.
struct ConvergenceSummary {
  std::string solver;
  int iterations = 0;           // n: what it ran
  double final_residual = 0.0;  // the common judge after n iterations
  double final_ms = 0.0;        // the time to finish iteration n
  /// False when the solver does not report its iterations (SolverSettings::on_iteration): its
  /// cumulative_ms is then each k-iteration run's own solve time.
  bool stamped = true;
};

struct ConvergenceStudy {
  std::vector<ConvergenceRow> rows;  // per solver: the judge's rows, then the solver's own
  std::vector<ConvergenceSummary> solvers;
};

struct ConvergenceSettings {
  int iterations = 100;                  // first-order solvers
  std::optional<int> newton_iterations;  // Newton-type solvers; default iterations / 10
  int threads = 1;
  /// Each solver's own options (SolverEntry::options), by name; none for a solver not listed.
  std::map<std::string, SolverOptionValues> options;
};

/// Solves `problem` from `warm_start` with each of `solvers`: the common judge (the AL paper's
/// constraint residual) after k = 1..n iterations, each from a fresh solver and the identical
/// input; the solver's own residual history; and the time to finish iteration k, from one
/// n-iteration run stamped at the start of every iteration.  `scene` names the study in the
/// progress lines.
ConvergenceStudy runConvergenceStudy(const StepProblem& problem, const StepSolution& warm_start,
                                     const std::vector<std::string>& solvers,
                                     const ConvergenceSettings& settings, const std::string& scene,
                                     const Progress& progress = {});

}  // namespace subsim::bench
