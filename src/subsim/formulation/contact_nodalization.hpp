#pragma once
// COND's nodalized, diagonalized form of a step (cond paper section III-B/C), built over the
// StepProblem for the `cond` solver (solvers/cond_solver.hpp).
//
// Virtual nodes.  Every attachment a (constraint j acting on subsystem i through J_a, rows x dof)
// gets a massless virtual node u_a with one coordinate per constraint row, expressed in the
// constraint's own row frame (for a contact: [n, t1, t2], so the paper's rotation R is folded into
// J_a and the nodal contact Jacobian is the identity).  The node is tied to its subsystem by the
// viscous coupling of eq. (14), impulse k_a (J_a vhat_i - u_a) with vhat implicit, and the
// constraint acts on its nodes only: its velocity is sum_a u_a (one node: the paper's S-contact, a
// subsystem against the world or a kinematic body; two: its D-contact).  The augmented system
// (eq. 15), x = [vhat; u],
//
//   [A + sum_a k_a J_a^T J_a    -k_a J_a^T] [vhat]   [b]   [0  ]
//   [-k_a J_a                    k_a I    ] [u   ] = [0] + [I^T] lambda,
//
// is SPD (Prop. 1); eliminating u gives back A vhat = b + J^T lambda with the constraint seen
// through u_a = J_a vhat + lambda / k_a: a compliance 1 / k_a in series (Prop. 2), which vanishes
// as k_a -> inf.  Every constraint type is nodalized the same way, since the per-constraint
// closed form of problem/constraint_operator.hpp takes a diagonal Gamma = gamma I: bilateral rows
// are solved exactly, unilateral rows clamped, soft rows' lambda = -k e - c (sum u) in closed form
// and contacts by the strict (or proximal) cone operator.
//
// Real nodes (section III-B's nodal assumption): an attachment whose block is a rotation R of 3
// consecutive coordinates of its subsystem (an FEM contact or interface on a mesh node: J_a = R
// on the node's x, y, z) acts on that node directly, without a virtual node or compliance, when
// no earlier attachment of the step has claimed the node (Prop. 3 needs each node in one
// constraint; later ones on it get virtual nodes).  The node's 3 DOF then share one Frobenius
// weight, the paper's wbar_i = (a_11 + a_22 + a_33) / (||A_1*||^2 + ||A_2*||^2 + ||A_3*||^2), so
// that R W R^T = wbar I stays diagonal.  `direct_nodes` false gives every attachment a virtual
// node (an ablation).
//
// k_a (impulse per m/s, as A): `kv` > 0 gives the paper's k_v in N s/m, times h (our A is the
// paper's times h: impulses instead of forces).  `kv` = 0 scales it to the attachment's rows:
// k_ar = kv_ratio / d_ar, d_ar = sum_k J_a(r, k)^2 / A_i(k, k), the diagonal estimate of row r's
// inverse effective mass, so the added compliance is 1 / kv_ratio of the row's own (scale-free;
// kv_ratio 1e3 by default).  A contact's node takes one k_a for its 3 rows, kv_ratio over their
// mean d_ar (its rows are one point's, and the cone couples them: Prop. 3 needs gamma I); every
// other constraint's rows are resolved one by one, so each row keeps its own k_ar.  A soft row
// lambda = -k e - c (sum u) is a damper c in series with its nodes, so its own compliance is
// min(d_ar, 1 / c_r): the node must be stiff against the damper, not only against the body
// (a Cosserat coupling's c is 1e5 times its link's mass).  One k per node would not do for a
// joint: the grip on a 9 mm link of `cablewind:segments=64` has translation rows with d about
// 1e3 and rotation rows with d about 1e8, and their mean made the translation rows' added
// compliance about 36 000 times their own (by those estimates): COND's converged grip impulse was
// 1/130 of FADMM's (measured).
//
// The step matrix W (section III-E and VI): Frobenius-norm minimisation of ||I - W A||_F,
// w_kk = a_kk / ||A_k*||^2 per subsystem DOF, and per node row 1 / (k_ar (1 + ||J_a(r, :)||^2));
// a contact's node takes one value for its rows (Prop. 3: equal entries on a node keep Gamma
// diagonal), wbar_a = rows / (k_a (rows + ||J_a||_F^2)).
// The Frobenius W does not bound the spectrum of W A_x: on `softball` (one 3993-DOF FEM ball) its
// largest eigenvalue exceeds 2, so the plain V-FPI grows slowly and the Chebyshev-accelerated one
// is non-finite by step 2.  So W is then scaled down uniformly (which keeps every Gamma diagonal)
// until lambda_max(W A_x) <= kMaxStepEigenvalue, with lambda_max estimated by kLanczosSteps
// Lanczos steps on W^1/2 A_x W^1/2 (a departure from the paper, which instead under-relaxes its
// Chebyshev step).
//
// Storage: the DOF rows of the augmented matrix, [A_i + sum_a k_a J_a^T J_a, -k_a J_a^T], in
// compressed rows over x = [vhat; u] (exact zeros dropped), so that an iteration's product costs
// the nonzeros and splits by rows over any number of threads (one large FEM body included); the
// node rows k_a (u_a - J_a vhat) use the compact Jacobian blocks.  Buffers keep their capacity
// across steps.
#include <vector>

#include "subsim/formulation/compact_jacobian.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

struct NodalizationOptions {
  /// The paper's k_v in N s/m (0: scaled to each attachment by kv_ratio).
  double kv = 0.0;
  /// k_a = kv_ratio / (the rows' diagonal inverse-mass estimate) when kv = 0.
  double kv_ratio = 1e3;
  /// Attachments that are a rotation of one node's coordinates act on it directly.
  bool direct_nodes = true;
};

class ContactNodalization {
 public:
  /// Builds the augmented system of `p` (which must have subsystems) with `threads` threads.
  /// Returns false when some A_i has a diagonal entry that is not positive (A is not SPD).
  bool build(const StepProblem& p, const NodalizationOptions& options, int threads);

  /// The Lanczos steps and the bound on lambda_max(W A_x) that W is scaled to (see above).
  static constexpr int kLanczosSteps = 10;
  static constexpr double kMaxStepEigenvalue = 1.7;

  const StepProblem& problem() const { return *p_; }
  /// lambda_max(W A_x) of the Frobenius W as estimated (before any scaling) and the factor W was
  /// scaled by (1: none).
  double stepEigenvalue() const { return step_eigenvalue_; }
  double stepScale() const { return step_scale_; }
  /// y = A_x x, the augmented matrix (x and y of numDof() + numNodeCoordinates() entries).
  void multiply(const double* x, double* y, int threads) const;
  const CompactJacobian& jacobian() const { return compact_; }
  /// Number of virtual-node coordinates (the rows of every attachment with a virtual node).
  int numNodeCoordinates() const { return node_offset_.empty() ? 0 : node_offset_.back(); }
  /// Where attachment a's virtual node coordinates start in u (they end where a + 1's start;
  /// none for a direct attachment).
  int nodeOffset(int attachment) const { return node_offset_[attachment]; }
  /// The global DOF of the node a direct attachment acts on (its first of 3), else -1; its block
  /// is then R = jacobian().values(a), 3 x 3 row-major.
  int directDof(int attachment) const { return direct_dof_[attachment]; }
  /// The coupling k_ar of a virtual node's row r (impulse per m/s).
  double coupling(int attachment, int row) const {
    return coupling_[node_offset_[attachment] + row];
  }
  /// The Frobenius step weight of attachment a's node, row r (virtual or direct; a direct node
  /// and a contact's virtual node have one for all rows).
  double nodeWeight(int attachment, int row) const {
    return direct_dof_[attachment] >= 0 ? direct_weight_[attachment]
                                        : node_weight_[node_offset_[attachment] + row];
  }
  /// True when global DOF k belongs to a direct attachment's node (which the constraint's step
  /// updates).
  bool dofIsDirect(int k) const { return dof_owner_[k] >= 0; }
  /// The Frobenius step weight of global DOF k.
  double dofWeight(int k) const { return dof_weight_[k]; }
  /// Row k (a global DOF) of A_x x: ((A_i + sum_a k_a J_a^T J_a) vhat_i - sum_a k_a J_a^T u_a)_k.
  double dofRow(int k, const double* x) const {
    // Two partial sums, in a fixed order: the product is a gather, and one running sum would
    // wait on each add's latency (and on where the linker happens to place the loop).
    double even = 0.0, odd = 0.0;
    int s = row_begin_[k];
    for (; s + 1 < row_end_[k]; s += 2) {
      even += value_[s] * x[column_[s]];
      odd += value_[s + 1] * x[column_[s + 1]];
    }
    if (s < row_end_[k]) even += value_[s] * x[column_[s]];
    return even + odd;
  }
  /// Row k of the augmented residual A_x x - b_x.
  double dofResidual(int k, const double* x) const { return dofRow(k, x) - p_->b[k]; }

 private:
  // Per thread: the scratch of one subsystem's rows while they are built.
  struct RowScratch {
    DoubleBuffer diagonal, row_diagonal, row_norm2, accumulator;
    std::vector<int> touch_begin, touch, mark, list;  // touch: entries of att_cols_
  };

  void findDirectAttachments(const StepProblem& p, bool enabled);
  /// Subsystem i's k_a, node weights and DOF rows; false when A_i has a nonpositive diagonal.
  bool buildSubsystemRows(const StepProblem& p, int i, const NodalizationOptions& options,
                          RowScratch& scratch);
  /// Estimates lambda_max(W A_x) and scales W down where it exceeds kMaxStepEigenvalue.
  void boundStepSpectrum(int threads);

  const StepProblem* p_ = nullptr;
  CompactJacobian compact_;
  std::vector<int> node_offset_;  // one entry per attachment, plus the total
  std::vector<int> direct_dof_;
  std::vector<int> dof_owner_;  // per global DOF: the direct attachment acting on it, else -1
  std::vector<int> attachment_constraint_;
  DoubleBuffer coupling_;       // per virtual node coordinate
  DoubleBuffer node_weight_;    // per virtual node coordinate
  DoubleBuffer direct_weight_;  // per attachment: a direct node's wbar
  DoubleBuffer dof_weight_;
  std::vector<int> sub_begin_;
  std::vector<int> sub_attachments_;
  // The DOF rows of A_x, compressed, columns indexing x; subsystem i's rows in a slot (a bound
  // on their entries) starting at slot_[i], so that they are compressed in
  // parallel: row k's entries at row_begin_[k] .. row_end_[k].
  std::vector<int> slot_;
  std::vector<int> row_begin_;
  std::vector<int> row_end_;
  std::vector<int> column_;
  DoubleBuffer value_;
  std::vector<RowScratch> scratch_;
  // Virtual attachments' nonzero columns (compressed over attachments), per entry its
  // attachment and its column of J_a (kMaxRows values, the first rows used).
  static constexpr int kMaxRows = 6;
  std::vector<int> att_col_begin_;
  std::vector<int> att_cols_;
  std::vector<int> entry_attachment_;
  DoubleBuffer att_values_;
  const double* entryColumn(int entry) const {
    return att_values_.data() + static_cast<size_t>(entry) * kMaxRows;
  }
  DoubleBuffer lanczos_[5];  // W^1/2 and the Lanczos vectors
  double step_eigenvalue_ = 0.0, step_scale_ = 1.0;
};

}  // namespace subsim
