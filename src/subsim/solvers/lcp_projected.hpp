#pragma once
// Projected Gauss-Seidel and projected Jacobi on a mixed LCP (formulation/mixed_lcp.hpp), by
// blocks: the RPI simulator paper's PGS and Projected Jacobi (Table 1).  The Stewart-Trinkle and
// Anitescu-Potra matrices have a zero diagonal on every contact's sliding-speed row, so a
// row-by-row projection is undefined there; the block methods solve each block's small LCP
// exactly instead (a contact's 1 + n_d + 1 variables, by Lemke; a free block, a joint's rows, by
// LU; a single complementary row by its projection max(0, -r / M_ii)), with the other blocks'
// current values (Gauss-Seidel) or the previous sweep's (Jacobi, relaxed: z += omega (z_new - z)).
// Blocks hold at most kMaxBlock variables (the form's p_n, n_d <= 32 directions, s, and up to six
// of PEG's c).  A sweep allocates nothing.
#include "subsim/formulation/mixed_lcp.hpp"
#include "subsim/formulation/polyhedral_lcp_form.hpp"
#include "subsim/solvers/lemke.hpp"

namespace subsim {

class LcpBlockProjection {
 public:
  static constexpr int kMaxBlock = kMaxFrictionDirections + 8;
  enum class Order { GaussSeidel, Jacobi };

  /// Sizes the workspace for `lcp` (call before the sweeps).
  void prepare(const MixedLcp& lcp);
  /// One sweep over every block; returns false when a block's LCP could not be solved (Lemke's
  /// ray termination or a singular free block), which leaves that block as it was.
  bool sweep(const MixedLcp& lcp, VecX& z, Order order, double relaxation = 1.0);

 private:
  /// The block's solution given the other blocks' z (from `others`) into out.
  bool solveBlock(const MixedLcp& lcp, int block, const VecX& others, Eigen::Ref<VecX> out);

  Lemke lemke_;
  VecX previous_, r_, local_;
  using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxBlock, kMaxBlock>;
  Small block_;
};

}  // namespace subsim
