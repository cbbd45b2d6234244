#pragma once
// The solve stage: every solver reads a StepProblem and writes a StepSolution.
#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// The factors that make beta_scale = 1 the measured default of each penalty rule.
inline constexpr double kTracePenaltyFactor = 20.0;
inline constexpr double kDelassusPenaltyFactor = 4.0;

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
  /// SubADMM: the initial penalty of each subsystem.  Delassus (the default):
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

/// Opens a solve's statistics the same way for every solver: reset, name the stopping residual and
/// reserve the history (so recording it does not allocate inside the iterations).  Returns the
/// iteration cap (>= 0).
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

/// Closes a solve's statistics the same way for every solver: iterations performed, final residual,
/// convergence against the tolerance (never with tolerance 0) and wall time since `start`.
inline void finishStats(SolveStats& stats, int iterations, double residual,
                        const SolverSettings& settings,
                        std::chrono::steady_clock::time_point start) {
  stats.iterations = iterations;
  stats.residual = residual;
  stats.converged = settings.tolerance > 0.0 && residual < settings.tolerance;
  stats.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
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

/// Names accepted by makeSolver, in a stable order.
std::vector<std::string> solverNames();
/// Creates a solver by name; throws std::invalid_argument listing the known names otherwise.
std::unique_ptr<Solver> makeSolver(std::string_view name);
/// True for the Newton-type solvers (one linear solve of the full system per iteration), which the
/// papers' tables give a tenth of the iterations of the first-order ones.
bool isNewtonTypeSolver(std::string_view name);

}  // namespace subsim
