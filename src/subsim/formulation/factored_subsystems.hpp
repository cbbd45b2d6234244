#pragma once
// Every subsystem's A_i factored, with what a dual form needs to go between impulses and
// velocities through those factors: the compact J blocks, each subsystem's attachments, each
// attachment's constraint, and the free velocity A^{-1} b.  DelassusForm assembles
// W = J A^{-1} J^T from it; DelassusOperator applies W through it without assembling.
#include <vector>

#include "subsim/formulation/compact_jacobian.hpp"
#include "subsim/formulation/subsystem_factor.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

class FactoredSubsystems {
 public:
  /// Factors every A_i of `p` (which must outlive the use) and solves the free velocity, one
  /// subsystem per task on `threads` OpenMP threads.  False when some A_i is not positive definite.
  [[nodiscard]] bool build(const StepProblem& p, int threads);
  /// For a problem in local form only: no subsystems, nothing factored.
  void clear();

  const SubsystemFactor& factor(int subsystem) const { return factors_[subsystem]; }
  const CompactJacobian& jacobian() const { return compact_; }
  /// Subsystem i's attachments, in attachment order: attachment(s) for s in [begin(i), end(i)).
  int begin(int subsystem) const { return sub_begin_[subsystem]; }
  int end(int subsystem) const { return sub_begin_[subsystem + 1]; }
  int attachment(int s) const { return sub_attachments_[s]; }
  int constraintOf(int attachment) const { return att_constraint_[attachment]; }
  /// A^{-1} b, per global DOF.
  const double* freeVelocity() const { return free_v_.data(); }

  /// v += J_i^T lambda over subsystem i's attachments (v: the subsystem's DOF; lambda: all rows).
  void addTransposeTimes(int subsystem, const double* lambda, double* v) const;
  /// out += J_j v, constraint j's rows (v: every DOF).
  void addTimes(int constraint, const double* v, double* out) const;
  /// v = A_i^{-1} v in place (v: the subsystem's DOF), without allocating, on the scratch of
  /// OpenMP thread `thread` (below the build's thread count).
  void solveInPlace(int subsystem, double* v, int thread) const {
    factors_[subsystem].solve(v, v,
                              scratch_.data() + static_cast<size_t>(scratch_stride_) * thread);
  }
  /// vhat = A^{-1} (b + J^T lambda), every subsystem, without allocating.
  void velocity(const double* lambda, double* vhat) const;

 private:
  const StepProblem* p_ = nullptr;
  std::vector<SubsystemFactor> factors_;
  std::vector<char> failed_;  // per subsystem, written by its own iteration of the parallel loop
  std::vector<int> sub_begin_, sub_attachments_, att_constraint_;
  std::vector<int> fill_;  // build()'s cursor per subsystem
  CompactJacobian compact_;
  DoubleBuffer free_v_;
  // Per thread, the sparse one-vector solves' permuted vector (SubsystemFactor::solve).
  mutable DoubleBuffer scratch_;
  int scratch_stride_ = 0;
};

}  // namespace subsim
