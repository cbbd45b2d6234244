#include "subsim/solvers/lcp_projected.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace subsim {

void LcpBlockProjection::prepare(const MixedLcp& lcp) {
  int largest = 0;
  for (int b = 0; b < lcp.numBlocks(); ++b)
    largest = std::max(largest, lcp.blockEnd(b) - lcp.blockBegin(b));
  if (largest > kMaxBlock)
    throw std::invalid_argument("LcpBlockProjection: a block of " + std::to_string(largest) +
                                " variables; at most " + std::to_string(kMaxBlock));
  lemke_.reserve(largest);
  previous_.resize(lcp.size());
  r_.resize(kMaxBlock);
  local_.resize(kMaxBlock);
}

bool LcpBlockProjection::solveBlock(const MixedLcp& lcp, int block, const VecX& others,
                                    Eigen::Ref<VecX> out) {
  const int b0 = lcp.blockBegin(block), nb = lcp.blockEnd(block) - b0;
  const auto mbb = lcp.m.block(b0, b0, nb, nb);
  // r: the block's constant with every other block's impulses in it.
  auto r = r_.head(nb);
  r.noalias() = lcp.m.middleRows(b0, nb) * others;
  r.noalias() -= mbb * others.segment(b0, nb);
  r += lcp.q.segment(b0, nb);
  if (lcp.isFree(b0)) {
    block_ = mbb;
    const Eigen::PartialPivLU<Small> lu(block_);
    const double scale = block_.cwiseAbs().maxCoeff();
    if (!(lu.matrixLU().diagonal().cwiseAbs().minCoeff() > 1e-14 * scale)) return false;
    out = lu.solve(-r);
    return true;
  }
  if (nb == 1) {
    if (mbb(0, 0) > 0.0) {
      out[0] = std::max(0.0, -r[0] / mbb(0, 0));
      return true;
    }
    if (r[0] >= 0.0) {
      out[0] = 0.0;
      return true;
    }
    return false;
  }
  auto x = local_.head(nb);
  const LemkeResult lr = lemke_.solve(mbb, r, x);
  if (lr.status != LemkeStatus::Solved) return false;
  out = x;
  return true;
}

bool LcpBlockProjection::sweep(const MixedLcp& lcp, VecX& z, Order order, double relaxation) {
  bool ok = true;
  if (order == Order::GaussSeidel) {
    for (int b = 0; b < lcp.numBlocks(); ++b) {
      const int b0 = lcp.blockBegin(b), nb = lcp.blockEnd(b) - b0;
      auto x = local_.head(nb);
      if (solveBlock(lcp, b, z, x))
        z.segment(b0, nb) = x;
      else
        ok = false;
    }
    return ok;
  }
  previous_ = z;
  for (int b = 0; b < lcp.numBlocks(); ++b) {
    const int b0 = lcp.blockBegin(b), nb = lcp.blockEnd(b) - b0;
    if (!solveBlock(lcp, b, previous_, z.segment(b0, nb))) {
      z.segment(b0, nb) = previous_.segment(b0, nb);
      ok = false;
    }
  }
  z = previous_ + relaxation * (z - previous_);
  return ok;
}

}  // namespace subsim
