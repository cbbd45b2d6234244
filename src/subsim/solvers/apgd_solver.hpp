#pragma once
// APGD: Nesterov-accelerated projected gradient descent on the dual (Mazhar, Heyn, Negrut,
// Tasora, "Using Nesterov's method to accelerate multibody dynamics with friction and contact",
// ACM TOG 2015, Algorithm 2), the COND paper's second baseline (its Tables II-V).
//
// It minimises f(lambda) = 1/2 lambda^T W lambda + c^T lambda over the product of the constraint
// sets K with the Euclidean projection P_K: a contact's impulse onto the cone ||lambda_t|| <=
// mu lambda_n, a unilateral row onto lambda >= 0, bilateral and (regularised) soft rows free; W,
// c are the Delassus form's (formulation/delassus_form.hpp, the operator PGS iterates on).  The
// Euclidean projection makes the problem the Anitescu-Tasora CCP (the COND paper's eq. 36): where
// a contact slides its normal velocity is mu ||v_t|| instead of 0, the "gliding" that the
// NCP solvers do not show, so APGD agrees with them where contacts stick or separate and with
// COND's proximal operator everywhere (tests/solvers/apgd_solver_test.cpp).
//
// Iteration (step t = 1 / L, L found by backtracking on the quadratic upper bound, then relaxed by
// 0.9 per iteration; theta the Nesterov momentum with the adaptive restart of O'Donoghue and
// Candes when g^T (lambda_{k+1} - lambda_k) > 0):
//   lambda_{k+1} = P_K(y_k - t (W y_k + c))
//   y_{k+1} = lambda_{k+1} + beta_k (lambda_{k+1} - lambda_k)
// W y_{k+1} = (1 + beta) W lambda_{k+1} - beta W lambda_k, so each iteration costs one product
// with W (plus one per backtracking step).  Stopping residual (SolveStats::residual_name
// "projected gradient (m/s)"): max_r |lambda - P_K(lambda - g_d grad f(lambda))|_r / g_d with
// g_d = 1e-6 (the paper's residual, as a largest entry); the iterate with the least residual is
// returned.  Warm start: the solution's lambda, projected.  No allocation inside the iterations.
//
// The product with W (option `delassus`): `factored` (the default, the COND paper's APGD)
// applies W through the factors of A, one solve per subsystem per product
// (formulation/delassus_operator.hpp); `assembled` iterates on DelassusForm's blocks, whose
// assembly costs one solve per constraint row first (cheaper per product on rigid bodies, far
// dearer on one large FEM body).  Both are the same regularised system; a problem in local form
// only (W given) always takes DelassusForm.
#include "subsim/formulation/delassus_form.hpp"
#include "subsim/formulation/delassus_operator.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

enum class ApgdDelassus { Factored, Assembled };

/// APGD's options (`subsim solvers apgd`).
struct ApgdOptions {
  ApgdDelassus delassus = ApgdDelassus::Factored;
};

class ApgdSolver final : public SolverWithOptions<ApgdSolver, ApgdOptions> {
 public:
  using SolverWithOptions::SolverWithOptions;

  std::string_view name() const override { return "apgd"; }
  void solve(const StepProblem& problem, const SolverSettings& settings,
             StepSolution& solution) override;

  static const OptionTable<Options>& optionTable();

 private:
  /// The iterations on W given by `w` (DelassusForm or DelassusOperator, built).
  template <class Operator>
  void iterate(Operator& w, const StepProblem& problem, const SolverSettings& settings,
               StepSolution& solution, std::chrono::steady_clock::time_point t0);
  /// P_K in place, every constraint (fixed soft rows set to their value).
  template <class Operator>
  void project(const Operator& w, double* lambda) const;
  /// The projected-gradient residual at lambda given W lambda (scratch: grad_).
  template <class Operator>
  double residual(const Operator& w, const double* lambda, const double* w_lambda);

  DelassusForm assembled_;
  DelassusOperator factored_;
  DoubleBuffer lambda_, next_, y_, w_lambda_, w_next_, w_y_, grad_, best_;
};

}  // namespace subsim
