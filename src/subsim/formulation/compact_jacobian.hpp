#pragma once
// The attachment Jacobian blocks of a StepProblem with their zero columns dropped.
//
// A block stored sparse (Attachment::width > 0: an FEM body's) is already in this form and is
// used in place.  A dense block, rows x (the subsystem's whole DOF count), of a constraint on a
// deformable piece touches one to four of its nodes: 3 to 12 of several hundred columns.  Its
// compact form keeps the nonzero columns' indices and their values (rows x width, row-major), so
// J_ij v, J_ij^T w and J_ij^T J_ij cost rows x width and rows x width^2 instead of rows x dof and
// rows x dof^2.  Dense blocks are compacted only for subsystems with more than 6 DOF, and only
// when columns drop out: a rigid body's 3 x 6 contact block keeps the fixed-size dense kernels.
// The compact products sum the same nonzero terms in the same order as the dense kernels (which
// add exact zeros besides), so both give the same results up to round-off.
#include <cstddef>
#include <vector>

#include "subsim/formulation/dense_kernels.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

class CompactJacobian {
 public:
  /// Scans every dense attachment block (with `threads` OpenMP threads) and points at the sparse
  /// ones, which must outlive the use; allocates only when the problem has more attachments than
  /// any before.
  void prepare(const StepProblem& p, int threads);

  bool compact(int attachment) const { return width_[attachment] >= 0; }
  /// Number of nonzero columns of a compact block.
  int width(int attachment) const { return width_[attachment]; }
  /// The subsystem-local indices of those columns, increasing.
  const int* columns(int attachment) const { return col_ptr_[attachment]; }
  /// The block's values, rows x width row-major.
  const double* values(int attachment) const { return val_ptr_[attachment]; }

  /// out = J_a v (v: the subsystem's velocity).
  void multiply(int attachment, int rows, const double* v, double* out) const;
  /// out += J_a^T w (out: the subsystem's DOF).
  void addTransposeTimes(int attachment, int rows, const double* w, double* out) const;
  /// K += scale J_a^T J_a, K dof x dof column-major.
  void addScaledJTJ(int attachment, int rows, int dof, double scale, double* K) const;

  /// out = J_a v for any block of `p` (the one prepare() scanned): the compact product where the
  /// block is compact, the dense kernel where it is not.
  void multiplyBlock(const StepProblem& p, int attachment, const double* v, double* out) const;
  /// out += J_a^T w for any block of `p`, as multiplyBlock.
  void addTransposeTimesBlock(const StepProblem& p, int attachment, const double* w,
                              double* out) const;
  /// K += scale J_a^T J_a for any block of `p`, as multiplyBlock.
  void addScaledJTJBlock(const StepProblem& p, int attachment, double scale, double* K) const;

 private:
  // Dense blocks with more nonzero columns (or rows) stay dense: a constraint on a deformable
  // piece touches up to 4 nodes, 12 columns.  Each scanned block has a fixed slot of this many
  // columns.
  static constexpr int kMaxWidth = 24;
  static constexpr int kMaxRows = 6;

  std::vector<int> width_;           // -1: the block stays dense
  std::vector<const int*> col_ptr_;  // into cols_ (a scanned block) or the problem (a sparse one)
  std::vector<const double*> val_ptr_;
  std::vector<int> cols_;
  DoubleBuffer vals_;
};

// The two products of every ADMM iteration, inline: a call per attachment and row block was a
// tenth of SubADMM's iteration on granular (perf).
inline void CompactJacobian::multiplyBlock(const StepProblem& p, int a, const double* v,
                                           double* out) const {
  const Attachment& at = p.attachments[a];
  if (compact(a))
    multiply(a, at.rows, v, out);
  else
    kernels::multiplyJ(p.jacobian_data.data() + at.j_offset, at.rows, at.dof, v, out);
}

inline void CompactJacobian::addTransposeTimesBlock(const StepProblem& p, int a, const double* w,
                                                    double* out) const {
  const Attachment& at = p.attachments[a];
  if (compact(a))
    addTransposeTimes(a, at.rows, w, out);
  else
    kernels::addJTransposeTimes(p.jacobian_data.data() + at.j_offset, at.rows, at.dof, w, out);
}

}  // namespace subsim
