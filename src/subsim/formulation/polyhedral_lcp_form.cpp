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

}  // namespace

const char* polyhedralLcpKindName(PolyhedralLcpKind kind) {
  switch (kind) {
    case PolyhedralLcpKind::StewartTrinkle:
      return "stewart-trinkle";
    case PolyhedralLcpKind::AnitescuPotra:
      return "anitescu-potra";
    case PolyhedralLcpKind::Peg:
      break;
  }
  return "peg";
}

void PolyhedralLcpForm::groupSubcontacts(const StepProblem& p, bool by_free_velocity) {
  const int nc = p.numConstraints();
  set_primary_.assign(nc, -1);
  aux_begin_.assign(nc + 1, 0);
  aux_members_.clear();
  if (settings_.kind == PolyhedralLcpKind::Peg && p.hasSubcontacts())
    choosePrimaries(p, by_free_velocity);
  for (int j = 0; j < nc; ++j) {
    const int count = variableCountOf(j);
    var_begin_[j + 1] = var_begin_[j] + count;
    transform_offset_[j + 1] = transform_offset_[j] + p.constraints[j].rows * count;
  }
}

void PolyhedralLcpForm::choosePrimaries(const StepProblem& p, bool by_free_velocity) {
  const int nc = p.numConstraints();
  // The primary subcontact, whose plane carries the impulse (rpisim: "a heuristic to choose a
  // primary subcontact"): the plane the pair would be farthest outside of at the end of the step
  // if no impulse acted, y_k(0) = u_n,k(lambda = 0) + e_n,k, the first on a tie.  (The largest gap
  // alone would push a peg passing an edge along the normal of the face it is passing.)  Without
  // the Delassus form yet, the first of each set (the layout's size does not depend on it).
  const auto separation = [&](int j) {
    return by_free_velocity ? normalConstant(j) : -static_cast<double>(j);
  };
  for (int j = 0; j < nc; ++j) {
    const int set = p.constraints[j].subcontact_set;
    if (set < 0) continue;
    int& primary = set_primary_[set];  // the set's first constraint holds its primary meanwhile
    if (primary < 0 || separation(j) > separation(primary)) primary = j;
  }
  for (int j = 0; j < nc; ++j)
    if (const int set = p.constraints[j].subcontact_set; set >= 0 && j != set)
      set_primary_[j] = set_primary_[set];
  std::vector<int> aux_count(nc, 0);
  for (int j = 0; j < nc; ++j)
    if (set_primary_[j] >= 0 && set_primary_[j] != j) ++aux_count[set_primary_[j]];
  for (int j = 0; j < nc; ++j) aux_begin_[j + 1] = aux_begin_[j] + aux_count[j];
  aux_members_.resize(aux_begin_[nc]);
  std::vector<int> next(aux_begin_.begin(), aux_begin_.end() - 1);
  for (int j = 0; j < nc; ++j)
    if (const int primary = set_primary_[j]; primary >= 0 && primary != j)
      aux_members_[next[primary]++] = j;
}

double PolyhedralLcpForm::normalConstant(int j) const {
  const StepProblem& p = *p_;
  const int r = p.constraints[j].row_offset;
  const double c = delassus_.rhs()[r];
  if (!p.has_step_data) return c;
  const double e_n = settings_.kind == PolyhedralLcpKind::AnitescuPotra
                         ? p.bias[r]
                         : p.bias[r] + p.error[r] / p.dt;
  return c + (e_n - p.e[r]);
}

int PolyhedralLcpForm::variableCountOf(int j) const {
  const Constraint& c = p_->constraints[j];
  if (c.type != ConstraintType::Contact) return c.rows;
  if (set_primary_[j] >= 0 && set_primary_[j] != j) return 0;  // a secondary subcontact
  return 1 + auxCount(j) + (hasFriction(c) ? settings_.directions + 1 : 0);
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
  groupSubcontacts(p, false);
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
  if (!aux_members_.empty()) groupSubcontacts(p, true);

  // T_j: lambda_j = T_j z_j (a secondary subcontact has no variable: its impulse is zero).
  transform_.assign(transform_offset_[nc], 0.0);
  for (int j = 0; j < nc; ++j) {
    const Constraint& c = p.constraints[j];
    const int count = variableCount(j);
    double* t = transform_.data() + transform_offset_[j];
    if (c.type != ConstraintType::Contact) {
      for (int r = 0; r < c.rows; ++r) t[r * count + r] = 1.0;
      continue;
    }
    if (count == 0) continue;
    t[0] = 1.0;
    if (!hasFriction(c)) continue;
    const int beta = frictionBegin(j);
    for (int k = 0; k < nd; ++k) {
      double s = 0.0, co = 0.0;
      portableSinCos(kTwoPi * k / nd, s, co);
      t[1 * count + beta + k] = co;
      t[2 * count + beta + k] = s;
    }
  }

  // M = T^T W T (+ the friction-cone rows, PEG's auxiliary rows and the compliance), q = T^T c.
  lcp_.m.setZero(n, n);
  lcp_.q.setZero(n);
  lcp_.free.assign(n, 0);
  lcp_.block_begin.clear();
  for (int j = 0; j <= nc; ++j)
    if (j == nc || variableCount(j) > 0) lcp_.block_begin.push_back(var_begin_[j]);
  const DoubleBuffer& c_rhs = delassus_.rhs();
  // Calls f(k, W_jk, T_k) for every constraint k coupled to j (j itself included).
  const auto for_each_coupled = [&](int j, const auto& f) {
    const auto visit = [&](int k, const double* w) {
      const Constraint& ck = p.constraints[k];
      f(k, Eigen::Map<const RowMajorMatX>(w, p.constraints[j].rows, ck.rows),
        Eigen::Map<const RowMajorMatX>(transform(k), ck.rows, variableCount(k)));
    };
    visit(j, delassus_.diagonalBlock(j));
    for (int e = delassus_.neighbourBegin(j); e < delassus_.neighbourEnd(j); ++e)
      visit(delassus_.neighbourConstraint(e), delassus_.neighbourBlock(e));
  };
  for (int j = 0; j < nc; ++j) {
    const Constraint& cj = p.constraints[j];
    const int vj = var_begin_[j], nj = variableCount(j);
    if (nj == 0) continue;
    const Eigen::Map<const RowMajorMatX> tj(transform(j), cj.rows, nj);
    for_each_coupled(j, [&](int k, const auto& wjk, const auto& tk) {
      lcp_.m.block(vj, var_begin_[k], nj, tk.cols()).noalias() += tj.transpose() * wjk * tk;
    });

    Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1> cj_rhs =
        Eigen::Map<const VecX>(c_rhs.data() + cj.row_offset, cj.rows);
    if (cj.type == ConstraintType::Contact) cj_rhs[0] = normalConstant(j);
    lcp_.q.segment(vj, nj).noalias() = tj.transpose() * cj_rhs;

    if (cj.type == ConstraintType::Contact) {
      // PEG (rpisim eq. 6): with y_k = u_n,k + e_n,k the normal row of subcontact k (k = 1 the
      // primary, whose plane carries the impulse), the rows
      //   a_i   = y_1 - y_{i+1} + sum_{l <= i} c_l    _|_ c_i >= 0     (G_a, psi_a, E_2 = tril)
      //   rho_n = y_1 + sum_l c_l                     _|_ p_n >= 0     (E_1)
      // make c_i = max(0, y_{i+1} - max(y_1 .. y_i)) and rho_n = max_k y_k: the contact holds
      // while the pair is apart along at least one of its planes.
      const int aux = auxCount(j);
      for (int i = 0; i < aux; ++i) {
        const int a = vj + 1 + i, member = aux_members_[aux_begin_[j] + i];
        lcp_.m.row(a) = lcp_.m.row(vj);
        for_each_coupled(member, [&](int k, const auto& wmk, const auto& tk) {
          lcp_.m.row(a).segment(var_begin_[k], tk.cols()).noalias() -= wmk.row(0) * tk;
        });
        lcp_.q[a] = lcp_.q[vj] - normalConstant(member);
        for (int l = 0; l <= i; ++l) lcp_.m(a, vj + 1 + l) += 1.0;  // E_2
      }
      for (int i = 0; i < aux; ++i) lcp_.m(vj, vj + 1 + i) += 1.0;  // E_1
      lcp_.m(vj, vj) += settings.compliance;
      if (hasFriction(cj)) {
        const int beta = vj + frictionBegin(j), s = beta + nd;
        for (int k = 0; k < nd; ++k) {
          lcp_.m(beta + k, s) += 1.0;  // E
          lcp_.m(s, beta + k) -= 1.0;  // -E^T
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
    if (variableCount(j) == 0) continue;  // a secondary subcontact: no impulse of its own
    z[v] = lambda[c.row_offset];
    if (!hasFriction(c)) continue;
    const double l1 = lambda[c.row_offset + 1], l2 = lambda[c.row_offset + 2];
    if (l1 == 0.0 && l2 == 0.0) continue;
    const double* t = transform(j);
    const int count = variableCount(j), beta = frictionBegin(j);
    // lambda_t = a d_k + b d_{k+1} with a, b >= 0 in exactly the sector that holds it (the
    // directions are ordered by angle, so Cramer's rule with det = sin(2 pi / n_d) > 0).
    double best_a = 0.0, best_b = 0.0, best_violation = 1e300;
    int best_k = 0;
    for (int k = 0; k < nd; ++k) {
      const int k1 = (k + 1) % nd;
      const double c0 = t[count + beta + k], s0 = t[2 * count + beta + k];
      const double c1 = t[count + beta + k1], s1 = t[2 * count + beta + k1];
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
    z[v + beta + best_k] = std::max(best_a, 0.0);
    z[v + beta + (best_k + 1) % nd] = std::max(best_b, 0.0);
  }
  // s: the least sliding speed the velocities allow (s enters only the beta rows); PEG's c: each
  // the least that makes its row a_i non-negative (they enter only the a and rho_n rows).
  lcp_.slack(z, w_);
  for (int j = 0; j < p.numConstraints(); ++j) {
    if (variableCount(j) == 0 || p.constraints[j].type != ConstraintType::Contact) continue;
    const int v = var_begin_[j];
    double sum = 0.0;
    for (int i = 0; i < auxCount(j); ++i) {
      z[v + 1 + i] = std::max(0.0, -(w_[v + 1 + i] + sum));
      sum += z[v + 1 + i];
    }
    if (hasFriction(p.constraints[j])) {
      const int beta = v + frictionBegin(j);
      z[beta + nd] = std::max(0.0, -w_.segment(beta, nd).minCoeff());
    }
  }
}

void PolyhedralLcpForm::velocity(const VecX& lambda, VecX& vhat) const {
  vhat.setZero(p_->numDof());
  if (p_->numDof() > 0) delassus_.velocity(lambda.data(), vhat.data());
}

}  // namespace subsim
