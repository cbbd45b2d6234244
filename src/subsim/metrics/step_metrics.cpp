#include "subsim/metrics/step_metrics.hpp"

#include <algorithm>
#include <cmath>

#include "subsim/formulation/subsystem_factor.hpp"
#include "subsim/problem/cone_projection.hpp"
#include "subsim/problem/constraint_operator.hpp"

namespace subsim {

double accuracyOf(double residual) {
  return residual > 1e-16 ? -std::log10(residual) : 16.0;
}

namespace {

/// out_j = sum_i J_ij v_i for constraint j (c.rows values).
void constraintVelocity(const StepProblem& p, const Constraint& c, const VecX& v, double* out) {
  for (int r = 0; r < c.rows; ++r) out[r] = 0.0;
  for (int q = 0; q < c.num_attachments; ++q) {
    const Attachment& a = p.attachments[c.first_attachment + q];
    double Jv[6];
    p.multiplyJ(a, v.data() + p.subsystems[a.subsystem].dof_offset, Jv);
    for (int r = 0; r < c.rows; ++r) out[r] += Jv[r];
  }
}

}  // namespace

VecX constraintVelocities(const StepProblem& p, const VecX& v) {
  VecX u(p.numRows());
  for (const Constraint& c : p.constraints) constraintVelocity(p, c, v, u.data() + c.row_offset);
  return u;
}

namespace {

/// J^T lambda stacked over all subsystems.
VecX jacobianTransposeTimes(const StepProblem& p, const VecX& lambda) {
  VecX out = VecX::Zero(p.numDof());
  for (const Constraint& c : p.constraints)
    for (int q = 0; q < c.num_attachments; ++q) {
      const Attachment& a = p.attachments[c.first_attachment + q];
      p.addJTransposeTimes(a, lambda.data() + c.row_offset,
                           out.data() + p.subsystems[a.subsystem].dof_offset);
    }
  return out;
}

/// W lambda of a problem in local form (StepProblem::local_w, compressed rows).
VecX localDelassusTimes(const StepProblem& p, const VecX& lambda) {
  const LocalDelassus& w = p.local_w;
  VecX out = VecX::Zero(p.numRows());
  for (int r = 0; r < p.numRows(); ++r)
    for (int k = w.row_begin[r]; k < w.row_begin[r + 1]; ++k)
      out[r] += w.value[k] * lambda[w.column[k]];
  return out;
}

}  // namespace

StepMetrics evaluateStep(const StepProblem& p, const StepSolution& sol) {
  StepMetrics m;
  m.constraints = p.numConstraints();
  m.contacts = p.numContacts();
  const VecX JTl = jacobianTransposeTimes(p, sol.lambda);
  VecX v_star(p.numDof()), v_free(p.numDof());
  for (int i = 0; i < p.numSubsystems(); ++i) {
    const Subsystem& s = p.subsystems[i];
    const VecX rhs = p.bBlock(i) + JTl.segment(s.dof_offset, s.dof);
    SubsystemFactor llt;
    llt.compute(p, i);
    v_star.segment(s.dof_offset, s.dof) = rhs;
    llt.solveInPlace(v_star.segment(s.dof_offset, s.dof));
    v_free.segment(s.dof_offset, s.dof) = p.bBlock(i);
    llt.solveInPlace(v_free.segment(s.dof_offset, s.dof));
    VecX dyn(s.dof);
    p.multiplyA(i, sol.vhat.data() + s.dof_offset, dyn.data());
    m.dynamics_residual = std::max(m.dynamics_residual, (dyn - rhs).norm());
  }
  double sum_al = 0.0, sum_fb = 0.0;
  double natural_map = 0.0, norm_q = 0.0, norm_r = 0.0, norm_u = 0.0;  // squared sums
  // A problem in local form (W, q as e) has no subsystems: J vhat* is W lambda, J v_free is 0.
  const VecX w_lambda = p.hasLocalForm() ? localDelassusTimes(p, sol.lambda) : VecX();
  const auto starVelocity = [&](const Constraint& c, double* out) {
    if (p.hasLocalForm())
      for (int r = 0; r < c.rows; ++r) out[r] = w_lambda[c.row_offset + r];
    else
      constraintVelocity(p, c, v_star, out);
  };
  double jv[6], jv_solver[6], s[6], t[6];
  for (const Constraint& c : p.constraints) {
    const double* l = sol.lambda.data() + c.row_offset;
    const double* e = p.e.data() + c.row_offset;
    starVelocity(c, jv);
    for (int r = 0; r < c.rows; ++r) s[r] = jv[r] - l[r];
    resolveConstraint(c, s, 1.0, e, p.soft_k.data() + c.row_offset, p.soft_c.data() + c.row_offset,
                      t);
    for (int r = 0; r < c.rows; ++r) sum_al += (l[r] - t[r]) * (l[r] - t[r]);
    if (c.type == ConstraintType::Contact) {
      // An elliptic cone maps onto the isotropic one of mu = max(mu_t1, mu_t2) by scaling each
      // tangential axis, lambda_k by mu / mu_k and u_k by mu_k / mu: both cones' membership and
      // lambda . u are kept, so the isotropic residuals below judge it.  (A frictionless axis
      // keeps its lambda_k, which the AL residual above drives to zero.)
      double mu = c.mu;
      Vec3 scale_l = Vec3::Ones(), scale_u = Vec3::Ones();
      if (c.anisotropic()) {
        mu = std::max(c.mu, c.mu_t2);
        const double axis_mu[2] = {c.mu, c.mu_t2};
        for (int k = 0; k < 2; ++k) {
          scale_l[k + 1] = axis_mu[k] > 0.0 ? mu / axis_mu[k] : 1.0;
          scale_u[k + 1] = mu > 0.0 ? axis_mu[k] / mu : 0.0;
        }
      }
      const Vec3 r = Vec3(l[0], l[1], l[2]).cwiseProduct(scale_l);
      const Vec3 u = Vec3(jv[0] + e[0], jv[1] + e[1], jv[2] + e[2]).cwiseProduct(scale_u);
      const double phi_n = r[0] + u[0] - std::sqrt(r[0] * r[0] + u[0] * u[0]);
      const Eigen::Vector2d lt = r.tail<2>();
      const Eigen::Vector2d arg = lt - u.tail<2>();
      const double radius = mu * std::max(r[0], 0.0);
      const Eigen::Vector2d proj =
          arg.norm() > radius ? Eigen::Vector2d(arg * (radius / arg.norm())) : arg;
      sum_fb += phi_n * phi_n + (lt - proj).squaredNorm();

      const Vec3 u_tilde(u[0] + mu * std::hypot(u[1], u[2]), u[1], u[2]);
      natural_map += (r - projectConeProx(r - u_tilde, mu)).squaredNorm();
      double jq[6] = {0.0, 0.0, 0.0};
      if (!p.hasLocalForm()) constraintVelocity(p, c, v_free, jq);
      norm_q += Vec3(jq[0] + e[0], jq[1] + e[1], jq[2] + e[2]).cwiseProduct(scale_u).squaredNorm();
      norm_r += r.squaredNorm();
      norm_u += u.squaredNorm();
    }
    if (c.type == ConstraintType::Bilateral) {
      if (p.hasLocalForm())
        starVelocity(c, jv_solver);
      else
        constraintVelocity(p, c, sol.vhat, jv_solver);
      for (int r = 0; r < c.rows; ++r)
        m.bilateral_residual = std::max(m.bilateral_residual, std::abs(jv_solver[r] + e[r]));
    }
  }
  if (m.constraints > 0) m.constraint_residual = std::sqrt(sum_al) / m.constraints;
  if (m.contacts > 0) m.contact_fb_residual = std::sqrt(sum_fb) / m.contacts;
  const double scale = std::sqrt(std::max({norm_q, norm_r, norm_u}));
  if (natural_map > 0.0) m.contact_natural_map_error = std::sqrt(natural_map) / scale;
  return m;
}

}  // namespace subsim
