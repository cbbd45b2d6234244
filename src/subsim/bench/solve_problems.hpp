#pragma once
// `subsim solve`: re-solving stored problems (subsim problem files, FCLib files from subsim or
// other engines) with any compatible solver, judged by the common metrics (metrics/).
//
// The judge is FCLib's normalised natural-map error for problems with contacts (the figure
// Siconos and FCLib users report) and the AL paper's constraint residual for problems without;
// both are reported either way.  Without a tolerance every solve runs its cap in one go, with one
// solver object per file and solver (as a World keeps it across steps).  With a tolerance the
// result is the least k, a multiple of `check_every`, for which an uninterrupted k-iteration
// solve by a fresh solver object meets it: k is found by doubling and then bisection (about
// 2 + log2(k / check_every) solves), and the iterations and time reported are those of that one
// k-iteration solve, the pure algorithm's, for every solver alike (no solver is stopped and
// restarted, which would change those with more state than lambda).  Times are the solvers' own
// (factorisation included, the judge's evaluation not).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "subsim/problem/step_problem.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim::bench {

/// One stored problem to solve.
struct StoredProblem {
  std::string source;     // the file it came from
  int index_in_file = 0;  // from 1
  bool fclib = false;     // from an FCLib file
  StepProblem problem;
  StepSolution warm_start;  // the stored warm start (an FCLib file's first guess); may be empty
  StepSolution stored_solution;  // the stored solution; empty parts where the file has none
};

/// Reads every problem of `paths` in order, each file a subsim problem file or an FCLib file
/// (told apart by their contents).  std::runtime_error naming the file and what is wrong.
std::vector<StoredProblem> loadStoredProblems(const std::vector<std::string>& paths);

/// Why `solver` cannot solve `problem`, or empty when it can (a problem in local form needs a
/// solver whose registry entry says local_form).
std::string incompatibility(const SolverEntry& solver, const StepProblem& problem);

struct SolveSettings {
  int iterations = 1000;                 // first-order solvers' cap
  std::optional<int> newton_iterations;  // Newton-type solvers' cap; default iterations / 10
  double tolerance = 1e-8;               // on the judge; 0 runs exactly the cap
  int check_every = 0;  // the step of k: 0 means 10 for first-order solvers, 1 for Newton-type
  double time_limit_ms = 0.0;  // per (problem, solver), 0: none
  bool from_stored = true;     // start from the stored warm start (else from zero)
  int threads = 1;
  /// Keep the reported solve's own residual at every iteration, and the judge at every k tried.
  bool history = false;
  std::map<std::string, SolverOptionValues> options;  // per solver
};

/// One iteration's entry of a history (--history).
struct HistoryPoint {
  int iteration = 0;  // from 1
  std::string residual_name;
  double residual = 0.0;
  double cumulative_ms = 0.0;
};

/// One (problem, solver) result.
struct SolveRecord {
  const StoredProblem* problem = nullptr;
  std::string solver;  // "stored" for the file's own solution
  std::string status;  // converged, iteration-cap, time-limit, or the solver's failure, or
                       // not-applicable (note says why)
  std::string note;
  int iterations = 0;
  double solve_ms = 0.0;
  double natural_map_error = 0.0;
  double constraint_residual = 0.0;         // the AL paper's (AA = -log10)
  double judge = 0.0;                       // the one the tolerance applies to
  std::optional<double> stored_difference;  // max |lambda - stored lambda|
  std::vector<HistoryPoint> history;
};

using SolveProgress = std::function<void(const std::string&)>;

/// Solves every problem with every solver of `solvers`; per file and solver one solver object
/// goes through the file's problems in order, as a World keeps it across steps, so that a
/// problem file solved with the solver, settings and warm starts of its recording reproduces
/// the recorded solutions.  A problem that has a stored solution also gets a "stored" row.
std::vector<SolveRecord> solveStoredProblems(const std::vector<StoredProblem>& problems,
                                             const std::vector<std::string>& solvers,
                                             const SolveSettings& settings,
                                             const SolveProgress& progress = {});

}  // namespace subsim::bench
