#pragma once
// A mixed linear complementarity problem (mLCP), dense: find z with w = M z + q and, per
// variable i,
//   free i:            w_i = 0                      (z_i unrestricted: equality rows)
//   complementary i:   0 <= z_i  _|_  w_i >= 0
// the problem that the polyhedral-cone formulations of the RPI simulator paper build per step
// (polyhedral_lcp_form.hpp: Stewart-Trinkle, Anitescu-Potra) and that its LCP solvers take
// (solvers/lemke.hpp, lcp_newton.hpp, lcp_interior_point.hpp, lcp_projected.hpp).  Plain data, so
// a test can pose a random LCP directly.
//
// Blocks: consecutive variables that a block method treats together (one contact's normal,
// friction directions and sliding-speed variables); a single block covering everything is
// allowed, and an empty `block_begin` means one variable per block.
//
// The common error is the natural merit function: per row |min(z_i, w_i)| on complementary rows
// (zero exactly at a solution; the box MLCP's natural residual with bounds [0, inf)) and |w_i| on
// free rows.
#include <limits>
#include <vector>

#include "subsim/problem/step_problem.hpp"

namespace subsim {

struct MixedLcp {
  RowMajorMatX m;  // rows are what the products and the row methods read
  VecX q;
  std::vector<unsigned char> free;  // per variable; empty: a pure LCP (no free variable)
  std::vector<int> block_begin;     // first variable of every block, then size(); may be empty

  int size() const { return static_cast<int>(q.size()); }
  bool isFree(int i) const { return !free.empty() && free[i] != 0; }
  int numBlocks() const {
    return block_begin.empty() ? size() : static_cast<int>(block_begin.size()) - 1;
  }
  int blockBegin(int b) const { return block_begin.empty() ? b : block_begin[b]; }
  int blockEnd(int b) const { return block_begin.empty() ? b + 1 : block_begin[b + 1]; }

  /// w = M z + q.
  void slack(const VecX& z, VecX& w) const { w.noalias() = m * z + q; }
  /// The natural merit of row i given z_i and w_i (see the header).
  double naturalResidualRow(int i, double z, double w) const;
  /// The natural merit of every row stacked: its maximum and its 2-norm.
  void naturalResidual(const VecX& z, double& max_norm, double& two_norm) const;
  /// The same given w = M z + q.
  void naturalResidual(const VecX& z, const VecX& w, double& max_norm, double& two_norm) const;
  /// Its maximum alone (allocates w).
  double naturalResidualMax(const VecX& z) const;
  /// Its maximum given w = M z + q; NaN when z is not finite.
  double naturalResidualMax(const VecX& z, const VecX& w) const;

 private:
  template <class W>
  void naturalResidualOf(const VecX& z, W&& w, double& max_norm, double& two_norm) const;
};

/// The natural residual at which an LCP with constant q is solved to round-off, 64 eps
/// (1 + |q|_inf): the iterative solvers stop improving there without stalling.
inline double lcpRoundOff(const Eigen::Ref<const VecX>& q) {
  return 64.0 * std::numeric_limits<double>::epsilon() *
         (1.0 + (q.size() == 0 ? 0.0 : q.cwiseAbs().maxCoeff()));
}

/// The natural residual's maximum of a pure LCP (every row complementary) given w = M z + q.
inline double pureNaturalResidualMax(const Eigen::Ref<const VecX>& z,
                                     const Eigen::Ref<const VecX>& w) {
  return z.size() == 0 ? 0.0 : z.cwiseMin(w).cwiseAbs().maxCoeff();
}

}  // namespace subsim
