#pragma once
// The projected iterations on the local (Delassus) form that PGS, PGS-CG and PJ share: the
// constraint sets' projections P_j and one projected block step (formulation/delassus_form.hpp
// gives W, c and the per-row scaling D).
#include <algorithm>

#include "subsim/formulation/delassus_form.hpp"
#include "subsim/problem/cone_projection.hpp"

namespace subsim {

/// P_j in place on the c.rows values at lambda: none for bilateral and soft rows, max(0, .) per
/// unilateral row, the strict friction-cone operator for a contact.
inline void projectConstraintBlock(const Constraint& c, double* lambda) {
  switch (c.type) {
    case ConstraintType::Bilateral:
    case ConstraintType::Soft:
      return;
    case ConstraintType::Unilateral:
      for (int r = 0; r < c.rows; ++r) lambda[r] = std::max(0.0, lambda[r]);
      return;
    case ConstraintType::Contact: {
      const Vec3 l = projectConeStrict(Vec3(lambda[0], lambda[1], lambda[2]), c.mu);
      lambda[0] = l[0];
      lambda[1] = l[1];
      lambda[2] = l[2];
      return;
    }
  }
}

/// One projected block step: out_j = lambda_j + omega (T_j - lambda_j), where T_j is
/// P_j(lambda_j - D_j^{-1} g_j), g = (W lambda + c)_j, taken row by row inside the block
/// (Gauss-Seidel within the block: after each row g_j is updated through the column of W_jj;
/// a contact updates its normal first, projects it to >= 0, then its tangential pair together
/// onto the disc of radius mu lambda_n).  Fixed soft rows are set to their value.  out may
/// alias lambda (PGS).  Returns max_r D_r |out_r - lambda_r| (m/s), 0 for fixed rows.
double projectedStep(const DelassusForm& w, int j, const double* lambda, double omega, double* out);

/// One projected Gauss-Seidel sweep over every constraint in order (projectedStep with
/// omega = 1, in place); returns the largest D_r |change| (m/s).
double gaussSeidelSweep(const DelassusForm& w, double* lambda);

/// Projects lambda onto every S_j and sets fixed soft rows to their value.
void projectAll(const DelassusForm& w, double* lambda);

}  // namespace subsim
