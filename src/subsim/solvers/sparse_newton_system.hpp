#pragma once
// The full-size sparse matrices of a StepProblem's primal (velocity-space) methods:
//   K = A + sum_c J_c^T D_c J_c
// with A block diagonal (one block per subsystem) and one small block D_c per constraint c
// (c.rows x c.rows).  FADMM's v-step matrix is D_c = beta I; a Newton step on the AL paper's
// surrogate residual (19)/(21) has D_c = beta dT/d(lambda*) (eqs. 24-25): the generalised
// Jacobian of the constraint operator, symmetric for the prox cone (CANAL), not for the strict one
// (the semismooth baselines of its Table II).
//
// Storage: K's pattern is that of A + J^T J over the nonzero entries of the A_i and the nonzero
// columns of the J blocks (CompactJacobian): a deformable piece's dense-stored blocks are mostly
// zeros.  The pattern is compared with the last one each assemble().  K is kept twice:
//   full   all entries, unpermuted (the general LU path, Eigen's SparseLU with COLAMD);
//   upper  the upper triangle of P K P^T over the active pattern (below), with an AMD ordering P
//          of the DOF groups (a small dense subsystem is one node), factored in place by an
//          LDL^T (the symmetric path; Eigen's factorize() would copy its input, which allocates).
// For every constraint a scatter list maps each entry of J_c^T D_c J_c to its place in the full
// values, so refilling K for new D_c touches only the constraint's own entries and allocates
// nothing.
// Active pattern: the LDL^T factors only the entries of A and of the constraints whose D_c is not
// zero.  A Newton step's D_c vanishes on every separated contact (its projected impulse is 0):
// on a granular pile two thirds of the candidate contacts, whose entries would otherwise be
// factored as zeros and fill in.  The ordering and symbolic analysis are redone when that set of
// constraints changes the pattern (then the factorisation allocates, as an analysis does), and
// kept while it does not.
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <vector>

#include "subsim/formulation/compact_jacobian.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

class SparseNewtonSystem {
 public:
  using SpMat = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

  /// Builds A and J of `problem` and the scatter lists; orders and analyses K's pattern when it
  /// differs from the last one.  Allocates (once per step, outside any iteration loop).
  void assemble(const StepProblem& problem);

  const SpMat& A() const { return A_; }
  const SpMat& J() const { return J_; }
  /// Start of constraint c's D_c block (row-major, c.rows^2 values) in the flat block storage of
  /// fill(); blockStorageSize() values in all.
  int blockOffset(int constraint) const { return block_offset_[constraint]; }
  int blockStorageSize() const { return block_offset_.empty() ? 0 : block_offset_.back(); }
  /// Whether the LDL^T factors the active pattern (the default) or every constraint's entries
  /// (the pattern fixed per assemble(): no analysis, hence no allocation, between them).
  void setActivePattern(bool on) {
    if (on != active_pattern_) analysed_ = false;
    active_pattern_ = on;
  }
  /// How many times a pattern of K was ordered and analysed for the LDL^T.
  int analyses() const { return analyses_; }
  /// Constraints whose D_c entered the last fill (nonzero block).
  int activeConstraints() const;

  /// K = A + beta J^T J.  The first call after assemble() computes J^T J's values (allocates).
  void fillPenalty(double beta);
  /// K = A + sum_c J_c^T D_c J_c with the blocks at `blocks` (see blockOffset).
  void fill(const double* blocks);

  /// LDL^T of K (which must be symmetric positive definite); false when it is not numerically.
  bool factorizeSymmetric();
  /// x = K^{-1} rhs after factorizeSymmetric (no allocation).
  void solveSymmetric(const VecX& rhs, VecX& x);

  /// LU of K (general, for non-symmetric D_c).  Eigen's SparseLU allocates its supernodal
  /// storage during factorisation; only the Table II ablation baselines use this path.
  bool factorizeGeneral();
  void solveGeneral(const VecX& rhs, VecX& x);

 private:
  class Ldlt : public Eigen::SimplicialLDLT<SpMat, Eigen::Upper, Eigen::NaturalOrdering<int>> {
   public:
    void factorizeUpper(const SpMat& upper) { this->template factorize_preordered<true>(upper); }
    void solveInto(const VecX& rhs, VecX& x) const { this->_solve_impl(rhs, x); }
    // (vectorD() returns a copy, which allocates.)
    bool positiveDiagonal() const { return (this->m_diag.array() > 0.0).all(); }
  };

  /// An attachment block over its nonzero columns: rows x width values, row-major.
  struct AttachmentColumns {
    int width;
    const int* columns;
    const double* values;
  };
  AttachmentColumns columnsOf(int attachment) const;
  // Orders and analyses the pattern of A and the active constraints' entries.
  void analyse();
  // Sets entry_mask_ to the pattern to factor now; true when it is not the analysed one.
  bool updateMask();
  void activeMask(std::vector<unsigned char>& mask) const;
  int fullIndex(int row, int col) const;

  std::vector<Eigen::Triplet<double, int>> triplets_;
  SpMat A_, J_;
  SpMat K_;        // full pattern, unpermuted
  SpMat K_upper_;  // upper triangle of P K P^T
  std::vector<int> pattern_outer_, pattern_inner_;
  SpMat K_active_;                              // the analysed pattern (A and active constraints)
  std::vector<unsigned char> a_entry_;          // per K_ value: an entry of A
  std::vector<unsigned char> active_;           // per constraint: D_c nonzero in the last fill
  std::vector<unsigned char> analysed_active_;  // active_ at the last analysis
  std::vector<unsigned char> entry_mask_;       // per K_ value: in the analysed pattern
  std::vector<unsigned char> mask_scratch_;
  std::vector<int> group_begin_;   // the ordering's groups: DOF ranges, plus the end
  std::vector<int> group_of_dof_;  // group of each DOF
  std::vector<int> group_outer_, group_inner_, group_marker_;  // the groups' pattern
  std::vector<double> group_values_;
  std::vector<int> perm_;             // new index of each DOF
  std::vector<int> upper_from_full_;  // K_upper_ value k = K_ value upper_from_full_[k]
  DoubleBuffer a_values_;             // A on K_'s pattern
  DoubleBuffer jtj_values_;           // J^T J on K_'s pattern
  std::vector<int> block_offset_;     // per constraint into the D storage, plus the end
  std::vector<int> scatter_begin_;    // per constraint into scatter_, plus the end
  std::vector<int> scatter_;          // K_ value index per (q, p, k, l) entry of J_c^T D_c J_c
  DoubleBuffer scratch_;              // D_c J_p, rows x width of one attachment
  CompactJacobian compact_;
  std::vector<int> all_columns_;  // 0, 1, ...: the columns of a block kept dense
  Ldlt ldlt_;
  Eigen::SparseLU<SpMat, Eigen::COLAMDOrdering<int>> lu_;
  bool analysed_ = false, lu_analysed_ = false, active_pattern_ = true, jtj_ready_ = false;
  int analyses_ = 0;
  const StepProblem* problem_ = nullptr;
  VecX rhs_perm_, x_perm_;
};

}  // namespace subsim
