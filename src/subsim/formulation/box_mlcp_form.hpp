#pragma once
// The box-bounded MLCP of Schur-complement substructuring (Peiret, Andrews, Kovecses, Kry,
// Teichmann, "Schur Complement-based Substructuring of Stiff Multibody Systems with Contact",
// TOG 2019; the "schur" paper), built from the same StepProblem as every other formulation:
//
//   A lambda + b = w = w_l - w_u,   l <= lambda <= u,
//   0 <= lambda - l  _|_  w_l >= 0,   0 <= u - lambda  _|_  w_u >= 0          (7)-(9)
//
// with A = J A_s^{-1} J^T + C and b = J A_s^{-1} b_s + e, where A_s, b_s are the subsystems'
// step matrix and vector (the paper's M and p; its backward Euler is theta = 0, and at any other
// theta the rows constrain vhat exactly as the NCP form's do) and e is the NCP form's constraint
// term (formulation/ncp_form.hpp).  e carries the stabilisation: the paper's Baumgarte term
// h^{-1} phi is a Velocity row, or a Speculative contact with erp = 1, so a scene states it once
// for every formulation, and problems without step data (FCLib, older files) still pose.
//
// Rows and their bounds:
//   bilateral             l = -inf, u = +inf
//   unilateral            l = 0, u = +inf
//   contact normal        l = 0, u = +inf
//   contact tangent t1,t2 |lambda_t| <= mu lambda_n^prev (each row: the paper's box friction, with
//                         the normal impulse of the warm start, the previous step's by key; no
//                         previous impulse gives a zero bound, as in the paper)
// and the compliance C added to the diagonal of every one of them.
//   soft (k', c' > 0)     an equality of the regularised operator (DelassusForm: W_rr + 1/c',
//                         b_r + (k'/c' - 1) e_r): its compliance is 1/c'
//   soft with c' = 0      explicit: l = u = -k' e_r
// C is the paper's diagonal compliance (1e-7 .. 1e-10 in its experiments, in m/s per N s): it
// keeps A's free blocks positive definite when hard constraints are redundant.
//
// A is stored sparse (compressed columns, both triangles) from DelassusForm's blocks; a problem
// in local form (an FCLib local problem) gives W directly.  vhat follows from lambda by
// velocity().
#include <Eigen/SparseCore>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "subsim/formulation/delassus_form.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

using SparseMatrixCsc = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

struct BoxMlcpSettings {
  /// The paper's diagonal compliance C on hard rows (m/s per N s).
  double compliance = 1e-10;
};

/// The natural residual of one row of a box MLCP (the schur paper's error (29)): with
/// w_l = max(w, 0), w_u = max(-w, 0),  max(|min(lambda - l, w_l)|, |min(u - lambda, w_u)|);
/// for an equality row (infinite bounds) it is |w|.  Zero exactly at a solution of the row.
inline double naturalResidualRow(double lambda, double w, double lower, double upper) {
  const double wl = std::max(w, 0.0);
  const double wu = std::max(-w, 0.0);
  const double a = lower == -std::numeric_limits<double>::infinity()
                       ? wl
                       : std::abs(std::min(lambda - lower, wl));
  const double b = upper == std::numeric_limits<double>::infinity()
                       ? wu
                       : std::abs(std::min(upper - lambda, wu));
  return std::max(a, b);
}

class BoxMlcpForm {
 public:
  /// Builds A, b and the bounds of `problem` (kept by pointer: it must outlive the form's use).
  /// `previous` is the warm-start impulse (StepSolution::lambda, mapped by key), whose normal
  /// impulses bound the friction rows; null or of the wrong size: no previous impulses.  Returns
  /// false when some A_i is not positive definite.
  [[nodiscard]] bool build(const StepProblem& problem, const VecX* previous,
                           const BoxMlcpSettings& settings, int threads = 1);

  int numRows() const { return static_cast<int>(b_.size()); }
  /// A = J A_s^{-1} J^T + C, compressed columns, both triangles.
  const SparseMatrixCsc& matrix() const { return a_; }
  const VecX& rhs() const { return b_; }
  const VecX& lower() const { return lower_; }
  const VecX& upper() const { return upper_; }
  /// True for a row whose bounds are both infinite (w = 0 at a solution).
  bool equalityRow(int row) const { return equality_[row] != 0; }

  /// w = A lambda + b.
  void slack(const VecX& lambda, VecX& w) const;
  /// The natural residual (29) of every row stacked: its maximum and its 2-norm.
  void naturalResidual(const VecX& lambda, double& max_norm, double& two_norm) const;
  /// vhat = A_s^{-1} (b_s + J^T lambda); nothing for a problem in local form.
  void velocity(const VecX& lambda, VecX& vhat) const;
  const DelassusForm& delassus() const { return delassus_; }

 private:
  DelassusForm delassus_;
  SparseMatrixCsc a_;
  VecX b_, lower_, upper_;
  std::vector<unsigned char> equality_;
  std::vector<Eigen::Triplet<double, int>> triplets_;
  mutable VecX w_;
};

}  // namespace subsim
