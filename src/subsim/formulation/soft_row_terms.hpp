#pragma once
// A soft row (lambda = -k e - c J vhat) in the regularised dual system of DelassusForm and
// DelassusOperator: with J vhat = (W lambda + c)_r - e_r it reads
//   lambda / c + (W lambda + c)_r + (k / c - 1) e_r = 0    (c > 0),
// an equality of the operator whose diagonal gains 1 / c and whose right-hand side gains
// (k / c - 1) e; with c = 0 the row is explicit, fixed at lambda = -k e.
#include "subsim/problem/step_problem.hpp"

namespace subsim {

struct SoftRowTerms {
  bool fixed = false;
  double diagonal = 0.0;  // added to W_rr
  double rhs = 0.0;       // added to c_r
  double value = 0.0;     // the fixed impulse
};

/// Row `row` of `p`, which must be a soft constraint's.
inline SoftRowTerms softRowTerms(const StepProblem& p, int row) {
  SoftRowTerms t;
  const double damping = p.soft_c[row];
  if (damping > 0.0) {
    t.diagonal = 1.0 / damping;
    t.rhs = (p.soft_k[row] / damping - 1.0) * p.e[row];
  } else {
    t.fixed = true;
    t.value = -p.soft_k[row] * p.e[row];
  }
  return t;
}

}  // namespace subsim
