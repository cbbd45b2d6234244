#pragma once
// Projected Gauss-Seidel (PGS) on the Delassus operator: the ICRA paper's PGS baseline (section
// "Experiments", Table I), in the blocked form of Erleben, "Velocity-based shock propagation for
// multibody dynamics animation" (TOG 2007) / Jean-Moreau's nonsmooth contact dynamics.
//
// With W = J A^{-1} J^T and c = J A^{-1} b + e (formulation/delassus_form.hpp, which also folds
// the soft rows into a regularised equality), one sweep visits the constraints in order and sets
//   lambda_j <- P_j(lambda_j - D_j^{-1} (W lambda + c)_j)
// using the already updated lambda_k of earlier constraints.  D_j is the diagonal of W_jj (the
// two tangential rows of a contact share max(W_t1t1, W_t2t2), see formulation/delassus_form.hpp);
// P_j is none for bilateral and soft rows, max(0, .) for unilateral rows and the strict
// friction-cone operator projectConeStrict for a contact [n, t1, t2].  Inside a block the rows are
// also taken in Gauss-Seidel order (a contact: the normal, then the tangential pair with the new
// normal's friction bound; DelassusForm::projectedStep); the fixed point is the same. Redundant
// contacts (e.g. four corners whose errors e are not coplanar) make W singular with c partly along
// its null space: lambda then drifts along a null direction u (J^T u = 0, so the impulses on bodies
// and vhat are already converged) at a constant rate until a normal impulse reaches 0, and the
// residual below stalls at that rate (about 2e-8 m/s on stack:boxes=6). Stopping residual
// (SolveStats::residual_name "max |D dlambda| (m/s)"): the largest velocity correction of a sweep,
// max_r D_r |lambda_r^{l+1} - lambda_r^l|. Warm start: lambda from the solution passed in when its
// size fits (mapped by key by the assembler), projected onto the constraint sets first.  On exit
// vhat = A^{-1}(b + J^T lambda). All buffers are sized before the loop; the iterations perform no
// heap allocation.
#include "subsim/solvers/projected_iteration.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

class PgsSolver final : public Solver {
 public:
  std::string_view name() const override { return "pgs"; }
  void solve(const StepProblem& problem, const SolverSettings& settings,
             StepSolution& solution) override;

  const DelassusForm& delassus() const { return w_; }

 private:
  DelassusForm w_;
};

}  // namespace subsim
