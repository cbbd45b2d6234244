#pragma once
// The natural residual of the schur paper's box MLCP (its error (29)), the common judge of the
// box-MLCP solvers (bpp, pgs-sm, box-pgs, schur-bpp, schur-pgs-sm, fbic), beside the NCP
// metrics of step_metrics.hpp: per row
//   r = max(|min(lambda - l, w_l)|, |min(u - lambda, w_u)|),  w = A lambda + b,
//   w_l = max(w, 0), w_u = max(-w, 0)          (|w| on an equality row)
// on the box MLCP of the step (formulation/box_mlcp_form.hpp) with the given compliance and the
// friction bounds of the previous normal impulses (the warm start the solver was given).
#include "subsim/problem/step_problem.hpp"

namespace subsim {

struct BoxNaturalResidual {
  double max = 0.0;    // over rows
  double norm2 = 0.0;  // of all rows stacked
};

/// (29) of `lambda` on `problem`'s box MLCP; `previous` bounds the friction rows (null or the
/// wrong size: none).  Both fields NaN when some A_i is not positive definite.
BoxNaturalResidual evaluateBoxNaturalResidual(const StepProblem& problem, const VecX* previous,
                                              const VecX& lambda, double compliance = 1e-10);

}  // namespace subsim
