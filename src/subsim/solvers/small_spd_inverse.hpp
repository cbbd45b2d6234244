#pragma once
// The explicit inverse of a small SPD matrix (a SubADMM subsystem of a few bodies: 4 cable
// segments are 24 DOF), so that each v-step is one matrix-vector product instead of two
// triangular solves.  The solves of a dense factor this small are latency-bound (every unknown
// waits for the previous one) and Eigen's dynamic-size path adds its own overhead: on the
// 640-segment cable they took 43 % of SubADMM's time.  A product has no such chain.
//
// Accuracy: the inverse is formed from the Cholesky factor of the Jacobi-scaled matrix
// S = D^-1/2 K D^-1/2, K^-1 = D^-1/2 S^-1 D^-1/2, so its error is governed by cond(S), not by
// cond(K): the cable's K spans segment masses (1e-4 kg) and rotational inertias (4e-10 kg m^2),
// which a diagonal scaling removes.  No heap allocation (fixed maximum size).
#include <Eigen/Cholesky>

#include "subsim/math/types.hpp"

namespace subsim {

class SmallSpdInverse {
 public:
  static constexpr int kMaxSize = 48;
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxSize, kMaxSize>;

  /// Inverts the n x n column-major SPD matrix K (n <= kMaxSize) into `inverse` (n x n,
  /// column-major).  False, and `inverse` untouched, when K is not positive definite.
  bool invert(const double* K, int n, double* inverse) {
    scale_.resize(n);
    for (int i = 0; i < n; ++i) {
      const double d = K[i + i * n];
      if (!(d > 0.0)) return false;
      scale_[i] = 1.0 / std::sqrt(d);
    }
    scaled_.resize(n, n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) scaled_(i, j) = scale_[i] * K[i + j * n] * scale_[j];
    llt_.compute(scaled_);
    if (llt_.info() != Eigen::Success) return false;
    identity_.setIdentity(n, n);
    llt_.solveInPlace(identity_);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) inverse[i + j * n] = scale_[i] * identity_(i, j) * scale_[j];
    return true;
  }

 private:
  Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxSize, 1> scale_;
  Matrix scaled_, identity_;
  Eigen::LLT<Matrix> llt_;
};

}  // namespace subsim
