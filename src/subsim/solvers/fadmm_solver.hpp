#pragma once
// Full-system ADMM (FADMM): the baseline "FADMM" of the SubADMM ICRA 2023 paper's Table I, an
// OSQP-style ADMM on the whole system (Stellato et al., "OSQP: an operator splitting solver for
// quadratic programs", 2020; Tasora et al., "Solving variational inequalities and cone
// complementarity problems in nonsmooth dynamics using the alternating direction method of
// multipliers", 2021), written with the closed-form z-step of the journal version ("Variations of
// Augmented Lagrangian for Robotic Multi-Contact Simulation", eqs. 11-18, 39).
//
// The step problem  A vhat = b + J^T lambda,  (J vhat + e, lambda) in S  is split with the slack
// z = J vhat.  With one penalty beta and u = -lambda (journal 39), each iteration is
//   v-step  (A + beta J^T J) vhat = b + J^T (beta z + lambda)
//           one sparse LDL^T of the global K = A + beta J^T J, factored once per solve and again
//           only when beta changes;
//   z-step  per constraint j, x_j = alpha J_j vhat + (1 - alpha) z_j (over-relaxation alpha =
//           FadmmOptions::relaxation, Boyd et al. 2011, 3.4.3), y_j = beta x_j - lambda_j,
//           lambda_j = T_j(s = y_j / beta, w = 1 / beta) (problem/constraint_operator.hpp, the
//           same operator as SubADMM with one attachment per constraint holding all its rows),
//           z_j = (y_j + lambda_j) / beta.
// Why one penalty: the whole system is one linear solve, so a per-row or per-body penalty would
// change K's values everywhere anyway; one scalar beta is what OSQP and Tasora's ADMM use (OSQP's
// per-row rho only separates equality rows), and it is the point of comparison with SubADMM,
// whose per-subsystem penalties are exactly what the subsystem split makes cheap.
// Penalty: beta = Tr(A) / Tr(J^T J) (the ICRA rule (23) applied to the whole system,
// solvers/penalty_rules.hpp) times kTracePenaltyFactor and FadmmOptions::beta_scale.  Adaptive
// (FadmmOptions::adaptive_beta): OSQP's residual
// balancing (Stellato et al. 2020, section 5.2) every 10 iterations, beta *= sqrt(r_p / r_d)
// clamped to [0.1, 10] when r_p and r_d differ by more than 5x either way, with the normalised
// residuals r_p = ||J vhat - z||_inf / max(||J vhat||_inf, ||z||_inf) and
// r_d = ||A vhat - b - J^T lambda||_inf / max(||A vhat||_inf, ||J^T lambda||_inf, ||b||_inf);
// then K is refactored (numerically only).  Balancing the unnormalised impulses
// beta ||J vhat - z|| and ||A vhat - b - J^T lambda|| (SubADMM's per-subsystem rule) drove beta
// up about 2000x on a 27-sphere granular problem and stalled at a residual of 1e-4 after 50000
// iterations; the normalised rule converges to 1e-12 in about 3000-4000 from any beta_scale.
// Stall safeguard: when the measured residual has not halved in 500 iterations, the
// over-relaxation drops to alpha = 1 for the rest of the solve.  Over-relaxation assumes a firmly
// nonexpansive z-step, which the strict cone operator of Coulomb friction is not; on a frictional
// 27-sphere pile the default alpha = 1.5 settled into a cycle at residual 1e-3 (50000 iterations
// without progress) and plain ADMM from the stall point converged to 1e-12.  FADMM has no
// convergence guarantee on the Coulomb NCP (nor has any ADMM): some penalties still cycle there,
// and where it converges, the solution may differ from another solver's, since a frictional
// problem can have several (tests/solvers/fadmm_test.cpp).
// Stopping residual (SolveStats::residual_name "primal+dual (42), max-norm"): the journal's (42)
// theta_p + theta_d with max-norms, theta_p = ||J vhat - z||_inf (m/s) and
// theta_d = ||A vhat - b - J^T lambda||_inf (N s).  Tolerance 0 runs exactly max_iterations.
// Warm start: lambda from the solution passed in when its size fits; z = J vhat_guess when the
// vhat guess fits, else z = J A^{-1} b (the unconstrained motion).
// Storage: SparseNewtonSystem (A, J, J^T J and K kept between solves; K's fill-reducing ordering
// and symbolic analysis redone only when K's sparsity pattern changes; the factorisation reads K
// in place), shared with CANAL's Newton matrix, so the iteration
// loop (including refactorisations after a beta change) performs no heap allocation, as long as
// numDof() * 8 bytes stays under EIGEN_STACK_ALLOCATION_LIMIT (128 KB, 16384 DOF), above which
// Eigen's numeric factorisation takes its scratch from the heap.
// Single-threaded (SolverSettings::threads is not used).
#include "subsim/solvers/penalty_rules.hpp"
#include "subsim/solvers/solver.hpp"
#include "subsim/solvers/sparse_newton_system.hpp"

namespace subsim {

/// FADMM's options (`subsim solvers fadmm`); the defaults are SubADMM's.
struct FadmmOptions {
  /// OSQP's residual balancing of the one penalty (above).
  bool adaptive_beta = true;
  /// Factor on the initial penalty kTracePenaltyFactor Tr(A) / Tr(J^T J); 1 is the default.
  double beta_scale = 1.0;
  /// ADMM over-relaxation alpha in (0, 2); 1 is plain ADMM (and what a stall falls back to).
  double relaxation = 1.5;
};

class FadmmSolver final : public SolverWithOptions<FadmmSolver, FadmmOptions> {
 public:
  using SolverWithOptions::SolverWithOptions;

  std::string_view name() const override { return "fadmm"; }
  void solve(const StepProblem& problem, const SolverSettings& settings,
             StepSolution& solution) override;

  static const OptionTable<Options>& optionTable();

  /// The penalty at the end of the last solve.
  double beta() const { return beta_; }
  /// How many times the ordering and symbolic analysis of K were computed (pattern changes).
  int analyses() const { return system_.analyses(); }

 private:
  /// K = A + beta J^T J factored; false when it is not positive definite.
  bool factorize(double beta);

  SparseNewtonSystem system_;  // A, J and K = A + beta J^T J
  double beta_ = 1.0;
  // Per-solve vectors, sized at the start of solve().
  VecX v_, rhs_, x_, z_, w_, av_, jtl_;
};

}  // namespace subsim
