#include "subsim/solvers/sparse_newton_system.hpp"

#include <Eigen/OrderingMethods>
#include <algorithm>

namespace subsim {

namespace {
// The largest dense subsystem ordered as one node (rigid bodies, robot arms; not FEM pieces).
constexpr int kMaxGroupDof = 32;

/// Calls f(row, col, value) with global indices for every stored entry of every A_i, every
/// diagonal entry among them (kept even when zero, so K's diagonal is always in the pattern).
template <class F>
void forEachStoredA(const StepProblem& p, F&& f) {
  for (int i = 0; i < p.numSubsystems(); ++i) {
    const int o = p.subsystems[i].dof_offset;
    p.forEachEntryA(i, [&](int row, int col, double value) { f(o + row, o + col, value); });
  }
}
}  // namespace

void SparseNewtonSystem::assemble(const StepProblem& p) {
  problem_ = &p;
  const int n = p.numDof();
  const int m = p.numRows();
  // Structure from the values: a deformable piece's A_i and its attachment blocks are stored
  // densely but are mostly zeros (a contact on a 370-DOF piece touches 12 columns), and treating
  // those zeros as entries made K's pattern, the scatter lists and J^T D J cost O(dof^2) per
  // attachment.  A zero that becomes nonzero in a later step changes the pattern, which is
  // detected below and only costs a new analysis.
  compact_.prepare(p, 1);
  // The ordering's groups: a dense-stored subsystem of a few DOFs is one node (its A_i couples
  // them all), a larger or sparse one a node per DOF.
  group_begin_.assign(1, 0);
  group_of_dof_.resize(n);
  for (int i = 0; i < p.numSubsystems(); ++i) {
    const Subsystem& s = p.subsystems[i];
    const bool one_node = s.dof <= kMaxGroupDof && !p.isSparse(i);
    for (int d = 0; d < s.dof; ++d) {
      if (!one_node || d == 0) group_begin_.push_back(group_begin_.back());
      group_of_dof_[s.dof_offset + d] = static_cast<int>(group_begin_.size()) - 2;
      ++group_begin_.back();
    }
  }
  int max_dof = 0;
  for (const Subsystem& s : p.subsystems) max_dof = std::max(max_dof, s.dof);
  if (static_cast<int>(all_columns_.size()) < max_dof) {
    all_columns_.resize(max_dof);
    for (int k = 0; k < max_dof; ++k) all_columns_[k] = k;
  }
  triplets_.clear();
  forEachStoredA(p,
                 [&](int row, int col, double value) { triplets_.emplace_back(row, col, value); });
  A_.resize(n, n);
  A_.setFromTriplets(triplets_.begin(), triplets_.end());
  triplets_.clear();
  int max_scratch = 0;
  for (const Constraint& c : p.constraints)
    for (int q = 0; q < c.num_attachments; ++q) {
      const int a = c.first_attachment + q;
      const AttachmentColumns ac = columnsOf(a);
      const int col0 = p.subsystems[p.attachments[a].subsystem].dof_offset;
      for (int r = 0; r < c.rows; ++r)
        for (int k = 0; k < ac.width; ++k)
          triplets_.emplace_back(c.row_offset + r, col0 + ac.columns[k],
                                 ac.values[r * ac.width + k]);
      max_scratch = std::max(max_scratch, c.rows * ac.width);
    }
  J_.resize(m, n);
  J_.setFromTriplets(triplets_.begin(), triplets_.end());
  K_ = A_ + SpMat(SpMat(J_.transpose()) * J_);
  K_.makeCompressed();

  const int* outer = K_.outerIndexPtr();
  const int* inner = K_.innerIndexPtr();
  const bool same_pattern = analysed_ && static_cast<int>(pattern_outer_.size()) == n + 1 &&
                            std::equal(outer, outer + n + 1, pattern_outer_.begin()) &&
                            static_cast<int>(pattern_inner_.size()) == K_.nonZeros() &&
                            std::equal(inner, inner + K_.nonZeros(), pattern_inner_.begin());
  if (!same_pattern) {
    pattern_outer_.assign(outer, outer + n + 1);
    pattern_inner_.assign(inner, inner + K_.nonZeros());
    analysed_ = false;
    lu_analysed_ = false;
  }

  // A on K's pattern.
  a_values_.assign(K_.nonZeros(), 0.0);
  a_entry_.assign(K_.nonZeros(), 0);
  forEachStoredA(p, [&](int row, int col, double value) {
    const int k = fullIndex(row, col);
    a_values_[k] = value;
    a_entry_[k] = 1;
  });

  // Scatter lists and D block offsets.
  const int nc = p.numConstraints();
  block_offset_.resize(nc + 1);
  scatter_begin_.resize(nc + 1);
  scatter_.clear();
  block_offset_[0] = 0;
  scatter_begin_[0] = 0;
  for (int j = 0; j < nc; ++j) {
    const Constraint& c = p.constraints[j];
    for (int q = 0; q < c.num_attachments; ++q) {
      const int aq = c.first_attachment + q;
      const AttachmentColumns cq = columnsOf(aq);
      const int oq = p.subsystems[p.attachments[aq].subsystem].dof_offset;
      for (int pp = 0; pp < c.num_attachments; ++pp) {
        const int ap = c.first_attachment + pp;
        const AttachmentColumns cp = columnsOf(ap);
        const int op = p.subsystems[p.attachments[ap].subsystem].dof_offset;
        for (int k = 0; k < cq.width; ++k)
          for (int l = 0; l < cp.width; ++l)
            scatter_.push_back(fullIndex(oq + cq.columns[k], op + cp.columns[l]));
      }
    }
    block_offset_[j + 1] = block_offset_[j] + c.rows * c.rows;
    scatter_begin_[j + 1] = static_cast<int>(scatter_.size());
  }
  scratch_.resize(max_scratch);
  active_.assign(nc, 1);

  jtj_ready_ = false;
  rhs_perm_.resize(n);
  x_perm_.resize(n);
}

void SparseNewtonSystem::activeMask(std::vector<unsigned char>& mask) const {
  if (!active_pattern_) {
    mask.assign(a_entry_.size(), 1);
    return;
  }
  mask = a_entry_;
  for (size_t j = 0; j < active_.size(); ++j)
    if (active_[j])
      for (int t = scatter_begin_[j]; t < scatter_begin_[j + 1]; ++t) mask[scatter_[t]] = 1;
}

bool SparseNewtonSystem::updateMask() {
  if (analysed_ && (!active_pattern_ || active_ == analysed_active_)) return false;
  // Another set of constraints can give the same entries (two contacts between the same bodies).
  activeMask(mask_scratch_);
  analysed_active_ = active_;
  if (analysed_ && mask_scratch_ == entry_mask_) return false;
  entry_mask_.swap(mask_scratch_);
  return true;
}

int SparseNewtonSystem::activeConstraints() const {
  return static_cast<int>(std::count(active_.begin(), active_.end(), 1));
}

void SparseNewtonSystem::analyse() {
  const int n = static_cast<int>(K_.rows());
  // The masked entries of K_, written straight into compressed storage.
  K_active_.resize(n, n);
  K_active_.resizeNonZeros(static_cast<Eigen::Index>(
      std::count(entry_mask_.begin(), entry_mask_.end(), static_cast<unsigned char>(1))));
  int* active_outer = K_active_.outerIndexPtr();
  int* active_inner = K_active_.innerIndexPtr();
  int next = 0;
  active_outer[0] = 0;
  for (int col = 0; col < n; ++col) {
    for (int k = K_.outerIndexPtr()[col]; k < K_.outerIndexPtr()[col + 1]; ++k)
      if (entry_mask_[k]) {
        active_inner[next] = K_.innerIndexPtr()[k];
        // The value carries the entry's index in K_ through the permutation below (exact: an
        // index is far below 2^53).
        K_active_.valuePtr()[next++] = static_cast<double>(k);
      }
    active_outer[col + 1] = next;
  }
  // Fill-reducing ordering applied here, not inside Eigen, so the LDL^T reads K_upper_ in place.
  // AMD orders the groups (a small dense subsystem's DOFs share their pattern: one node each,
  // a sixth of the work on rigid bodies); a group's DOFs stay together in their order.
  const int groups = static_cast<int>(group_begin_.size()) - 1;
  group_outer_.assign(1, 0);
  group_inner_.clear();
  group_marker_.assign(groups, -1);
  for (int g = 0; g < groups; ++g) {
    const size_t first = group_inner_.size();
    for (int col = group_begin_[g]; col < group_begin_[g + 1]; ++col)
      for (int k = K_active_.outerIndexPtr()[col]; k < K_active_.outerIndexPtr()[col + 1]; ++k) {
        const int row_group = group_of_dof_[K_active_.innerIndexPtr()[k]];
        if (group_marker_[row_group] == g) continue;
        group_marker_[row_group] = g;
        group_inner_.push_back(row_group);
      }
    std::sort(group_inner_.begin() + static_cast<std::ptrdiff_t>(first), group_inner_.end());
    group_outer_.push_back(static_cast<int>(group_inner_.size()));
  }
  group_values_.assign(group_inner_.size(), 1.0);
  const Eigen::Map<const SpMat> group_pattern(
      groups, groups, static_cast<Eigen::Index>(group_inner_.size()), group_outer_.data(),
      group_inner_.data(), group_values_.data());
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> group_order;
  Eigen::AMDOrdering<int>()(SpMat(group_pattern), group_order);
  perm_.resize(n);
  int next_dof = 0;
  for (int k = 0; k < groups; ++k) {
    const int g = group_order.indices()[k];
    for (int d = group_begin_[g]; d < group_begin_[g + 1]; ++d) perm_[d] = next_dof++;
  }
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> P(n);
  std::copy(perm_.begin(), perm_.end(), P.indices().data());
  K_upper_.resize(n, n);
  K_upper_.selfadjointView<Eigen::Upper>() = K_active_.selfadjointView<Eigen::Upper>().twistedBy(P);
  K_upper_.makeCompressed();
  ldlt_.analyzePattern(K_upper_);
  upper_from_full_.resize(K_upper_.nonZeros());
  for (int k = 0; k < K_upper_.nonZeros(); ++k)
    upper_from_full_[k] = static_cast<int>(K_upper_.valuePtr()[k]);
  analysed_ = true;
  ++analyses_;
}

SparseNewtonSystem::AttachmentColumns SparseNewtonSystem::columnsOf(int attachment) const {
  if (compact_.compact(attachment))
    return {compact_.width(attachment), compact_.columns(attachment), compact_.values(attachment)};
  const Attachment& a = problem_->attachments[attachment];
  return {a.dof, all_columns_.data(), problem_->jacobian_data.data() + a.j_offset};
}

int SparseNewtonSystem::fullIndex(int row, int col) const {
  const int* begin = K_.innerIndexPtr() + K_.outerIndexPtr()[col];
  const int* end = K_.innerIndexPtr() + K_.outerIndexPtr()[col + 1];
  const int* it = std::lower_bound(begin, end, row);
  eigen_assert(it != end && *it == row);
  return static_cast<int>(it - K_.innerIndexPtr());
}

void SparseNewtonSystem::fillPenalty(double beta) {
  if (!jtj_ready_) {
    // J^T J on K's pattern, once per assemble() (the Newton solvers never need it): the scatter
    // with D_c = I.
    const StepProblem& p = *problem_;
    DoubleBuffer identity(blockStorageSize(), 0.0);
    for (int j = 0; j < p.numConstraints(); ++j)
      for (int r = 0; r < p.constraints[j].rows; ++r)
        identity[block_offset_[j] + r * p.constraints[j].rows + r] = 1.0;
    fill(identity.data());
    jtj_values_.resize(K_.nonZeros());
    for (int k = 0; k < K_.nonZeros(); ++k) jtj_values_[k] = K_.valuePtr()[k] - a_values_[k];
    jtj_ready_ = true;
  }
  std::fill(active_.begin(), active_.end(), beta != 0.0 ? 1 : 0);
  double* values = K_.valuePtr();
  for (size_t k = 0; k < a_values_.size(); ++k) values[k] = a_values_[k] + beta * jtj_values_[k];
}

void SparseNewtonSystem::fill(const double* blocks) {
  const StepProblem& p = *problem_;
  double* values = K_.valuePtr();
  std::copy(a_values_.begin(), a_values_.end(), values);
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    const double* D = blocks + block_offset_[j];
    active_[j] = std::any_of(D, D + c.rows * c.rows, [](double d) { return d != 0.0; }) ? 1 : 0;
    if (!active_[j]) continue;
    const int* target = scatter_.data() + scatter_begin_[j];
    for (int q = 0; q < c.num_attachments; ++q) {
      const AttachmentColumns cq = columnsOf(c.first_attachment + q);
      for (int pp = 0; pp < c.num_attachments; ++pp) {
        const AttachmentColumns cp = columnsOf(c.first_attachment + pp);
        // scratch = D_c J_p (rows x width_p, row-major), then entry (k, l) = sum_r J_q(r, k)
        // scratch(r, l), over the blocks' nonzero columns.
        const int wp = cp.width, wq = cq.width;
        for (int r = 0; r < c.rows; ++r)
          for (int l = 0; l < wp; ++l) {
            double acc = 0.0;
            for (int s = 0; s < c.rows; ++s) acc += D[r * c.rows + s] * cp.values[s * wp + l];
            scratch_[r * wp + l] = acc;
          }
        for (int k = 0; k < wq; ++k)
          for (int l = 0; l < wp; ++l) {
            double acc = 0.0;
            for (int r = 0; r < c.rows; ++r) acc += cq.values[r * wq + k] * scratch_[r * wp + l];
            values[*target++] += acc;
          }
      }
    }
  }
}

bool SparseNewtonSystem::factorizeSymmetric() {
  if (updateMask()) analyse();
  const double* full = K_.valuePtr();
  double* upper = K_upper_.valuePtr();
  for (size_t k = 0; k < upper_from_full_.size(); ++k) upper[k] = full[upper_from_full_[k]];
  ldlt_.factorizeUpper(K_upper_);
  return ldlt_.info() == Eigen::Success && ldlt_.positiveDiagonal();
}

void SparseNewtonSystem::solveSymmetric(const VecX& rhs, VecX& x) {
  const int n = static_cast<int>(rhs.size());
  for (int i = 0; i < n; ++i) rhs_perm_[perm_[i]] = rhs[i];
  ldlt_.solveInto(rhs_perm_, x_perm_);
  for (int i = 0; i < n; ++i) x[i] = x_perm_[perm_[i]];
}

bool SparseNewtonSystem::factorizeGeneral() {
  if (!lu_analysed_) {
    lu_.analyzePattern(K_);
    lu_analysed_ = true;
  }
  lu_.factorize(K_);
  return lu_.info() == Eigen::Success;
}

void SparseNewtonSystem::solveGeneral(const VecX& rhs, VecX& x) {
  x = lu_.solve(rhs);
}

}  // namespace subsim
