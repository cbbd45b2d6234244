#include "subsim/solvers/cond_solver.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <utility>

#include "subsim/problem/cone_projection.hpp"
#include "subsim/problem/constraint_operator.hpp"

namespace subsim {

const OptionTable<CondOptions>& CondSolver::optionTable() {
  using O = CondOptions;
  static const auto table =
      OptionTable<O>()
          .number("kv", &O::kv, NumberRange::nonNegative(), "N s/m",
                  "virtual-node coupling k_v of eq. (14) (0: kv_ratio times each attachment's "
                  "effective mass)")
          .number("kv_ratio", &O::kv_ratio, NumberRange::positive(), "-",
                  "with kv = 0: k_v over the attachment's diagonal effective mass (the "
                  "constraint's added compliance is its own over this)")
          .choice("cone", &O::cone,
                  {{"strict", CondCone::Strict}, {"proximal", CondCone::Proximal}},
                  "per-contact operator: strict (exact Signorini-Coulomb, Prop. 4) or proximal "
                  "(Euclidean projection, the CCP relaxation, Prop. 5)")
          .choice("step_matrix", &O::step_matrix,
                  {{"frobenius", CondStepMatrix::Frobenius},
                   {"barzilai-borwein", CondStepMatrix::BarzilaiBorwein}},
                  "W: Frobenius-norm minimisation of ||I - W A|| or Barzilai-Borwein alpha I")
          .flag("direct_nodes", &O::direct_nodes,
                "a constraint block that is a rotation of one node's coordinates (an FEM node) "
                "acts on the node itself, without a virtual node (false: virtual nodes "
                "everywhere)")
          .flag("chebyshev", &O::chebyshev, "Chebyshev acceleration (Algorithm 3)")
          .integer("chebyshev_start", &O::chebyshev_start, 1, 1000000, "iterations",
                   "l_s: the iteration from which the Chebyshev weights apply")
          .number("relaxation", &O::relaxation, NumberRange::openClosed(0.0, 1.0), "-",
                  "under-relaxation u of the accelerated step (1: none)")
          .choice("stop", &O::stop,
                  {{"impulse", CondStop::Impulse}, {"velocity-change", CondStop::VelocityChange}},
                  "stopping residual: the largest entry of the fixed point's impulse residual "
                  "(N s), or the paper's ||x^{l+1} - x^l|| (m/s), which also falls when steps are "
                  "small")
          .number("regularization", &O::regularization, NumberRange::nonNegative(), "m/(N s^2)",
                  "Omega = omega I added to Gamma: the invertible contact model (0: off)");
  return table;
}

void CondSolver::nodeResidual(int j, const double* x, double* r) const {
  // Node rows of A_x x - b_x: k_a (u_a - J_a vhat_i).
  const StepProblem& p = nodes_.problem();
  const Constraint& c = p.constraints[j];
  const int n = p.numDof();
  for (int a = c.first_attachment; a < c.first_attachment + c.num_attachments; ++a) {
    if (nodes_.directDof(a) >= 0) continue;
    const Attachment& at = p.attachments[a];
    double jv[6];
    nodes_.jacobian().multiplyBlock(p, a, x + p.subsystems[at.subsystem].dof_offset, jv);
    const int o = n + nodes_.nodeOffset(a);
    for (int q = 0; q < at.rows; ++q) r[o + q] = nodes_.coupling(a, q) * (x[o + q] - jv[q]);
  }
}

namespace {
using Mat3R = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

// Algorithm 3's update of one coordinate: nu (u (x** - x^l) + x^l - x^{l-1}) + x^{l-1}.
inline double accelerate(double star, double cur, double prev, double nu, double u) {
  return nu * (u * (star - cur) + cur - prev) + prev;
}
}  // namespace

CondSolver::Progress CondSolver::stepDofs(int chunk, double alpha, const double* prev,
                                          const double* cur, double* next, double nu) {
  const int n = nodes_.problem().numDof();
  double* r = residual_[0].data();
  Progress progress;
  for (int k = chunk * kRowChunk; k < std::min(n, (chunk + 1) * kRowChunk); ++k) {
    if (alpha <= 0.0) r[k] = nodes_.dofResidual(k, cur);
    const double w = alpha > 0.0 ? alpha : nodes_.dofWeight(k);
    if (nodes_.dofIsDirect(k)) {
      next[k] = cur[k] - w * r[k];  // v*: its constraint's step completes it
      continue;
    }
    next[k] = accelerate(cur[k] - w * r[k], cur[k], prev[k], nu, options_.relaxation);
    progress.add(next[k] - cur[k], r[k]);
  }
  return progress;
}

CondSolver::Progress CondSolver::stepConstraint(int j, double alpha, const double* prev,
                                                const double* cur, double* next, double nu,
                                                double* lambda) {
  const StepProblem& p = nodes_.problem();
  const Constraint& c = p.constraints[j];
  const int n = p.numDof();
  double* r = residual_[0].data();
  if (alpha <= 0.0) nodeResidual(j, cur, r);
  // u*_a into next, eta and gamma (the constraint's nodal velocity and its diagonal Gamma, one
  // entry per row; a contact's are equal); a direct node's v* is in next already (stepDofs),
  // seen through its rotation.
  double eta[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  double gamma[6];
  std::fill_n(gamma, 6, options_.regularization);
  const auto weight = [&](int a, int q) { return alpha > 0.0 ? alpha : nodes_.nodeWeight(a, q); };
  for (int a = c.first_attachment; a < c.first_attachment + c.num_attachments; ++a) {
    for (int q = 0; q < c.rows; ++q) gamma[q] += weight(a, q);
    if (const int d = nodes_.directDof(a); d >= 0) {
      const Eigen::Map<const Mat3R> R(nodes_.jacobian().values(a));
      Eigen::Map<Vec3>(eta) += R * Eigen::Map<const Vec3>(next + d);
      continue;
    }
    const int o = n + nodes_.nodeOffset(a);
    for (int q = 0; q < c.rows; ++q) {
      next[o + q] = cur[o + q] - weight(a, q) * r[o + q];
      eta[q] += next[o + q];
    }
  }
  // The one-shot solve (Algorithm 2); a constraint on kinematic bodies only has no node.
  double* l = lambda + c.row_offset;
  const int ro = c.row_offset;
  if (c.num_attachments == 0) {
    std::fill_n(l, c.rows, 0.0);
    return Progress();
  }
  if (c.type != ConstraintType::Contact) {
    for (int q = 0; q < c.rows; ++q)
      l[q] = resolveRow(c.type, eta[q], gamma[q], p.e[ro + q], p.soft_k[ro + q], p.soft_c[ro + q]);
  } else if (options_.cone == CondCone::Proximal) {
    const Vec3 star =
        -(Vec3(eta[0], eta[1], eta[2]) + Vec3(p.e[ro], p.e[ro + 1], p.e[ro + 2])) / gamma[0];
    const Vec3 projected = projectConeProx(star, c.mu);
    std::copy_n(projected.data(), 3, l);
  } else {
    resolveConstraint(c, eta, gamma[0], p.e.data() + ro, p.soft_k.data() + ro, p.soft_c.data() + ro,
                      l);
  }
  Progress progress;
  for (int a = c.first_attachment; a < c.first_attachment + c.num_attachments; ++a) {
    if (const int d = nodes_.directDof(a); d >= 0) {
      const double w = weight(a, 0);
      const Eigen::Map<const Mat3R> R(nodes_.jacobian().values(a));
      const Vec3 force = R.transpose() * Eigen::Map<const Vec3>(l);  // J_a^T lambda on the node
      for (int q = 0; q < 3; ++q) {
        const int k = d + q;
        next[k] = accelerate(next[k] + w * force[q], cur[k], prev[k], nu, options_.relaxation);
        progress.add(next[k] - cur[k], r[k] - force[q]);
      }
      continue;
    }
    const int o = n + nodes_.nodeOffset(a);
    for (int q = 0; q < c.rows; ++q) {
      const int k = o + q;
      next[k] = accelerate(next[k] + weight(a, q) * l[q], cur[k], prev[k], nu, options_.relaxation);
      progress.add(next[k] - cur[k], r[k] - l[q]);
    }
  }
  return progress;
}

void CondSolver::solve(const StepProblem& p, const SolverSettings& settings, StepSolution& sol) {
  const auto t0 = std::chrono::steady_clock::now();
  requireSubsystems(p, name());
  const int threads = settings.threads > 0 ? settings.threads : omp_get_max_threads();
  NodalizationOptions nodal;
  nodal.kv = options_.kv;
  nodal.kv_ratio = options_.kv_ratio;
  nodal.direct_nodes = options_.direct_nodes;
  const bool spd = nodes_.build(p, nodal, threads);
  const auto t_built = std::chrono::steady_clock::now();
  const int n = p.numDof();
  const int ns = (n + kRowChunk - 1) / kRowChunk;  // row chunks of the DOF loops
  const int nc = p.numConstraints();
  const int size = n + nodes_.numNodeCoordinates();
  const bool warm_lambda = sol.lambda.size() == p.numRows();
  if (!warm_lambda) sol.lambda.setZero(p.numRows());
  SolveStats& st = sol.stats;
  // The proximal operator is the Euclidean projection onto the isotropic cone; the strict one
  // takes the elliptic cone too (problem/cone_projection.hpp).
  if (options_.cone == CondCone::Proximal) requireIsotropicFriction(p, "cond (cone=proximal)");
  const bool impulse_stop = options_.stop == CondStop::Impulse;
  const int max_it =
      beginStats(st, impulse_stop ? "max |A x - b - J^T lambda| (N s)" : "||dx|| (m/s)", settings);
  recordSetup(st, t0, t_built);
  if (!spd) return finishUnfactored(p, sol, settings, t0);

  for (DoubleBuffer& x : x_) x.resize(size);
  for (DoubleBuffer& r : residual_) r.resize(size);
  part_.resize(ns + nc);
  part2_.resize(ns + nc);
  progress_.resize(ns + nc);
  // x^0: vhat from the guess (else v_k), nodes at J_a vhat + lambda / k_a.
  double* x = x_[1].data();
  if (sol.vhat.size() == n)
    std::copy_n(sol.vhat.data(), n, x);
  else if (static_cast<int>(p.velocity.size()) == n)
    std::copy_n(p.velocity.data(), n, x);
  else
    std::fill_n(x, n, 0.0);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int j = 0; j < nc; ++j) {
    const Constraint& c = p.constraints[j];
    for (int a = c.first_attachment; a < c.first_attachment + c.num_attachments; ++a) {
      if (nodes_.directDof(a) >= 0) continue;
      const Attachment& at = p.attachments[a];
      double* u = x + n + nodes_.nodeOffset(a);
      nodes_.jacobian().multiplyBlock(p, a, x + p.subsystems[at.subsystem].dof_offset, u);
      for (int q = 0; q < at.rows; ++q)
        u[q] += sol.lambda[c.row_offset + q] / nodes_.coupling(a, q);
    }
  }
  std::copy_n(x, size, x_[0].data());

  const bool bb = options_.step_matrix == CondStepMatrix::BarzilaiBorwein;
  // Barzilai-Borwein's first step: the smallest Frobenius weight (a step no coordinate overshoots
  // by more than its own Frobenius step would).
  double alpha = 0.0;
  if (bb) {
    alpha = std::numeric_limits<double>::infinity();
    for (int k = 0; k < n; ++k) alpha = std::min(alpha, nodes_.dofWeight(k));
    for (int a = 0; a < static_cast<int>(p.attachments.size()); ++a)
      for (int q = 0; q < p.attachments[a].rows; ++q)
        alpha = std::min(alpha, nodes_.nodeWeight(a, q));
    if (!std::isfinite(alpha)) alpha = 1.0;
  }

  double* prev = x_[0].data();
  double* cur = x_[1].data();
  double* next = x_[2].data();
  double nu = 1.0, rho = 1.0, theta = 0.0, theta_prev = 0.0, residual = 0.0;
  int iterations = max_it;
  bool stop = false;
  double* lambda = sol.lambda.data();
#pragma omp parallel num_threads(threads)
  {
    for (int l = 0; l < max_it; ++l) {
      if (settings.on_iteration) {
#pragma omp single
        settings.on_iteration(l);
      }
      if (bb) {
        // The residual at x^l, then alpha from s = x^l - x^{l-1}, z = r^l - r^{l-1}.
#pragma omp for schedule(static) nowait
        for (int k = 0; k < n; ++k) residual_[0][k] = nodes_.dofResidual(k, cur);
#pragma omp for schedule(static)
        for (int j = 0; j < nc; ++j) nodeResidual(j, cur, residual_[0].data());
#pragma omp for schedule(static)
        for (int q = 0; q < ns + nc; ++q) {
          // Parts of s^T s and s^T z: chunks of DOF, then each constraint's nodes.
          int begin, end;
          if (q < ns) {
            begin = q * kRowChunk;
            end = std::min(n, begin + kRowChunk);
          } else {
            const Constraint& c = p.constraints[q - ns];
            begin = n + nodes_.nodeOffset(c.first_attachment);
            end = n + nodes_.nodeOffset(c.first_attachment + c.num_attachments);
          }
          double ss = 0.0, sz = 0.0;
          for (int k = begin; k < end; ++k) {
            const double s = cur[k] - prev[k];
            ss += s * s;
            sz += s * (residual_[0][k] - residual_[1][k]);
          }
          part_[q] = ss;
          part2_[q] = sz;
        }
#pragma omp single
        {
          if (l > 0) {
            double ss = 0.0, sz = 0.0;
            for (int q = 0; q < ns + nc; ++q) {
              ss += part_[q];
              sz += part2_[q];
            }
            if (sz > 0.0 && std::isfinite(ss / sz)) alpha = ss / sz;
          }
        }
      }
      const double a_step = bb ? alpha : 0.0;
      // A barrier between the two: a direct node's constraint reads its v*.
#pragma omp for schedule(static)
      for (int q = 0; q < ns; ++q) progress_[q] = stepDofs(q, a_step, prev, cur, next, nu);
#pragma omp for schedule(static)
      for (int j = 0; j < nc; ++j)
        progress_[ns + j] = stepConstraint(j, a_step, prev, cur, next, nu, lambda);
#pragma omp single
      {
        double sum = 0.0;
        residual = 0.0;
        for (int q = 0; q < ns + nc; ++q) {
          sum += progress_[q].change2;
          residual = std::max(residual, progress_[q].impulse);
        }
        theta = std::sqrt(sum);
        if (bb) residual_[0].swap(residual_[1]);  // r^l becomes r^{l-1}
        // Chebyshev: rho from the last two changes (eq. 39), nu for the next iteration.
        if (l > 0) rho = theta_prev > 0.0 ? std::min(theta / theta_prev, 1.0) : 1.0;
        theta_prev = theta;
        if (options_.chebyshev) {
          const int ls = options_.chebyshev_start;
          if (l + 1 < ls)
            nu = 1.0;
          else if (l + 1 == ls)
            nu = 2.0 / (2.0 - rho * rho);
          else
            nu = 4.0 / (4.0 - rho * rho * nu);
        }
        std::swap(prev, cur);
        std::swap(cur, next);
        if (!impulse_stop) residual = theta;
        if (recordIteration(st, residual, settings) || !std::isfinite(residual)) {
          stop = true;
          iterations = l + 1;
        }
      }
      if (stop) break;
    }
  }
  sol.vhat = Eigen::Map<const VecX>(cur, n);
  finishStats(sol, iterations, residual, settings, t0);
}

}  // namespace subsim
