#include "subsim/solvers/lcp_free_elimination.hpp"

namespace subsim {

bool FreeVariableElimination::reduce(const MixedLcp& lcp) {
  const int n = lcp.size();
  free_.clear();
  comp_.clear();
  for (int i = 0; i < n; ++i) (lcp.isFree(i) ? free_ : comp_).push_back(i);
  const int nf = static_cast<int>(free_.size()), nc = static_cast<int>(comp_.size());
  m_ = lcp.m(comp_, comp_);
  q_ = lcp.q(comp_);
  if (nf == 0) return true;
  const MatX mff = lcp.m(free_, free_);
  const Eigen::PartialPivLU<MatX> lu(mff);
  // PartialPivLU does not report singularity: check the pivots against the block's scale.
  const double scale = mff.cwiseAbs().maxCoeff();
  const VecX pivots = lu.matrixLU().diagonal();
  if (!(scale > 0.0) || pivots.cwiseAbs().minCoeff() <= 1e-14 * scale) return false;
  g_ = lu.solve(VecX(lcp.q(free_)));
  k_.resize(nf, nc);
  if (nc > 0) {  // (Eigen's triangular solve binds a reference into an empty right-hand side)
    k_ = lu.solve(MatX(lcp.m(free_, comp_)));
    m_.noalias() -= lcp.m(comp_, free_) * k_;
    q_.noalias() -= lcp.m(comp_, free_) * g_;
  }
  return k_.allFinite() && g_.allFinite();
}

void FreeVariableElimination::expand(const VecX& zc, VecX& z) const {
  const int n = static_cast<int>(free_.size() + comp_.size());
  z.resize(n);
  z(comp_) = zc;
  if (comp_.empty())
    z(free_) = -g_;
  else if (!free_.empty())
    z(free_) = -(g_ + k_ * zc);
}

}  // namespace subsim
