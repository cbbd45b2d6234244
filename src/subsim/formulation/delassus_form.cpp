#include "subsim/formulation/delassus_form.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>

namespace subsim {

bool DelassusForm::build(const StepProblem& p, int threads) {
  p_ = &p;
  if (p.hasLocalForm()) {
    factored_.clear();
    buildLocal(p);
    return true;
  }
  const int ns = p.numSubsystems();
  const int nc = p.numConstraints();
  const int na = static_cast<int>(p.attachments.size());
  const int nr = p.numRows();
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();
  const bool factored = factored_.build(p, nthreads);
  const FactoredSubsystems& f = factored_;
  const CompactJacobian& compact = f.jacobian();

  // Y is laid out subsystem by subsystem, so each subsystem's Y_i = A_i^{-1} [J_a^T ...] is one
  // column-major dof x rows matrix: one blocked triangular solve with many right-hand sides
  // instead of one per attachment.
  y_offset_.resize(na);
  sub_y_offset_.resize(ns + 1);
  int ysize = 0;
  for (int i = 0; i < ns; ++i) {
    sub_y_offset_[i] = ysize;
    for (int s = f.begin(i); s < f.end(i); ++s) {
      const int a = f.attachment(s);
      y_offset_[a] = ysize;
      ysize += p.attachments[a].rows * p.attachments[a].dof;
    }
  }
  sub_y_offset_[ns] = ysize;
  y_.resize(ysize);

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
  mark_.assign(nc, -1);
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
      for (int s = f.begin(i); s < f.end(i); ++s) {
        const int k = f.constraintOf(f.attachment(s));
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

#pragma omp parallel num_threads(nthreads)
  {
    // Y_i = A_i^{-1} J_i^T, all of the subsystem's attachments at once.
#pragma omp for schedule(dynamic)
    for (int i = 0; i < ns; ++i) {
      const Subsystem& sub = p.subsystems[i];
      for (int s = f.begin(i); s < f.end(i); ++s) {
        const Attachment& at = p.attachments[f.attachment(s)];
        Eigen::Map<MatX> Ya(y_.data() + y_offset_[f.attachment(s)], at.dof, at.rows);
        Ya.setZero();
        p.forEachEntryJ(at, [&](int r, int c, double value) { Ya(c, r) = value; });
      }
      const int cols = sub.dof > 0 ? (sub_y_offset_[i + 1] - sub_y_offset_[i]) / sub.dof : 0;
      if (cols == 0) continue;
      Eigen::Map<MatX> Y(y_.data() + sub_y_offset_[i], sub.dof, cols);
      f.factor(i).solveInPlace(Y);
    }
    // Blocks W_jk += J_ji Y_ki over shared subsystems i, and c_j = J_j A^{-1} b + e_j.
#pragma omp for schedule(static)
    for (int j = 0; j < nc; ++j) {
      const Constraint& c = p.constraints[j];
      const int o = c.row_offset;
      std::copy_n(p.e.data() + o, c.rows, c_.data() + o);
      f.addTimes(j, f.freeVelocity(), c_.data() + o);
      int pair = pair_begin_[j];
      for (int q = 0; q < c.num_attachments; ++q) {
        const int a_j = c.first_attachment + q;
        const Attachment& aj = p.attachments[a_j];
        const int i = aj.subsystem;
        for (int s = f.begin(i); s < f.end(i); ++s) {
          const int a = f.attachment(s);
          const int rk = p.constraints[f.constraintOf(a)].rows;
          double* W = blocks_.data() + pair_offset_[pair++];
          const double* Y = y_.data() + y_offset_[a];
          // W_jk += J_j Y_k, column by column of Y_k (J_j v for v = each column).
          double jv[6];
          for (int col = 0; col < rk; ++col) {
            const double* yc = Y + static_cast<size_t>(col) * aj.dof;
            compact.multiplyBlock(p, a_j, yc, jv);
            for (int r = 0; r < c.rows; ++r) W[r * rk + col] += jv[r];
          }
        }
      }
      finishRows(j);
    }
  }
  return factored;
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
      const SoftRowTerms soft = softRowTerms(p, row);
      Wjj[r * c.rows + r] += soft.diagonal;
      c_[row] += soft.rhs;
      fixed_[row] = soft.fixed;
      fixed_value_[row] = soft.value;
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
  factored_.velocity(lambda, vhat);
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
