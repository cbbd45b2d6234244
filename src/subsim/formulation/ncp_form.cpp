#include "subsim/formulation/ncp_form.hpp"

namespace subsim {

double ncpError(const Constraint& c, int k, double error, double bias, double h, double erp) {
  switch (c.stabilization) {
    case Stabilization::Velocity:
      return bias + error / h;
    case Stabilization::Speculative:
      // The normal row closes an open gap exactly within the step (speculative contact) and
      // pushes out erp of a penetration; the tangent rows carry only the known velocities.
      if (k > 0) return bias;
      return bias + (error >= 0.0 ? error : erp * error) / h;
    case Stabilization::Position:
      return bias + error;
  }
  return bias;
}

void formNcpErrors(StepProblem& p) {
  if (!p.has_step_data) return;
  const double h = p.dt;
  for (const Constraint& c : p.constraints)
    for (int k = 0; k < c.rows; ++k) {
      const int row = c.row_offset + k;
      p.e[row] = ncpError(c, k, p.error[row], p.bias[row], h, p.erp);
    }
}

}  // namespace subsim
