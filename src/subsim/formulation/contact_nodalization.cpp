#include "subsim/formulation/contact_nodalization.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace subsim {

bool ContactNodalization::build(const StepProblem& p, const NodalizationOptions& options,
                                int threads) {
  p_ = &p;
  const int ns = p.numSubsystems();
  const int na = static_cast<int>(p.attachments.size());
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();
  compact_.prepare(p, nthreads);

  findDirectAttachments(p, options.direct_nodes);
  node_offset_.resize(na + 1);
  node_offset_[0] = 0;
  for (int a = 0; a < na; ++a)
    node_offset_[a + 1] = node_offset_[a] + (direct_dof_[a] >= 0 ? 0 : p.attachments[a].rows);
  sub_begin_.assign(ns + 1, 0);
  for (const Attachment& at : p.attachments) ++sub_begin_[at.subsystem + 1];
  for (int i = 0; i < ns; ++i) sub_begin_[i + 1] += sub_begin_[i];
  sub_attachments_.resize(na);
  {
    std::vector<int>& fill = row_end_;  // scratch until the rows are built
    fill.assign(sub_begin_.begin(), sub_begin_.end() - 1);
    for (int a = 0; a < na; ++a) sub_attachments_[fill[p.attachments[a].subsystem]++] = a;
  }

  coupling_.resize(na);
  node_weight_.resize(na);
  dof_weight_.resize(p.numDof());
  row_begin_.resize(p.numDof());
  row_end_.resize(p.numDof());
  // Slots: dof^2 for the block, rows x (nonzero columns) per virtual attachment for -k_a J_a^T.
  slot_.assign(ns + 1, 0);
  for (int i = 0; i < ns; ++i) {
    int size = p.subsystems[i].dof * p.subsystems[i].dof;
    for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
      const int a = sub_attachments_[q];
      if (direct_dof_[a] >= 0) continue;
      const Attachment& at = p.attachments[a];
      size += at.rows * (compact_.compact(a) ? compact_.width(a) : at.dof);
    }
    slot_[i + 1] = slot_[i] + size;
  }
  column_.resize(slot_[ns]);
  value_.resize(slot_[ns]);
  if (static_cast<int>(dense_.size()) < nthreads) {
    dense_.resize(nthreads);
    columns_.resize(nthreads);
  }
  bool positive = true;

#pragma omp parallel for schedule(dynamic) num_threads(nthreads) reduction(&& : positive)
  for (int i = 0; i < ns; ++i) {
    const Subsystem& sub = p.subsystems[i];
    const int n = sub.dof;
    const auto A = p.A(i);
    for (int k = 0; k < n; ++k) positive = positive && A(k, k) > 0.0;
    // k_a and wbar_a (the node's Frobenius weight) of every attachment on i.
    for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
      const int a = sub_attachments_[q];
      const Attachment& at = p.attachments[a];
      const auto J = p.J(at);
      if (direct_dof_[a] >= 0) {
        coupling_[a] = 0.0;
        continue;
      }
      double k = options.kv * p.dt;
      if (options.kv <= 0.0) {
        double inverse_mass = 0.0;
        for (int r = 0; r < at.rows; ++r)
          for (int c = 0; c < n; ++c)
            if (J(r, c) != 0.0) inverse_mass += J(r, c) * J(r, c) / std::max(A(c, c), 1e-300);
        inverse_mass /= at.rows;
        // A block without entries couples nothing: any k keeps the node at rest with it.
        k = options.kv_ratio / (inverse_mass > 0.0 ? inverse_mass : 1.0 / A.diagonal().mean());
      }
      coupling_[a] = k;
      node_weight_[a] = at.rows / (k * (at.rows + J.squaredNorm()));
    }
    // The augmented DOF block A_i + sum_a k_a J_a^T J_a, dense, then compressed by rows with the
    // DOF's Frobenius weight (its row also holds -k_a J_a^T, the coupling to the nodes).
    DoubleBuffer& dense = dense_[omp_get_thread_num()];
    dense.resize(static_cast<size_t>(n) * n + n);
    std::copy_n(p.a_data.data() + sub.a_offset, static_cast<size_t>(n) * n, dense.data());
    // Per DOF k: sum_a k_a^2 |J_a e_k|^2 (its row's coupling part), then the row's squared norm.
    double* row_norm2 = dense.data() + static_cast<size_t>(n) * n;
    std::fill_n(row_norm2, n, 0.0);
    std::vector<int>& columns = columns_[omp_get_thread_num()];
    for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
      const int a = sub_attachments_[q];
      if (direct_dof_[a] >= 0) continue;
      // k_a J_a^T J_a on J_a's nonzero columns only: a block wider than the compact form's
      // slots (a grip on many nodes) is stored dense, and its dense product would cost dof^2.
      const auto J = p.J(p.attachments[a]);
      const double k = coupling_[a];
      columns.clear();
      for (int c = 0; c < n; ++c) {
        const double norm2 = J.col(c).squaredNorm();
        if (norm2 == 0.0) continue;
        columns.push_back(c);
        row_norm2[c] += k * k * norm2;
      }
      for (const int c2 : columns)
        for (const int c1 : columns)
          dense[static_cast<size_t>(c2) * n + c1] += k * J.col(c1).dot(J.col(c2));
    }
    int slot = slot_[i];
    for (int k = 0; k < n; ++k) {
      const int row = sub.dof_offset + k;
      row_begin_[row] = slot;
      double norm2 = 0.0;
      for (int c = 0; c < n; ++c) {
        const double v = dense[static_cast<size_t>(c) * n + k];  // symmetric: row k = column k
        if (v == 0.0) continue;
        column_[slot] = sub.dof_offset + c;
        value_[slot++] = v;
        norm2 += v * v;
      }
      // -k_a J_a(r, k) on node coordinate r of every virtual attachment on i (its norm is in
      // row_norm2 already).
      for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
        const int a = sub_attachments_[q];
        if (direct_dof_[a] >= 0) continue;
        const Attachment& at = p.attachments[a];
        const auto J = p.J(at);
        for (int r = 0; r < at.rows; ++r) {
          if (J(r, k) == 0.0) continue;
          column_[slot] = p.numDof() + node_offset_[a] + r;
          value_[slot++] = -coupling_[a] * J(r, k);
        }
      }
      row_end_[row] = slot;
      norm2 += row_norm2[k];
      dof_weight_[row] = norm2 > 0.0 ? dense[static_cast<size_t>(k) * n + k] / norm2 : 0.0;
      row_norm2[k] = norm2;
    }
    // A direct node's 3 DOF share wbar = trace / (sum of the 3 rows' squared norms).
    for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
      const int a = sub_attachments_[q];
      const int d = direct_dof_[a];
      if (d < 0) continue;
      const int k0 = d - sub.dof_offset;
      double trace = 0.0, norm2 = 0.0;
      for (int k = k0; k < k0 + 3; ++k) {
        trace += dense[static_cast<size_t>(k) * n + k];
        norm2 += row_norm2[k];
      }
      const double w = norm2 > 0.0 ? trace / norm2 : 0.0;
      for (int k = d; k < d + 3; ++k) dof_weight_[k] = w;
      node_weight_[a] = w;
    }
  }
  if (positive) boundStepSpectrum(nthreads);
  return positive;
}

void ContactNodalization::multiply(const double* x, double* y, int threads) const {
  const StepProblem& p = *p_;
  const int n = p.numDof();
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static) nowait
    for (int k = 0; k < n; ++k) y[k] = dofRow(k, x);
#pragma omp for schedule(static)
    for (int a = 0; a < static_cast<int>(p.attachments.size()); ++a) {
      if (direct_dof_[a] >= 0) continue;
      const Attachment& at = p.attachments[a];
      double jv[6];
      compact_.multiplyBlock(p, a, x + p.subsystems[at.subsystem].dof_offset, jv);
      const int o = n + node_offset_[a];
      for (int r = 0; r < at.rows; ++r) y[o + r] = coupling_[a] * (x[o + r] - jv[r]);
    }
  }
}

void ContactNodalization::boundStepSpectrum(int threads) {
  // Power iterations on W A_x from a fixed pseudo-random start (all modes present), so the same
  // problem always gets the same scale.
  const StepProblem& p = *p_;
  const int n = p.numDof(), size = n + numNodeCoordinates();
  step_eigenvalue_ = 0.0;
  step_scale_ = 1.0;
  if (size == 0) return;
  power_[0].resize(size);
  power_[1].resize(size);
  double* z = power_[0].data();
  double* y = power_[1].data();
  std::uint32_t state = 12345u;
  for (int k = 0; k < size; ++k) {
    state = state * 1664525u + 1013904223u;
    z[k] = static_cast<double>(state >> 8) / 16777216.0 - 0.5;
  }
  double estimate = 0.0;
  for (int it = 0; it < kPowerIterations; ++it) {
    double z2 = 0.0;
    for (int k = 0; k < size; ++k) z2 += z[k] * z[k];
    if (!(z2 > 0.0)) return;
    multiply(z, y, threads);
    for (int k = 0; k < n; ++k) y[k] *= dof_weight_[k];
    for (int a = 0; a < static_cast<int>(p.attachments.size()); ++a)
      for (int k = n + node_offset_[a]; k < n + node_offset_[a + 1]; ++k) y[k] *= node_weight_[a];
    double y2 = 0.0;
    for (int k = 0; k < size; ++k) y2 += y[k] * y[k];
    estimate = std::sqrt(y2 / z2);
    if (!(y2 > 0.0) || !std::isfinite(y2)) return;
    const double normalise = 1.0 / std::sqrt(y2);
    for (int k = 0; k < size; ++k) y[k] *= normalise;
    std::swap(z, y);
  }
  step_eigenvalue_ = estimate;
  if (!(estimate > kMaxStepEigenvalue)) return;
  step_scale_ = kMaxStepEigenvalue / estimate;
  for (double& w : dof_weight_) w *= step_scale_;
  for (double& w : node_weight_) w *= step_scale_;
}

void ContactNodalization::findDirectAttachments(const StepProblem& p, bool enabled) {
  // In attachment order, so the same problem always gives the same choice.
  const int na = static_cast<int>(p.attachments.size());
  direct_dof_.assign(na, -1);
  dof_owner_.assign(p.numDof(), -1);
  if (!enabled) return;
  for (int a = 0; a < na; ++a) {
    const Attachment& at = p.attachments[a];
    if (at.rows != 3 || !compact_.compact(a) || compact_.width(a) != 3) continue;
    const int* cols = compact_.columns(a);
    if (cols[1] != cols[0] + 1 || cols[2] != cols[0] + 2) continue;
    const Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(compact_.values(a));
    if (!(R * R.transpose()).isIdentity(1e-12)) continue;
    const int d = p.subsystems[at.subsystem].dof_offset + cols[0];
    if (dof_owner_[d] >= 0 || dof_owner_[d + 1] >= 0 || dof_owner_[d + 2] >= 0) continue;
    direct_dof_[a] = d;
    for (int k = d; k < d + 3; ++k) dof_owner_[k] = a;
  }
}

}  // namespace subsim
