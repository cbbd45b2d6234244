#pragma once
// LTDL factorisation with branch-induced sparsity (Featherstone, Rigid Body Dynamics Algorithms,
// 2008, section 6.5, tables 6.3 and 6.4): a symmetric H whose entry (k, l) is zero unless one of
// k, l is an ancestor of the other in a tree of DOFs (parent[k] < k) factors as H = L^T D L with
// L unit lower triangular and of the same sparsity, so no fill-in occurs.  The cost is
// sum_k depth(k)^2 instead of n^3 / 3.  This is how a joint-space mass matrix, and SubADMM's
// A_j + beta sum J^T J in the per-body form (AL paper eq. 40), are factored.
//
// H is column-major n x n; only its lower triangle (entries (k, l) with l an ancestor of k, and
// the diagonal) is read and overwritten by L (below the diagonal) and D (on it).

namespace subsim::branch_ldlt {

/// Factors in place; false when a pivot is not positive (H not positive definite).
inline bool factorize(double* H, int n, const int* parent) {
  for (int k = n - 1; k >= 0; --k) {
    const double d = H[k + k * n];
    if (!(d > 0.0)) return false;
    for (int i = parent[k]; i >= 0; i = parent[i]) {
      const double a = H[k + i * n] / d;
      for (int j = i; j >= 0; j = parent[j]) H[i + j * n] -= a * H[k + j * n];
      H[k + i * n] = a;
    }
  }
  return true;
}

/// Solves H x = b in place (x holds b on entry) with the factors from factorize().
inline void solveInPlace(const double* H, int n, const int* parent, double* x) {
  // L^T y = b: a DOF's value is final once all its descendants (larger indices) are done.
  for (int k = n - 1; k >= 0; --k)
    for (int j = parent[k]; j >= 0; j = parent[j]) x[j] -= H[k + j * n] * x[k];
  for (int k = 0; k < n; ++k) x[k] /= H[k + k * n];
  // L x = z.
  for (int k = 0; k < n; ++k)
    for (int j = parent[k]; j >= 0; j = parent[j]) x[k] -= H[k + j * n] * x[j];
}

}  // namespace subsim::branch_ldlt
