#pragma once
// Non-smooth Newton (NNewton) on a Fischer-Burmeister / natural-map reformulation of the step
// problem: the "NNewton" baseline of the SubADMM ICRA 2023 paper's Table I, after Macklin,
// Erleben, Mueller, Chentanez, Jeschke, Kim, "Non-smooth Newton Methods for Deformable Multi-body
// Dynamics", ACM TOG 38(5) 2019, written in impulse space on the Delassus operator
// (their Schur-complement form), and Fischer, "A special Newton-type optimization method",
// Optimization 24 (1992) for the NCP function.
//
// Unknown: all impulses lambda.  With W, c of formulation/delassus_form.hpp (soft rows already
// folded into regularised equalities) the constraint velocity is w = W lambda + c, and the step
// problem is the root of Phi(lambda) = 0 taken block by block (FB for the normal, a natural map
// for friction, as Macklin et al.):
//   bilateral and damped soft rows   Phi_r = w_r
//   fixed soft rows (c = 0)          Phi_r = lambda_r - fixedValue_r (kept exactly 0)
//   unilateral rows, contact normal  Phi_r = fb(D_r lambda_r, w_r),
//                                    fb(a, b) = a + b - sqrt(a^2 + b^2)   (Fischer 1992)
//   contact tangential pair          Phi_t = D_t (lambda_t - Proj_{disc(mu max(lambda_n, 0))}
//                                                   (lambda_t - w_t / D_t))   (natural map)
// with D_r = DelassusForm::scale (W_rr; the two tangential rows share
// D_t = max(W_t1t1, W_t2t2)).  fb(a, b) = 0 iff a >= 0, b >= 0, ab = 0, so the normal row is
// Signorini; scaling lambda by D_r (the FB of the impulse-unit pair (lambda, w / D) times D) puts
// both arguments in m/s and makes every Phi_r a velocity, so ||Phi||_inf is a velocity error and
// the merit weighs rows alike.  The tangential map's fixed point is PGS's with the strict cone
// (the isotropic D_t keeps sliding opposite to the tangential velocity), i.e. the same
// Signorini-Coulomb solution as every other solver here.
// Newton step: a generalised Jacobian H = B W + C, B = dPhi/dw and C = dPhi/dlambda block
// diagonal per constraint (contacts 3x3; closed form in the .cpp, one-sided values at kinks);
// H d = -Phi is solved inexactly by restarted GMRES(restart) (Saad & Schultz 1986), matrix-free
// through W's diagonal and neighbour blocks, right-preconditioned with the inverse of each
// constraint's diagonal block B_j W_jj + C_j (block Jacobi).  Forcing term: Eisenstat-Walker
// "choice 2" (SIAM J. Sci. Comput. 17, 1996), eta_k = 0.9 (||Phi_k|| / ||Phi_k-1||)^2 with their
// safeguard, capped by NnewtonOptions::linear_tolerance, so the outer iteration turns superlinear
// near the solution; GMRES stops at ||H d + Phi||_2 <= eta_k ||Phi||_2 or linear_max_iterations.
// Descent safeguard: f = 1/2 ||Phi||^2 is C^1 on the FB rows (De Luca, Facchinei, Kanzow, Math.
// Prog. 75, 1996) with grad f = H^T Phi (H^T = W B^T + C^T, W symmetric); a direction failing
// the angle test grad f . d < -1e-6 |grad f| |d| is replaced by the block-scaled gradient step
// -M^{-1} M^{-T} grad f (gradientSteps() counts them).
// Line search: backtracking with the Armijo condition f(lambda + alpha d) <= f + sigma alpha
// grad f . d, sigma = 1e-4, alpha halved at most max_halvings times; when none passes, the trial
// with the smallest merit is taken (lineSearchFallbacks()), so an iteration always ends.
// Stopping residual (SolveStats::residual_name "Fischer-Burmeister ||Phi||_inf (m/s)"): ||Phi||_inf
// after the step.  Tolerance 0 runs exactly max_iterations; a warm start already below the
// tolerance returns after 0 iterations.
// Warm start: lambda from the solution passed in when its size fits (unprojected: Phi is defined
// everywhere); on exit vhat = A^{-1} (b + J^T lambda).
// All buffers (Krylov basis, Hessenberg matrix, per-constraint B, C and preconditioner blocks) are
// sized before the Newton loop, which performs no heap allocation.
// Single-threaded (SolverSettings::threads only builds W): modified Gram-Schmidt is a chain of
// k + 1 dependent global dot products per GMRES iteration (about 0.2 ms in all for 2166 rows on
// granular), so a parallel version would pay a fork/join per reduction for little gain, and a
// serial loop keeps the result independent of the thread count.  The solver is the Table I
// baseline for iteration counts and accuracy, not the parallel method.
// Known weakness (measured, cold start): when contacts outnumber the DOF (granular piles) H is
// singular and the merit nonsmooth at the friction-disc and lambda_n = 0 kinks; the globalisation
// phase then crawls with short Armijo steps before the fast local phase.  On
// granular:spheres=27 after 40 steps the residual reaches 6e-14 in 8 iterations, after 80 steps
// only 4e-6 m/s in 30; solving each linear system more exactly (GMRES(100), 100 iterations)
// made that case stall at 6e-2, so the inexactness is part of what makes it work.
#include <vector>

#include "subsim/formulation/delassus_form.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

/// NNewton's options (`subsim solvers nnewton`).
struct NnewtonOptions {
  /// Largest GMRES forcing term eta (relative to ||Phi||_2).
  double linear_tolerance = 1e-3;
  /// GMRES iteration cap per Newton step and its restart length.
  int linear_max_iterations = 50;
  int restart = 30;
  /// Backtracking halvings per line search.
  int max_halvings = 20;
};

class NnewtonSolver final : public SolverWithOptions<NnewtonSolver, NnewtonOptions> {
 public:
  using SolverWithOptions::SolverWithOptions;

  std::string_view name() const override { return "nnewton"; }
  void solve(const StepProblem& problem, const SolverSettings& settings,
             StepSolution& solution) override;

  static const OptionTable<Options>& optionTable();

  /// GMRES iterations summed over the last solve.
  int linearIterations() const { return linear_iterations_; }
  /// Line searches of the last solve that ended without meeting the Armijo condition.
  int lineSearchFallbacks() const { return fallbacks_; }
  /// Newton directions of the last solve replaced by the scaled gradient step.
  int gradientSteps() const { return gradient_steps_; }
  const DelassusForm& delassus() const { return w_; }

 private:
  /// Phi_j at (lambda, w) for constraint j; with B, C non-null also dPhi_j/dw_j and
  /// dPhi_j/dlambda_j (rows x rows row-major, fully written).
  void constraintPhi(int j, const double* lambda, const double* w, double* phi, double* B,
                     double* C) const;
  /// phi = Phi(lambda, w) for all rows; returns 1/2 ||phi||^2.
  double evaluate(const double* lambda, const double* w, double* phi) const;
  /// B, C and the block-Jacobi inverses at (lambda, w).
  void linearise(const double* lambda, const double* w);
  /// y = H x.
  void applyH(const double* x, double* y) const;
  /// y = H^T x (uses u_ as scratch).
  void applyHTranspose(const double* x, double* y);
  /// y = M^{-T} x.
  void applyPreconditionerTranspose(const double* x, double* y) const;
  /// y = M^{-1} x, block Jacobi.
  void applyPreconditioner(const double* x, double* y) const;
  /// Restarted right-preconditioned GMRES for H x = rhs from x = 0 until
  /// ||rhs - H x||_2 <= tolerance; returns the iterations taken.
  int gmres(const double* rhs, double tolerance, double* x);

  DelassusForm w_;
  const StepProblem* p_ = nullptr;
  std::vector<int> block_offset_;  // per constraint, into B_, C_, M_ (rows^2 each)
  DoubleBuffer B_, C_, M_;         // dPhi/dw, dPhi/dlambda, inverse of (B W + C)_jj
  DoubleBuffer s_;                 // per row D_r (1 where W_rr = 0)
  DoubleBuffer grad_, vel_, phi_, step_, wstep_, trial_lambda_, trial_w_, trial_phi_;
  DoubleBuffer r_, z_, u_;  // GMRES residual and temporaries
  DoubleBuffer basis_, hess_, cs_, sn_, g_, y_;
  int linear_iterations_ = 0;
  int fallbacks_ = 0;
  int gradient_steps_ = 0;
};

}  // namespace subsim
