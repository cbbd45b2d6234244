#include "subsim/formulation/polyhedral_lcp_form.hpp"

#include <algorithm>
#include <cmath>

#include "subsim/formulation/ncp_form.hpp"
#include "subsim/math/portable_math.hpp"

namespace subsim {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

bool hasFriction(const Constraint& c) {
  return c.type == ConstraintType::Contact && c.mu > 0.0;
}

/// The variables of a constraint: a contact's p_n (with n_d beta and s when it has friction), a
/// row each otherwise.
int variableCountOf(const Constraint& c, int directions) {
  if (c.type != ConstraintType::Contact) return c.rows;
  return hasFriction(c) ? directions + 2 : 1;
}

}  // namespace

const char* polyhedralLcpKindName(PolyhedralLcpKind kind) {
  return kind == PolyhedralLcpKind::StewartTrinkle ? "stewart-trinkle" : "anitescu-potra";
}

bool PolyhedralLcpForm::build(const StepProblem& p, const PolyhedralLcpSettings& settings,
                              int threads) {
  p_ = &p;
  settings_ = settings;
  error_.clear();
  too_large_ = false;
  const int nd = settings.directions;
  const int nc = p.numConstraints();
  var_begin_.assign(nc + 1, 0);
  transform_offset_.assign(nc + 1, 0);
  for (int j = 0; j < nc; ++j) {
    const Constraint& c = p.constraints[j];
    const int count = variableCountOf(c, nd);
    var_begin_[j + 1] = var_begin_[j] + count;
    transform_offset_[j + 1] = transform_offset_[j] + c.rows * count;
  }
  const int n = var_begin_[nc];
  if (n > settings.max_variables) {
    too_large_ = true;
    error_ = "the " + std::string(polyhedralLcpKindName(settings.kind)) + " LCP of this step has " +
             std::to_string(n) + " variables (" + std::to_string(p.numContacts()) +
             " contacts with n_d = " + std::to_string(nd) +
             " friction directions); its dense matrix is limited to max_variables = " +
             std::to_string(settings.max_variables) +
             ": use fewer directions, raise max_variables, or a solver of another formulation";
    return false;
  }
  if (!delassus_.build(p, threads)) {
    error_ = "a subsystem's step matrix A_i is not positive definite";
    return false;
  }

  // T_j: lambda_j = T_j z_j.
  transform_.assign(transform_offset_[nc], 0.0);
  for (int j = 0; j < nc; ++j) {
    const Constraint& c = p.constraints[j];
    const int count = variableCount(j);
    double* t = transform_.data() + transform_offset_[j];
    if (c.type != ConstraintType::Contact) {
      for (int r = 0; r < c.rows; ++r) t[r * count + r] = 1.0;
      continue;
    }
    t[0] = 1.0;
    if (!hasFriction(c)) continue;
    for (int k = 0; k < nd; ++k) {
      double s = 0.0, co = 0.0;
      portableSinCos(kTwoPi * k / nd, s, co);
      t[1 * count + 1 + k] = co;
      t[2 * count + 1 + k] = s;
    }
  }

  // M = T^T W T (+ the friction-cone rows and the compliance), q = T^T c.
  lcp_.m.setZero(n, n);
  lcp_.q.setZero(n);
  lcp_.free.assign(n, 0);
  lcp_.block_begin.assign(var_begin_.begin(), var_begin_.end());
  const DoubleBuffer& c_rhs = delassus_.rhs();
  for (int j = 0; j < nc; ++j) {
    const Constraint& cj = p.constraints[j];
    const int vj = var_begin_[j], nj = variableCount(j);
    const Eigen::Map<const RowMajorMatX> tj(transform(j), cj.rows, nj);
    const auto add_block = [&](int k, const double* w) {
      const Constraint& ck = p.constraints[k];
      const Eigen::Map<const RowMajorMatX> tk(transform(k), ck.rows, variableCount(k));
      const Eigen::Map<const RowMajorMatX> wjk(w, cj.rows, ck.rows);
      lcp_.m.block(vj, var_begin_[k], nj, variableCount(k)).noalias() += tj.transpose() * wjk * tk;
    };
    add_block(j, delassus_.diagonalBlock(j));
    for (int e = delassus_.neighbourBegin(j); e < delassus_.neighbourEnd(j); ++e)
      add_block(delassus_.neighbourConstraint(e), delassus_.neighbourBlock(e));

    Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1> cj_rhs =
        Eigen::Map<const VecX>(c_rhs.data() + cj.row_offset, cj.rows);
    if (cj.type == ConstraintType::Contact && p.has_step_data) {
      // Replace the NCP form's e_n (speculative) by this formulation's.
      const int r = cj.row_offset;
      const double e_n = settings.kind == PolyhedralLcpKind::StewartTrinkle
                             ? p.bias[r] + p.error[r] / p.dt
                             : p.bias[r];
      cj_rhs[0] += e_n - p.e[r];
    }
    lcp_.q.segment(vj, nj).noalias() = tj.transpose() * cj_rhs;

    if (cj.type == ConstraintType::Contact) {
      lcp_.m(vj, vj) += settings.compliance;
      if (hasFriction(cj)) {
        const int s = vj + nd + 1;
        for (int k = 0; k < nd; ++k) {
          lcp_.m(vj + 1 + k, s) += 1.0;  // E
          lcp_.m(s, vj + 1 + k) -= 1.0;  // -E^T
        }
        lcp_.m(s, vj) += cj.mu;  // U
      }
      continue;
    }
    for (int r = 0; r < cj.rows; ++r) {
      const int v = vj + r, row = cj.row_offset + r;
      if (cj.type == ConstraintType::Unilateral) {
        lcp_.m(v, v) += settings.compliance;
        continue;
      }
      lcp_.free[v] = 1;
      if (cj.type == ConstraintType::Bilateral) {
        lcp_.m(v, v) += settings.compliance;
      } else if (delassus_.fixedRow(row)) {
        lcp_.m.row(v).setZero();
        lcp_.m(v, v) = 1.0;
        lcp_.q[v] = -delassus_.fixedValue(row);
      }
    }
  }
  return true;
}

void PolyhedralLcpForm::impulses(const VecX& z, VecX& lambda) const {
  const StepProblem& p = *p_;
  lambda.setZero(p.numRows());
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    const Eigen::Map<const RowMajorMatX> t(transform(j), c.rows, variableCount(j));
    lambda.segment(c.row_offset, c.rows).noalias() = t * z.segment(var_begin_[j], variableCount(j));
  }
}

void PolyhedralLcpForm::variablesOf(const VecX& lambda, VecX& z) const {
  const StepProblem& p = *p_;
  const int nd = settings_.directions;
  z.setZero(numVariables());
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    const int v = var_begin_[j];
    if (c.type != ConstraintType::Contact) {
      z.segment(v, c.rows) = lambda.segment(c.row_offset, c.rows);
      continue;
    }
    z[v] = lambda[c.row_offset];
    if (!hasFriction(c)) continue;
    const double l1 = lambda[c.row_offset + 1], l2 = lambda[c.row_offset + 2];
    if (l1 == 0.0 && l2 == 0.0) continue;
    const double* t = transform(j);
    const int count = variableCount(j);
    // lambda_t = a d_k + b d_{k+1} with a, b >= 0 in exactly the sector that holds it (the
    // directions are ordered by angle, so Cramer's rule with det = sin(2 pi / n_d) > 0).
    double best_a = 0.0, best_b = 0.0, best_violation = 1e300;
    int best_k = 0;
    for (int k = 0; k < nd; ++k) {
      const int k1 = (k + 1) % nd;
      const double c0 = t[count + 1 + k], s0 = t[2 * count + 1 + k];
      const double c1 = t[count + 1 + k1], s1 = t[2 * count + 1 + k1];
      const double det = c0 * s1 - s0 * c1;
      const double a = (l1 * s1 - l2 * c1) / det, b = (c0 * l2 - s0 * l1) / det;
      const double violation = std::max(0.0, -std::min(a, b));
      if (violation < best_violation) {
        best_violation = violation;
        best_a = a;
        best_b = b;
        best_k = k;
      }
    }
    z[v + 1 + best_k] = std::max(best_a, 0.0);
    z[v + 1 + (best_k + 1) % nd] = std::max(best_b, 0.0);
  }
  // s: the least sliding speed the velocities allow (s enters only the beta rows).
  lcp_.slack(z, w_);
  for (int j = 0; j < p.numConstraints(); ++j) {
    if (!hasFriction(p.constraints[j])) continue;
    const int v = var_begin_[j];
    z[v + nd + 1] = std::max(0.0, -w_.segment(v + 1, nd).minCoeff());
  }
}

void PolyhedralLcpForm::velocity(const VecX& lambda, VecX& vhat) const {
  vhat.setZero(p_->numDof());
  if (p_->numDof() > 0) delassus_.velocity(lambda.data(), vhat.data());
}

}  // namespace subsim
