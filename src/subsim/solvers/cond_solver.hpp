#pragma once
// COND: contact nodalization and diagonalization with the velocity fixed-point iteration (Lee,
// Lee, Lee, IEEE T-RO 2023; ../shared/papers/cond-digest.md), Algorithms 1-3.
//
// On the nodalized system of formulation/contact_nodalization.hpp (a virtual node per
// attachment, x = [vhat; u], augmented SPD matrix A_x, diagonal step matrix W), one iteration is
//
//   x*       = x^l - W (A_x x^l - b_x)                                     (20)
//   lambda_j = SOL(eta_j, gamma_j I),  eta_j = sum_a u*_a,  gamma_j = sum_a wbar_a   (22)-(23)
//   x**      = x* + W J_c^T lambda   (u**_a = u*_a + wbar_a lambda_j)                (24)
//
// where SOL is the per-constraint closed form (problem/constraint_operator.hpp; a contact by the
// strict operator of Prop. 4, or by the proximal one of Prop. 5, `cone`), so each iteration is
// one sparse product, diagonal scalings and independent closed forms: no linear solve.  A fixed
// point satisfies A vhat = b + J^T lambda exactly (the consistency of Remark 1).
//
// Acceleration (Algorithm 3, after Wang 2015): x^{l+1} = nu_{l+1} (u (x** - x^l) + x^l - x^{l-1})
// + x^{l-1} with nu = 1 before iteration l_s (`chebyshev_start`), 2 / (2 - rho^2) at l_s and
// 4 / (4 - rho^2 nu_l) after, rho = min(theta_l / theta_{l-1}, 1) (eq. 39), u the
// under-relaxation (`relaxation`, 1: none).  `chebyshev` false gives the plain V-FPI (Table IX's
// ablation).
//
// W (section III-E): Frobenius-norm minimisation (the default; rebuilt each step from the step's
// A, which costs one pass over it) or Barzilai-Borwein, W = alpha I with alpha_BB1 = s^T s / s^T z,
// s = x^l - x^{l-1}, z = A_x s (the change of the residual, so no extra product), which keeps
// Gamma diagonal for any alpha.  `regularization` Omega adds omega I to Gamma: the invertible
// contact model of section III-F (lambda = SOL(eta, Gamma + Omega)).
//
// Stopping residual (`stop`): by default the largest entry of the fixed point's residual
// A_x x^l - b_x - J_c^T lambda (N s: a momentum error, per DOF or node coordinate); or the
// paper's theta = ||x^{l+1} - x^l||_2 over vhat and the node velocities (m/s, its line 9).  theta
// falls below a tolerance also when the steps are small, not the error: with a stiff coupling
// (kv_ratio 1e4 on `incline:mu=0.2`) the sliding box stops after 2 iterations, stuck; the
// impulse residual does not.  theta drives the Chebyshev estimate either way.  Warm start: vhat
// from the solution's guess (the World passes the current velocities) and the nodes at u_a = J_a
// vhat + lambda_j / k_a, the fixed point's relation, from the warm-start impulses.  Parallel loops
// over chunks of DOF rows and over constraints (OpenMP, static schedules, each writes its own
// entries); theta is summed from per-chunk and per-constraint parts in a fixed order, so results
// are bit-identical for any thread count.  No allocation inside the iterations.
#include <algorithm>
#include <cmath>
#include <vector>

#include "subsim/formulation/contact_nodalization.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

enum class CondCone { Strict, Proximal };
enum class CondStepMatrix { Frobenius, BarzilaiBorwein };
enum class CondStop { Impulse, VelocityChange };

/// COND's options (`subsim solvers cond`).
struct CondOptions {
  /// The virtual nodes' viscous coupling, the paper's k_v in N s/m (0: kv_ratio scales it to
  /// each attachment; formulation/contact_nodalization.hpp).
  double kv = 0.0;
  double kv_ratio = 1e3;
  bool direct_nodes = true;
  CondCone cone = CondCone::Strict;
  CondStepMatrix step_matrix = CondStepMatrix::Frobenius;
  bool chebyshev = true;
  /// l_s: the iteration at which the Chebyshev weights start.
  int chebyshev_start = 8;
  /// u in (0, 1]: under-relaxation of the accelerated step.
  double relaxation = 1.0;
  /// Omega = omega I added to every Gamma_j (m/s per N s; 0: off).
  double regularization = 0.0;
  CondStop stop = CondStop::Impulse;
};

class CondSolver final : public SolverWithOptions<CondSolver, CondOptions> {
 public:
  using SolverWithOptions::SolverWithOptions;

  std::string_view name() const override { return "cond"; }
  void solve(const StepProblem& problem, const SolverSettings& settings,
             StepSolution& solution) override;

  static const OptionTable<Options>& optionTable();

  const ContactNodalization& nodalization() const { return nodes_; }

 private:
  /// What one part of an iteration reports: sum (x^{l+1} - x^l)^2 over its coordinates (theta's
  /// part) and the largest |A_x x^l - b_x - J_c^T lambda| among them (the impulse residual).
  struct Progress {
    double change2 = 0.0;
    double impulse = 0.0;
    void add(double change, double residual) {
      change2 += change * change;
      impulse = std::max(impulse, std::abs(residual));
    }
  };

  /// The node rows of the augmented residual for constraint j's attachments, from x.
  void nodeResidual(int constraint, const double* x, double* r) const;
  /// x** for the DOF of row chunk `chunk` (step alpha, or the Frobenius weights when
  /// alpha <= 0, which also computes their residual), accelerated into `next`.
  Progress stepDofs(int chunk, double alpha, const double* prev, const double* cur, double* next,
                    double nu);

  /// The DOF loops run over chunks of this many rows (a thread's unit of work, and the parts
  /// theta is summed from: fixed, so the sums do not depend on the thread count).
  static constexpr int kRowChunk = 64;
  /// u* and lambda_j, then u** for constraint j's nodes, accelerated into `next`.
  Progress stepConstraint(int constraint, double alpha, const double* prev, const double* cur,
                          double* next, double nu, double* lambda);

  ContactNodalization nodes_;
  DoubleBuffer x_[3];               // x^{l-1}, x^l, x^{l+1}, rotated
  DoubleBuffer residual_[2];        // A_x x - b_x at x^l and x^{l-1} (Barzilai-Borwein)
  DoubleBuffer part_;               // Barzilai-Borwein's s^T s, per subsystem, then per constraint
  DoubleBuffer part2_;              // and its s^T z
  std::vector<Progress> progress_;  // per row chunk, then per constraint
};

}  // namespace subsim
