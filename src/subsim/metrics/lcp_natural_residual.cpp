#include "subsim/metrics/lcp_natural_residual.hpp"

#include <limits>

namespace subsim {

LcpNaturalResidual evaluateLcpNaturalResidual(const StepProblem& problem, const VecX& lambda,
                                              const PolyhedralLcpSettings& settings) {
  LcpNaturalResidual r;
  PolyhedralLcpForm form;
  if (lambda.size() != problem.numRows() || !form.build(problem, settings)) {
    r.max = r.norm2 = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  VecX z;
  form.variablesOf(lambda, z);
  form.lcp().naturalResidual(z, r.max, r.norm2);
  return r;
}

}  // namespace subsim
