#include "subsim/formulation/contact_nodalization.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>

#include <Eigen/Eigenvalues>

namespace subsim {

namespace {
/// sum_r k_r x_r y_r over a virtual node's rows.
double weightedDot(const double* k, const double* x, const double* y, int rows) {
  double sum = 0.0;
  for (int r = 0; r < rows; ++r) sum += k[r] * x[r] * y[r];
  return sum;
}
}  // namespace

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

  attachment_constraint_.resize(na);
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    std::fill_n(attachment_constraint_.begin() + c.first_attachment, c.num_attachments, j);
  }
  coupling_.resize(numNodeCoordinates());
  node_weight_.resize(numNodeCoordinates());
  direct_weight_.assign(na, 0.0);
  dof_weight_.resize(p.numDof());
  row_begin_.resize(p.numDof());
  row_end_.resize(p.numDof());
  // The nonzero columns of every virtual attachment (compressed over attachments) with their
  // values: the compact form's where it has one, else a scan of the dense block (a grip on many
  // nodes).
  att_col_begin_.assign(na + 1, 0);
  att_cols_.clear();
  entry_attachment_.clear();
  att_values_.clear();
  for (int a = 0; a < na; ++a) {
    if (direct_dof_[a] < 0) {
      const Attachment& at = p.attachments[a];
      const auto addColumn = [&](int c, auto value) {
        att_cols_.push_back(c);
        entry_attachment_.push_back(a);
        const size_t base = att_values_.size();
        att_values_.resize(base + kMaxRows, 0.0);
        for (int r = 0; r < at.rows; ++r) att_values_[base + r] = value(r);
      };
      if (compact_.compact(a)) {
        const int width = compact_.width(a);
        const double* values = compact_.values(a);
        for (int e = 0; e < width; ++e)
          addColumn(compact_.columns(a)[e], [&](int r) { return values[r * width + e]; });
      } else {
        const auto J = p.J(at);
        for (int c = 0; c < at.dof; ++c)
          if (!J.col(c).isZero(0.0)) addColumn(c, [&](int r) { return J(r, c); });
      }
    }
    att_col_begin_[a + 1] = static_cast<int>(att_cols_.size());
  }
  // Slots: a bound on row entries per subsystem, A_i's stored values (at most dof^2 with the
  // fill of k_a J_a^T J_a) and rows x width per virtual attachment for -k_a J_a^T.
  slot_.assign(ns + 1, 0);
  for (int i = 0; i < ns; ++i) {
    const long long n = p.subsystems[i].dof;
    long long block = p.storedValues(i), coupling = 0;
    for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
      const int a = sub_attachments_[q];
      const long long w = att_col_begin_[a + 1] - att_col_begin_[a];
      block += w * w;
      coupling += p.attachments[a].rows * w;
    }
    slot_[i + 1] = slot_[i] + static_cast<int>(std::min(block, n * n) + coupling);
  }
  column_.resize(slot_[ns]);
  value_.resize(slot_[ns]);
  if (static_cast<int>(scratch_.size()) < nthreads) scratch_.resize(nthreads);
  bool positive = true;

#pragma omp parallel for schedule(dynamic) num_threads(nthreads) reduction(&& : positive)
  for (int i = 0; i < ns; ++i)
    positive = buildSubsystemRows(p, i, options, scratch_[omp_get_thread_num()]) && positive;
  if (positive) boundStepSpectrum(nthreads);
  return positive;
}

bool ContactNodalization::buildSubsystemRows(const StepProblem& p, int i,
                                             const NodalizationOptions& options, RowScratch& w) {
  const Subsystem& sub = p.subsystems[i];
  const int n = sub.dof;
  // A_i's diagonal, and its column k (= row k: A_i is symmetric) in either storage.
  w.diagonal.resize(n);
  if (p.isSparse(i)) {
    const auto A = p.sparseA(i);
    for (int k = 0; k < n; ++k) w.diagonal[k] = A.coeff(k, k);
  } else {
    for (int k = 0; k < n; ++k) w.diagonal[k] = p.A(i)(k, k);
  }
  bool positive = true;
  for (int k = 0; k < n; ++k) positive = positive && w.diagonal[k] > 0.0;
  // k_a and wbar_a (the node's Frobenius weight) of every attachment on i, and per DOF the
  // virtual attachments whose block has a nonzero column there (compressed, in attachment order).
  w.touch_begin.assign(n + 1, 0);
  for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
    const int a = sub_attachments_[q];
    const Attachment& at = p.attachments[a];
    if (direct_dof_[a] >= 0) continue;
    // Per row: ||J_a(r, :)||^2 and d_ar.
    double norm2[kMaxRows] = {}, inverse_mass[kMaxRows] = {};
    for (int e = att_col_begin_[a]; e < att_col_begin_[a + 1]; ++e) {
      const int c = att_cols_[e];
      const double* column = entryColumn(e);
      for (int r = 0; r < at.rows; ++r) {
        norm2[r] += column[r] * column[r];
        inverse_mass[r] += column[r] * column[r] / std::max(w.diagonal[c], 1e-300);
      }
      ++w.touch_begin[c + 1];
    }
    // A row without entries couples nothing: any k keeps the node at rest with it.
    const double fallback = n / std::accumulate(w.diagonal.begin(), w.diagonal.end(), 0.0);
    const auto ratioCoupling = [&](double d) {
      return options.kv_ratio / (d > 0.0 ? d : fallback);
    };
    double* k = coupling_.data() + node_offset_[a];
    double* weight = node_weight_.data() + node_offset_[a];
    const Constraint& constraint = p.constraints[attachment_constraint_[a]];
    if (constraint.type == ConstraintType::Contact) {
      double mean = 0.0, total2 = 0.0;
      for (int r = 0; r < at.rows; ++r) {
        mean += inverse_mass[r] / at.rows;
        total2 += norm2[r];
      }
      const double ka = options.kv > 0.0 ? options.kv * p.dt : ratioCoupling(mean);
      std::fill_n(k, at.rows, ka);
      std::fill_n(weight, at.rows, at.rows / (ka * (at.rows + total2)));
    } else {
      // A soft row is a damper c in series with the node: its own compliance is at most 1 / c.
      const double* damping = p.soft_c.data() + constraint.row_offset;
      const bool soft = constraint.type == ConstraintType::Soft;
      for (int r = 0; r < at.rows; ++r) {
        const double own = soft && damping[r] > 0.0 ? std::min(inverse_mass[r], 1.0 / damping[r])
                                                    : inverse_mass[r];
        k[r] = options.kv > 0.0 ? options.kv * p.dt : ratioCoupling(own);
        weight[r] = 1.0 / (k[r] * (1.0 + norm2[r]));
      }
    }
  }
  for (int k = 0; k < n; ++k) w.touch_begin[k + 1] += w.touch_begin[k];
  w.touch.resize(w.touch_begin[n]);
  w.mark.assign(w.touch_begin.begin(), w.touch_begin.end() - 1);  // fill cursors
  for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
    const int a = sub_attachments_[q];
    if (direct_dof_[a] >= 0) continue;
    for (int e = att_col_begin_[a]; e < att_col_begin_[a + 1]; ++e)
      w.touch[w.mark[att_cols_[e]]++] = e;
  }

  // Row k of the augmented block A_i + sum_a k_a J_a^T J_a, gathered in a dense accumulator over
  // the columns it reaches (A_i's entries and the cliques of the attachments at k), then stored
  // compressed with the DOF's Frobenius weight; the row also holds -k_a J_a^T, the coupling to the
  // nodes.  O(entries) per row in either storage, so a sparse 14681-DOF block costs its nonzeros.
  w.accumulator.assign(n, 0.0);
  w.mark.assign(n, 0);
  w.row_norm2.resize(n);
  w.row_diagonal.resize(n);
  int slot = slot_[i];
  const auto gather = [&](int c, double v) {
    if (w.mark[c] == 0) {
      w.mark[c] = 1;
      w.list.push_back(c);
    }
    w.accumulator[c] += v;
  };
  for (int k = 0; k < n; ++k) {
    w.list.clear();
    if (p.isSparse(i)) {
      const auto A = p.sparseA(i);
      for (decltype(A)::InnerIterator it(A, k); it; ++it)
        gather(static_cast<int>(it.row()), it.value());
    } else {
      const double* column = p.a_data.data() + sub.a_offset + static_cast<size_t>(k) * n;
      for (int c = 0; c < n; ++c)
        if (column[c] != 0.0) gather(c, column[c]);
    }
    double coupling_norm2 = 0.0;  // sum_a sum_r k_ar^2 J_a(r, k)^2
    for (int t = w.touch_begin[k]; t < w.touch_begin[k + 1]; ++t) {
      const int a = entry_attachment_[w.touch[t]];
      const int rows = p.attachments[a].rows;
      const double* column_k = entryColumn(w.touch[t]);
      const double* ka = coupling_.data() + node_offset_[a];
      for (int r = 0; r < rows; ++r) coupling_norm2 += ka[r] * ka[r] * column_k[r] * column_k[r];
      for (int e = att_col_begin_[a]; e < att_col_begin_[a + 1]; ++e)
        gather(att_cols_[e], weightedDot(ka, column_k, entryColumn(e), rows));
    }
    std::sort(w.list.begin(), w.list.end());
    const int row = sub.dof_offset + k;
    row_begin_[row] = slot;
    double norm2 = coupling_norm2;
    for (const int c : w.list) {
      const double v = w.accumulator[c];
      w.accumulator[c] = 0.0;
      w.mark[c] = 0;
      if (v == 0.0) continue;
      column_[slot] = sub.dof_offset + c;
      value_[slot++] = v;
      norm2 += v * v;
    }
    w.row_diagonal[k] = w.diagonal[k];
    for (int t = w.touch_begin[k]; t < w.touch_begin[k + 1]; ++t) {
      const int a = entry_attachment_[w.touch[t]];
      const int rows = p.attachments[a].rows;
      const double* column_k = entryColumn(w.touch[t]);
      const double* ka = coupling_.data() + node_offset_[a];
      w.row_diagonal[k] += weightedDot(ka, column_k, column_k, rows);
      for (int r = 0; r < rows; ++r) {
        if (column_k[r] == 0.0) continue;
        column_[slot] = p.numDof() + node_offset_[a] + r;
        value_[slot++] = -ka[r] * column_k[r];
      }
    }
    row_end_[row] = slot;
    dof_weight_[row] = norm2 > 0.0 ? w.row_diagonal[k] / norm2 : 0.0;
    w.row_norm2[k] = norm2;
  }
  // A direct node's 3 DOF share wbar = trace / (sum of the 3 rows' squared norms).
  for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
    const int a = sub_attachments_[q];
    const int d = direct_dof_[a];
    if (d < 0) continue;
    const int k0 = d - sub.dof_offset;
    double trace = 0.0, norm2 = 0.0;
    for (int k = k0; k < k0 + 3; ++k) {
      trace += w.row_diagonal[k];
      norm2 += w.row_norm2[k];
    }
    const double wbar = norm2 > 0.0 ? trace / norm2 : 0.0;
    for (int k = d; k < d + 3; ++k) dof_weight_[k] = wbar;
    direct_weight_[a] = wbar;
  }
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
      for (int r = 0; r < at.rows; ++r) y[o + r] = coupling_[o - n + r] * (x[o + r] - jv[r]);
    }
  }
}

void ContactNodalization::boundStepSpectrum(int threads) {
  // lambda_max(W A_x) = lambda_max(B), B = W^1/2 A_x W^1/2 symmetric (A_x is SPD, W diagonal
  // positive), by kLanczosSteps Lanczos steps on B from a fixed pseudo-random start (all modes
  // present), so the same problem always gets the same scale.  The largest Ritz value is a lower
  // bound that converges far faster than power iterations (measured on softmat, softball and
  // cablewind: 10 steps land within 1.5 % of the 80-step value, 20 power iterations within 3 %
  // at twice the products).
  const StepProblem& p = *p_;
  const int n = p.numDof(), size = n + numNodeCoordinates();
  step_eigenvalue_ = 0.0;
  step_scale_ = 1.0;
  if (size == 0) return;
  for (DoubleBuffer& v : lanczos_) v.resize(size);
  double* root_w = lanczos_[0].data();
  double* q_prev = lanczos_[1].data();
  double* q = lanczos_[2].data();
  double* y = lanczos_[3].data();
  double* aq = lanczos_[4].data();
  for (int k = 0; k < n; ++k) root_w[k] = std::sqrt(dof_weight_[k]);
  for (int k = n; k < size; ++k) root_w[k] = std::sqrt(node_weight_[k - n]);
  std::uint32_t state = 12345u;
  double q2 = 0.0;
  for (int k = 0; k < size; ++k) {
    state = state * 1664525u + 1013904223u;
    q[k] = static_cast<double>(state >> 8) / 16777216.0 - 0.5;
    q2 += q[k] * q[k];
  }
  for (int k = 0; k < size; ++k) q[k] /= std::sqrt(q2);
  std::fill_n(q_prev, size, 0.0);
  using Tridiagonal = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kLanczosSteps, 1>;
  Tridiagonal alpha(kLanczosSteps), beta(kLanczosSteps);
  int steps = 0;
  double beta_prev = 0.0;
  while (steps < kLanczosSteps) {
    // y = B q - beta_{j-1} q_{j-1} (y holds W^1/2 q while A_x multiplies it).
    for (int k = 0; k < size; ++k) y[k] = root_w[k] * q[k];
    multiply(y, aq, threads);
    double a = 0.0;
    for (int k = 0; k < size; ++k) {
      y[k] = root_w[k] * aq[k] - beta_prev * q_prev[k];
      a += y[k] * q[k];
    }
    double b2 = 0.0;
    for (int k = 0; k < size; ++k) {
      y[k] -= a * q[k];
      b2 += y[k] * y[k];
    }
    if (!std::isfinite(a) || !std::isfinite(b2)) return;
    alpha[steps++] = a;
    const double b = std::sqrt(b2);
    if (!(b > 1e-12 * std::abs(a))) break;  // an invariant subspace: its Ritz values are exact
    beta[steps - 1] = b;
    for (int k = 0; k < size; ++k) {
      q_prev[k] = q[k];
      q[k] = y[k] / b;
    }
    beta_prev = b;
  }
  Eigen::SelfAdjointEigenSolver<
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kLanczosSteps, kLanczosSteps>>
      ritz;
  ritz.computeFromTridiagonal(alpha.head(steps), beta.head(steps - 1), Eigen::EigenvaluesOnly);
  const double estimate = ritz.eigenvalues().maxCoeff();
  if (!std::isfinite(estimate)) return;
  step_eigenvalue_ = estimate;
  if (!(estimate > kMaxStepEigenvalue)) return;
  step_scale_ = kMaxStepEigenvalue / estimate;
  for (double& w : dof_weight_) w *= step_scale_;
  for (double& w : node_weight_) w *= step_scale_;
  for (double& w : direct_weight_) w *= step_scale_;
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
