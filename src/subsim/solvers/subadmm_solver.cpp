#include "subsim/solvers/subadmm_solver.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "subsim/formulation/dense_kernels.hpp"
#include "subsim/math/theta_factor.hpp"
#include "subsim/problem/constraint_operator.hpp"
#include "subsim/solvers/small_spd_factor.hpp"

namespace subsim {

namespace {
// Adaptive penalty: residual balancing per subsystem every kAdaptInterval iterations, when the
// subsystem's primal residual (as an impulse, beta_i ||J v - z|| = ||lambda^{l+1} - lambda^l||)
// and its dual residual differ by more than kGamma, by at most kMaxFactor per change.  With 10x
// per change and 1e4 drift, the penalties of the stir scene's subsystems spread to both bounds
// (1e-4 and 1e4 times rule (23)) within 30 iterations and some solves then diverged (residual
// 0.03 -> 935 over three steps at 90 iterations); 2x and 100x keep every scene's runs complete
// at the same accuracy (stir 30/60/90: AA 3.61/4.29/4.58, granular 3.64/4.31/4.69).  The
// journal's rule (43), one common factor for every beta_i from the global residuals, measured
// worse here (stir at 30 iterations exceeded the penetration limit at step 51).
constexpr ResidualBalancing kBalancing{5, 5.0, 2.0};  // interval, gamma, max factor
// Once both residuals are at round-off (relative to the subsystem's impulse scale ||b_i||) their
// ratio is noise: adapting on it drove beta by 1e10 within 100 further iterations on a converged
// quadruped touchdown and the iterates diverged (residual 4e-9 at iteration 41, 0.4 at 101).
constexpr double kRoundOff = 1e-12;
// And beta stays within this factor of rule (23)'s value either way ...
constexpr double kMaxDrift = 100.0;
// ... or within this one for a subsystem whose A_i is its inertia alone (a free rigid body,
// A = M / (1 - theta)), whose rows' inverse masses the initial rule already has exactly.  With
// 100x, a few spheres of a jammed stir pile drifted below 1/50 of their initial penalty, their
// rows' velocity violation (an impulse change over beta) grew, and runs penetrated and diverged:
// stir with 150-300 spheres and mu 0.3-0.7 at 30/60/90 iterations (30 runs) completed 25 of 30
// at 100x (stir itself diverged at step 208 at 90 iterations), all 30 at 3x and 2x (worst
// penetration 9.6 and 6.4 mm); granular's 18 such runs completed either way, AA within 0.03.
// The cable's segments (rod couplings folded into A_i) and the robots (joint gains) need the
// wide range: the cable's AA at 60 iterations fell from 4.79 to 3.31 with 10x for every
// subsystem, and stir diverged more often with the robot's penalty held.
constexpr double kInertialMaxDrift = 2.0;
// A piece of an elastic body cut into several (lumpedPointMasses below, joined to
// another by bilateral interface rows) keeps its penalty fixed at kElasticPenaltyFactor times
// the rule.  On the paper's 20-piece beam (node copies unified after each step,
// unifyNodeCopies in model/deformable_body.hpp) every penalty adapting diverged at 30 and 60
// iterations (steps 9 and 39), the pieces' within 2x of the rule at 30 (step 73); fixed at 1x
// the rule 30 iterations ended at AA 1.14 with 3.3 mm penetration, at 2x at AA 3.87 (60: 4.65,
// 90: 4.95; docs/deformables.md).  A body in one piece keeps adapting: on the soft mat the fixed
// 2x penalty took AA at 50 / 100 iterations from 7.92 / 11.33 to 5.31 / 5.93.
constexpr double kElasticMaxDrift = 1.0;
constexpr double kElasticPenaltyFactor = 2.0;

// Whether subsystem i's A_i is its inertia alone, M_i / (1 - theta), in either storage.
bool inertiaAlone(const StepProblem& p, int i) {
  if (!p.has_step_data || p.subsystems[i].tree_offset >= 0) return false;
  const double g = thetaFactor(p.theta);
  if (p.isSparse(i)) {  // A_i and M_i share the pattern
    const auto A = p.sparseA(i);
    const auto M = p.sparseM(i);
    const Eigen::Map<const VecX> a(A.valuePtr(), A.nonZeros()), m(M.valuePtr(), M.nonZeros());
    return (a - g * m).cwiseAbs().maxCoeff() <= 1e-12 * a.cwiseAbs().maxCoeff();
  }
  const auto A = p.A(i);
  const auto M = p.M(i);
  return (A - g * M).cwiseAbs().maxCoeff() <= 1e-12 * A.cwiseAbs().maxCoeff();
}

// Whether subsystem i, whose A_i is not its inertia alone, is a piece of an elastic continuum:
// lumped point masses (M_i diagonal, the same mass on each consecutive triple of DOF, as FEM
// nodes have and a rigid body's rotations do not) with stiffness folded into A_i.  Decided from
// the data, so either storage and a problem read from a file give the same answer.
bool lumpedPointMasses(const StepProblem& p, int i) {
  if (!p.has_step_data || p.subsystems[i].tree_offset >= 0 || p.subsystems[i].dof % 3 != 0)
    return false;
  // M_i's entries column by column, columns in order (no copy: this runs in every solve's setup).
  const auto forEachMassEntry = [&](auto&& f) {
    if (p.isSparse(i)) {
      const auto M = p.sparseM(i);
      for (int c = 0; c < M.outerSize(); ++c)
        for (int k = M.outerIndexPtr()[c]; k < M.outerIndexPtr()[c + 1]; ++k)
          f(M.innerIndexPtr()[k], c, M.valuePtr()[k]);
    } else {
      const auto M = p.M(i);
      for (int c = 0; c < M.cols(); ++c)
        for (int r = 0; r < M.rows(); ++r) f(r, c, M(r, c));
    }
  };
  double scale = 0.0;
  forEachMassEntry([&](int r, int c, double m) {
    if (r == c) scale = std::max(scale, std::abs(m));
  });
  if (!(scale > 0.0)) return false;
  // Off the diagonal zero; on it, each DOF's mass that of the first DOF of its triple (whose
  // column came before).
  bool lumped = true;
  double triple_mass = 0.0;
  forEachMassEntry([&](int r, int c, double m) {
    if (r != c)
      lumped = lumped && std::abs(m) <= 1e-12 * scale;
    else if (c % 3 == 0)
      triple_mass = m;
    else
      lumped = lumped && std::abs(m - triple_mass) <= 1e-12 * scale;
  });
  return lumped;
}

// The two halves of the z-step (16) on one attachment, shared by SubadmmSolver::zStepRows and
// its rigid-contact form (the same operations in the same order either way).  kRows > 0: that
// many rows, unrolled.
// Before the projection: x = alpha J_ij vhat_i + (1 - alpha) z_ij (x holds J_ij vhat_i on entry),
// y_ij = beta_i x - lambda_j^old (theta += ||y_ij^new - y_ij^old||^2 when measured), and
// s += x - lambda_j^old / beta_i.
template <int kRows>
inline void zStepSplit(int rows, double relax, double keep, double beta, double inv_beta,
                       const double* lambda_old, const double* z, double* x, double* y, double* s,
                       double& theta, bool measure) {
  const int n = kRows > 0 ? kRows : rows;
  for (int k = 0; k < n; ++k) x[k] = relax * x[k] + keep * z[k];
  for (int k = 0; k < n; ++k) {
    const double y_new = beta * x[k] - lambda_old[k];
    if (measure) theta += (y_new - y[k]) * (y_new - y[k]);
    y[k] = y_new;
    s[k] += x[k] - lambda_old[k] * inv_beta;
  }
}

// After it: z_ij = (y_ij + lambda_j) / beta_i and its change dz_ij.
template <int kRows>
inline void zStepSlack(int rows, double inv_beta, const double* y, const double* lambda_new,
                       double* z, double* dz) {
  const int n = kRows > 0 ? kRows : rows;
  for (int k = 0; k < n; ++k) {
    const double z_new = (y[k] + lambda_new[k]) * inv_beta;
    dz[k] = z_new - z[k];
    z[k] = z_new;
  }
}
}  // namespace

const OptionTable<SubadmmOptions>& SubadmmSolver::optionTable() {
  using O = SubadmmOptions;
  static const OptionTable<O> table =
      OptionTable<O>()
          .flag("adaptive_beta", &O::adaptive_beta,
                "adapt each subsystem's penalty by residual balancing (every 5 iterations, at "
                "most 2x per change and 100x from the initial value, 2x for a free rigid body, "
                "none for the pieces of an elastic body cut into several)")
          .choice(
              "residual", &O::residual,
              {{"primal-dual", O::Residual::PrimalDual}, {"icra-theta", O::Residual::IcraTheta}},
              "stopping residual: the journal's (42) theta_p + theta_d, or the ICRA paper's "
              "(22) sum ||y^{l+1} - y^l||^2")
          .choice("penalty_rule", &O::penalty_rule,
                  {{"delassus", O::PenaltyRule::Delassus}, {"trace", O::PenaltyRule::Trace}},
                  "initial penalty: 4 rows_i / sum_r (J A^-1 J^T)_rr, the inverse mass each row "
                  "sees, or the ICRA paper's (23) 20 Tr(A_i) / Tr(J_i^T J_i)")
          .number("beta_scale", &O::beta_scale, NumberRange::positive(), "-",
                  "factor on the initial penalty rule (1: the measured default)")
          .number("relaxation", &O::relaxation, NumberRange::open(0.0, 2.0), "-",
                  "ADMM over-relaxation alpha (1: the papers' plain iteration)")
          .choice("factorization", &O::factorization,
                  {{"per-body", O::Factorization::PerBody}, {"dense", O::Factorization::Dense}},
                  "robots' subsystem matrices in the per-body form (AL paper eq. 40, "
                  "branch-sparse LTDL) or dense (Cholesky)")
          .integer("anderson_window", &O::anderson_window, 0, AndersonAcceleration::kMaxWindow,
                   "iterates",
                   "Anderson acceleration window of the (z, lambda) iteration (0: off; not in the "
                   "papers)")
          .integer("sparse_min_dof", &O::sparse_min_dof, 1, 1000000000, "DOF",
                   "subsystems this large with a sparse A_i take the block-sparse LDL^T (same "
                   "iterates up to round-off)");
  return table;
}

void SubadmmSolver::factorizeA(const StepProblem& p, int i) {
  if (a_factored_[i] != 0) return;
  if (sparse_.uses(i) && sparse_.factorizeA(i)) {
    a_factored_[i] = 2;
    return;
  }
  if (k_offset_[i + 1] == k_offset_[i]) {  // no dense copy to fall back on: not SPD
    factor_failed_[i] = 1;
    a_factored_[i] = 2;
    return;
  }
  if (p.isSparse(i)) {
    // A block stored sparse that the sparse form cannot take: its dense copy, in K_i's scratch
    // (factorize() rewrites it; the factors keep their own copies).
    Eigen::Map<MatX> A(k_scratch_.data() + k_offset_[i], p.subsystems[i].dof, p.subsystems[i].dof);
    A = p.sparseA(i);
    a_llt_[i].compute(A);
  } else {
    a_llt_[i].compute(p.A(i));
  }
  if (a_llt_[i].info() != Eigen::Success) factor_failed_[i] = 1;
  a_factored_[i] = 1;
}

double SubadmmSolver::rowInverseMass(const StepProblem& p, int i, int a, int r, double* u) {
  // w_r = j_r A_i^-1 j_r^T, j_r row r of J_ia; u: the subsystem's DOF of scratch.
  const Attachment& at = p.attachments[a];
  if (a_factored_[i] == 2) {  // the sparse form's attachments are all compact
    const int w = compact_.width(a);
    return sparse_.rowInverseMassA(i, w, compact_.columns(a),
                                   compact_.values(a) + static_cast<size_t>(r) * w);
  }
  Eigen::Map<VecX> column(u, at.dof);
  if (compact_.compact(a)) {  // a compact block (stored sparse, or scanned) on a dense factor
    const int w = compact_.width(a);
    column.setZero();
    for (int k = 0; k < w; ++k)
      column[compact_.columns(a)[k]] = compact_.values(a)[static_cast<size_t>(r) * w + k];
  } else {
    column = p.J(at).row(r).transpose();
  }
  a_llt_[i].matrixL().solveInPlace(column);
  return column.squaredNorm();
}

double SubadmmSolver::delassusPenalty(const StepProblem& p, int i) {
  // rows / sum_r w_r with w_r = (J_i A_i^-1 J_i^T)_rr, the inverse mass a hard row sees in this
  // subsystem; a soft row with c' (N s/m) counts as sqrt(w_r / c'), the geometric mean of the
  // two curvatures of its ADMM splitting (dynamics 1/w_r, compliance c').
  factorizeA(p, i);
  if (a_factored_[i] == 2) sparse_.selectedInverseA(i);
  // Scratch of the dense form: rhs_ is not in use before the iterations (a slice per subsystem).
  double* u = rhs_.data() + p.subsystems[i].dof_offset;
  double sum = 0.0;
  int rows = 0;
  for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
    const int a = sub_attachments_[q];
    const Constraint& c = p.constraints[att_constraint_[a]];
    for (int r = 0; r < c.rows; ++r) {
      const double w = rowInverseMass(p, i, a, r, u);
      const double soft = c.type == ConstraintType::Soft ? p.soft_c[c.row_offset + r] : 0.0;
      sum += soft > 0.0 ? std::sqrt(w / soft) : w;
      ++rows;
    }
  }
  return sum > 0.0 ? rows / sum : 1.0;
}

void SubadmmSolver::prepare(const StepProblem& p, int threads) {
  const int ns = p.numSubsystems();
  const int na = static_cast<int>(p.attachments.size());
  sub_begin_.assign(ns + 1, 0);
  att_constraint_.resize(na);
  att_z_offset_.resize(na + 1);
  int zrows = 0;
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    for (int k = 0; k < c.num_attachments; ++k) {
      const int a = c.first_attachment + k;
      att_constraint_[a] = j;
      att_z_offset_[a] = zrows;
      zrows += c.rows;
      ++sub_begin_[p.attachments[a].subsystem + 1];
    }
  }
  att_z_offset_[na] = zrows;
  for (int i = 0; i < ns; ++i) sub_begin_[i + 1] += sub_begin_[i];
  sub_attachments_.resize(na);
  attachment_fill_.assign(sub_begin_.begin(), sub_begin_.end() - 1);
  for (int a = 0; a < na; ++a) sub_attachments_[attachment_fill_[p.attachments[a].subsystem]++] = a;
  beta_.resize(ns);
  inv_beta_.resize(ns);
  beta_initial_.resize(ns);
  max_drift_.resize(ns);
  inertial_.resize(ns);
  elastic_.resize(ns);
  impulse_scale_.resize(ns);
  kinv6_.resize(ns);
  small_factor_.assign(ns, 0);
  llt_.resize(ns);
  a_llt_.resize(ns);
  a_factored_.assign(ns, 0);
  factor_failed_.assign(ns, 0);
  compact_.prepare(p, threads);
  k_offset_.resize(ns + 1);
  k_offset_[0] = 0;
  small_offset_.resize(ns + 1);
  small_offset_[0] = 0;
  for (int i = 0; i < ns; ++i) {
    // A dense K_i for every subsystem that may take the dense Cholesky: every one stored dense;
    // one stored sparse where the block-sparse form cannot take it (then within
    // kMaxDensifiedDof, else refused here), where the rules pick the dense form (small), or as
    // the fallback of a small one.  A large sparse one takes the block-sparse form alone.
    const int n = p.subsystems[i].dof;
    const bool fits = SparseSubsystemFactorization::fits(
        p, i, sub_attachments_.data() + sub_begin_[i], sub_begin_[i + 1] - sub_begin_[i], compact_);
    if (p.isSparse(i) && !fits) requireDensifiable(p, i, "subadmm");
    const bool dense =
        !p.isSparse(i) || !fits || n < options_.sparse_min_dof || n <= kSparseFallbackMaxDof;
    const std::size_t size = dense ? static_cast<std::size_t>(n) * n : 0;
    k_offset_[i + 1] = k_offset_[i] + size;
    small_offset_[i + 1] = small_offset_[i] + (n <= kSmallSpdMaxSize ? size : 0);
  }
  k_small_.resize(small_offset_[ns]);
  small_envelope_.resize(2 * static_cast<std::size_t>(p.numDof()));
  k_scratch_.resize(k_offset_[ns]);
  z_.resize(zrows);
  y_.resize(zrows);
  dz_.resize(zrows);
  rhs_.resize(p.numDof());
  dual_scratch_.resize(p.numDof());
  primal_part_.resize(p.numConstraints());
  theta_part_.resize(p.numConstraints());
  dlambda_.resize(p.numConstraints());
  dual_part_.resize(ns);
  const bool per_body = options_.factorization == SubadmmOptions::Factorization::PerBody;
  if (per_body)
    per_body_.prepare(p, sub_begin_, sub_attachments_);
  else
    per_body_.disableAll(ns);
  sparse_.resize(ns);
  prepareFlatRecords(p);
  beta_changed_.assign(ns, 0);
  if (options_.anderson_window > 0) {
    const int n = zrows + p.numRows();
    if (static_cast<int>(aa_x_.size()) != n) {
      aa_x_.resize(n);
      aa_g_.resize(n);
    }
    anderson_.resize(n, options_.anderson_window);
  }
}

void SubadmmSolver::prepareFlatRecords(const StepProblem& p) {
  // A dense block on a rigid body: the 6-column kernels apply.  Per-body robots' blocks are
  // excluded by the callers (per_body_ may yet disable a subsystem, never enable one).
  const auto rigidBlock = [&](int a) {
    const Attachment& at = p.attachments[a];
    return at.dof == 6 && !compact_.compact(a) ? p.jacobian_data.data() + at.j_offset : nullptr;
  };
  sub_rows_.resize(sub_attachments_.size());
  for (std::size_t q = 0; q < sub_attachments_.size(); ++q) {
    const int a = sub_attachments_[q];
    const Constraint& c = p.constraints[att_constraint_[a]];
    sub_rows_[q] = {rigidBlock(a), a, att_z_offset_[a], c.row_offset, c.rows};
  }
  rigid_contacts_.clear();
  other_constraints_.clear();
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    bool rigid = c.type == ConstraintType::Contact && c.rows == 3 && !c.anisotropic() &&
                 (c.num_attachments == 1 || c.num_attachments == 2);
    RigidContact rc{{nullptr, nullptr}, {0, 0}, {0, 0}, {0, 0}, j, c.row_offset,
                    c.num_attachments,  c.mu};
    for (int q = 0; rigid && q < c.num_attachments; ++q) {
      const int a = c.first_attachment + q;
      const int i = p.attachments[a].subsystem;
      rc.jacobian[q] = rigidBlock(a);
      rc.subsystem[q] = i;
      rc.dof_offset[q] = p.subsystems[i].dof_offset;
      rc.z_offset[q] = att_z_offset_[a];
      rigid = rc.jacobian[q] != nullptr && !per_body_.uses(i);
    }
    if (rigid)
      rigid_contacts_.push_back(rc);
    else
      other_constraints_.push_back(j);
  }
}

void SubadmmSolver::andersonWeights(const StepProblem& p) {
  // The ADMM metric: beta_i ||z_ij||^2 per attachment row and ||lambda_j||^2 / beta_j per
  // constraint row, with 1 / beta_j = sum_i 1 / beta_i over its attachments (the z-step's w).
  double* w = anderson_.weights();
  const int zrows = static_cast<int>(z_.size());
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    double inv = 0.0;
    for (int q = 0; q < c.num_attachments; ++q) {
      const int a = c.first_attachment + q;
      const int i = p.attachments[a].subsystem;
      inv += inv_beta_[i];
      for (int k = 0; k < c.rows; ++k) w[att_z_offset_[a] + k] = beta_[i];
    }
    const double wl = inv > 0.0 ? 1.0 / inv : 0.0;
    for (int k = 0; k < c.rows; ++k) w[zrows + c.row_offset + k] = wl;
  }
}

void SubadmmSolver::andersonStep(const StepProblem& p, double* lambda) {
  // Runs in one thread.  A penalty change changes the map: the history is dropped.
  if (std::find(beta_changed_.begin(), beta_changed_.end(), 1) != beta_changed_.end()) {
    std::fill(beta_changed_.begin(), beta_changed_.end(), 0);
    andersonWeights(p);
    anderson_.reset();
  }
  const int zrows = static_cast<int>(z_.size());
  std::copy(z_.begin(), z_.end(), aa_g_.begin());
  std::copy_n(lambda, p.numRows(), aa_g_.begin() + zrows);
  const double f2 = anderson_.step(aa_x_.data(), aa_g_.data(), aa_last_f2_);
  aa_last_f2_ = f2;
  std::copy_n(aa_g_.begin(), zrows, z_.begin());
  std::copy_n(aa_g_.begin() + zrows, p.numRows(), lambda);
  aa_x_.swap(aa_g_);
}

bool SubadmmSolver::joinedToElasticPiece(const StepProblem& p, int i) const {
  if (!elastic_[i]) return false;
  for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
    const Constraint& c = p.constraints[att_constraint_[sub_attachments_[q]]];
    if (c.type != ConstraintType::Bilateral) continue;
    for (int a = c.first_attachment; a < c.first_attachment + c.num_attachments; ++a) {
      const int other = p.attachments[a].subsystem;
      if (other != i && elastic_[other]) return true;
    }
  }
  return false;
}

void SubadmmSolver::initialPenalty(const StepProblem& p, int i) {
  // SubadmmOptions::PenaltyRule.
  if (sub_begin_[i] == sub_begin_[i + 1]) {
    beta_[i] = options_.beta_scale;  // no constraint reads it
  } else if (options_.penalty_rule == SubadmmOptions::PenaltyRule::Trace) {
    // ICRA (23): beta_i = Tr(A_i) / Tr(J_i^T J_i).
    double trace_jtj = 0.0;
    for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
      const int a = sub_attachments_[q];
      trace_jtj += compact_.compact(a)
                       ? Eigen::Map<const VecX>(compact_.values(a),
                                                compact_.width(a) * p.attachments[a].rows)
                             .squaredNorm()
                       : p.J(p.attachments[a]).squaredNorm();
    }
    beta_[i] = options_.beta_scale * kTracePenaltyFactor * traceRatio(p.traceA(i), trace_jtj);
  } else {
    beta_[i] = options_.beta_scale * kDelassusPenaltyFactor * delassusPenalty(p, i);
  }
  max_drift_[i] = inertial_[i] ? kInertialMaxDrift : kMaxDrift;
  if (joinedToElasticPiece(p, i)) {
    beta_[i] *= kElasticPenaltyFactor;
    max_drift_[i] = kElasticMaxDrift;
  }
  inv_beta_[i] = 1.0 / beta_[i];
  beta_initial_[i] = beta_[i];
  impulse_scale_[i] = p.bBlock(i).norm();
}

void SubadmmSolver::factorize(const StepProblem& p, int i) {
  const Subsystem& s = p.subsystems[i];
  double* K = k_scratch_.data() + k_offset_[i];
  if (per_body_.uses(i)) {
    if (per_body_.factorize(p, i, beta_[i], K)) return;
    per_body_.disable(i);  // not positive definite in this form: the dense Cholesky decides
  }
  if (sparse_.uses(i)) {
    if (sparse_.factorize(i, beta_[i])) return;
    if (k_offset_[i + 1] == k_offset_[i]) {  // no dense copy to fall back on: not SPD
      factor_failed_[i] = 1;
      return;
    }
    sparse_.disable(i);  // likewise
  }
  if (p.isSparse(i))
    Eigen::Map<MatX>(K, s.dof, s.dof) = p.sparseA(i);
  else
    std::copy_n(p.a_data.data() + s.a_offset, static_cast<size_t>(s.dof) * s.dof, K);
  for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
    const int a = sub_attachments_[q];
    compact_.addScaledJTJBlock(p, a, beta_[i], K);
  }
  small_factor_[i] = 0;
  if (s.dof == 6) {
    // The explicit inverse of the 6x6 SPD block: one matrix-vector product per v-step instead
    // of two triangular solves (a third of the iteration's time otherwise).
    const Eigen::LLT<Mat6> llt{Eigen::Map<const Mat6>(K)};
    if (llt.info() != Eigen::Success) factor_failed_[i] = 1;
    kinv6_[i] = llt.solve(Mat6::Identity());
  } else if (s.dof <= kSmallSpdMaxSize &&
             factorSmallSpd(K, s.dof, k_small_.data() + small_offset_[i],
                            small_envelope_.data() + 2 * s.dof_offset)) {
    small_factor_[i] = 1;  // a few bodies: solvers/small_spd_factor.hpp
  } else {
    llt_[i].compute(Eigen::Map<const MatX>(K, s.dof, s.dof));
    if (llt_[i].info() != Eigen::Success) factor_failed_[i] = 1;
  }
}

void SubadmmSolver::unconstrainedVelocity(const StepProblem& p, int i, double* vhat) {
  const Subsystem& s = p.subsystems[i];
  double* v = vhat + s.dof_offset;
  factorizeA(p, i);  // the penalty rule may have done it already
  Eigen::Map<VecX> vm(v, s.dof);
  vm = p.bBlock(i);
  if (a_factored_[i] == 2)
    sparse_.solveA(i, v);
  else
    a_llt_[i].solveInPlace(vm);
}

void SubadmmSolver::vStep(const StepProblem& p, int i, const double* lambda, double* vhat) {
  const Subsystem& s = p.subsystems[i];
  double* r = rhs_.data() + s.dof_offset;
  std::copy_n(p.b.data() + s.dof_offset, s.dof, r);
  // rhs = b_i + sum_j J_ij^T (beta_i z_ij - u_ij) with u_ij = -lambda_j.
  const bool tree = per_body_.uses(i);
  const double bi = beta_[i];
  double w[6];
  for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
    const AttachmentRows& ar = sub_rows_[q];
    const double* z = z_.data() + ar.z_offset;
    const double* l = lambda + ar.row_offset;
    if (ar.rows == 3) {  // a contact: unrolled
      for (int k = 0; k < 3; ++k) w[k] = bi * z[k] + l[k];
    } else {
      for (int k = 0; k < ar.rows; ++k) w[k] = bi * z[k] + l[k];
    }
    if (tree && per_body_.bodyOf(ar.attachment) >= 0)
      per_body_.addBodyForce(p, ar.attachment, w);
    else if (ar.jacobian6 != nullptr && ar.rows == 3)
      kernels::addJTransposeTimes6<3>(ar.jacobian6, 3, w, r);
    else if (ar.jacobian6 != nullptr)
      kernels::addJTransposeTimes6<0>(ar.jacobian6, ar.rows, w, r);
    else
      compact_.addTransposeTimesBlock(p, ar.attachment, w, r);
  }
  double* v = vhat + s.dof_offset;
  if (tree) {
    per_body_.applyBodyForces(p, i, r);
    std::copy_n(r, s.dof, v);
    per_body_.solve(p, i, k_scratch_.data() + k_offset_[i], v);
    per_body_.updateBodyTwists(p, i, v);
  } else if (sparse_.uses(i)) {
    std::copy_n(r, s.dof, v);
    sparse_.solve(i, v);
  } else if (s.dof == 6) {
    Eigen::Map<Vec6>(v).noalias() = kinv6_[i] * Eigen::Map<const Vec6>(r);
  } else if (small_factor_[i]) {
    std::copy_n(r, s.dof, v);
    solveSmallSpd(k_small_.data() + small_offset_[i], s.dof,
                  small_envelope_.data() + 2 * s.dof_offset, v);
  } else {
    Eigen::Map<VecX> vm(v, s.dof);
    vm = Eigen::Map<const VecX>(r, s.dof);
    llt_[i].solveInPlace(vm);
  }
}

void SubadmmSolver::zStep(const StepProblem& p, int j, const double* vhat, double* lambda,
                          bool measure) {
  // A contact's three rows as a constant: its loops unroll (a third of the z-step's instructions
  // on granular were loop control).  The same operations in the same order: the same bits.
  if (p.constraints[j].rows == 3)
    zStepRows<3>(p, j, vhat, lambda, measure);
  else
    zStepRows<0>(p, j, vhat, lambda, measure);
}

template <int kRows>
void SubadmmSolver::zStepRows(const StepProblem& p, int j, const double* vhat, double* lambda,
                              bool measure) {
  const Constraint& c = p.constraints[j];
  const int rows = kRows > 0 ? kRows : c.rows;
  double x[6], s[6] = {0, 0, 0, 0, 0, 0}, lambda_old[6], lambda_new[6] = {0, 0, 0, 0, 0, 0};
  double w = 0.0, theta = 0.0, max_inv_beta = 0.0;
  // Locals: the stores below through double pointers would make the compiler reload members.
  const double relax = relax_, keep = 1.0 - relax_;
  for (int k = 0; k < rows; ++k) lambda_old[k] = lambda[c.row_offset + k];
  // s = sum_i y_ij / beta_i with y_ij = beta_i J_ij vhat_i - lambda_j^old.
  for (int q = 0; q < c.num_attachments; ++q) {
    const int a = c.first_attachment + q;
    const Attachment& at = p.attachments[a];
    const double bi = beta_[at.subsystem];
    const double inv_b = inv_beta_[at.subsystem];
    if (per_body_.uses(at.subsystem) && per_body_.bodyOf(a) >= 0)
      per_body_.multiplyJ(p, a, x);
    else
      compact_.multiplyBlock(p, a, vhat + p.subsystems[at.subsystem].dof_offset, x);
    zStepSplit<kRows>(rows, relax, keep, bi, inv_b, lambda_old, z_.data() + att_z_offset_[a], x,
                      y_.data() + att_z_offset_[a], s, theta, measure);
    w += inv_b;
    max_inv_beta = std::max(max_inv_beta, inv_b);
  }
  resolveConstraint(c, s, w, p.e.data() + c.row_offset, p.soft_k.data() + c.row_offset,
                    p.soft_c.data() + c.row_offset, lambda_new);
  // z_ij = (y_ij + lambda_j) / beta_i.
  double dl2 = 0.0;
  for (int k = 0; k < rows; ++k) {
    const double d = lambda_new[k] - lambda_old[k];
    dl2 += d * d;
    lambda[c.row_offset + k] = lambda_new[k];
  }
  for (int q = 0; q < c.num_attachments; ++q) {
    const int a = c.first_attachment + q;
    const int o = att_z_offset_[a];
    zStepSlack<kRows>(rows, inv_beta_[p.attachments[a].subsystem], y_.data() + o, lambda_new,
                      z_.data() + o, dz_.data() + o);
  }
  if (measure) recordZStep(j, dl2, max_inv_beta, theta);
}

void SubadmmSolver::recordZStep(int j, double dl2, double max_inv_beta, double theta) {
  // ||J_ij vhat_i - z_ij|| = ||lambda_new - lambda_old|| / beta_i, largest for the smallest beta.
  dlambda_[j] = std::sqrt(dl2);
  primal_part_[j] = dlambda_[j] * max_inv_beta;
  theta_part_[j] = theta;
}

template <int kAttachments>
void SubadmmSolver::zStepRigidContact(const StepProblem& p, const RigidContact& rc,
                                      const double* vhat, double* lambda, bool measure) {
  // zStepRows<3> for a RigidContact: the same operations in the same order (the same bits).
  double x[3], s[3] = {0, 0, 0}, lambda_old[3], lambda_new[3];
  double w = 0.0, theta = 0.0, max_inv_beta = 0.0;
  const double relax = relax_, keep = 1.0 - relax_;
  double* l = lambda + rc.row_offset;
  for (int k = 0; k < 3; ++k) lambda_old[k] = l[k];
  for (int q = 0; q < kAttachments; ++q) {
    const double bi = beta_[rc.subsystem[q]];
    const double inv_b = inv_beta_[rc.subsystem[q]];
    kernels::multiplyJ6<3>(rc.jacobian[q], 3, vhat + rc.dof_offset[q], x);
    zStepSplit<3>(3, relax, keep, bi, inv_b, lambda_old, z_.data() + rc.z_offset[q], x,
                  y_.data() + rc.z_offset[q], s, theta, measure);
    w += inv_b;
    max_inv_beta = std::max(max_inv_beta, inv_b);
  }
  resolveContact(s, w, p.e.data() + rc.row_offset, rc.mu, -1.0, lambda_new);
  double dl2 = 0.0;
  for (int k = 0; k < 3; ++k) {
    const double d = lambda_new[k] - lambda_old[k];
    dl2 += d * d;
    l[k] = lambda_new[k];
  }
  for (int q = 0; q < kAttachments; ++q) {
    const int o = rc.z_offset[q];
    zStepSlack<3>(3, inv_beta_[rc.subsystem[q]], y_.data() + o, lambda_new, z_.data() + o,
                  dz_.data() + o);
  }
  if (measure) recordZStep(rc.constraint, dl2, max_inv_beta, theta);
}

double SubadmmSolver::balancingFactor(double primal, double dual, double impulse_scale) {
  if (primal + dual <= kRoundOff * impulse_scale) return 1.0;
  return kBalancing.factor(primal, dual);
}

void SubadmmSolver::adaptPenalty(const StepProblem& p, int i) {
  double primal = 0.0;
  for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q)
    primal = std::max(primal, dlambda_[att_constraint_[sub_attachments_[q]]]);
  scalePenalty(p, i, balancingFactor(primal, dual_part_[i], impulse_scale_[i]));
}

void SubadmmSolver::scalePenalty(const StepProblem& p, int i, double factor) {
  factor = std::clamp(factor, beta_initial_[i] / (max_drift_[i] * beta_[i]),
                      max_drift_[i] * beta_initial_[i] / beta_[i]);
  if (factor == 1.0) return;
  beta_[i] *= factor;
  inv_beta_[i] = 1.0 / beta_[i];
  beta_changed_[i] = 1;
  factorize(p, i);
}

double SubadmmSolver::dualResidual(const StepProblem& p, int i) {
  // A_i vhat_i - b_i - sum_j J_ij^T lambda_j = sum_j J_ij^T beta_i (z_ij^old - z_ij^new), the
  // standard ADMM dual residual, which avoids a product with A_i.
  const Subsystem& s = p.subsystems[i];
  double* out = dual_scratch_.data() + s.dof_offset;  // this subsystem's slice
  std::fill_n(out, s.dof, 0.0);
  for (int q = sub_begin_[i]; q < sub_begin_[i + 1]; ++q) {
    const AttachmentRows& ar = sub_rows_[q];
    if (ar.jacobian6 != nullptr)
      kernels::addJTransposeTimes(ar.jacobian6, ar.rows, 6, dz_.data() + ar.z_offset, out);
    else
      compact_.addTransposeTimesBlock(p, ar.attachment, dz_.data() + ar.z_offset, out);
  }
  double sq = 0.0;
  for (int k = 0; k < s.dof; ++k) sq += out[k] * out[k];
  return beta_[i] * std::sqrt(sq);
}

void SubadmmSolver::solve(const StepProblem& p, const SolverSettings& settings, StepSolution& sol) {
  requireSubsystems(p, name());
  const auto t0 = std::chrono::steady_clock::now();
  const int threads = settings.threads > 0 ? settings.threads : omp_get_max_threads();
  prepare(p, threads);
  relax_ = options_.relaxation;
  const int ns = p.numSubsystems();
  const int nc = p.numConstraints();
  // Warm start: lambda when it fits the problem (the assembler maps it by constraint key) and the
  // vhat guess when it fits.
  const bool cold_vhat = sol.vhat.size() != p.numDof();
  if (cold_vhat) sol.vhat.resize(p.numDof());
  if (sol.lambda.size() != p.numRows()) sol.lambda.setZero(p.numRows());
  SolveStats& st = sol.stats;
  const bool use_theta = options_.residual == SubadmmOptions::Residual::IcraTheta;
  const int max_it = beginStats(st, use_theta ? "theta (22)" : "primal+dual (42)", settings);
  const bool adaptive = options_.adaptive_beta;
  const bool anderson = options_.anderson_window > 0;
  double* vhat = sol.vhat.data();
  double* lambda = sol.lambda.data();

  int iterations = max_it;      // unless the tolerance stops it earlier
  int run_iterations = max_it;  // 0 when a factorisation fails before the first
  double residual = 0.0;
  bool stop = false;
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static)
    for (int i = 0; i < ns; ++i) {
      inertial_[i] = inertiaAlone(p, i);
      elastic_[i] = !inertial_[i] && lumpedPointMasses(p, i);
    }
#pragma omp for schedule(static)
    for (int i = 0; i < ns; ++i) {
      sparse_.analyse(p, i, sub_attachments_.data() + sub_begin_[i],
                      sub_begin_[i + 1] - sub_begin_[i], compact_, !per_body_.uses(i),
                      options_.sparse_min_dof, k_offset_[i + 1] == k_offset_[i]);
      initialPenalty(p, i);
      factorize(p, i);
    }
#pragma omp single
    {
      if (anyFactorizationFailed()) {
        noteFailure(st, SolveStatus::FactorizationFailed);
        iterations = 0;
        run_iterations = 0;
      }
    }
    // Initial slack z_ij = J_ij vhat_i from the vhat guess (the current velocities, set by the
    // caller; on a cold call vhat = A^{-1} b, the unconstrained motion) and u_ij = -lambda_j.
    // y_ij = beta_i z_ij - lambda_j starts the ICRA residual (22).
    if (cold_vhat) {
#pragma omp for schedule(static)
      for (int i = 0; i < ns; ++i) unconstrainedVelocity(p, i, vhat);
    }
#pragma omp for schedule(static)
    for (int j = 0; j < nc; ++j) {
      const Constraint& c = p.constraints[j];
      for (int q = 0; q < c.num_attachments; ++q) {
        const int a = c.first_attachment + q;
        const Attachment& at = p.attachments[a];
        double* z = z_.data() + att_z_offset_[a];
        compact_.multiplyBlock(p, a, vhat + p.subsystems[at.subsystem].dof_offset, z);
        for (int k = 0; k < c.rows; ++k)
          y_[att_z_offset_[a] + k] = beta_[at.subsystem] * z[k] - lambda[c.row_offset + k];
      }
    }
    if (anderson) {
#pragma omp single
      {
        andersonWeights(p);
        std::copy(z_.begin(), z_.end(), aa_x_.begin());
        std::copy_n(lambda, p.numRows(), aa_x_.begin() + z_.size());
        aa_last_f2_ = std::numeric_limits<double>::infinity();
      }
    }
    for (int l = 0; l < run_iterations; ++l) {
      const bool last = l + 1 == max_it;
      const bool adapt_now = adaptive && kBalancing.due(l, max_it);
      // Residuals cost about a third of an iteration: only computed when something reads them.
      const bool measure = settings.tolerance > 0.0 || adapt_now || settings.record_history || last;
      if (settings.on_iteration) {
#pragma omp single
        settings.on_iteration(l);
      }
#pragma omp for schedule(static)
      for (int i = 0; i < ns; ++i) vStep(p, i, lambda, vhat);
      // Each constraint writes only its own rows: the two loops need no barrier between them.
      const int nr = static_cast<int>(rigid_contacts_.size());
      const int no = static_cast<int>(other_constraints_.size());
#pragma omp for schedule(static) nowait
      for (int k = 0; k < nr; ++k) {
        if (rigid_contacts_[k].num_attachments == 2)
          zStepRigidContact<2>(p, rigid_contacts_[k], vhat, lambda, measure);
        else
          zStepRigidContact<1>(p, rigid_contacts_[k], vhat, lambda, measure);
      }
#pragma omp for schedule(static)
      for (int k = 0; k < no; ++k) zStep(p, other_constraints_[k], vhat, lambda, measure);
      if (measure) {
        if (!use_theta || adapt_now) {
#pragma omp for schedule(static)
          for (int i = 0; i < ns; ++i) {
            dual_part_[i] = dualResidual(p, i);
            if (adapt_now) adaptPenalty(p, i);
          }
        }
#pragma omp single
        {
          // Reductions in a fixed order: identical bits for any thread count.
          double theta_p = 0.0, theta_d = 0.0, theta = 0.0;
          for (int j = 0; j < nc; ++j) {
            theta_p = std::max(theta_p, primal_part_[j]);
            theta += theta_part_[j];
          }
          if (!use_theta || adapt_now)
            for (int i = 0; i < ns; ++i) theta_d = std::max(theta_d, dual_part_[i]);
          residual = use_theta ? theta : theta_p + theta_d;
          if (recordIteration(st, residual, settings)) {
            stop = true;
            iterations = l + 1;
          }
          // A penalty change refactors: K_i = A_i + beta_i J_i^T J_i stays positive definite in
          // exact arithmetic, but not always in round-off at extreme mass ratios.
          if (adapt_now && anyFactorizationFailed()) {
            noteFailure(st, SolveStatus::FactorizationFailed);
            stop = true;
            iterations = l + 1;
          }
        }
      }
      if (stop) break;
      // The last iterate stays G's own: lambda in its sets, vhat from the last v-step.
      if (anderson && !last) {
#pragma omp single
        andersonStep(p, lambda);
      }
    }
  }
  if (st.status == SolveStatus::FactorizationFailed && iterations == 0)
    return finishUnfactored(p, sol, settings, t0);
  finishStats(sol, iterations, residual, settings, t0);
}

bool SubadmmSolver::anyFactorizationFailed() const {
  return std::find(factor_failed_.begin(), factor_failed_.end(), 1) != factor_failed_.end();
}

}  // namespace subsim
