#include "subsim/metrics/bilateral_error.hpp"

#include <algorithm>
#include <cmath>

namespace subsim {

double maxBilateralError(const StepProblem& problem) {
  double worst = 0.0;
  for (const Constraint& c : problem.constraints) {
    if (c.type != ConstraintType::Bilateral) continue;
    for (int r = 0; r < c.rows; ++r)
      worst = std::max(worst, std::abs(problem.error[c.row_offset + r]));
  }
  return worst;
}

}  // namespace subsim
