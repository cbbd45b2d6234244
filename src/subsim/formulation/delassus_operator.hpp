#pragma once
// The Delassus operator W = J A^{-1} J^T applied without assembling it: the COND paper's APGD
// baseline, "one sparse solve per iteration".  A product W x takes, per subsystem in parallel,
// v_i = A_i^{-1} sum_a J_a^T x_a through the factor of A_i (two triangular solves), then per
// constraint in parallel (W x)_j = sum_a J_a v_i(a).  DelassusForm instead assembles W's blocks,
// one solve per constraint row and then the products between every two constraints on a
// subsystem: cheap to iterate on for rigid bodies, but on one large FEM body with hundreds of
// contacts its assembly is the whole step (the soft gripper: about 23 s of a 28 s APGD step).
//
// The system is DelassusForm's regularised one (soft rows by soft_row_terms.hpp, the same c and
// fixed rows), so a solver iterating on either reaches the same solution.  Problems in local
// form only (W given) have nothing to factor: they take DelassusForm.  No allocation in
// multiply(); the sums run in a fixed order (deterministic for any thread count).
#include <vector>

#include "subsim/formulation/factored_subsystems.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

class DelassusOperator {
 public:
  /// Factors every A_i of `problem` (which must outlive the use) and forms c, on `threads`
  /// OpenMP threads (the products use as many).  False when some A_i is not positive definite.
  [[nodiscard]] bool build(const StepProblem& problem, int threads);

  const StepProblem& problem() const { return *p_; }
  int numRows() const { return static_cast<int>(c_.size()); }
  /// y = W x, every row (the regularised W).
  void multiply(const double* x, double* y);
  /// c (regularised on soft rows), per row.
  const DoubleBuffer& rhs() const { return c_; }
  bool fixedRow(int row) const { return fixed_[row] != 0; }
  double fixedValue(int row) const { return fixed_value_[row]; }
  /// vhat = A^{-1} (b + J^T lambda), all subsystems.
  void velocity(const double* lambda, double* vhat) const { factored_.velocity(lambda, vhat); }

 private:
  const StepProblem* p_ = nullptr;
  int threads_ = 1;
  FactoredSubsystems factored_;
  DoubleBuffer c_, soft_diagonal_, fixed_value_;
  std::vector<unsigned char> fixed_;
  DoubleBuffer v_;  // A^{-1} J^T x, per DOF
};

}  // namespace subsim
