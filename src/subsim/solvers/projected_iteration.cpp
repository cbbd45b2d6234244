#include "subsim/solvers/projected_iteration.hpp"

#include <algorithm>
#include <cmath>

namespace subsim {

double projectedStep(const DelassusForm& w, int j, const double* lambda, double omega,
                     double* out) {
  const Constraint& c = w.problem().constraints[j];
  const int o = c.row_offset;
  const int rows = c.rows;
  const double* Wjj = w.diagonalBlock(j);
  const double* inv_d = w.inverseScales() + o;
  double g[6], l[6];
  w.constraintVelocity(j, lambda, g);
  for (int r = 0; r < rows; ++r) l[r] = lambda[o + r];
  // Gauss-Seidel inside the block too: after each row (for a contact: the normal, then the
  // tangential pair together) g is updated by the change through the column of W_jj.
  if (c.type == ConstraintType::Contact) {
    const double n = std::max(0.0, l[0] - inv_d[0] * g[0]);
    const double dn = n - l[0];
    l[0] = n;
    const double t1 = l[1] - inv_d[1] * (g[1] + Wjj[3] * dn);
    const double t2 = l[2] - inv_d[2] * (g[2] + Wjj[6] * dn);
    const double tn = std::sqrt(t1 * t1 + t2 * t2);
    const double limit = c.mu * n;
    const double s = tn > limit ? limit / tn : 1.0;
    l[1] = s * t1;
    l[2] = s * t2;
  } else {
    const bool unilateral = c.type == ConstraintType::Unilateral;
    for (int r = 0; r < rows; ++r) {
      double nl = l[r] - inv_d[r] * g[r];
      if (unilateral) nl = std::max(0.0, nl);
      const double delta = nl - l[r];
      l[r] = nl;
      if (delta != 0.0)
        for (int q = 0; q < rows; ++q) g[q] += Wjj[q * rows + r] * delta;
    }
  }
  double change = 0.0;
  for (int r = 0; r < c.rows; ++r) {
    const double old = lambda[o + r];
    const double nl = w.fixedRow(o + r) ? w.fixedValue(o + r) : old + omega * (l[r] - old);
    change = std::max(change, w.scale(o + r) * std::abs(nl - old));
    out[o + r] = nl;
  }
  return change;
}

double gaussSeidelSweep(const DelassusForm& w, double* lambda) {
  double change = 0.0;
  for (int j = 0; j < w.numConstraints(); ++j)
    change = std::max(change, projectedStep(w, j, lambda, 1.0, lambda));
  return change;
}

void projectAll(const DelassusForm& w, double* lambda) {
  for (const Constraint& c : w.problem().constraints) {
    projectConstraintBlock(c, lambda + c.row_offset);
    for (int r = 0; r < c.rows; ++r)
      if (w.fixedRow(c.row_offset + r)) lambda[c.row_offset + r] = w.fixedValue(c.row_offset + r);
  }
}

}  // namespace subsim
