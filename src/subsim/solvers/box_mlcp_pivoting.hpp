#pragma once
// Direct and hybrid solvers of one box MLCP  A x + b = w,  l <= x <= u  (formulation/
// box_mlcp_form.hpp, the schur paper's (7)-(9)), on a sparse or a dense symmetric A: the
// kernels the box-MLCP solvers (bpp, pgs-sm, box-pgs) and the substructuring solvers (schur-bpp,
// schur-pgs-sm, fbic; their subsystem and interface solves) share.
//
// Index sets (the schur paper's (12)): every row is Free (l < x < u, w = 0), at its Lower bound
// (x = l, w >= 0) or at its Upper bound (x = u, w <= 0).  Given them, x follows from one linear
// solve with the free block:  A_FF x_F = -(b_F + A_FT x_T).
//
// Block principal pivoting (Judice and Pires, "A block principal pivoting algorithm for
// large-scale strictly monotone linear complementarity problems", Comput. Oper. Res. 1994,
// extended to boxes): solve for x with the current sets, move every infeasible row at once (a
// free row outside its bounds to the bound it crossed; a tight row whose w has the wrong sign to
// the free set), and repeat until no row is infeasible, which is the exact solution.  Block
// pivots can cycle: Judice-Pires allow p = 3 block pivots that do not reduce the number of
// infeasible rows, after which one single (Murty) pivot moves the infeasible row of largest
// index; and, as the schur paper does, a hash of every index set met is kept and a repeated set
// switches to single pivots for the next 5 pivots.  At most max_pivots (the paper's kappa_iter,
// 50) solves (fewer where single pivots are left with more infeasible rows than pivots); when
// they run out, projected Newton (below) from the warm start gets newton_steps
// Newton steps, and PGS-SM (below) as many subspace solves as the pivots where Newton does not
// reach epsilon either; of their results and the pivoting's best iterate, the one of least
// natural residual is returned (clamped into the box).  Like every principal pivoting method it is
// at its best on well-conditioned A: on a granular pile, whose contacts outnumber the bodies' DOF
// (W rank-deficient, only C keeping it definite), it can take hundreds of pivots.  The factor of
// the last free block is kept: a solve whose free set did not change since the last one reuses it
// (the schur paper's reuse across coupling iterations).
//
// PGS with subspace minimisation (Silcowitz, Niebe, Erleben, "Projected Gauss-Seidel subspace
// minimization for interactive rigid body dynamics", 2010; the schur paper's PGS-SM): a few
// projected Gauss-Seidel sweeps guess the index sets, one solve with the free block gives x on
// that subspace, projected back into the box; repeated until the natural residual is below eps.
//
// Projected Newton (Bertsekas, "Projected Newton methods for optimization problems with simple
// constraints", SIAM J. Control Optim. 1982) on the box QP  min 1/2 x'Ax + b'x, l <= x <= u,
// whose optimality conditions are the box MLCP (A symmetric positive definite): rows within
// epsilon_k of a bound that the gradient pushes onto it take a diagonally scaled gradient step,
// the others a Newton step with their free block (damped, A_FF + mu diag A_FF, where the search
// had to shorten the last step), and an Armijo search along the projection arc P(x + alpha d)
// makes every step decrease the objective.  Unlike pivoting it never trusts the
// sign of a row computed on a wrong index set: where contacts are redundant (a chain wound on a
// bar, a pile of boxes: W rank-deficient, A_FF conditioned 1e14 by C = 1e-10 alone) a wrong set's
// solve is 1e6 times too large, every sign is noise and the pivots wander (chainwrap: 30 of its
// first 31 steps at the pivot cap, natural residual 0.2 N s at best).  It is BPP's fallback.
//
// Both leave sets and x consistent on return; a tolerance eta (the paper's 1e-5) decides which
// rows are at a bound.  The workspaces are kept between solves (the sparse factorisation
// allocates its own storage).
#include <Eigen/SparseCholesky>
#include <cstdint>
#include <vector>

#include "subsim/formulation/box_mlcp_form.hpp"

namespace subsim {

enum class BoxIndex : std::uint8_t { Free, Lower, Upper };

/// Index sets from x: a row within eta of a finite bound is at it (Lower first), else free.
void indexSetsFrom(const VecX& x, const VecX& lower, const VecX& upper, double eta,
                   std::vector<BoxIndex>& sets);

/// FNV-1a of index sets, continuing from `seed` (chain several sets by passing the last value):
/// the cycle checks of block pivoting and of the Schur coupling.
std::uint64_t hashSets(const std::vector<BoxIndex>& sets,
                       std::uint64_t seed = 1469598103934665603ull);

struct PivotingSettings {
  int max_pivots = 50;         // solves with a free block (kappa_iter)
  double eta = 1e-9;           // a row within eta of a bound, or w within eta of 0, is there
  int single_pivot_steps = 5;  // single pivots after a repeated index set
  int pgs_sweeps = 5;          // PGS-SM: sweeps before each subspace solve
  double epsilon = 1e-9;       // PGS-SM, projected Newton: stop below this natural residual
  bool fallback = true;        // BPP: when the pivots run out, projected Newton from the warm start
  int newton_steps = 200;      // projected Newton: Newton steps (free-block solves) at most
};

struct PivotingResult {
  int pivots = 0;          // solves with a free block (PGS-SM: subspace solves)
  int factorizations = 0;  // of these, those that factored (the others reused the factor)
  bool solved = false;     // no infeasible row left (PGS-SM: residual below epsilon)
  bool factor_failed = false;
  bool fell_back = false;  // BPP ran out of pivots and fell back (pivots count every solve)
};

/// The dense box MLCP's matrix (the schur interface's S_Gamma, small problems).
struct DenseBoxMatrix {
  const MatX* a = nullptr;
  int size() const { return static_cast<int>(a->rows()); }
};
/// The sparse one (whole systems and the schur subsystems), both triangles stored.
struct SparseBoxMatrix {
  const SparseMatrixCsc* a = nullptr;
  int size() const { return static_cast<int>(a->rows()); }
};

/// The solves above with their workspaces (the last free block's factor among them).  Matrix is
/// DenseBoxMatrix or SparseBoxMatrix.
template <class Matrix>
class BoxMlcpPivoting {
 public:
  /// Block principal pivoting from the index sets given (warm start), x and sets on return.
  /// When max_pivots run out, projected Newton (then PGS-SM, if Newton misses epsilon) from x as
  /// given (the warm start; zero if it has the wrong size), and the result of least natural
  /// residual is kept.
  PivotingResult blockPivoting(const Matrix& a, const VecX& b, const VecX& lower, const VecX& upper,
                               const PivotingSettings& settings, std::vector<BoxIndex>& sets,
                               VecX& x);
  /// PGS with subspace minimisation from x (warm start), x and its index sets on return.
  PivotingResult pgsSubspace(const Matrix& a, const VecX& b, const VecX& lower, const VecX& upper,
                             const PivotingSettings& settings, std::vector<BoxIndex>& sets,
                             VecX& x);
  /// Projected Newton from x (clamped into the box), at most settings.newton_steps Newton steps,
  /// until the natural residual's maximum is below epsilon or no step decreases the objective
  /// measurably; the iterate of least natural residual and its index sets on return.
  PivotingResult projectedNewton(const Matrix& a, const VecX& b, const VecX& lower,
                                 const VecX& upper, const PivotingSettings& settings,
                                 std::vector<BoxIndex>& sets, VecX& x);
  /// One projected Gauss-Seidel sweep in row order; returns max_r A_rr |dx_r|.
  double pgsSweep(const Matrix& a, const VecX& b, const VecX& lower, const VecX& upper, VecX& x);
  /// Factors the free block of `sets`, its diagonal scaled by 1 + damping (kept when the free set
  /// and damping are the ones last factored; freeRows() lists it); false when the factorisation
  /// breaks down (a zero pivot).  solveFreeBlock then solves with it (the schur complement's
  /// K = A_FF^{-1} G_F^T).
  bool factorFree(const Matrix& a, const std::vector<BoxIndex>& sets, PivotingResult& result,
                  double damping = 0.0);
  const std::vector<int>& freeRows() const { return free_; }
  /// rhs <- A_FF^{-1} rhs, for the free block last factored (rows in freeRows() order).
  void solveFreeBlock(MatX& rhs) const;
  /// Forgets the kept factor (the matrix changed).
  void invalidate() { factored_.clear(), has_factor_ = false; }

 private:
  /// x from the index sets: tight rows at their bounds, free rows from the free block's solve.
  bool solveFree(const Matrix& a, const VecX& b, const VecX& lower, const VecX& upper,
                 const std::vector<BoxIndex>& sets, VecX& x, PivotingResult& result);

  /// xf_ <- A_FF^{-1} xf_, with the free block last factored (freeRows() order).
  void solveFreeRhs();

  void fallBack(const Matrix& a, const VecX& b, const VecX& lower, const VecX& upper,
                const PivotingSettings& settings, std::vector<BoxIndex>& sets, VecX& x,
                PivotingResult& result);

  std::vector<int> free_, factored_;
  std::vector<int> position_;  // row -> index in free_ (or -1)
  bool has_factor_ = false;
  double factored_damping_ = 0.0;
  VecX rhs_, w_, xf_, best_x_, start_x_, pivoted_x_;
  VecX gradient_, direction_, trial_, step_, diagonal_;  // projected Newton
  std::vector<BoxIndex> best_sets_, pivoted_sets_, held_;
  std::vector<std::uint64_t> seen_;
  std::vector<int> infeasible_;
  MatX dense_free_;
  Eigen::LDLT<MatX> dense_factor_;
  SparseMatrixCsc sparse_free_;
  std::vector<Eigen::Triplet<double, int>> triplets_;
  Eigen::SimplicialLDLT<SparseMatrixCsc> sparse_factor_;
};

extern template class BoxMlcpPivoting<DenseBoxMatrix>;
extern template class BoxMlcpPivoting<SparseBoxMatrix>;

}  // namespace subsim
