#include "subsim/formulation/mixed_lcp.hpp"

#include <cmath>
#include <limits>

#include "subsim/formulation/box_mlcp_form.hpp"

namespace subsim {

double MixedLcp::naturalResidualRow(int i, double z, double w) const {
  // An LCP row is a box row with bounds [0, inf) and a free row one with no bound, so the box
  // MLCP's natural residual (the schur paper's (29)) is this one too.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  return subsim::naturalResidualRow(z, w, isFree(i) ? -kInf : 0.0, kInf);
}

void MixedLcp::naturalResidual(const VecX& z, double& max_norm, double& two_norm) const {
  naturalResidualOf(
      z, [&](int i) { return m.row(i).dot(z) + q[i]; }, max_norm, two_norm);
}

void MixedLcp::naturalResidual(const VecX& z, const VecX& w, double& max_norm,
                               double& two_norm) const {
  naturalResidualOf(
      z, [&](int i) { return w[i]; }, max_norm, two_norm);
}

template <class W>
void MixedLcp::naturalResidualOf(const VecX& z, W&& w, double& max_norm, double& two_norm) const {
  max_norm = 0.0;
  double sum = 0.0;
  for (int i = 0; i < size(); ++i) {
    const double r = naturalResidualRow(i, z[i], w(i));
    max_norm = std::max(max_norm, r);
    sum += r * r;
  }
  two_norm = std::sqrt(sum);
  if (!z.allFinite()) max_norm = two_norm = std::numeric_limits<double>::quiet_NaN();
}

double MixedLcp::naturalResidualMax(const VecX& z, const VecX& w) const {
  double r = 0.0;
  for (int i = 0; i < size(); ++i) r = std::max(r, naturalResidualRow(i, z[i], w[i]));
  return z.allFinite() ? r : std::numeric_limits<double>::quiet_NaN();
}

double MixedLcp::naturalResidualMax(const VecX& z) const {
  double max_norm = 0.0, two_norm = 0.0;
  naturalResidual(z, max_norm, two_norm);
  return max_norm;
}

}  // namespace subsim
