#include "subsim/metrics/box_natural_residual.hpp"

#include <limits>

#include "subsim/formulation/box_mlcp_form.hpp"

namespace subsim {

BoxNaturalResidual evaluateBoxNaturalResidual(const StepProblem& problem, const VecX* previous,
                                              const VecX& lambda, double compliance) {
  BoxNaturalResidual r;
  BoxMlcpForm form;
  if (!form.build(problem, previous, BoxMlcpSettings{compliance}) ||
      lambda.size() != problem.numRows()) {
    r.max = r.norm2 = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  form.naturalResidual(lambda, r.max, r.norm2);
  return r;
}

}  // namespace subsim
