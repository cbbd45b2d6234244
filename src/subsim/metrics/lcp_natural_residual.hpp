#pragma once
// The natural residual of the RPI simulator paper's polyhedral-cone LCPs (Stewart-Trinkle,
// Anitescu-Potra; formulation/polyhedral_lcp_form.hpp), the common error of the LCP solvers
// (lemke, path, fischer-newton, minmap-newton, lcp-ip, lcp-pgs, lcp-pj) beside the NCP metrics of
// step_metrics.hpp: per row |min(z_i, w_i)| (|w_i| on a free row), w = M z + q, at the LCP
// variables z of the NCP impulses lambda (PolyhedralLcpForm::variablesOf: lambda_t split between
// the two directions of its sector, s the least sliding speed the velocities allow), so any
// solver's impulses can be judged on it.
#include "subsim/formulation/polyhedral_lcp_form.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

struct LcpNaturalResidual {
  double max = 0.0;    // over rows
  double norm2 = 0.0;  // of all rows stacked
};

/// The natural residual of `lambda` on `problem`'s LCP of `settings`.  Both fields NaN when the
/// LCP cannot be built (a subsystem matrix not positive definite, more than max_variables).
LcpNaturalResidual evaluateLcpNaturalResidual(const StepProblem& problem, const VecX& lambda,
                                              const PolyhedralLcpSettings& settings = {});

}  // namespace subsim
