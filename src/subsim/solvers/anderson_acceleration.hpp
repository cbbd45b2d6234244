#pragma once
// Anderson acceleration (type II, window m) of a fixed-point iteration x <- G(x): Walker and Ni,
// "Anderson acceleration for fixed-point iterations", SIAM J. Numer. Anal. 2011; applied to ADMM
// for simulation by Zhang, Peng, Hu and Wang, "Accelerating ADMM for efficient simulation and
// optimization", ACM TOG 2019.  Neither SubADMM paper uses it; SubADMM offers it as an option
// (SubadmmOptions::anderson_window) because one SubADMM iteration carries information one
// subsystem along a chain of stiff pieces (docs/deformables.md).
//
// With f_k = G(x_k) - x_k and the differences df_i, dg_i of the last m residuals and images,
//   gamma = argmin || f_k - sum_i gamma_i df_i ||_W,   x_{k+1} = G(x_k) - sum_i gamma_i dg_i,
// in a weighted norm ||v||_W^2 = sum_r w_r v_r^2 (the caller's scales: for ADMM the penalty
// metric).  The small least-squares problem is solved through its normal equations with a
// relative Tikhonov term; the Gram matrix is updated by one column per step.  All storage is sized
// in resize(); step() performs no heap allocation.  Single-threaded and deterministic.
#include <Eigen/Core>
#include <vector>

#include "subsim/math/types.hpp"

namespace subsim {

class AndersonAcceleration {
 public:
  static constexpr int kMaxWindow = 8;

  /// Sizes the buffers for vectors of n entries and a window of m (1..kMaxWindow); drops the
  /// history.  Allocates.
  void resize(int n, int window);
  /// Drops the history: the next step() only records its pair.
  void reset() { count_ = 0, head_ = 0, have_previous_ = false; }
  /// The weights of the norm (n entries, >= 0); the caller changes them only with a reset().
  double* weights() { return weights_.data(); }

  /// One accelerated step.  x: the iterate x_k that was fed to G; g: G(x_k), overwritten by
  /// x_{k+1}.  Safeguard: when ||f_k||_W^2 exceeds `restart_above` (the caller passes the last
  /// step's value: the extrapolation made the residual grow) the history is dropped and g is left
  /// as G's plain step.  Returns ||f_k||_W^2.
  double step(const double* x, double* g, double restart_above);

  int historySize() const { return count_; }

 private:
  double dot(const double* a, const double* b) const;

  int n_ = 0, m_ = 0;
  int count_ = 0, head_ = 0;  // ring buffer: the newest difference is in slot head_ - 1
  bool have_previous_ = false;
  DoubleBuffer weights_, f_, f_prev_, g_prev_;
  DoubleBuffer df_, dg_;  // m columns of n
  using Small = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxWindow, kMaxWindow>;
  using SmallVec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxWindow, 1>;
  Small gram_;  // df_i . df_j in the W norm, by slot
};

}  // namespace subsim
