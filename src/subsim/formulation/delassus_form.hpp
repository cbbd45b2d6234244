#pragma once
// The local (Delassus) form of a step (ARCHITECTURE.md, "Formulations"): the operator
// W = J A^{-1} J^T, block-sparse, with q = c below and mu per contact, built from the NCP form
// (ncp_form.hpp).  The dual (impulse space) solvers PGS, PGS-CG, PJ and NNewton iterate on it
// (solvers/projected_iteration.hpp holds the projected steps); it is also the local form that
// FCLib's local problems (W, q, mu) take.
//
// Eliminating vhat = A^{-1} (b + J^T lambda) from the StepProblem gives the constraint velocity
//   J vhat + e = W lambda + c,   W = J A^{-1} J^T,   c = J A^{-1} b + e,
// and every constraint asks (W lambda + c)_j and lambda_j to lie in its set S_j.
//
// Storage: per subsystem an LLT of A_i (FactoredSubsystems); per attachment Y_ai = A_i^{-1} J_ai^T
// (dof x rows, column-major, a subsystem's attachments side by side); products with J_ai use its
// nonzero columns (CompactJacobian); per constraint j its diagonal block W_jj (rows x rows,
// row-major) and, CSR-like, a list of (other constraint k, block W_jk = sum over shared subsystems
// i of J_ji A_i^{-1} J_ki^T).  All flat arrays, rebuilt per solve into reused buffers.
//
// A problem given in its local form only (StepProblem::local_w, an FCLib local problem) has W
// itself: build() sorts its entries into the same blocks and takes c = q (its e); velocity() then
// has no subsystems to fill.
//
// Soft rows (lambda = -k e - c J vhat, per row) become equalities (lambda free) of the
// regularised operator (soft_row_terms.hpp): the stored diagonal entry is W_rr + 1 / c_r and the
// stored right-hand side c_r + (k_r / c_r - 1) e_r.  A soft row with c_r = 0 is explicit:
// lambda_r = -k_r e_r ("fixed" row: its inverse diagonal is 0, so the iterations never change
// it, and the solvers initialise it to fixedValue()).
// Everything this class returns (blocks, rhs(), dense()) is of the regularised system.
//
// Per-row scaling used by the projected iterations: D_r = W_rr for every row except the two
// tangential rows of a contact, which share D_t = max(W_t1t1, W_t2t2): an isotropic tangential
// step keeps the fixed point of  lambda = P(lambda - D^{-1} (W lambda + c))  exactly the
// Signorini-Coulomb solution with the strict cone (sliding opposite to the tangential velocity);
// a per-row D_t1 != D_t2 would skew the sliding direction.
#include <algorithm>
#include <vector>

#include "subsim/formulation/factored_subsystems.hpp"
#include "subsim/formulation/soft_row_terms.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

class DelassusForm {
 public:
  /// Factors every A_i and assembles W and c for `problem`, which must outlive the operator's
  /// use (it keeps a pointer).  Numeric work runs on `threads` OpenMP threads (0: default).
  /// Returns false when some A_i is not positive definite (W is then meaningless).
  [[nodiscard]] bool build(const StepProblem& problem, int threads = 1);

  const StepProblem& problem() const { return *p_; }
  int numConstraints() const { return static_cast<int>(diag_offset_.size()); }
  int numRows() const { return static_cast<int>(c_.size()); }

  /// y_j = (W x)_j + start_j, constraint j's rows (at most 6) of the regularised W; start_j (its
  /// rows) may be null for none.  One kernel for the products of PGS, PJ and NNewton; the sums
  /// begin at start_j, so that c joins them at no extra pass.
  void multiplyBlock(int j, const double* x, double* y, const double* start = nullptr) const;
  /// y = W x, every row (regularised W).
  void multiply(const double* x, double* y) const;
  /// g = (W lambda + c)_j, constraint j's rows (at most 6) of the regularised system.
  void constraintVelocity(int j, const double* lambda, double* g) const {
    multiplyBlock(j, lambda, g, c_.data() + p_->constraints[j].row_offset);
  }

  /// vhat = A^{-1} (b + J^T lambda), all subsystems.
  void velocity(const double* lambda, double* vhat) const;

  /// W_jj, rows x rows row-major (regularised on soft rows).
  const double* diagonalBlock(int j) const { return blocks_.data() + diag_offset_[j]; }
  int neighbourBegin(int j) const { return nb_begin_[j]; }
  int neighbourEnd(int j) const { return nb_begin_[j + 1]; }
  int neighbourConstraint(int entry) const { return nb_constraint_[entry]; }
  /// W_jk for the entry, rows_j x rows_k row-major.
  const double* neighbourBlock(int entry) const { return blocks_.data() + nb_offset_[entry]; }
  /// c (regularised on soft rows), per row.
  const DoubleBuffer& rhs() const { return c_; }
  /// D_r (see the header comment) and its inverse (0 for fixed or degenerate rows).
  double scale(int row) const { return d_[row]; }
  double inverseScale(int row) const { return inv_d_[row]; }
  const double* inverseScales() const { return inv_d_.data(); }
  bool fixedRow(int row) const { return fixed_[row] != 0; }
  double fixedValue(int row) const { return fixed_value_[row]; }

  /// The assembled regularised W as a dense matrix (tests and diagnostics; allocates).
  MatX dense() const;

 private:
  void buildLocal(const StepProblem& p);
  /// Constraint j's soft regularisation and row scaling D, once its blocks and c are in place.
  void finishRows(int j);

  const StepProblem* p_ = nullptr;
  std::vector<int> row_constraint_;  // local form: the constraint of each row
  FactoredSubsystems factored_;
  std::vector<int> y_offset_, sub_y_offset_;
  std::vector<int> pair_begin_, pair_offset_, block_of_;
  DoubleBuffer y_;  // Y_a = A_i^{-1} J_a^T per attachment, column-major dof x rows
  std::vector<int> diag_offset_;
  std::vector<int> nb_begin_, nb_constraint_, nb_offset_;
  std::vector<int> mark_;
  DoubleBuffer blocks_;
  DoubleBuffer c_, d_, inv_d_, fixed_value_;
  std::vector<unsigned char> fixed_;
};

// Inline: the projected iterations and NNewton's Krylov products call it once per constraint in
// their inner loops (out of line it cost PGS, PJ and NNewton 4-11 % on granular and stir).
namespace delassus_detail {
inline double dot(const double* a, const double* b, int n) {
  double s = 0.0;
  for (int k = 0; k < n; ++k) s += a[k] * b[k];
  return s;
}
}  // namespace delassus_detail

inline void DelassusForm::multiplyBlock(int j, const double* x, double* y,
                                        const double* start) const {
  using delassus_detail::dot;
  const StepProblem& p = *p_;
  const Constraint& c = p.constraints[j];
  const int rj = c.rows;
  const double* Wjj = diagonalBlock(j);
  const double* xj = x + c.row_offset;
  if (start == nullptr) {
    for (int r = 0; r < rj; ++r) y[r] = dot(Wjj + r * rj, xj, rj);
  } else {
    for (int r = 0; r < rj; ++r) y[r] = start[r] + dot(Wjj + r * rj, xj, rj);
  }
  for (int e = neighbourBegin(j); e < neighbourEnd(j); ++e) {
    const Constraint& ck = p.constraints[neighbourConstraint(e)];
    const double* Wjk = neighbourBlock(e);
    for (int r = 0; r < rj; ++r) y[r] += dot(Wjk + r * ck.rows, x + ck.row_offset, ck.rows);
  }
}

}  // namespace subsim
