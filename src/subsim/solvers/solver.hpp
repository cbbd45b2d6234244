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

namespace subsim {

struct SolverSettings {
  int max_iterations = 60;
  /// Stop when the solver's own residual (SolveStats::residual_name) falls below this; 0 runs
  /// exactly max_iterations.
  double tolerance = 1e-6;
  /// OpenMP threads for the parallel loops; 0 keeps OpenMP's default.
  int threads = 1;
  bool record_history = false;
  /// SubADMM: adapt the penalty by residual balancing (in the spirit of the journal's (43)).
  bool adaptive_beta = true;
  /// SubADMM: which residual stops the iteration.  PrimalDual is the journal's (42)
  /// theta_p + theta_d; IcraTheta is the ICRA paper's (22) sum_i ||y_i^{l+1} - y_i^l||^2.
  enum class SubadmmResidual { PrimalDual, IcraTheta };
  SubadmmResidual subadmm_residual = SubadmmResidual::PrimalDual;
  /// SubADMM: the initial penalty of each subsystem (solvers/penalty_rules.hpp).  Delassus (the
  /// default):
  ///   beta_i = kDelassusPenaltyFactor * rows_i / sum_r w_r,  w_r = (J_i A_i^-1 J_i^T)_rr,
  /// the inverse mass each row sees (a soft row with c' counts sqrt(w_r / c')), in the spirit of
  /// the journal's pseudo-density initialisation (body mass per contact point).  Trace: the ICRA
  /// paper's empirical (23), kTracePenaltyFactor * Tr(A_i) / Tr(J_i^T J_i).  The trace counts the
  /// stiffness folded into A_i (cable couplings, FEM) as if every row pushed against it: on the
  /// 640-segment cable at 30 iterations the free end fell 0.08 m in 0.5 s with it, 0.63 m with
  /// the Delassus rule (1.23 m exactly); on granular / stir at 30/60/90 iterations AA rose from
  /// 3.64/4.31/4.69 and 3.61/4.29/4.58 to 3.99/4.48/4.81 and 3.90/4.33/4.65.
  enum class SubadmmPenaltyRule { Delassus, Trace };
  SubadmmPenaltyRule subadmm_penalty_rule = SubadmmPenaltyRule::Delassus;
  /// Common factor on the initial penalty rule (SubADMM's rule above; FADMM uses the trace rule
  /// on the whole system); 1 is the measured default.  The paper's plain (23) is
  /// 1 / kTracePenaltyFactor with the Trace rule.  (With the trace rule, 20 times (23) with the
  /// relaxation and adaptation below measured best: granular at 60 iterations AA 4.31 and 0.8 mm
  /// penetration against 3.77 and 4.2 mm for the plain iteration; a stack of 10 boxes stands at
  /// 100 iterations only from about 10x.)
  double beta_scale = 1.0;
  /// ADMM over-relaxation alpha in (0, 2) (Boyd et al. 2011, section 3.4.3): the z-step sees
  /// alpha J vhat + (1 - alpha) z.  1 is the papers' plain iteration.
  double relaxation = 1.5;
  /// SubADMM: how a tree subsystem's A_j + beta sum J^T J is formed and factored.  PerBody is the
  /// AL paper's eq. (40)-(41) (solvers/per_body_factorization.hpp): sum_b J_b^T G_b J_b with
  /// branch-induced sparsity, factored without fill-in; Dense forms sum J_ij^T J_ij on the full
  /// block and takes a dense Cholesky.  Other subsystems are unaffected.
  enum class SubadmmFactorization { PerBody, Dense };
  SubadmmFactorization subadmm_factorization = SubadmmFactorization::PerBody;
  /// SubADMM: Anderson acceleration of the (z, lambda) fixed-point iteration with this window
  /// (solvers/anderson_acceleration.hpp; 0: off, at most 8).  Not in the papers.
  int anderson_window = 0;
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
  std::function<std::unique_ptr<Solver>()> make;
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
/// Creates a solver by name; throws std::invalid_argument listing the known names otherwise.
std::unique_ptr<Solver> makeSolver(std::string_view name);
/// True for the Newton-type solvers (SolverKind::NewtonType).
bool isNewtonTypeSolver(std::string_view name);

}  // namespace subsim
