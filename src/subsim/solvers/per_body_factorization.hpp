#pragma once
// SubADMM's subsystem matrix in the per-body form of the AL paper (section 4, eqs. 40-41):
//
//   A_j + beta sum_i J_ij^T J_ij = A_j + beta sum_b J_b^T G_b J_b (+ beta sum_r J_r^T J_r),
//   G_b = sum_{i on b} L_i^T L_i,   J_ij = L_i J_b,
//
// with L_i the constraint's rows on body b's twist (a 3 x 6 point-contact block: "a point mass
// beta at each contact point") and J_b the body's Jacobian, nonzero only on the body's ancestor
// DOFs.  The sum keeps A_j's branch-induced sparsity (the paper's H_B block-diagonal argument),
// so it is formed in sum_b depth_b^2 and factored without fill-in by branch_ldlt.  Rows without a
// per-body factor (joint limits, a wheeled base's no-slip row: J_r) are allowed when their
// nonzero columns lie on one root path.  In the iteration, J_ij^T w = J_b^T (L_i^T w) is
// accumulated as one 6-vector per body before a single pass over the body's path, and J_ij v =
// L_i (J_b v) reads the body's twist, computed once per v-step.
//
// The constraint's rows stay in StepProblem::jacobian_data; this class only uses the factor
// (Attachment::body), which StepProblem::check() verifies equals them.  Buffers are sized in
// prepare(); nothing allocates afterwards.
#include <vector>

#include "subsim/problem/step_problem.hpp"

namespace subsim {

class PerBodyFactorization {
 public:
  /// Analyses the problem: a subsystem uses the per-body form when it is a tree (with A_j's
  /// sparsity) and every attachment on it has a factor or path-compatible columns.
  /// `sub_begin` / `sub_attachments`: the attachments of each subsystem (CSR).
  void prepare(const StepProblem& p, const std::vector<int>& sub_begin,
               const std::vector<int>& sub_attachments);

  /// Every subsystem of a problem with `num_subsystems` in the dense form (instead of prepare()).
  void disableAll(int num_subsystems) { enabled_.assign(num_subsystems, 0); }
  /// One subsystem in the dense form from now on (its factorisation failed in this one).
  void disable(int subsystem) { enabled_[subsystem] = 0; }
  bool uses(int subsystem) const { return enabled_[subsystem] != 0; }
  /// The tree body whose twist gives attachment a's rows in the iteration, or -1.
  int bodyOf(int attachment) const { return att_body_[attachment]; }

  /// Forms A_j + beta (...) and factors it into K (the subsystem's dof x dof column-major
  /// scratch); false if a pivot is not positive.
  bool factorize(const StepProblem& p, int subsystem, double beta, double* K) const;
  /// f_b += L_a^T w for attachment a (rows of w).
  void addBodyForce(const StepProblem& p, int attachment, const double* w);
  /// rhs += sum_b J_b^T f_b over the subsystem's bodies, then f_b = 0.
  void applyBodyForces(const StepProblem& p, int subsystem, double* rhs);
  /// Solves K x = rhs in place with the factors of factorize().
  void solve(const StepProblem& p, int subsystem, const double* K, double* x) const;
  /// Body twists J_b v for the subsystem's bodies that carry constraints.
  void updateBodyTwists(const StepProblem& p, int subsystem, const double* v);
  /// out = L_a (J_b v) for attachment a from the last updateBodyTwists().
  void multiplyJ(const StepProblem& p, int attachment, double* out) const;

 private:
  const int* parents(const StepProblem& p, int subsystem) const {
    return p.dof_parent.data() + p.subsystems[subsystem].tree_offset;
  }
  bool pathCompatible(const StepProblem& p, int subsystem, int attachment);

  std::vector<char> enabled_;
  std::vector<int> att_body_;
  // Per subsystem, the tree bodies that carry constraints (CSR).
  std::vector<int> body_begin_, bodies_;
  // Per tree body: the path deepest DOF -> root (CSR), G_b, and iteration vectors.
  std::vector<int> path_begin_, path_;
  std::vector<char> carries_;  // per tree body: some attachment acts on it (prepare scratch)
  std::vector<Mat6> gram_;
  std::vector<Vec6> force_, twist_;
  // Per subsystem, its rows without a factor and their nonzero columns (CSR).
  std::vector<int> row_att_begin_, row_atts_;
  std::vector<int> col_begin_, cols_;
};

}  // namespace subsim
