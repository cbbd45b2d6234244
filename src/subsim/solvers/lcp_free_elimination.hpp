#pragma once
// Eliminating the free variables of a mixed LCP (formulation/mixed_lcp.hpp) by a Schur
// complement, for the solvers that take a pure LCP (Lemke, the interior-point method): with the
// variables split into free (f) and complementary (c),
//   M_ff z_f + M_fc z_c + q_f = 0   =>   z_f = -M_ff^-1 (q_f + M_fc z_c),
// and the complementary rows become the pure LCP
//   (M_cc - M_cf M_ff^-1 M_fc) z_c + (q_c - M_cf M_ff^-1 q_f).
// M_ff is the joints' (and soft rows') block, positive definite with the formulation's compliance
// on hard rows; it is factored by LU with partial pivoting (it need not be symmetric).
#include <Eigen/LU>
#include <vector>

#include "subsim/formulation/mixed_lcp.hpp"

namespace subsim {

class FreeVariableElimination {
 public:
  /// Forms the reduced pure LCP of `lcp`.  False when M_ff is singular (to round-off).
  [[nodiscard]] bool reduce(const MixedLcp& lcp);
  /// The reduced pure LCP on the complementary variables, in their order in `lcp`.
  const RowMajorMatX& matrix() const { return m_; }
  const VecX& rhs() const { return q_; }
  /// The full z from the reduced solution z_c.
  void expand(const VecX& zc, VecX& z) const;

 private:
  std::vector<int> free_, comp_;
  RowMajorMatX m_;
  VecX q_;
  MatX k_;  // M_ff^-1 M_fc
  VecX g_;  // M_ff^-1 q_f
};

}  // namespace subsim
