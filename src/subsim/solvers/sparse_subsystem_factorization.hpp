#pragma once
// SubADMM's subsystem matrix K_i = A_i + beta_i sum_j J_ij^T J_ij as a sparse LDL^T, for large
// subsystems whose A_i is sparse: a deformable piece's 3x3 node blocks coupled only along its
// tets.  Its dense Cholesky and dense triangular solves were most of a FEM scene's step.
//
// The matrix is handled in 3x3 blocks (a node's DOF; the subsystem's DOF count must be a multiple
// of 3): ordering, analysis and factors are per node, and the numeric work is fixed-size 3x3
// products, about nine times fewer indexed operations than a scalar LDL^T of the same matrix
// (block L, block-diagonal D).
// Pattern: the nonzero blocks of A_i (stored dense or sparse in the StepProblem) united with each
// attachment's node clique (CompactJacobian).  It is compared with the previous solve's pattern of
// the same subsystem; only a change reorders (approximate minimum degree) and redoes the symbolic
// analysis (elimination tree, the pattern of L).  Per solve the entries of A_i and of sum_j
// J_ij^T J_ij are gathered once into the permuted upper triangle, so a refactorisation for a new
// beta_i (adaptive penalty) is an axpy over nnz(K) and the numeric LDL^T (Davis' up-looking LDL).
// The factor of A_i alone shares the analysis (its pattern is a subset): SubADMM's penalty rule and
// cold start read it (the rule through the selected inverse of A_i).  Solves permute into a
// per-subsystem buffer, so nothing allocates after analyse(), and distinct subsystems may be
// factored and solved from different threads.
#include <vector>

#include "subsim/formulation/compact_jacobian.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

class SparseSubsystemFactorization {
 public:
  /// The smallest subsystem (DOF) considered, and the largest fill of A_i (nonzeros / dof^2).
  static constexpr int kDefaultMinDof = 48;
  static constexpr double kMaxDensity = 0.4;

  /// Sizes the per-subsystem state for `num_subsystems` (keeps the cached analyses).
  void resize(int num_subsystems);
  /// Whether subsystem i can take the block form: DOF a multiple of 3, every attachment compact.
  static bool fits(const StepProblem& p, int subsystem, const int* atts, int num_atts,
                   const CompactJacobian& jac);
  /// Decides whether subsystem i uses the sparse form (`candidate`: the caller allows it; then it
  /// needs dof >= min_dof, fits(), A_i sparse enough; `only_form`, a subsystem the caller has no
  /// dense form of (a large one stored sparse), needs fits() only) and, if so, analyses its
  /// pattern (cached while unchanged) and gathers this solve's entries.  `atts`: its attachments.
  void analyse(const StepProblem& p, int subsystem, const int* atts, int num_atts,
               const CompactJacobian& jac, bool candidate, int min_dof, bool only_form);
  bool uses(int subsystem) const { return enabled_[subsystem] != 0; }
  /// The subsystem in the dense form from now on (a factorisation found a nonpositive pivot).
  void disable(int subsystem) { enabled_[subsystem] = 0; }
  /// The symbolic analysis of the last analyse() was reused (same pattern as the solve before).
  bool reusedAnalysis(int subsystem) const { return parts_[subsystem].reused; }
  /// Nonzeros of L (below the diagonal blocks), for diagnostics.
  int factorNonZeros(int subsystem) const;

  /// Factors A_i + beta sum J^T J; false if a pivot is not positive.
  bool factorize(int subsystem, double beta);
  /// Factors A_i alone; false if a pivot is not positive.
  bool factorizeA(int subsystem);
  /// x = K_i^-1 x, x in the subsystem's natural order.
  void solve(int subsystem, double* x);
  /// x = A_i^-1 x.
  void solveA(int subsystem, double* x);
  /// The entries of A_i^-1 on the pattern of L (after factorizeA()): Takahashi's equations,
  /// Z_jj = 1/d_j - sum_k L_kj Z_kj, Z_ij = -sum_k Z_ik L_kj over k in struct(L_:j), in about a
  /// factorisation's work.  The pattern holds every attachment's column clique, so it gives the
  /// penalty rule's w_r = j_r A_i^-1 j_r^T exactly for every row without a solve per row.
  void selectedInverseA(int subsystem);
  /// j A_i^-1 j^T for a row j with `width` nonzeros `values` at `columns` (a compact row of one
  /// of the subsystem's attachments), after selectedInverseA().
  double rowInverseMassA(int subsystem, int width, const int* columns, const double* values) const;

 private:
  // Everything below is per node (3x3 block) unless named otherwise.
  struct Part {
    int n = 0;   // DOF
    int nb = 0;  // nodes
    bool reused = false;
    // Full symmetric block pattern of K in natural order (CSC), the cache key.
    std::vector<int> pat_ptr, pat_idx, new_ptr, new_idx;
    // Clique partners per node (CSR, with repeats) and the scan's flags per node.
    std::vector<int> clique_ptr, clique_idx, mark;
    // Fill-reducing order: order[k] is the original node of position k; iperm its inverse.
    std::vector<int> order, iperm;
    // Upper block triangle of P K P^T (CSC, rows sorted) and each block's first entry in A_i.
    std::vector<int> kp, ki, a_index;
    std::vector<Mat3> kx_a, kx_jtj, kx;
    // Symbolic: elimination tree, the columns of L (pointers, rows) and its rows (CSR: columns
    // in visiting order, and each entry's position in the columns).
    std::vector<int> parent, lp, li, rptr, rpat, rpos;
    // Numeric factors of K and of A alone (L blocks, D^-1 blocks), and workspaces.
    std::vector<int> lnz, flag, pattern;
    std::vector<Mat3> lx, dinv, lx_a, dinv_a, y;
    DoubleBuffer work;
    // Selected inverse of A (Z on L's pattern, and its diagonal blocks).
    std::vector<Mat3> zx, zd;
  };

  void analysePattern(Part& part);
  static bool factorNumeric(Part& part, const Mat3* kx, Mat3* lx, Mat3* dinv);
  static void solveFactored(Part& part, const Mat3* lx, const Mat3* dinv, double* x);
  static double inverseEntry(const Part& part, int row, int col);

  std::vector<char> enabled_;
  std::vector<Part> parts_;
};

}  // namespace subsim
