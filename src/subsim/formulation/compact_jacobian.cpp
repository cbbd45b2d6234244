#include "subsim/formulation/compact_jacobian.hpp"

#include <omp.h>

#include <algorithm>
#include <cstddef>

#include "subsim/formulation/dense_kernels.hpp"

namespace subsim {

namespace {
// Blocks of subsystems up to this size stay dense: a rigid body's (6 DOF) fixed-size kernels are
// faster than the indirection, and its contact blocks have no zero columns anyway.
constexpr int kMinCompactDof = 7;

constexpr int kScanChunk = 512;
}  // namespace

void CompactJacobian::prepare(const StepProblem& p, int threads) {
  // One pass over every block (the scan reads all of jacobian_data: the cost is memory traffic),
  // into fixed slots of kMaxWidth columns: no offsets to compute first.
  const int na = static_cast<int>(p.attachments.size());
  width_.resize(na);
  col_ptr_.resize(na);
  val_ptr_.resize(na);
  if (cols_.size() < static_cast<size_t>(na) * kMaxWidth) {
    cols_.resize(static_cast<size_t>(na) * kMaxWidth);
    vals_.resize(static_cast<size_t>(na) * kMaxWidth * kMaxRows);
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int a = 0; a < na; ++a) {
    const Attachment& at = p.attachments[a];
    const double* J = p.jacobian_data.data() + at.j_offset;
    if (StepProblem::isSparse(at)) {
      width_[a] = at.width;
      col_ptr_[a] = p.jacobianColumns(at);
      val_ptr_[a] = J;
      continue;
    }
    width_[a] = -1;
    if (at.dof < kMinCompactDof || at.rows > kMaxRows) continue;
    int* cols = cols_.data() + static_cast<size_t>(a) * kMaxWidth;
    double* vals = vals_.data() + static_cast<size_t>(a) * kMaxWidth * kMaxRows;
    col_ptr_[a] = cols;
    val_ptr_[a] = vals;
    // Nonzero columns, a chunk of columns at a time: flags OR-ed along contiguous rows (the
    // scan vectorises), then collected.
    int w = 0;
    for (int c0 = 0; c0 < at.dof && w <= kMaxWidth; c0 += kScanChunk) {
      const int len = std::min(kScanChunk, at.dof - c0);
      unsigned char nonzero[kScanChunk] = {};
      for (int r = 0; r < at.rows; ++r) {
        const double* row = J + static_cast<size_t>(r) * at.dof + c0;
        for (int c = 0; c < len; ++c) nonzero[c] |= static_cast<unsigned char>(row[c] != 0.0);
      }
      for (int c = 0; c < len; ++c) {
        if (nonzero[c] == 0) continue;
        if (w < kMaxWidth) cols[w] = c0 + c;
        ++w;
      }
    }
    if (w > kMaxWidth || w == at.dof) continue;  // as good as dense
    for (int r = 0; r < at.rows; ++r)
      for (int k = 0; k < w; ++k) vals[r * w + k] = J[static_cast<size_t>(r) * at.dof + cols[k]];
    width_[a] = w;
  }
}

void CompactJacobian::multiply(int a, int rows, const double* v, double* out) const {
  const int w = width_[a];
  const int* cols = columns(a);
  const double* row = values(a);
  if (w == 3 && rows == 3) {  // a point constraint on one node: unrolled
    const double v0 = v[cols[0]], v1 = v[cols[1]], v2 = v[cols[2]];
    for (int r = 0; r < 3; ++r, row += 3) out[r] = row[0] * v0 + row[1] * v1 + row[2] * v2;
    return;
  }
  for (int r = 0; r < rows; ++r, row += w) {
    double acc = 0.0;
    for (int k = 0; k < w; ++k) acc += row[k] * v[cols[k]];
    out[r] = acc;
  }
}

void CompactJacobian::addTransposeTimes(int a, int rows, const double* w_in, double* out) const {
  const int w = width_[a];
  const int* cols = columns(a);
  const double* row = values(a);
  if (w == 3 && rows == 3) {  // a point constraint on one node: unrolled, same order of sums
    double o0 = out[cols[0]], o1 = out[cols[1]], o2 = out[cols[2]];
    for (int r = 0; r < 3; ++r, row += 3) {
      o0 += row[0] * w_in[r];
      o1 += row[1] * w_in[r];
      o2 += row[2] * w_in[r];
    }
    out[cols[0]] = o0;
    out[cols[1]] = o1;
    out[cols[2]] = o2;
    return;
  }
  for (int r = 0; r < rows; ++r, row += w) {
    const double wr = w_in[r];
    for (int k = 0; k < w; ++k) out[cols[k]] += row[k] * wr;
  }
}

void CompactJacobian::addScaledJTJ(int a, int rows, int dof, double scale, double* K) const {
  const int w = width_[a];
  const int* cols = columns(a);
  const double* row = values(a);
  for (int r = 0; r < rows; ++r, row += w) {
    for (int k = 0; k < w; ++k) {
      const double s = scale * row[k];
      double* col = K + static_cast<size_t>(dof) * cols[k];
      for (int l = 0; l < w; ++l) col[cols[l]] += s * row[l];
    }
  }
}

void CompactJacobian::addScaledJTJBlock(const StepProblem& p, int a, double scale,
                                        double* K) const {
  const Attachment& at = p.attachments[a];
  if (compact(a))
    addScaledJTJ(a, at.rows, at.dof, scale, K);
  else
    kernels::addScaledJTJ(p.jacobian_data.data() + at.j_offset, at.rows, at.dof, scale, K);
}

}  // namespace subsim
