#pragma once
// Small dense kernels on the row-major Jacobian blocks of a StepProblem, with fixed-size fast paths
// for the common rigid-body contact block (3 rows x 6 DOF) so that the iteration loops stay free of
// dynamic-size temporaries.
#include "subsim/math/types.hpp"

namespace subsim::kernels {

/// out = J v for a rigid body's block (6 columns); kRows > 0: that many rows, unrolled (the same
/// operations as the run-time count).
template <int kRows>
inline void multiplyJ6(const double* J, int rows, const double* v, double* out) {
  const int n = kRows > 0 ? kRows : rows;
  for (int r = 0; r < n; ++r) {
    const double* row = J + 6 * r;
    out[r] = row[0] * v[0] + row[1] * v[1] + row[2] * v[2] + row[3] * v[3] + row[4] * v[4] +
             row[5] * v[5];
  }
}

/// out = J v, J rows x dof row-major.
inline void multiplyJ(const double* J, int rows, int dof, const double* v, double* out) {
  if (dof == 6) {
    if (rows == 3)  // a contact
      multiplyJ6<3>(J, rows, v, out);
    else
      multiplyJ6<0>(J, rows, v, out);
    return;
  }
  for (int r = 0; r < rows; ++r) {
    const double* row = J + static_cast<size_t>(dof) * r;
    double acc = 0.0;
    for (int c = 0; c < dof; ++c) acc += row[c] * v[c];
    out[r] = acc;
  }
}

/// out += J^T w for a rigid body's block (6 columns), with the six sums in registers (the general
/// loop reloads out[] after every store, as it may alias J or w); kRows > 0: that many rows,
/// unrolled.  The same terms in the same order as the general loop, so the same bits.
template <int kRows>
inline void addJTransposeTimes6(const double* J, int rows, const double* w, double* out) {
  const int n = kRows > 0 ? kRows : rows;
  double o0 = out[0], o1 = out[1], o2 = out[2], o3 = out[3], o4 = out[4], o5 = out[5];
  for (int r = 0; r < n; ++r) {
    const double* row = J + 6 * r;
    const double wr = w[r];
    o0 += row[0] * wr;
    o1 += row[1] * wr;
    o2 += row[2] * wr;
    o3 += row[3] * wr;
    o4 += row[4] * wr;
    o5 += row[5] * wr;
  }
  out[0] = o0;
  out[1] = o1;
  out[2] = o2;
  out[3] = o3;
  out[4] = o4;
  out[5] = o5;
}

/// out += J^T w.
inline void addJTransposeTimes(const double* J, int rows, int dof, const double* w, double* out) {
  if (dof == 6) {
    if (rows == 3)  // a contact
      addJTransposeTimes6<3>(J, rows, w, out);
    else
      addJTransposeTimes6<0>(J, rows, w, out);
    return;
  }
  for (int r = 0; r < rows; ++r) {
    const double* row = J + static_cast<size_t>(dof) * r;
    const double wr = w[r];
    for (int c = 0; c < dof; ++c) out[c] += row[c] * wr;
  }
}

/// K += scale * J^T J (K column-major dof x dof).
inline void addScaledJTJ(const double* J, int rows, int dof, double scale, double* K) {
  for (int r = 0; r < rows; ++r) {
    const double* row = J + static_cast<size_t>(dof) * r;
    for (int c = 0; c < dof; ++c) {
      const double s = scale * row[c];
      double* col = K + static_cast<size_t>(dof) * c;
      for (int k = 0; k < dof; ++k) col[k] += s * row[k];
    }
  }
}

}  // namespace subsim::kernels
