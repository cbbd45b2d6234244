#pragma once
// The RPI simulator paper's LCP solvers (its Table 1) on the polyhedral-cone formulations
// (formulation/polyhedral_lcp_form.hpp: Stewart-Trinkle or Anitescu-Potra, chosen by the option
// `formulation`, with `directions` friction directions per contact):
//   lemke           Lemke's pivoting method (lemke.hpp) on the LCP left when the free (joint)
//                   variables are eliminated (lcp_free_elimination.hpp); a direct method: its
//                   iterations are pivots, capped by max_pivots, not by max_iterations
//   path            a PATH-style mLCP solver: Fischer-Burmeister Newton with the non-monotone
//                   line search (memory 5), and Lemke when it stalls or ends above a positive
//                   tolerance
//   fischer-newton  Fischer-Burmeister Newton with a monotone line search (lcp_newton.hpp)
//   minmap-newton   min-map Newton with a monotone line search
//   lcp-ip          primal-dual interior point (lcp_interior_point.hpp) on the eliminated LCP
//   lcp-pgs         block projected Gauss-Seidel (lcp_projected.hpp)
//   lcp-pj          block projected Jacobi, relaxed by `relaxation`
//   lcp-fp          projected fixed-point iteration of the natural map (lcp_fixed_point.hpp),
//                   its r-factor adapted from `relaxation`
// Each solve builds the form, starts from the warm start's impulses mapped to the LCP's variables
// (PolyhedralLcpForm::variablesOf; Lemke and the interior-point method start cold, as they must),
// and returns the NCP impulses lambda = T z and vhat, so every metric judges these solvers on the
// same (vhat, lambda) as the others.  Stopping residual: the LCP's natural residual maximum
// (MixedLcp::naturalResidual), whose history is recorded per iteration.
//
// A step whose dense LCP exceeds max_variables is refused with std::invalid_argument naming the
// size and what to change; a subsystem matrix that is not positive definite, or a singular joint
// block, ends the solve as FactorizationFailed.
#include <string>

#include "subsim/formulation/polyhedral_lcp_form.hpp"
#include "subsim/solvers/lcp_fixed_point.hpp"
#include "subsim/solvers/lcp_free_elimination.hpp"
#include "subsim/solvers/lcp_newton.hpp"
#include "subsim/solvers/lcp_projected.hpp"
#include "subsim/solvers/lemke.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

struct PolyhedralLcpOptions {
  PolyhedralLcpKind formulation = PolyhedralLcpKind::StewartTrinkle;
  int directions = 4;
  double compliance = 1e-10;
  int max_variables = 6000;
  int max_pivots = 0;       // Lemke (0: 50 n + 100)
  double relaxation = 0.5;  // lcp-pj's omega, lcp-fp's first one
};

class PolyhedralLcpSolver final
    : public SolverWithOptions<PolyhedralLcpSolver, PolyhedralLcpOptions> {
 public:
  enum class Variant {
    Lemke,
    Path,
    FischerNewton,
    MinMapNewton,
    InteriorPoint,
    Pgs,
    Pj,
    FixedPoint
  };
  explicit PolyhedralLcpSolver(Variant variant, PolyhedralLcpOptions options = {})
      : SolverWithOptions(options), variant_(variant) {}

  std::string_view name() const override;
  void solve(const StepProblem& problem, const SolverSettings& settings,
             StepSolution& solution) override;

  static const OptionTable<Options>& optionTable();

 private:
  /// Lemke on the eliminated LCP into z_; false when it failed (z_ then unchanged).
  bool solveByLemke(SolveStats& stats, int& pivots);

  Variant variant_;
  PolyhedralLcpForm form_;
  FreeVariableElimination elimination_;
  Lemke lemke_;
  LcpNewton newton_;
  LcpBlockProjection projection_;
  LcpFixedPoint fixed_point_;
  VecX z_, zc_;
};

}  // namespace subsim
