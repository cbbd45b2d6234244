#pragma once
// Subsystem-based ADMM (SubADMM): Lee, Lee, Lee, ICRA 2023, Algorithm 1, with the journal
// version's residuals (42) and adaptive penalty (43) ("Variations of Augmented Lagrangian for
// Robotic Multi-Contact Simulation", section 4).
//
// Each iteration
//   v-step (15), parallel over subsystems i:
//       (A_i + beta_i J_i^T J_i) vhat_i = b_i + J_i^T (beta_i z_i - u_i)
//     with the matrix factored once per step (and again only when beta changes);
//   z-step (16), parallel over constraints j, closed form (problem/constraint_operator.hpp)
//     from y_ij = beta_i J_ij vhat_i + u_ij;
//   multiplier update (14) in the closed form u_ij = -lambda_j (journal 39).
// Over-relaxation (SubadmmOptions::relaxation = alpha): the z-step uses
//   alpha J_ij vhat_i + (1 - alpha) z_ij in place of J_ij vhat_i; u_ij = -lambda_j still holds.
// Penalty: beta_i from SubadmmOptions::penalty_rule (the inverse mass each row sees by default,
// or ICRA (23), solvers/penalty_rules.hpp), times SubadmmOptions::beta_scale.
// Adaptive penalty (SubadmmOptions::adaptive_beta): residual balancing in the spirit of the
// journal's (43), but per subsystem: every 5 iterations beta_i is scaled by
// sqrt(r_p,i / r_d,i) (clamped to [0.5, 2]) when the subsystem's primal residual as an impulse
// r_p,i = max_j ||lambda_j^{l+1} - lambda_j^l|| and its dual residual r_d,i differ by more than
// 5x, and that subsystem alone is refactored (a 6x6 Cholesky for a rigid body).  Not once both
// residuals are at round-off (below 1e-12 ||b_i||: their ratio is noise), and never beyond 100
// times rule (23)'s value either way (2 times for a free rigid body, whose A_i is its inertia
// alone): unguarded, a converged solve kept adapting and diverged.
// This per-subsystem rule also applies to robots in the per-body form (their beta_i is one
// number for all the subsystem's rows, eq. 41).
// Stopping residual (documented in SolveStats::residual_name):
//   "primal+dual (42)": theta_p = max_ij ||J_ij vhat_i - z_ij|| (m/s) plus
//                       theta_d = max_i ||A_i vhat_i - b_i - sum_j J_ij^T lambda_j|| (N s);
//   "theta (22)":       sum_ij ||y_ij^{l+1} - y_ij^l||^2 (N^2 s^2).
// Warm start: lambda from the solution passed in (mapped by constraint key by the assembler) and
// z_ij = J_ij vhat_i from the vhat guess passed in (the World passes the current velocities).
// Tree subsystems (robots) use the per-body form of the journal's (40)-(41) unless
// SubadmmOptions::factorization says Dense (solvers/per_body_factorization.hpp).
// Large subsystems with a sparse A_i (deformable pieces: >= SubadmmOptions::sparse_min_dof, 48,
// DOF in 3x3 node blocks, under 40%
// of the blocks nonzero) use a block-sparse LDL^T of A_i + beta_i J_i^T J_i instead of the dense
// Cholesky (solvers/sparse_subsystem_factorization.hpp), and every J_ij block of a subsystem
// above 6 DOF with zero columns is used through its nonzero columns only
// (formulation/compact_jacobian.hpp): the same iterates up to round-off, at a fraction of the cost.
// The penalty rule's w_r on sparse subsystems come from the selected inverse of A_i (its
// entries on the factor's pattern, in about one factorisation's work): exact for every row, as
// the dense form's one solve per row, which cost as much as the rest of the step on pieces with
// hundreds of interface and contact rows.  (A Hutchinson trace estimate with 16 probes was tried
// first: 30-50% off on a third of the beam's pieces, whose W = J A^-1 J^T is dominated by a few
// rigid modes.)
// All buffers are sized in prepare(); the iteration loop performs no heap allocation.
#include <vector>

#include "subsim/formulation/compact_jacobian.hpp"
#include "subsim/solvers/anderson_acceleration.hpp"
#include "subsim/solvers/penalty_rules.hpp"
#include "subsim/solvers/per_body_factorization.hpp"
#include "subsim/solvers/solver.hpp"
#include "subsim/solvers/sparse_subsystem_factorization.hpp"

namespace subsim {

/// SubADMM's options (`subsim solvers subadmm` lists them with their text names).
struct SubadmmOptions {
  /// Adapt the penalty by residual balancing (in the spirit of the journal's (43)).
  bool adaptive_beta = true;
  /// Which residual stops the iteration.  PrimalDual is the journal's (42) theta_p + theta_d;
  /// IcraTheta is the ICRA paper's (22) sum_i ||y_i^{l+1} - y_i^l||^2.
  enum class Residual { PrimalDual, IcraTheta };
  Residual residual = Residual::PrimalDual;
  /// The initial penalty of each subsystem.  Delassus (the default):
  ///   beta_i = kDelassusPenaltyFactor * rows_i / sum_r w_r,  w_r = (J_i A_i^-1 J_i^T)_rr,
  /// the inverse mass each row sees (a soft row with c' counts sqrt(w_r / c')), in the spirit of
  /// the journal's pseudo-density initialisation (body mass per contact point).  Trace: the ICRA
  /// paper's empirical (23), kTracePenaltyFactor * Tr(A_i) / Tr(J_i^T J_i).  The trace counts the
  /// stiffness folded into A_i (cable couplings, FEM) as if every row pushed against it: on the
  /// 640-segment cable at 30 iterations the free end fell 0.08 m in 0.5 s with it, 0.63 m with
  /// the Delassus rule (1.23 m exactly); on granular / stir at 30/60/90 iterations AA rose from
  /// 3.64/4.31/4.69 and 3.61/4.29/4.58 to 3.99/4.48/4.81 and 3.90/4.33/4.65.
  enum class PenaltyRule { Delassus, Trace };
  PenaltyRule penalty_rule = PenaltyRule::Delassus;
  /// Common factor on the initial penalty rule; 1 is the measured default.  The paper's plain
  /// (23) is 1 / kTracePenaltyFactor with the Trace rule.  (With the trace rule, 20 times (23)
  /// with the relaxation and adaptation below measured best: granular at 60 iterations AA 4.31
  /// and 0.8 mm penetration against 3.77 and 4.2 mm for the plain iteration; a stack of 10 boxes
  /// stands at 100 iterations only from about 10x.)
  double beta_scale = 1.0;
  /// ADMM over-relaxation alpha in (0, 2) (Boyd et al. 2011, section 3.4.3): the z-step sees
  /// alpha J vhat + (1 - alpha) z.  1 is the papers' plain iteration.
  double relaxation = 1.5;
  /// How a tree subsystem's A_j + beta sum J^T J is formed and factored.  PerBody is the AL
  /// paper's eq. (40)-(41) (solvers/per_body_factorization.hpp): sum_b J_b^T G_b J_b with
  /// branch-induced sparsity, factored without fill-in; Dense forms sum J_ij^T J_ij on the full
  /// block and takes a dense Cholesky.  Other subsystems are unaffected.
  enum class Factorization { PerBody, Dense };
  Factorization factorization = Factorization::PerBody;
  /// Anderson acceleration of the (z, lambda) fixed-point iteration with this window
  /// (solvers/anderson_acceleration.hpp; 0: off, at most 8).  Not in the papers.
  int anderson_window = 0;
  /// Subsystems of at least this many DOF (with a sparse A_i) take the sparse factorisation; a
  /// very large value forces the dense one (the same iterates up to round-off).
  int sparse_min_dof = SparseSubsystemFactorization::kDefaultMinDof;
};

class SubadmmSolver final : public SolverWithOptions<SubadmmSolver, SubadmmOptions> {
 public:
  using SolverWithOptions::SolverWithOptions;

  std::string_view name() const override { return "subadmm"; }
  void solve(const StepProblem& problem, const SolverSettings& settings,
             StepSolution& solution) override;

  static const OptionTable<Options>& optionTable();

  /// Current penalties, one per subsystem (after the last solve).
  const DoubleBuffer& beta() const { return beta_; }

  /// SubadmmOptions::sparse_min_dof (tests compare the two factorisations).
  void setSparseMinDof(int dof) { options_.sparse_min_dof = dof; }
  /// Whether subsystem i took the sparse factorisation in the last solve.
  bool usesSparse(int subsystem) const { return sparse_.uses(subsystem); }
  /// Whether it reused the previous solve's ordering and symbolic analysis (same pattern).
  bool reusedSparseAnalysis(int subsystem) const { return sparse_.reusedAnalysis(subsystem); }

 private:
  void prepare(const StepProblem& problem, int threads);
  void initialPenalty(const StepProblem& problem, int subsystem);
  /// Whether subsystem i is an elastic piece joined by a bilateral row to another (a piece of
  /// an elastic body cut into several); elastic_ must be filled for every subsystem.
  bool joinedToElasticPiece(const StepProblem& problem, int subsystem) const;
  void factorize(const StepProblem& problem, int subsystem);
  /// True when a factorisation of this solve failed (read in a single region: no race).
  bool anyFactorizationFailed() const;
  void factorizeA(const StepProblem& problem, int subsystem);
  double rowInverseMass(const StepProblem& problem, int subsystem, int attachment, int row,
                        double* scratch);
  void unconstrainedVelocity(const StepProblem& problem, int subsystem, double* vhat);
  void vStep(const StepProblem& problem, int subsystem, const double* lambda, double* vhat);
  void zStep(const StepProblem& problem, int constraint, const double* vhat, double* lambda,
             bool measure);
  template <int kRows>  // 0: the constraint's own row count
  void zStepRows(const StepProblem& problem, int constraint, const double* vhat, double* lambda,
                 bool measure);
  struct RigidContact;
  template <int kAttachments>
  void zStepRigidContact(const StepProblem& problem, const RigidContact& contact,
                         const double* vhat, double* lambda, bool measure);
  void prepareFlatRecords(const StepProblem& problem);
  /// The z-step's residual parts of constraint j (read when the iteration measures).
  void recordZStep(int constraint, double dlambda2, double max_inv_beta, double theta);
  double dualResidual(const StepProblem& problem, int subsystem);
  void adaptPenalty(const StepProblem& problem, int subsystem);
  double delassusPenalty(const StepProblem& problem, int subsystem);
  static double balancingFactor(double primal, double dual, double impulse_scale);
  void scalePenalty(const StepProblem& problem, int subsystem, double factor);

  // Adjacency: attachments of each subsystem (CSR) and the constraint of each attachment.
  std::vector<int> sub_begin_;
  std::vector<int> sub_attachments_;
  std::vector<int> attachment_fill_;  // prepare()'s scratch: the next free slot per subsystem
  std::vector<int> att_constraint_;
  std::vector<int> att_z_offset_;  // start of each attachment's rows in z_, y_, dz_
  // The iteration's loops read flat records built in prepare() instead of following the
  // problem's constraint and attachment records: those lookups were about half of the z-step's
  // and the v-step's instructions on granular (callgrind).  Same operations in the same order.
  struct AttachmentRows {     // per entry of sub_attachments_
    const double* jacobian6;  // a dense rows x 6 block (a rigid body's), else nullptr
    int attachment, z_offset, row_offset, rows;
  };
  std::vector<AttachmentRows> sub_rows_;
  // A contact (isotropic, 3 rows) on one or two 6-DOF subsystems with dense blocks that are not
  // in the per-body form: every pile's contact.
  struct RigidContact {
    const double* jacobian[2];  // 3 x 6 row-major
    int subsystem[2], dof_offset[2], z_offset[2];
    int constraint, row_offset, num_attachments;
    double mu;
  };
  std::vector<RigidContact> rigid_contacts_;
  std::vector<int> other_constraints_;  // every other constraint, in index order
  // Penalties and per-subsystem factorisations of A_i + beta_i J_i^T J_i.
  DoubleBuffer beta_, inv_beta_;
  DoubleBuffer beta_initial_,
      impulse_scale_;       // rule (23)'s beta_i and ||b_i|| (adaptation guards)
  DoubleBuffer max_drift_;  // how far beta_i may drift from beta_initial_ either way
  // Per subsystem, set in each solve's setup: A_i is its inertia alone (a free rigid body); a
  // piece of an elastic continuum (lumped point masses and stiffness in A_i).
  std::vector<char> inertial_, elastic_;
  std::vector<Mat6> kinv6_;  // (A_i + beta_i J_i^T J_i)^{-1} for 6-DOF subsystems
  // ... and the Cholesky factors of other small dense ones (small_factor_[i] set), at
  // small_offset_[i] (solvers/small_spd_factor.hpp).
  std::vector<char> small_factor_;
  DoubleBuffer k_small_;
  std::vector<std::size_t> small_offset_;
  std::vector<int> small_envelope_;  // their envelopes, at 2 dof_offset
  std::vector<Eigen::LLT<MatX>> llt_;
  std::vector<Eigen::LLT<MatX>> a_llt_;  // of A_i alone: the penalty rule, a cold start's vhat
  std::vector<char> a_factored_;     // this solve's A_i is factored: 0 no, 1 in a_llt_, 2 sparse
  std::vector<char> factor_failed_;  // per subsystem: a factorisation of this solve failed
  PerBodyFactorization per_body_;    // tree subsystems in the per-body form
  SparseSubsystemFactorization sparse_;  // large sparse subsystems
  CompactJacobian compact_;              // J_ij blocks without their zero columns
  // Column-major K_i blocks at k_offset_[i] for the subsystems that may take a dense factor
  // (prepare()); none for a large sparse one, which takes the block-sparse form alone.
  DoubleBuffer k_scratch_;
  std::vector<std::size_t> k_offset_;
  // A sparse subsystem fitting the block-sparse form keeps a dense fallback up to this size
  // (2 MB): a block LDL^T that meets a nonpositive pivot hands it to the dense Cholesky.
  static constexpr int kSparseFallbackMaxDof = 512;
  // ADMM variables per attachment row.
  DoubleBuffer z_, y_, dz_;
  DoubleBuffer rhs_;           // per DOF
  DoubleBuffer dual_scratch_;  // per DOF: J_i^T dz_i of dualResidual()
  // Per-constraint and per-subsystem residual partials, reduced in a fixed order.
  DoubleBuffer primal_part_, theta_part_, dual_part_;
  DoubleBuffer dlambda_;  // ||lambda^{l+1} - lambda^l|| per constraint
  // Anderson acceleration (SubadmmOptions::anderson_window): x = (z, lambda) packed.
  void andersonWeights(const StepProblem& problem);
  void andersonStep(const StepProblem& problem, double* lambda);
  AndersonAcceleration anderson_;
  DoubleBuffer aa_x_, aa_g_;
  std::vector<char> beta_changed_;  // per subsystem, since the last Anderson step
  double aa_last_f2_ = 0.0;
  double relax_ = 1.0;  // over-relaxation of the current solve
};

}  // namespace subsim
