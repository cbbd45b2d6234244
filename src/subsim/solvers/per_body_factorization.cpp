#include "subsim/solvers/per_body_factorization.hpp"

#include <cmath>

#include "subsim/solvers/branch_sparse_ldlt.hpp"

namespace subsim {

bool PerBodyFactorization::pathCompatible(const StepProblem& p, int i, int a) {
  // The nonzero columns, in descending order, must each be an ancestor of the previous one.
  const Attachment& at = p.attachments[a];
  if (StepProblem::isSparse(at)) return false;  // assembled only for FEM bodies, never trees
  const auto J = p.J(at);
  const int start = static_cast<int>(cols_.size());
  for (int c = at.dof - 1; c >= 0; --c) {
    if (J.col(c).isZero(0.0)) continue;
    if (static_cast<int>(cols_.size()) > start && !p.isDofAncestor(i, c, cols_.back())) {
      cols_.resize(start);
      return false;
    }
    cols_.push_back(c);
  }
  return true;
}

void PerBodyFactorization::prepare(const StepProblem& p, const std::vector<int>& sub_begin,
                                   const std::vector<int>& sub_attachments) {
  const int ns = p.numSubsystems();
  const int nb = static_cast<int>(p.tree_bodies.size());
  enabled_.assign(ns, 0);
  att_body_.assign(p.attachments.size(), -1);
  body_begin_.assign(ns + 1, 0);
  bodies_.clear();
  row_att_begin_.assign(ns + 1, 0);
  row_atts_.clear();
  col_begin_.assign(1, 0);
  cols_.clear();
  gram_.assign(nb, Mat6::Zero());
  force_.assign(nb, Vec6::Zero());
  twist_.assign(nb, Vec6::Zero());
  std::vector<char>& carries = carries_;  // a member: a solve allocates nothing once warm
  carries.assign(nb, 0);
  for (int i = 0; i < ns; ++i) {
    body_begin_[i] = static_cast<int>(bodies_.size());
    row_att_begin_[i] = static_cast<int>(row_atts_.size());
    const Subsystem& s = p.subsystems[i];
    bool ok = s.tree_offset >= 0;
    if (ok) {
      // A_j must have the tree's sparsity (check() verifies it; a problem built by hand may not).
      const auto A = p.A(i);
      for (int k = 0; k < s.dof && ok; ++k)
        for (int l = 0; l < k && ok; ++l) ok = A(k, l) == 0.0 || p.isDofAncestor(i, l, k);
    }
    const int rows_start = static_cast<int>(row_atts_.size());
    const int cols_start = static_cast<int>(cols_.size());
    const int colb_start = static_cast<int>(col_begin_.size());
    for (int q = sub_begin[i]; q < sub_begin[i + 1] && ok; ++q) {
      const int a = sub_attachments[q];
      const Attachment& at = p.attachments[a];
      if (at.body >= 0) {
        const auto L = p.localJacobian(at);
        gram_[at.body].noalias() += L.transpose() * L;
        if (!carries[at.body]) {
          carries[at.body] = 1;
          bodies_.push_back(at.body);
        }
        att_body_[a] = at.body;
      } else if (pathCompatible(p, i, a)) {
        row_atts_.push_back(a);
        col_begin_.push_back(static_cast<int>(cols_.size()));
      } else {
        ok = false;
      }
    }
    if (!ok) {
      // Dense for this subsystem: undo what was gathered for it.
      for (int q = sub_begin[i]; q < sub_begin[i + 1]; ++q) att_body_[sub_attachments[q]] = -1;
      for (size_t k = body_begin_[i]; k < bodies_.size(); ++k) gram_[bodies_[k]].setZero();
      bodies_.resize(body_begin_[i]);
      row_atts_.resize(rows_start);
      cols_.resize(cols_start);
      col_begin_.resize(colb_start);
    }
    enabled_[i] = ok ? 1 : 0;
  }
  body_begin_[ns] = static_cast<int>(bodies_.size());
  row_att_begin_[ns] = static_cast<int>(row_atts_.size());
  // The path of every body that carries constraints, deepest DOF first.
  path_begin_.assign(nb + 1, 0);
  path_.clear();
  for (int b = 0; b < nb; ++b) {
    path_begin_[b] = static_cast<int>(path_.size());
    if (!carries[b] || !enabled_[p.tree_bodies[b].subsystem]) continue;
    const int* parent = parents(p, p.tree_bodies[b].subsystem);
    for (int k = p.tree_bodies[b].deepest_dof; k >= 0; k = parent[k]) path_.push_back(k);
  }
  path_begin_[nb] = static_cast<int>(path_.size());
}

bool PerBodyFactorization::factorize(const StepProblem& p, int i, double beta, double* K) const {
  const Subsystem& s = p.subsystems[i];
  const int n = s.dof;
  std::copy_n(p.a_data.data() + s.a_offset, static_cast<size_t>(n) * n, K);
  // beta J_b^T G_b J_b on the body's path (eq. 40), lower triangle: K(d_a, d_c), d_a >= d_c.
  for (int k = body_begin_[i]; k < body_begin_[i + 1]; ++k) {
    const int b = bodies_[k];
    const double* Jb = p.tree_body_jacobian_data.data() + p.tree_bodies[b].j_offset;
    for (int pc = path_begin_[b]; pc < path_begin_[b + 1]; ++pc) {
      const int dc = path_[pc];
      Vec6 jc;
      for (int r = 0; r < 6; ++r) jc[r] = Jb[r * n + dc];
      const Vec6 w = beta * (gram_[b] * jc);
      // Path entries before pc are deeper (larger) DOFs.
      for (int pa = path_begin_[b]; pa <= pc; ++pa) {
        const int da = path_[pa];
        double acc = 0.0;
        for (int r = 0; r < 6; ++r) acc += Jb[r * n + da] * w[r];
        K[da + static_cast<size_t>(dc) * n] += acc;
      }
    }
  }
  // beta J_r^T J_r of the rows without a factor, on their (path) columns.
  for (int k = row_att_begin_[i]; k < row_att_begin_[i + 1]; ++k) {
    const Attachment& at = p.attachments[row_atts_[k]];
    const auto J = p.J(at);
    for (int ca = col_begin_[k]; ca < col_begin_[k + 1]; ++ca)
      for (int cc = ca; cc < col_begin_[k + 1]; ++cc)  // cols_ descending: cols_[ca] >= cols_[cc]
        K[cols_[ca] + static_cast<size_t>(cols_[cc]) * n] +=
            beta * J.col(cols_[ca]).dot(J.col(cols_[cc]));
  }
  return branch_ldlt::factorize(K, n, parents(p, i));
}

void PerBodyFactorization::addBodyForce(const StepProblem& p, int a, const double* w) {
  const Attachment& at = p.attachments[a];
  const double* L = p.local_jacobian_data.data() + at.local_offset;
  Vec6& f = force_[att_body_[a]];
  for (int r = 0; r < at.rows; ++r)
    for (int c = 0; c < 6; ++c) f[c] += L[6 * r + c] * w[r];
}

void PerBodyFactorization::applyBodyForces(const StepProblem& p, int i, double* rhs) {
  const int n = p.subsystems[i].dof;
  for (int k = body_begin_[i]; k < body_begin_[i + 1]; ++k) {
    const int b = bodies_[k];
    const double* Jb = p.tree_body_jacobian_data.data() + p.tree_bodies[b].j_offset;
    const Vec6& f = force_[b];
    for (int pc = path_begin_[b]; pc < path_begin_[b + 1]; ++pc) {
      const int d = path_[pc];
      double acc = 0.0;
      for (int r = 0; r < 6; ++r) acc += Jb[r * n + d] * f[r];
      rhs[d] += acc;
    }
    force_[b].setZero();
  }
}

void PerBodyFactorization::solve(const StepProblem& p, int i, const double* K, double* x) const {
  branch_ldlt::solveInPlace(K, p.subsystems[i].dof, parents(p, i), x);
}

void PerBodyFactorization::updateBodyTwists(const StepProblem& p, int i, const double* v) {
  const int n = p.subsystems[i].dof;
  for (int k = body_begin_[i]; k < body_begin_[i + 1]; ++k) {
    const int b = bodies_[k];
    const double* Jb = p.tree_body_jacobian_data.data() + p.tree_bodies[b].j_offset;
    Vec6 t = Vec6::Zero();
    for (int pc = path_begin_[b]; pc < path_begin_[b + 1]; ++pc) {
      const int d = path_[pc];
      for (int r = 0; r < 6; ++r) t[r] += Jb[r * n + d] * v[d];
    }
    twist_[b] = t;
  }
}

void PerBodyFactorization::multiplyJ(const StepProblem& p, int a, double* out) const {
  const Attachment& at = p.attachments[a];
  const double* L = p.local_jacobian_data.data() + at.local_offset;
  const Vec6& t = twist_[att_body_[a]];
  for (int r = 0; r < at.rows; ++r) {
    const double* row = L + 6 * r;
    out[r] = row[0] * t[0] + row[1] * t[1] + row[2] * t[2] + row[3] * t[3] + row[4] * t[4] +
             row[5] * t[5];
  }
}

}  // namespace subsim
