#pragma once
// The polyhedral-cone LCP formulations of the RPI simulator paper (Williams, Lu, Niebe, Andersen,
// Erleben, Trinkle; "rpisim"), built from the same StepProblem as every other formulation:
// Stewart-Trinkle (its eq. 7) and Anitescu-Potra.  Per contact with friction mu > 0 the variables
// are the normal impulse p_n, n_d friction impulses beta_k >= 0 along directions
// d_k = cos(2 pi k / n_d) t1 + sin(2 pi k / n_d) t2 of the contact's tangent rows, and the
// sliding-speed variable s:
//
//   0 <= p_n    _|_  u_n + e_n                   >= 0
//   0 <= beta_k _|_  d_k . u_t + s               >= 0      (the E column of (7))
//   0 <= s      _|_  mu p_n - sum_k beta_k       >= 0      (the U and -E^T row of (7))
//
// with u = W lambda + c the constraint velocity of the Delassus form (delassus_form.hpp), whose
// W = J A^-1 J^T and c = J A^-1 b are the paper's G^T M^-1 G and G^T (v + M^-1 p_ext) (A, b: the
// subsystems' step matrix and vector), and lambda_t = sum_k beta_k d_k.  The friction direction
// rows are the tangent rows combined, d_k . (J_t1, J_t2): exact, since a contact's tangential
// velocity is linear in the direction.  Frictionless contacts keep p_n alone.  The velocity update
// (8) is vhat = A^-1 (b + J^T lambda) (velocity()).
//
// The normal row's constant term e_n is where the two differ:
//   Stewart-Trinkle   e_n = bias + gap / h          (the paper's psi_n / h)
//   Anitescu-Potra    e_n = bias                    ("every constant term except the dynamics row
//                                                    is zero": a contact reported within the
//                                                    detection margin acts as touching, and a
//                                                    penetration is not pushed out)
// from the step data (StepProblem::error, bias); a problem without step data (an FCLib problem,
// an older file) keeps its own e for both.
//
// Other rows keep their NCP meaning: bilateral rows are free variables (an mLCP), unilateral rows
// complementary, soft rows the regularised equalities of the Delassus form (free; an explicit soft
// row with c' = 0 is the equation z = its value).  A diagonal compliance (default 1e-10 m/s per
// N s, as the box MLCP's) on bilateral, unilateral and normal rows keeps redundant hard rows from
// making the free block singular.
//
// M is dense (the pivoting and Newton solvers factor it whole): build() refuses, by returning
// false and saying why in error(), a problem of more than max_variables variables.
#include <string>
#include <vector>

#include "subsim/formulation/delassus_form.hpp"
#include "subsim/formulation/mixed_lcp.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// The most friction directions n_d a contact may have.
inline constexpr int kMaxFrictionDirections = 32;

enum class PolyhedralLcpKind { StewartTrinkle, AnitescuPotra, Peg };

struct PolyhedralLcpSettings {
  PolyhedralLcpKind kind = PolyhedralLcpKind::StewartTrinkle;
  int directions = 4;         // n_d, friction directions per contact (>= 3)
  double compliance = 1e-10;  // on hard rows (m/s per N s)
  int max_variables = 6000;   // dense M: 8 * 6000^2 bytes = 288 MB at most
};

class PolyhedralLcpForm {
 public:
  /// Builds the mLCP of `problem` (kept by pointer: it must outlive the form's use).  False when
  /// some A_i is not positive definite or the LCP would exceed max_variables (error() says which).
  [[nodiscard]] bool build(const StepProblem& problem, const PolyhedralLcpSettings& settings,
                           int threads = 1);
  const std::string& error() const { return error_; }
  /// True when the last build() refused the problem for its size (max_variables).
  bool tooLarge() const { return too_large_; }

  const MixedLcp& lcp() const { return lcp_; }
  int numVariables() const { return lcp_.size(); }
  /// The first variable of constraint j, and its count (rows; for a contact p_n, PEG's c_1..c_{m-1}
  /// when it is the primary of m subcontacts, and n_d + 1 more with friction; 0 for a secondary
  /// subcontact of PEG).
  int variableBegin(int j) const { return var_begin_[j]; }
  int variableCount(int j) const { return var_begin_[j + 1] - var_begin_[j]; }

  /// The NCP impulses of z: lambda_j = T_j z_j (lambda_t = sum_k beta_k d_k).
  void impulses(const VecX& z, VecX& lambda) const;
  /// The variables of NCP impulses: p_n and hard rows as they are, lambda_t split between the two
  /// directions that bound its sector, and s the least sliding speed the velocities allow,
  /// max(0, -min_k d_k . u_t) (so a solution of the NCP with lambda_t in the polygon maps to a
  /// solution of the LCP).  The warm start and the metrics' canonical z.
  void variablesOf(const VecX& lambda, VecX& z) const;
  /// vhat = A^-1 (b + J^T lambda) for the NCP impulses lambda (impulses()); nothing for a
  /// problem in local form.
  void velocity(const VecX& lambda, VecX& vhat) const;

 private:
  /// T_j, rows_j x variableCount(j) row-major, at transform_offset_[j].
  const double* transform(int j) const { return transform_.data() + transform_offset_[j]; }
  /// PEG: the primary of every set of subcontacts and its secondaries (set_primary_, aux_*), then
  /// the layout (var_begin_, transform_offset_); the primaries by the free velocities of the
  /// normal rows (needs the Delassus form) or, before it, the first of each set.
  void groupSubcontacts(const StepProblem& p, bool by_free_velocity);
  void choosePrimaries(const StepProblem& p, bool by_free_velocity);
  /// The constant of contact j's normal row: c_n (the Delassus form's) with this formulation's e_n
  /// in place of the NCP form's; y_k at lambda = 0.
  double normalConstant(int j) const;
  int variableCountOf(int j) const;
  /// PEG's c variables of contact j (its secondary subcontacts), after p_n.
  int auxCount(int j) const { return aux_begin_[j + 1] - aux_begin_[j]; }
  /// The first friction variable of contact j, relative to variableBegin(j).
  int frictionBegin(int j) const { return 1 + auxCount(j); }

  const StepProblem* p_ = nullptr;
  PolyhedralLcpSettings settings_;
  DelassusForm delassus_;
  MixedLcp lcp_;
  std::vector<int> var_begin_, transform_offset_;
  std::vector<int> set_primary_;  // per constraint: its set's primary subcontact, -1: no set
  std::vector<int> aux_begin_, aux_members_;  // a primary's secondaries, in constraint order
  DoubleBuffer transform_;
  std::string error_;
  bool too_large_ = false;
  mutable VecX w_;
};

/// "stewart-trinkle", "anitescu-potra" or "peg".
const char* polyhedralLcpKindName(PolyhedralLcpKind kind);

}  // namespace subsim
