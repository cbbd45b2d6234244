#include "subsim/solvers/small_spd_factor.hpp"

#include <algorithm>
#include <cmath>

namespace subsim {

bool factorSmallSpd(const double* K, int n, double* __restrict L, int* envelope) {
  // last[j]: the last row with a nonzero of K's lower triangle in columns 0..j (at least j);
  // first[j]: the first column whose last[] reaches row j.  Both are nondecreasing.
  int* last = envelope;
  int* first = envelope + n;
  for (int j = 0, reach = 0; j < n; ++j) {
    const double* kj = K + static_cast<size_t>(j) * n;
    int i = n - 1;
    while (i > j && kj[i] == 0.0) --i;
    reach = std::max({reach, i, j});
    last[j] = reach;
  }
  for (int j = 0, k = 0; j < n; ++j) {
    while (last[k] < j) ++k;
    first[j] = k;
  }
  // Left-looking column Cholesky: column j of L from column j of K minus the columns k before
  // it whose row j is nonzero (k >= first[j]), each over its own rows (to last[k] <= last[j]).
  for (int j = 0; j < n; ++j) {
    double* __restrict lj = L + static_cast<size_t>(j) * n;
    const int end = last[j];
    for (int i = j; i <= end; ++i) lj[i] = K[i + static_cast<size_t>(j) * n];
    for (int k = first[j]; k < j; ++k) {
      const double* __restrict lk = L + static_cast<size_t>(k) * n;
      const double ljk = lk[j];
      for (int i = j; i <= last[k]; ++i) lj[i] -= lk[i] * ljk;
    }
    if (!(lj[j] > 0.0)) return false;
    const double inv = 1.0 / std::sqrt(lj[j]);
    for (int i = j + 1; i <= end; ++i) lj[i] *= inv;
    lj[j] = inv;
  }
  // Row j of L into the upper triangle's column j, so that the backward solve also runs down
  // contiguous columns.
  for (int j = 0; j < n; ++j)
    for (int i = first[j]; i < j; ++i)
      L[static_cast<size_t>(j) * n + i] = L[static_cast<size_t>(i) * n + j];
  return true;
}

void solveSmallSpd(const double* __restrict L, int n, const int* envelope, double* __restrict x) {
  const int* last = envelope;
  const int* first = envelope + n;
  // L y = x: scale, then one contiguous axpy down column j of L.
  for (int j = 0; j < n; ++j) {
    const double* __restrict lj = L + static_cast<size_t>(j) * n;
    const double yj = x[j] * lj[j];
    x[j] = yj;
    for (int i = j + 1; i <= last[j]; ++i) x[i] -= lj[i] * yj;
  }
  // L^T x = y: the same with row j of L, kept in the upper triangle's column j.
  for (int j = n - 1; j >= 0; --j) {
    const double* __restrict uj = L + static_cast<size_t>(j) * n;
    const double xj = x[j] * uj[j];
    x[j] = xj;
    for (int i = first[j]; i < j; ++i) x[i] -= uj[i] * xj;
  }
}

}  // namespace subsim
