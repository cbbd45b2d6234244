#pragma once
// Small dense kernels on the row-major Jacobian blocks of a StepProblem, with fixed-size fast paths
// for the common rigid-body contact block (3 rows x 6 DOF) so that the iteration loops stay free of
// dynamic-size temporaries.
#include "subsim/math/types.hpp"

namespace subsim::kernels {

/// out = J v, J rows x dof row-major.
inline void multiplyJ(const double* J, int rows, int dof, const double* v, double* out) {
  if (dof == 6) {
    for (int r = 0; r < rows; ++r) {
      const double* row = J + 6 * r;
      out[r] = row[0] * v[0] + row[1] * v[1] + row[2] * v[2] + row[3] * v[3] + row[4] * v[4] +
               row[5] * v[5];
    }
    return;
  }
  for (int r = 0; r < rows; ++r) {
    const double* row = J + static_cast<size_t>(dof) * r;
    double acc = 0.0;
    for (int c = 0; c < dof; ++c) acc += row[c] * v[c];
    out[r] = acc;
  }
}

/// out += J^T w.
inline void addJTransposeTimes(const double* J, int rows, int dof, const double* w, double* out) {
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
