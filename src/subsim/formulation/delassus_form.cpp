#include "subsim/formulation/delassus_form.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

namespace subsim {

bool DelassusForm::build(const StepProblem& p, int threads) {
  p_ = &p;
  if (p.hasLocalForm()) {
    buildLocal(p);
    return true;
  }
  const int ns = p.numSubsystems();
  const int nc = p.numConstraints();
  const int na = static_cast<int>(p.attachments.size());
  const int nr = p.numRows();
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();

  // Subsystem -> attachments (CSR) and attachment -> constraint.  Y is laid out subsystem by
  // subsystem, so each subsystem's Y_i = A_i^{-1} [J_a^T ...] is one column-major dof x rows
  // matrix: one blocked triangular solve with many right-hand sides instead of one per attachment.
  sub_begin_.assign(ns + 1, 0);
  att_constraint_.resize(na);
  y_offset_.resize(na);
  for (int j = 0; j < nc; ++j) {
    const Constraint& c = p.constraints[j];
    for (int q = 0; q < c.num_attachments; ++q) {
      const int a = c.first_attachment + q;
      att_constraint_[a] = j;
      ++sub_begin_[p.attachments[a].subsystem + 1];
    }
  }
  for (int i = 0; i < ns; ++i) sub_begin_[i + 1] += sub_begin_[i];
  sub_attachments_.resize(na);
  mark_.assign(std::max(nc, ns), 0);
  for (int i = 0; i < ns; ++i) mark_[i] = sub_begin_[i];
  for (int a = 0; a < na; ++a) sub_attachments_[mark_[p.attachments[a].subsystem]++] = a;
  sub_y_offset_.resize(ns + 1);
  int ysize = 0;
  for (int i = 0; i < ns; ++i) {
    sub_y_offset_[i] = ysize;
    for (int s = sub_begin_[i]; s < sub_begin_[i + 1]; ++s) {
      const int a = sub_attachments_[s];
      y_offset_[a] = ysize;
      ysize += p.attachments[a].rows * p.attachments[a].dof;
    }
  }
  sub_y_offset_[ns] = ysize;
  y_.resize(ysize);
  compact_.prepare(p, nthreads);

  // Block structure: the diagonal block, then the neighbours of each constraint in the order they
  // are met through its attachments (deterministic), each once.  pair_offset_ lists, in that
  // traversal order, the block each (attachment of j, attachment on the same subsystem) pair adds
  // to, so the numeric pass needs no search.
  diag_offset_.resize(nc);
  nb_begin_.resize(nc + 1);
  nb_constraint_.clear();
  nb_offset_.clear();
  pair_begin_.resize(nc + 1);
  pair_offset_.clear();
  int bsize = 0;
  std::fill(mark_.begin(), mark_.end(), -1);
  block_of_.resize(nc);
  for (int j = 0; j < nc; ++j) {
    const Constraint& c = p.constraints[j];
    diag_offset_[j] = bsize;
    bsize += c.rows * c.rows;
    nb_begin_[j] = static_cast<int>(nb_constraint_.size());
    pair_begin_[j] = static_cast<int>(pair_offset_.size());
    mark_[j] = j;
    block_of_[j] = diag_offset_[j];
    for (int q = 0; q < c.num_attachments; ++q) {
      const int i = p.attachments[c.first_attachment + q].subsystem;
      for (int s = sub_begin_[i]; s < sub_begin_[i + 1]; ++s) {
        const int k = att_constraint_[sub_attachments_[s]];
        if (mark_[k] != j) {
          mark_[k] = j;
          nb_constraint_.push_back(k);
          nb_offset_.push_back(bsize);
          block_of_[k] = bsize;
          bsize += c.rows * p.constraints[k].rows;
        }
        pair_offset_.push_back(block_of_[k]);
      }
    }
  }
  pair_begin_[nc] = static_cast<int>(pair_offset_.size());
  nb_begin_[nc] = static_cast<int>(nb_constraint_.size());
  blocks_.assign(bsize, 0.0);
  c_.resize(nr);
  d_.resize(nr);
  inv_d_.resize(nr);
  fixed_value_.assign(nr, 0.0);
  fixed_.assign(nr, 0);
  llt_.resize(ns);
  llt_failed_.assign(ns, 0);
  free_v_.resize(p.numDof());

#pragma omp parallel num_threads(nthreads)
  {
    // Factor A_i, Y_i = A_i^{-1} J_i^T (all of the subsystem's attachments at once), free
    // velocity A_i^{-1} b_i.
#pragma omp for schedule(dynamic)
    for (int i = 0; i < ns; ++i) {
      const Subsystem& sub = p.subsystems[i];
      llt_failed_[i] = !llt_[i].compute(p, i);
      Eigen::Map<VecX> v(free_v_.data() + sub.dof_offset, sub.dof);
      v = p.bBlock(i);
      llt_[i].solveInPlace(v);
      for (int s = sub_begin_[i]; s < sub_begin_[i + 1]; ++s) {
        const Attachment& at = p.attachments[sub_attachments_[s]];
        Eigen::Map<MatX> Ya(y_.data() + y_offset_[sub_attachments_[s]], at.dof, at.rows);
        Ya.setZero();
        p.forEachEntryJ(at, [&](int r, int c, double value) { Ya(c, r) = value; });
      }
      const int cols = sub.dof > 0 ? (sub_y_offset_[i + 1] - sub_y_offset_[i]) / sub.dof : 0;
      if (cols == 0) continue;
      Eigen::Map<MatX> Y(y_.data() + sub_y_offset_[i], sub.dof, cols);
      llt_[i].solveInPlace(Y);
    }
    // Blocks W_jk += J_ji Y_ki over shared subsystems i, and c_j = J_j A^{-1} b + e_j.
#pragma omp for schedule(static)
    for (int j = 0; j < nc; ++j) {
      const Constraint& c = p.constraints[j];
      const int o = c.row_offset;
      for (int r = 0; r < c.rows; ++r) c_[o + r] = p.e[o + r];
      int pair = pair_begin_[j];
      for (int q = 0; q < c.num_attachments; ++q) {
        const int a_j = c.first_attachment + q;
        const Attachment& aj = p.attachments[a_j];
        const int i = aj.subsystem;
        const double* vfree = free_v_.data() + p.subsystems[i].dof_offset;
        double jv[6];
        compact_.multiplyBlock(p, a_j, vfree, jv);
        for (int r = 0; r < c.rows; ++r) c_[o + r] += jv[r];
        for (int s = sub_begin_[i]; s < sub_begin_[i + 1]; ++s) {
          const int a = sub_attachments_[s];
          const int rk = p.constraints[att_constraint_[a]].rows;
          double* W = blocks_.data() + pair_offset_[pair++];
          const double* Y = y_.data() + y_offset_[a];
          // W_jk += J_j Y_k, column by column of Y_k (J_j v for v = each column).
          for (int col = 0; col < rk; ++col) {
            const double* yc = Y + static_cast<size_t>(col) * aj.dof;
            compact_.multiplyBlock(p, a_j, yc, jv);
            for (int r = 0; r < c.rows; ++r) W[r * rk + col] += jv[r];
          }
        }
      }
      finishRows(j);
    }
  }
  return std::find(llt_failed_.begin(), llt_failed_.end(), 1) == llt_failed_.end();
}

void DelassusForm::finishRows(int j) {
  const StepProblem& p = *p_;
  const Constraint& c = p.constraints[j];
  const int o = c.row_offset;
  // Soft regularisation and the per-row scaling D.
  double* Wjj = blocks_.data() + diag_offset_[j];
  for (int r = 0; r < c.rows; ++r) {
    const int row = o + r;
    if (c.type == ConstraintType::Soft) {
      const double damping = p.soft_c[row];
      if (damping > 0.0) {
        Wjj[r * c.rows + r] += 1.0 / damping;
        c_[row] += (p.soft_k[row] / damping - 1.0) * p.e[row];
      } else {
        fixed_[row] = 1;
        fixed_value_[row] = -p.soft_k[row] * p.e[row];
      }
    }
    d_[row] = Wjj[r * c.rows + r];
  }
  if (c.type == ConstraintType::Contact) d_[o + 1] = d_[o + 2] = std::max(d_[o + 1], d_[o + 2]);
  for (int r = 0; r < c.rows; ++r) {
    const int row = o + r;
    if (fixed_[row] || !(d_[row] > 0.0)) {
      d_[row] = 0.0;
      inv_d_[row] = 0.0;
    } else {
      inv_d_[row] = 1.0 / d_[row];
    }
  }
}

void DelassusForm::buildLocal(const StepProblem& p) {
  // W is given (StepProblem::local_w): its entries are sorted into the same blocks as a built W,
  // the diagonal block of each constraint and, in the order its rows first meet them, its
  // neighbours; c = q (stored as e).  No subsystems, so velocity() has nothing to do.
  const LocalDelassus& w = p.local_w;
  const int nc = p.numConstraints();
  const int nr = p.numRows();
  sub_begin_.assign(1, 0);
  llt_.clear();
  llt_failed_.clear();
  free_v_.clear();
  row_constraint_.resize(nr);
  for (int j = 0; j < nc; ++j)
    for (int r = 0; r < p.constraints[j].rows; ++r)
      row_constraint_[p.constraints[j].row_offset + r] = j;
  diag_offset_.resize(nc);
  nb_begin_.resize(nc + 1);
  nb_constraint_.clear();
  nb_offset_.clear();
  mark_.assign(nc, -1);
  block_of_.resize(nc);
  int bsize = 0;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) blocks_.assign(bsize, 0.0);
    bsize = 0;
    std::fill(mark_.begin(), mark_.end(), -1);
    nb_constraint_.clear();
    nb_offset_.clear();
    for (int j = 0; j < nc; ++j) {
      const Constraint& c = p.constraints[j];
      diag_offset_[j] = bsize;
      bsize += c.rows * c.rows;
      nb_begin_[j] = static_cast<int>(nb_constraint_.size());
      mark_[j] = j;
      block_of_[j] = diag_offset_[j];
      for (int r = 0; r < c.rows; ++r) {
        const int row = c.row_offset + r;
        for (int e = w.row_begin[row]; e < w.row_begin[row + 1]; ++e) {
          const int k = row_constraint_[w.column[e]];
          const Constraint& ck = p.constraints[k];
          if (mark_[k] != j) {
            mark_[k] = j;
            nb_constraint_.push_back(k);
            nb_offset_.push_back(bsize);
            block_of_[k] = bsize;
            bsize += c.rows * ck.rows;
          }
          if (pass == 1)
            blocks_[block_of_[k] + r * ck.rows + (w.column[e] - ck.row_offset)] = w.value[e];
        }
      }
    }
    nb_begin_[nc] = static_cast<int>(nb_constraint_.size());
  }
  c_.assign(p.e.begin(), p.e.end());
  d_.resize(nr);
  inv_d_.resize(nr);
  fixed_value_.assign(nr, 0.0);
  fixed_.assign(nr, 0);
  for (int j = 0; j < nc; ++j) finishRows(j);
}

void DelassusForm::multiply(const double* x, double* y) const {
  for (int j = 0; j < numConstraints(); ++j) multiplyBlock(j, x, y + p_->constraints[j].row_offset);
}

void DelassusForm::velocity(const double* lambda, double* vhat) const {
  const StepProblem& p = *p_;
  for (int i = 0; i < p.numSubsystems(); ++i) {
    const Subsystem& sub = p.subsystems[i];
    double* v = vhat + sub.dof_offset;
    std::copy_n(p.b.data() + sub.dof_offset, sub.dof, v);
    for (int s = sub_begin_[i]; s < sub_begin_[i + 1]; ++s) {
      const int a = sub_attachments_[s];
      compact_.addTransposeTimesBlock(p, a, lambda + p.constraints[att_constraint_[a]].row_offset,
                                      v);
    }
    Eigen::Map<VecX> vm(v, sub.dof);
    llt_[i].solveInPlace(vm);
  }
}

MatX DelassusForm::dense() const {
  const StepProblem& p = *p_;
  MatX W = MatX::Zero(numRows(), numRows());
  for (int j = 0; j < numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    W.block(c.row_offset, c.row_offset, c.rows, c.rows) =
        Eigen::Map<const RowMajorMatX>(diagonalBlock(j), c.rows, c.rows);
    for (int e = nb_begin_[j]; e < nb_begin_[j + 1]; ++e) {
      const Constraint& ck = p.constraints[nb_constraint_[e]];
      W.block(c.row_offset, ck.row_offset, c.rows, ck.rows) =
          Eigen::Map<const RowMajorMatX>(neighbourBlock(e), c.rows, ck.rows);
    }
  }
  return W;
}

}  // namespace subsim
