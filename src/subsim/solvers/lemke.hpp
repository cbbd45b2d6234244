#pragma once
// Lemke's complementary pivoting method for the LCP  w = M z + q,  0 <= z _|_ w >= 0  (Lemke 1965;
// Cottle, Pang and Stone, "The Linear Complementarity Problem", section 4.4), the pivoting solver
// of the RPI simulator paper's Table 1.
//
// The artificial variable z0 with covering vector d (all ones) makes w - M z - d z0 = q feasible
// at z0 = max_i(-q_i / d_i); each pivot brings in the complement of the variable that left, and
// the method ends when z0 leaves the basis (a solution) or no row bounds the entering column (ray
// termination: for the copositive-plus matrices of the Stewart-Trinkle and Anitescu-Potra LCPs
// this proves the LCP infeasible; it also ends a P-matrix LCP only at its unique solution).
// Degeneracy: the ratio test breaks ties lexicographically by the rows of B^-1 / col_i, which
// makes the sequence of bases unique and never repeated, so the method terminates on degenerate
// problems too; z0 leaves as soon as it is among the tied rows.
//
// The basis inverse is kept explicitly and updated per pivot (O(n^2)), and refactored by LU every
// max(16, n) pivots, before a ray is believed and at the end (O(n^3) each; lemke.cpp says why).
// Mixed problems go through FreeVariableElimination (lcp_free_elimination.hpp) first.
#include <Eigen/LU>
#include <vector>

#include "subsim/formulation/mixed_lcp.hpp"

namespace subsim {

enum class LemkeStatus { Solved, RayTermination, PivotCap };
const char* lemkeStatusName(LemkeStatus status);

struct LemkeResult {
  LemkeStatus status = LemkeStatus::Solved;
  int pivots = 0;
  /// solveRegularized: the natural residual's maximum on (M, q) itself.
  double residual = 0.0;
};

class Lemke {
 public:
  /// Sizes the workspace for problems of up to n variables (solve() grows it when needed).
  void reserve(int n);
  /// Solves the pure LCP (M, q) of size n = q.size() into z; at most max_pivots pivots (<= 0:
  /// 50 n + 100).  z is zero where the method fails.
  LemkeResult solve(const Eigen::Ref<const RowMajorMatX>& m, const Eigen::Ref<const VecX>& q,
                    Eigen::Ref<VecX> z, int max_pivots = 0);
  /// solve(), and where it fails or its solution is not accurate (natural residual above 1e-9
  /// max(1, |q|_inf)), solve() again on M + eps I for eps = 1e-10 .. 1e-2 times M's largest
  /// diagonal entry, growing 100-fold, keeping the solution with the least residual on (M, q)
  /// itself (Drake's regularised Lemke does the same).  Degenerate problems need it: the LCP of a
  /// stack of boxes (four coplanar contacts a face) ended in false rays at some compliances.
  LemkeResult solveRegularized(const Eigen::Ref<const RowMajorMatX>& m,
                               const Eigen::Ref<const VecX>& q, Eigen::Ref<VecX> z,
                               int max_pivots = 0);

 private:
  /// The column of variable v in w - M z - d z0 = q, into column_.
  void basisColumn(const Eigen::Ref<const RowMajorMatX>& m, int n, int v);
  /// The leaving row for the entering column col_ (lexicographic minimum ratio), -1 if none.
  int ratioTest(int n);
  void pivot(int n, int r);
  /// B^-1 and x_ = B^-1 q afresh from the basis (LU); false when B is singular.
  bool refactor(const Eigen::Ref<const RowMajorMatX>& m, const Eigen::Ref<const VecX>& q, int n);

  RowMajorMatX binv_, regularized_;
  VecX best_;
  MatX basis_matrix_;
  Eigen::PartialPivLU<MatX> lu_;
  VecX x_, column_, col_;
  std::vector<int> basis_, candidates_, kept_;
};

}  // namespace subsim
