#pragma once
// The solve stage: every solver reads a StepProblem and writes a StepSolution.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "subsim/problem/step_problem.hpp"
#include "subsim/solvers/solver_options.hpp"

namespace subsim {

/// The settings every solver reads.  What only one solver reads is in that solver's typed
/// options (SubadmmOptions, FadmmOptions, ...: solver_options.hpp), set through Solver::setOption
/// or the registry (makeSolver with option values).
struct SolverSettings {
  int max_iterations = 60;
  /// Stop when the solver's own residual (SolveStats::residual_name) falls below this; 0 runs
  /// exactly max_iterations.
  double tolerance = 1e-6;
  /// OpenMP threads for the parallel loops; 0 keeps OpenMP's default.
  int threads = 1;
  bool record_history = false;
  /// Called at the start of every iteration with its index (instrumentation and tests; it must
  /// not allocate if the no-allocation guarantee is to hold).
  std::function<void(int)> on_iteration;
};

/// Opens a solve's statistics the same way for every solver: reset (status IterationCap until
/// the solve says otherwise), name the stopping residual and reserve the history (so recording it
/// does not allocate inside the iterations).  Returns the iteration cap (>= 0).
inline int beginStats(SolveStats& stats, const char* residual_name,
                      const SolverSettings& settings) {
  stats = SolveStats();
  stats.residual_name = residual_name;
  const int max_iterations = std::max(settings.max_iterations, 0);
  if (settings.record_history) stats.residual_history.reserve(max_iterations);
  return max_iterations;
}

/// Records the setup part of a solve (SolveStats::setup_ms): from `start` to `built`, when the
/// solver's operator was ready.  Call after beginStats.
inline void recordSetup(SolveStats& stats, std::chrono::steady_clock::time_point start,
                        std::chrono::steady_clock::time_point built) {
  stats.setup_ms = std::chrono::duration<double, std::milli>(built - start).count();
}

/// Ends iteration `l` the same way for every solver: records `residual` in the history when asked
/// and returns true when it is below a positive tolerance (the solve stops after l + 1 iterations).
inline bool recordIteration(SolveStats& stats, double residual, const SolverSettings& settings) {
  if (settings.record_history) stats.residual_history.push_back(residual);
  return settings.tolerance > 0.0 && residual < settings.tolerance;
}

/// Records why a solve cannot go on (FactorizationFailed, Stalled); the first reason stands and
/// finishStats keeps it.
inline void noteFailure(SolveStats& stats, SolveStatus status) {
  if (stats.status == SolveStatus::IterationCap) stats.status = status;
}

/// Closes a solve's statistics the same way for every solver: iterations performed, final
/// residual, status and wall time since `start`.  The status is a failure noted during the solve
/// (noteFailure; a stall gives way to convergence), else NonFinite when the residual, vhat or
/// lambda is not finite, else Converged against a positive tolerance, else IterationCap.
inline void finishStats(StepSolution& solution, int iterations, double residual,
                        const SolverSettings& settings,
                        std::chrono::steady_clock::time_point start) {
  SolveStats& stats = solution.stats;
  stats.iterations = iterations;
  stats.residual = residual;
  const bool converged = settings.tolerance > 0.0 && residual < settings.tolerance;
  const bool finite =
      std::isfinite(residual) && solution.vhat.allFinite() && solution.lambda.allFinite();
  if (stats.status == SolveStatus::FactorizationFailed) {
    // kept: the cause, whatever the numbers became
  } else if (!finite) {
    stats.status = SolveStatus::NonFinite;
  } else if (converged) {
    stats.status = SolveStatus::Converged;
  }  // else IterationCap or a noted stall
  stats.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Ends a solve whose factorisation failed before it could iterate: no iterations, vhat and
/// lambda zero (no answer rather than a meaningless one), status FactorizationFailed.
inline void finishUnfactored(const StepProblem& problem, StepSolution& solution,
                             const SolverSettings& settings,
                             std::chrono::steady_clock::time_point start) {
  noteFailure(solution.stats, SolveStatus::FactorizationFailed);
  solution.vhat.setZero(problem.numDof());
  solution.lambda.setZero(problem.numRows());
  finishStats(solution, 0, std::numeric_limits<double>::infinity(), settings, start);
}

class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string_view name() const = 0;
  /// Solves `problem`.  `solution` carries the warm start on entry when it fits the problem
  /// (StepSolution::fits) and the result on exit.
  virtual void solve(const StepProblem& problem, const SolverSettings& settings,
                     StepSolution& solution) = 0;
  /// Sets this solver's option `key` from text (solver_options.hpp); std::invalid_argument
  /// naming the solver, the option and what was expected, or the options it has.  A solver
  /// without options (the default) refuses every key.
  virtual void setOption(std::string_view key, std::string_view value) {
    (void)value;
    option_text::throwUnknown(name(), key, {});
  }
  /// The current value of option `key` as text (setOption reads it back to the same value).
  virtual std::string option(std::string_view key) const {
    option_text::throwUnknown(name(), key, {});
  }
};

/// A solver with typed options (Derived::Options, described by Derived::optionTable()): the typed
/// access and the text interface of Solver, written once for every such solver.
template <class Derived, class OptionsType>
class SolverWithOptions : public Solver {
 public:
  using Options = OptionsType;
  explicit SolverWithOptions(Options options = Options()) : options_(options) {}

  /// The options, typed; setOption and option() read and write them as text.
  Options& options() { return options_; }
  const Options& options() const { return options_; }
  void setOption(std::string_view key, std::string_view value) override {
    Derived::optionTable().set(options_, name(), key, value);
  }
  std::string option(std::string_view key) const override {
    return Derived::optionTable().get(options_, name(), key);
  }

 protected:
  Options options_;
};

/// The papers' two kinds: first-order methods iterate cheap steps; Newton-type ones solve the
/// full linear system each iteration, and the papers' tables give them a tenth of the iterations.
enum class SolverKind { FirstOrder, NewtonType };

/// One registered solver (ARCHITECTURE.md: "a solver is one registry entry").  Adding a solver is
/// its file plus one entry in solver_registry.cpp, or registerSolver() from outside the library.
struct SolverEntry {
  std::string name;
  SolverKind kind = SolverKind::FirstOrder;
  /// The problem form it takes: "ncp" (A_i, b_i, e, the ADMM papers') for every solver so far.
  std::string formulation = "ncp";
  std::string description;  // one line, for `subsim solvers`
  /// A solver with default options; makeSolver applies option values through Solver::setOption.
  std::function<std::unique_ptr<Solver>()> make;
  /// What setOption accepts, with defaults, units and documentation (the solver's OptionTable).
  std::vector<OptionInfo> options = {};
  /// True for a solver that also takes problems given in their local form only (W, q, mu: FCLib
  /// local problems, StepProblem::local_w): the dual solvers, which read W through DelassusForm.
  /// The others refuse such a problem (requireSubsystems).
  bool local_form = false;
  /// True for a solver whose contact operator is the strict one (problem/constraint_operator.hpp),
  /// which projects onto an elliptic cone too: it takes anisotropic friction (Constraint::mu_t2).
  /// The others refuse it (requireIsotropicFriction).
  bool anisotropic_friction = false;
};

/// Every registered solver, built-in ones first in a stable order.
const std::vector<SolverEntry>& solverRegistry();
/// Adds a solver (a plugin, a test double).  std::invalid_argument when the name is empty or
/// taken, or `make` is empty.  Not thread-safe: register before building Worlds on other threads.
void registerSolver(SolverEntry entry);
/// Removes the solver named `name` (one added by registerSolver, or a built-in one); false when
/// none is registered under that name.
bool unregisterSolver(std::string_view name);
/// The entry named `name`, or null.
const SolverEntry* findSolver(std::string_view name);

/// Names accepted by makeSolver, in the registry's order.
std::vector<std::string> solverNames();
/// The same names as the error messages list them: "subadmm, fadmm, ...".
std::string solverNameList();
/// Creates a solver by name with `options` applied in order (a later value of an option
/// overrides an earlier one); std::invalid_argument listing the known names for an unknown
/// solver, or Solver::setOption's for an unknown option or a bad value.
std::unique_ptr<Solver> makeSolver(std::string_view name, const SolverOptionValues& options = {});
/// True for the Newton-type solvers (SolverKind::NewtonType).
bool isNewtonTypeSolver(std::string_view name);

}  // namespace subsim
