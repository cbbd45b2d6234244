#include "subsim/formulation/subsystem_factor.hpp"

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

}  // namespace subsim
