#include "subsim/formulation/subsystem_factor.hpp"

#include <algorithm>

namespace subsim {

bool SubsystemFactor::compute(const StepProblem& p, int i) {
  sparse_form_ = p.isSparse(i);
  if (!sparse_form_) {
    dense_.compute(p.A(i));
    return dense_.info() == Eigen::Success;
  }
  if (!sparse_) sparse_ = std::make_unique<SparseLlt>();
  sparse_->compute(SparseColumnMatrix(p.sparseA(i)));
  return sparse_->info() == Eigen::Success;
}

void SubsystemFactor::solve(const double* in, double* out, double* scratch) const {
  if (!sparse_form_) {
    const int n = static_cast<int>(dense_.rows());
    if (out != in) std::copy_n(in, n, out);
    Eigen::Map<VecX> x(out, n);
    dense_.solveInPlace(x);
    return;
  }
  // P^T L L^T P x = b, step by step: Eigen's own solve permutes its result in place, which
  // allocates a mask.
  const int n = static_cast<int>(sparse_->rows());
  Eigen::Map<const VecX> b(in, n);
  Eigen::Map<VecX> t(scratch, n), x(out, n);
  t = sparse_->permutationP() * b;
  sparse_->matrixL().solveInPlace(t);
  sparse_->matrixU().solveInPlace(t);
  x = sparse_->permutationPinv() * t;
}

}  // namespace subsim
