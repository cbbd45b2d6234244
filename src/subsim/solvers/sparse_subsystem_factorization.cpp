#include "subsim/solvers/sparse_subsystem_factorization.hpp"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cstddef>

namespace subsim {

namespace {
constexpr int kB = 3;  // block size: a node's DOF

// The 3x3 block of a column-major n x n matrix whose first entry is at `first`.
Mat3 block(const double* A, int n, int first) {
  Mat3 m;
  for (int c = 0; c < kB; ++c)
    for (int r = 0; r < kB; ++r) m(r, c) = A[first + r + static_cast<size_t>(n) * c];
  return m;
}
}  // namespace

void SparseSubsystemFactorization::resize(int num_subsystems) {
  enabled_.assign(num_subsystems, 0);
  if (static_cast<int>(parts_.size()) < num_subsystems) parts_.resize(num_subsystems);
}

int SparseSubsystemFactorization::factorNonZeros(int i) const {
  return uses(i) ? kB * kB * parts_[i].lp[parts_[i].nb] : 0;
}

void SparseSubsystemFactorization::analyse(const StepProblem& p, int i, const int* atts,
                                           int num_atts, const CompactJacobian& jac, bool candidate,
                                           int min_dof, bool only_form) {
  enabled_[i] = 0;
  const int n = p.subsystems[i].dof;
  const bool stored_sparse = p.isSparse(i);
  if (!only_form && (!candidate || n < min_dof)) return;
  if (!fits(p, i, atts, num_atts, jac)) return;
  const int nb = n / kB;
  Part& part = parts_[i];
  // Clique partners of every node (CSR; repeats are harmless to the scan below).
  part.clique_ptr.assign(nb + 1, 0);
  for (int q = 0; q < num_atts; ++q) {
    const int w = jac.width(atts[q]);
    const int* cols = jac.columns(atts[q]);
    for (int k = 0; k < w; ++k) part.clique_ptr[cols[k] / kB + 1] += w;
  }
  for (int c = 0; c < nb; ++c) part.clique_ptr[c + 1] += part.clique_ptr[c];
  part.clique_idx.resize(part.clique_ptr[nb]);
  part.mark.assign(part.clique_ptr.begin(), part.clique_ptr.end() - 1);  // fill cursors
  for (int q = 0; q < num_atts; ++q) {
    const int w = jac.width(atts[q]);
    const int* cols = jac.columns(atts[q]);
    for (int k = 0; k < w; ++k)
      for (int l = 0; l < w; ++l) part.clique_idx[part.mark[cols[k] / kB]++] = cols[l] / kB;
  }
  // The block pattern, node column by node column: A_i's nonzero blocks (read from its sparse
  // pattern, or from its dense block three rows at a time, without branches), the diagonal, and
  // the clique partners.
  const double* A = p.a_data.data() + p.subsystems[i].a_offset;
  const int* a_begin =
      stored_sparse ? p.sparse_pattern.data() + p.subsystems[i].pattern_offset : nullptr;
  const int* a_row = stored_sparse ? a_begin + n + 1 : nullptr;
  const size_t max_nnz =
      only_form ? static_cast<size_t>(nb) * nb : static_cast<size_t>(kMaxDensity * nb * nb);
  part.mark.resize(nb);
  part.new_ptr.resize(nb + 1);
  part.new_ptr[0] = 0;
  part.new_idx.clear();
  int* any = part.mark.data();
  for (int c = 0; c < nb; ++c) {
    std::fill_n(any, nb, 0);
    for (int cc = kB * c; cc < kB * c + kB; ++cc) {
      if (stored_sparse) {
        for (int e = a_begin[cc]; e < a_begin[cc + 1]; ++e) any[a_row[e] / kB] = 1;
        continue;
      }
      const double* col = A + static_cast<size_t>(n) * cc;
      for (int r = 0; r < nb; ++r)
        any[r] |= static_cast<int>(col[kB * r] != 0.0) | static_cast<int>(col[kB * r + 1] != 0.0) |
                  static_cast<int>(col[kB * r + 2] != 0.0);
    }
    any[c] = 1;
    for (int e = part.clique_ptr[c]; e < part.clique_ptr[c + 1]; ++e) any[part.clique_idx[e]] = 1;
    for (int r = 0; r < nb; ++r)
      if (any[r] != 0) part.new_idx.push_back(r);
    if (part.new_idx.size() > max_nnz) return;  // too dense: the dense Cholesky is faster
    part.new_ptr[c + 1] = static_cast<int>(part.new_idx.size());
  }
  part.reused = part.nb == nb && part.new_ptr == part.pat_ptr && part.new_idx == part.pat_idx;
  if (!part.reused) {
    part.n = n;
    part.nb = nb;
    part.pat_ptr.swap(part.new_ptr);
    part.pat_idx.swap(part.new_idx);
    analysePattern(part);
  }
  // This solve's blocks: A_i's, and sum_j J_ij^T J_ij (each unordered node pair once, at its
  // block of the permuted upper triangle; a node's own block in full).
  const int nnz = part.kp[nb];
  if (stored_sparse) {
    // Scattered entry by entry into its block of the permuted upper triangle.
    std::fill_n(part.kx_a.data(), nnz, Mat3::Zero());
    for (int cc = 0; cc < n; ++cc)
      for (int e = a_begin[cc]; e < a_begin[cc + 1]; ++e) {
        const int r = a_row[e];
        const int row = part.iperm[r / kB], col = part.iperm[cc / kB];
        if (row > col) continue;
        const int* begin = part.ki.data() + part.kp[col];
        const int* end = part.ki.data() + part.kp[col + 1];
        part.kx_a[std::lower_bound(begin, end, row) - part.ki.data()](r % kB, cc % kB) = A[e];
      }
  } else {
    for (int e = 0; e < nnz; ++e) part.kx_a[e] = block(A, n, part.a_index[e]);
  }
  std::fill_n(part.kx_jtj.data(), nnz, Mat3::Zero());
  for (int q = 0; q < num_atts; ++q) {
    const int a = atts[q];
    const int w = jac.width(a);
    const int rows = p.attachments[a].rows;
    const int* cols = jac.columns(a);
    const double* vals = jac.values(a);
    for (int k = 0; k < w; ++k)
      for (int l = 0; l < w; ++l) {
        const int row = part.iperm[cols[k] / kB], col = part.iperm[cols[l] / kB];
        if (row > col) continue;
        double g = 0.0;
        for (int r = 0; r < rows; ++r) g += vals[r * w + k] * vals[r * w + l];
        const int* begin = part.ki.data() + part.kp[col];
        const int* end = part.ki.data() + part.kp[col + 1];
        part.kx_jtj[std::lower_bound(begin, end, row) - part.ki.data()](cols[k] % kB,
                                                                        cols[l] % kB) += g;
      }
  }
  enabled_[i] = 1;
}

bool SparseSubsystemFactorization::fits(const StepProblem& p, int i, const int* atts, int num_atts,
                                        const CompactJacobian& jac) {
  if (p.subsystems[i].dof % kB != 0) return false;
  for (int q = 0; q < num_atts; ++q)
    if (!jac.compact(atts[q])) return false;
  return true;
}

void SparseSubsystemFactorization::analysePattern(Part& part) {
  const int nb = part.nb, n = part.n;
  const int nnz_full = part.pat_ptr[nb];
  {
    // Approximate minimum degree on the symmetric node pattern.
    DoubleBuffer ones(nnz_full, 1.0);
    const Eigen::Map<const Eigen::SparseMatrix<double, Eigen::ColMajor, int>> pattern(
        nb, nb, nnz_full, part.pat_ptr.data(), part.pat_idx.data(), ones.data());
    const Eigen::SparseMatrix<double, Eigen::ColMajor, int> symmetric = pattern;
    Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> pinv;
    Eigen::AMDOrdering<int>()(symmetric, pinv);
    part.order.assign(pinv.indices().data(), pinv.indices().data() + nb);
  }
  part.iperm.resize(nb);
  for (int k = 0; k < nb; ++k) part.iperm[part.order[k]] = k;
  // Upper block triangle of P K P^T, rows sorted within each column.
  part.kp.assign(nb + 1, 0);
  for (int c = 0; c < nb; ++c)
    for (int e = part.pat_ptr[c]; e < part.pat_ptr[c + 1]; ++e)
      if (part.iperm[part.pat_idx[e]] <= part.iperm[c]) ++part.kp[part.iperm[c] + 1];
  for (int c = 0; c < nb; ++c) part.kp[c + 1] += part.kp[c];
  const int nnz = part.kp[nb];
  part.ki.resize(nnz);
  part.a_index.resize(nnz);
  std::vector<int> cursor(part.kp.begin(), part.kp.end() - 1);
  for (int c = 0; c < nb; ++c)
    for (int e = part.pat_ptr[c]; e < part.pat_ptr[c + 1]; ++e) {
      const int r = part.pat_idx[e];
      const int pr = part.iperm[r], pc = part.iperm[c];
      if (pr > pc) continue;
      const int at = cursor[pc]++;
      part.ki[at] = pr;
      part.a_index[at] = kB * r + n * kB * c;  // block (r, c) of A: block (pr, pc) of P A P^T
    }
  for (int c = 0; c < nb; ++c)  // insertion sort: columns are short
    for (int e = part.kp[c] + 1; e < part.kp[c + 1]; ++e)
      for (int f = e; f > part.kp[c] && part.ki[f - 1] > part.ki[f]; --f) {
        std::swap(part.ki[f - 1], part.ki[f]);
        std::swap(part.a_index[f - 1], part.a_index[f]);
      }
  // Elimination tree and column counts of L (Davis, LDL: ldl_symbolic).
  part.parent.assign(nb, -1);
  part.flag.assign(nb, -1);
  part.lnz.assign(nb, 0);
  for (int k = 0; k < nb; ++k) {
    part.flag[k] = k;
    for (int e = part.kp[k]; e < part.kp[k + 1]; ++e)
      for (int i = part.ki[e]; part.flag[i] != k; i = part.parent[i]) {
        if (part.parent[i] == -1) part.parent[i] = k;
        ++part.lnz[i];
        part.flag[i] = k;
      }
  }
  part.lp.resize(nb + 1);
  part.lp[0] = 0;
  for (int k = 0; k < nb; ++k) part.lp[k + 1] = part.lp[k] + part.lnz[k];
  const int lnnz = part.lp[nb];
  part.li.resize(lnnz);
  // The rows of L (block row k: the columns i < k with L_ki != 0, in the order the numeric
  // factorisation visits them) and where each L_ki goes: the same for every factorisation of
  // the pattern, so the numeric phase walks no tree.
  part.rptr.resize(nb + 1);
  part.rpat.resize(lnnz);
  part.rpos.resize(lnnz);
  part.pattern.resize(nb);
  std::fill_n(part.flag.data(), nb, -1);
  std::fill_n(part.lnz.data(), nb, 0);
  int cursor_l = 0;
  for (int k = 0; k < nb; ++k) {
    part.flag[k] = k;
    int top = nb;
    for (int e = part.kp[k]; e < part.kp[k + 1]; ++e) {
      int len = 0;
      for (int i = part.ki[e]; part.flag[i] != k; i = part.parent[i]) {
        part.pattern[len++] = i;
        part.flag[i] = k;
      }
      while (len > 0) part.pattern[--top] = part.pattern[--len];
    }
    part.rptr[k] = cursor_l;
    for (; top < nb; ++top, ++cursor_l) {
      const int i = part.pattern[top];
      part.rpat[cursor_l] = i;
      part.rpos[cursor_l] = part.lp[i] + part.lnz[i];
      part.li[part.lp[i] + part.lnz[i]++] = k;
    }
  }
  part.rptr[nb] = cursor_l;
  part.lx.resize(lnnz);
  part.lx_a.resize(lnnz);
  part.dinv.resize(nb);
  part.dinv_a.resize(nb);
  part.y.assign(nb, Mat3::Zero());
  part.work.resize(n);
  part.kx_a.resize(nnz);
  part.kx_jtj.resize(nnz);
  part.kx.resize(nnz);
}

bool SparseSubsystemFactorization::factorNumeric(Part& part, const Mat3* kx, Mat3* lx, Mat3* dinv) {
  // Davis, LDL (ldl_numeric) in 3x3 blocks: block row k of L from a sparse triangular solve
  // along the precomputed row pattern, y_i accumulating U_ki = L_ki D_i.  y is all zero
  // between rows (every block read is reset).
  const int nb = part.nb;
  const int* kp = part.kp.data();
  const int* ki = part.ki.data();
  const int* lp = part.lp.data();
  const int* li = part.li.data();
  const int* rptr = part.rptr.data();
  const int* rpat = part.rpat.data();
  const int* rpos = part.rpos.data();
  Mat3* y = part.y.data();
  for (int k = 0; k < nb; ++k) {
    for (int e = kp[k]; e < kp[k + 1]; ++e) {
      const int i = ki[e];
      if (i == k)
        y[k] += kx[e];
      else
        y[i] += kx[e].transpose();  // K_ki from the stored upper block K_ik
    }
    Mat3 dk = y[k];
    y[k].setZero();
    for (int q = rptr[k]; q < rptr[k + 1]; ++q) {
      const int i = rpat[q];
      const Mat3 yi = y[i];
      y[i].setZero();
      const int end = rpos[q];
      for (int e = lp[i]; e < end; ++e) y[li[e]].noalias() -= yi * lx[e].transpose();
      const Mat3 l_ki = yi * dinv[i];
      dk.noalias() -= l_ki * yi.transpose();
      lx[end] = l_ki;
    }
    const Eigen::LLT<Mat3> llt(dk);
    if (llt.info() != Eigen::Success) {
      std::fill_n(y, nb, Mat3::Zero());
      return false;
    }
    dinv[k] = llt.solve(Mat3::Identity());
  }
  return true;
}

void SparseSubsystemFactorization::solveFactored(Part& part, const Mat3* lx, const Mat3* dinv,
                                                 double* x) {
  const int nb = part.nb;
  const int* lp = part.lp.data();
  const int* li = part.li.data();
  double* w = part.work.data();
  const auto W = [w](int k) { return Eigen::Map<Vec3>(w + kB * k); };
  for (int k = 0; k < nb; ++k) W(k) = Eigen::Map<const Vec3>(x + kB * part.order[k]);
  for (int j = 0; j < nb; ++j) {
    const Vec3 wj = W(j);
    for (int e = lp[j]; e < lp[j + 1]; ++e) W(li[e]).noalias() -= lx[e] * wj;
  }
  for (int j = 0; j < nb; ++j) W(j) = (dinv[j] * W(j)).eval();
  for (int j = nb - 1; j >= 0; --j) {
    Vec3 acc = W(j);
    for (int e = lp[j]; e < lp[j + 1]; ++e) acc.noalias() -= lx[e].transpose() * W(li[e]);
    W(j) = acc;
  }
  for (int k = 0; k < nb; ++k) Eigen::Map<Vec3>(x + kB * part.order[k]) = W(k);
}

bool SparseSubsystemFactorization::factorize(int i, double beta) {
  Part& part = parts_[i];
  const int nnz = part.kp[part.nb];
  for (int e = 0; e < nnz; ++e) part.kx[e] = part.kx_a[e] + beta * part.kx_jtj[e];
  return factorNumeric(part, part.kx.data(), part.lx.data(), part.dinv.data());
}

bool SparseSubsystemFactorization::factorizeA(int i) {
  Part& part = parts_[i];
  return factorNumeric(part, part.kx_a.data(), part.lx_a.data(), part.dinv_a.data());
}

void SparseSubsystemFactorization::solve(int i, double* x) {
  solveFactored(parts_[i], parts_[i].lx.data(), parts_[i].dinv.data(), x);
}

void SparseSubsystemFactorization::solveA(int i, double* x) {
  solveFactored(parts_[i], parts_[i].lx_a.data(), parts_[i].dinv_a.data(), x);
}

void SparseSubsystemFactorization::selectedInverseA(int i) {
  Part& part = parts_[i];
  const int nb = part.nb;
  const int* lp = part.lp.data();
  const int* li = part.li.data();
  const Mat3* lx = part.lx_a.data();
  part.zx.resize(lp[nb]);
  part.zd.resize(nb);
  Mat3* tmp = part.y.data();  // zero between factorisations; reset below
  for (int j = nb - 1; j >= 0; --j) {
    // struct(L_:j) is a clique of the filled graph: Z_ik for i > k in it sits in column k of L,
    // whose rows (sorted) include every later row of column j.  tmp_t = sum_s Z_{R_t R_s} L_{R_s
    // j}.
    const int begin = lp[j], m = lp[j + 1] - lp[j];
    const int* rows = li + begin;
    const Mat3* l = lx + begin;
    for (int s = 0; s < m; ++s) {
      const int k = rows[s];
      tmp[s].noalias() += part.zd[k] * l[s];
      int e = lp[k];
      for (int t = s + 1; t < m; ++t) {
        while (li[e] != rows[t]) ++e;
        tmp[t].noalias() += part.zx[e] * l[s];
        tmp[s].noalias() += part.zx[e].transpose() * l[t];
      }
    }
    Mat3 zjj = part.dinv_a[j];
    for (int t = 0; t < m; ++t) {
      part.zx[begin + t] = -tmp[t];
      zjj.noalias() += l[t].transpose() * tmp[t];
      tmp[t].setZero();
    }
    part.zd[j] = zjj;
  }
}

double SparseSubsystemFactorization::inverseEntry(const Part& part, int row, int col) {
  // (A^-1)(row, col) for DOF positions in the permuted order.
  const int rb = row / kB, cb = col / kB;
  if (rb == cb) return part.zd[rb](row % kB, col % kB);
  if (rb < cb) return inverseEntry(part, col, row);
  const int* begin = part.li.data() + part.lp[cb];
  const int* end = part.li.data() + part.lp[cb + 1];
  return part.zx[std::lower_bound(begin, end, rb) - part.li.data()](row % kB, col % kB);
}

double SparseSubsystemFactorization::rowInverseMassA(int i, int width, const int* columns,
                                                     const double* values) const {
  const Part& part = parts_[i];
  const auto position = [&part](int c) { return kB * part.iperm[c / kB] + c % kB; };
  double w = 0.0;
  for (int a = 0; a < width; ++a) {
    const int pa = position(columns[a]);
    w += values[a] * values[a] * inverseEntry(part, pa, pa);
    for (int b = a + 1; b < width; ++b)
      w += 2.0 * values[a] * values[b] * inverseEntry(part, pa, position(columns[b]));
  }
  return w;
}

}  // namespace subsim
