#include "subsim/solvers/sparse_newton_system.hpp"

#include <Eigen/OrderingMethods>
#include <algorithm>

namespace subsim {

namespace {
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
  if (!same_pattern) analyse();

  // A on K's pattern.
  a_values_.assign(K_.nonZeros(), 0.0);
  forEachStoredA(p,
                 [&](int row, int col, double value) { a_values_[fullIndex(row, col)] = value; });

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

  // J^T J on K's pattern (FADMM's penalty term): the scatter with D_c = I.
  jtj_values_.assign(K_.nonZeros(), 0.0);
  DoubleBuffer identity(blockStorageSize(), 0.0);
  for (int j = 0; j < nc; ++j)
    for (int r = 0; r < p.constraints[j].rows; ++r)
      identity[block_offset_[j] + r * p.constraints[j].rows + r] = 1.0;
  fill(identity.data());
  for (int k = 0; k < K_.nonZeros(); ++k) jtj_values_[k] = K_.valuePtr()[k] - a_values_[k];

  rhs_perm_.resize(n);
  x_perm_.resize(n);
}

void SparseNewtonSystem::analyse() {
  const int n = static_cast<int>(K_.rows());
  // Fill-reducing ordering applied here, not inside Eigen, so the LDL^T reads K_upper_ in place.
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> pinv;
  Eigen::AMDOrdering<int>()(K_, pinv);
  const Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> P = pinv.inverse();
  perm_.assign(P.indices().data(), P.indices().data() + n);
  std::vector<int> perm_inv(n);
  for (int i = 0; i < n; ++i) perm_inv[perm_[i]] = i;
  K_upper_.resize(n, n);
  K_upper_.selfadjointView<Eigen::Upper>() = K_.selfadjointView<Eigen::Upper>().twistedBy(P);
  K_upper_.makeCompressed();
  ldlt_.analyzePattern(K_upper_);
  upper_from_full_.resize(K_upper_.nonZeros());
  for (int col = 0; col < n; ++col)
    for (int k = K_upper_.outerIndexPtr()[col]; k < K_upper_.outerIndexPtr()[col + 1]; ++k)
      upper_from_full_[k] = fullIndex(perm_inv[K_upper_.innerIndexPtr()[k]], perm_inv[col]);
  pattern_outer_.assign(K_.outerIndexPtr(), K_.outerIndexPtr() + n + 1);
  pattern_inner_.assign(K_.innerIndexPtr(), K_.innerIndexPtr() + K_.nonZeros());
  analysed_ = true;
  lu_analysed_ = false;
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
