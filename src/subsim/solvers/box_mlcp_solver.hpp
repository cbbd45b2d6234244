#pragma once
// The whole-system solvers of the box MLCP (formulation/box_mlcp_form.hpp; the schur paper's
// baselines and its PGS-SM):
//   bpp     block principal pivoting on the whole system, sparse LDL^T of the free block (the
//           paper's Eigen-BPP reference, "exact": it stops when no row is infeasible);
//   pgs-sm  PGS with subspace minimisation on the whole system;
//   box-pgs warm-started projected Gauss-Seidel on A's rows (the paper's matrix-free PGS: the
//           rows of A come from DelassusForm's blocks, never from a dense A).
// The kernels are in box_mlcp_pivoting.hpp.  Iterations: pivots (bpp), subspace solves (pgs-sm),
// sweeps (box-pgs), at most SolverSettings::max_iterations (and max_pivots for the first two).
// Stopping residual: the natural residual (29)'s maximum over rows, except box-pgs, which stops on
// its largest velocity correction of a sweep, max_r A_rr |d lambda_r| (the paper's epsilon test),
// and reports the natural residual at the end.  Warm start: the previous lambda by key (which
// also bounds the friction rows) gives PGS its start and the pivoting methods their index sets.
// Problems in local form (W, q, mu) are taken as they are.
//
// eta, the index-set tolerance, is absolute (N s for impulses, m/s for velocities) as the
// paper's: its 1e-5 suits its 50-8000 kg bodies, whose impulses per step are 1 .. 1e3 N s; on
// a pile of 4 g spheres (impulses of 4e-4 N s per step) it ended BPP with natural residuals up to
// 1e-5, 2.5 % of an impulse.  1e-9 stops at about round-off on both (measured: granular:spheres=27,
// 100 steps, 96 of 100 solves below 1e-9 against 63 with 1e-5).
#include "subsim/formulation/box_mlcp_form.hpp"
#include "subsim/solvers/box_mlcp_pivoting.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

/// The options of the box-MLCP solvers (`subsim solvers bpp`).
struct BoxMlcpOptions {
  double compliance = 1e-10;  // the diagonal compliance C of hard rows (m/s per N s)
  double eta = 1e-9;          // index-set tolerance (see the header)
  int max_pivots = 50;        // the paper's kappa_iter
  int pgs_sweeps = 5;         // PGS-SM: sweeps before each subspace solve
  int newton_steps = 200;     // BPP's projected Newton fallback: Newton steps at most
};

/// The options every box-MLCP solver has (compliance, eta, max_pivots, pgs_sweeps, newton_steps),
/// described once for any Options struct with those members (BoxMlcpOptions,
/// SubstructuringOptions).
template <class O>
OptionTable<O>& addBoxMlcpOptions(OptionTable<O>& table) {
  return table
      .number("compliance", &O::compliance, NumberRange::nonNegative(), "m/(N s^2)",
              "diagonal compliance C of hard rows (the schur paper: 1e-7 .. 1e-10)")
      .number("eta", &O::eta, NumberRange::positive(), "-",
              "a row within eta of a bound (or w within eta of 0) is there (index sets)")
      .integer("max_pivots", &O::max_pivots, 1, 1000000, "solves",
               "free-block solves per BPP or PGS-SM solve (the paper's kappa_iter)")
      .integer("pgs_sweeps", &O::pgs_sweeps, 0, 1000000, "sweeps",
               "PGS-SM: projected Gauss-Seidel sweeps before each subspace solve")
      .integer("newton_steps", &O::newton_steps, 1, 1000000, "solves",
               "BPP: projected Newton steps when the pivots run out (each a free-block solve)");
}

/// The pivoting kernels' settings from those options.
template <class O>
PivotingSettings pivotingSettingsOf(const O& o) {
  PivotingSettings ps;
  ps.max_pivots = o.max_pivots;
  ps.eta = o.eta;
  ps.pgs_sweeps = o.pgs_sweeps;
  ps.newton_steps = o.newton_steps;
  return ps;
}

class BoxMlcpSolver final : public SolverWithOptions<BoxMlcpSolver, BoxMlcpOptions> {
 public:
  enum class Variant { Bpp, PgsSm, Pgs };
  explicit BoxMlcpSolver(Variant variant, BoxMlcpOptions options = BoxMlcpOptions())
      : SolverWithOptions(options), variant_(variant) {}

  std::string_view name() const override;
  void solve(const StepProblem& problem, const SolverSettings& settings,
             StepSolution& solution) override;

  static const OptionTable<Options>& optionTable();
  const BoxMlcpForm& form() const { return form_; }

 private:
  Variant variant_;
  BoxMlcpForm form_;
  BoxMlcpPivoting<SparseBoxMatrix> pivoting_;
  std::vector<BoxIndex> sets_;
  VecX previous_;
};

}  // namespace subsim
