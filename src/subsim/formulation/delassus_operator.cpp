#include "subsim/formulation/delassus_operator.hpp"

#include <omp.h>

#include <algorithm>

#include "subsim/formulation/soft_row_terms.hpp"

namespace subsim {

bool DelassusOperator::build(const StepProblem& p, int threads) {
  p_ = &p;
  threads_ = threads > 0 ? threads : omp_get_max_threads();
  const bool factored = factored_.build(p, threads_);
  const int nr = p.numRows();
  c_.resize(nr);
  soft_diagonal_.assign(nr, 0.0);
  fixed_value_.assign(nr, 0.0);
  fixed_.assign(nr, 0);
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    const int o = c.row_offset;
    std::copy_n(p.e.data() + o, c.rows, c_.data() + o);
    factored_.addTimes(j, factored_.freeVelocity(), c_.data() + o);
    if (c.type != ConstraintType::Soft) continue;
    for (int row = o; row < o + c.rows; ++row) {
      const SoftRowTerms soft = softRowTerms(p, row);
      soft_diagonal_[row] = soft.diagonal;
      c_[row] += soft.rhs;
      fixed_[row] = soft.fixed;
      fixed_value_[row] = soft.value;
    }
  }
  v_.resize(p.numDof());
  return factored;
}

void DelassusOperator::multiply(const double* x, double* y) {
  const StepProblem& p = *p_;
  const int ns = p.numSubsystems();
  const int nc = p.numConstraints();
#pragma omp parallel num_threads(threads_)
  {
    const int thread = omp_get_thread_num();
#pragma omp for schedule(dynamic)
    for (int i = 0; i < ns; ++i) {
      const Subsystem& sub = p.subsystems[i];
      double* v = v_.data() + sub.dof_offset;
      std::fill_n(v, sub.dof, 0.0);
      factored_.addTransposeTimes(i, x, v);
      factored_.solveInPlace(i, v, thread);
    }
#pragma omp for schedule(static)
    for (int j = 0; j < nc; ++j) {
      const Constraint& c = p.constraints[j];
      double* yj = y + c.row_offset;
      for (int r = 0; r < c.rows; ++r)
        yj[r] = soft_diagonal_[c.row_offset + r] * x[c.row_offset + r];
      factored_.addTimes(j, v_.data(), yj);
    }
  }
}

}  // namespace subsim
