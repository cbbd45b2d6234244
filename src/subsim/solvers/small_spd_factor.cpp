#include "subsim/solvers/small_spd_factor.hpp"

#include <cmath>

namespace subsim {

namespace {

// factorSmallSpd and solveSmallSpd with the size a template argument when kN > 0: the loops'
// trip counts known, so they unroll and vectorise without run-time prologues and epilogues; the
// same operations in the same order (the same bits) as with kN = 0, the run-time size.

template <int kN>
bool factorSmallSpdSized(const double* K, int size, double* __restrict L) {
  const int n = kN > 0 ? kN : size;
  // Left-looking column Cholesky: column j of L from column j of K minus the columns before it.
  for (int j = 0; j < n; ++j) {
    double* __restrict lj = L + static_cast<size_t>(j) * n;
    for (int i = j; i < n; ++i) lj[i] = K[i + static_cast<size_t>(j) * n];
    for (int k = 0; k < j; ++k) {
      const double* __restrict lk = L + static_cast<size_t>(k) * n;
      const double ljk = lk[j];
      for (int i = j; i < n; ++i) lj[i] -= lk[i] * ljk;
    }
    if (!(lj[j] > 0.0)) return false;
    const double inv = 1.0 / std::sqrt(lj[j]);
    for (int i = j + 1; i < n; ++i) lj[i] *= inv;
    lj[j] = inv;
  }
  // Row j of L into the upper triangle's column j, so that the backward solve also runs down
  // contiguous columns.
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i)
      L[static_cast<size_t>(j) * n + i] = L[static_cast<size_t>(i) * n + j];
  return true;
}

template <int kN>
void solveSmallSpdSized(const double* __restrict L, int size, double* __restrict x) {
  const int n = kN > 0 ? kN : size;
  // L y = x: scale, then one contiguous axpy down column j of L.
  for (int j = 0; j < n; ++j) {
    const double* __restrict lj = L + static_cast<size_t>(j) * n;
    const double yj = x[j] * lj[j];
    x[j] = yj;
    for (int i = j + 1; i < n; ++i) x[i] -= lj[i] * yj;
  }
  // L^T x = y: the same with row j of L, kept in the upper triangle's column j.
  for (int j = n - 1; j >= 0; --j) {
    const double* __restrict uj = L + static_cast<size_t>(j) * n;
    const double xj = x[j] * uj[j];
    x[j] = xj;
    for (int i = 0; i < j; ++i) x[i] -= uj[i] * xj;
  }
}

}  // namespace

bool factorSmallSpd(const double* K, int n, double* L) {
  switch (n) {
    case 12:
      return factorSmallSpdSized<12>(K, n, L);
    case 18:
      return factorSmallSpdSized<18>(K, n, L);
    case 24:
      return factorSmallSpdSized<24>(K, n, L);
    default:
      return factorSmallSpdSized<0>(K, n, L);
  }
}

void solveSmallSpd(const double* __restrict L, int n, double* __restrict x) {
  // Two to four rigid bodies (a cable subsystem is four 6-DOF segments): at n = 24 this solve is
  // 30 % of SubADMM's instructions on the 640-segment cable, 18 % fewer sized (callgrind).
  switch (n) {
    case 12:
      return solveSmallSpdSized<12>(L, n, x);
    case 18:
      return solveSmallSpdSized<18>(L, n, x);
    case 24:
      return solveSmallSpdSized<24>(L, n, x);
    default:
      return solveSmallSpdSized<0>(L, n, x);
  }
}

}  // namespace subsim
