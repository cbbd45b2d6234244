#include "subsim/formulation/factored_subsystems.hpp"

#include <omp.h>

#include <algorithm>

namespace subsim {

bool FactoredSubsystems::build(const StepProblem& p, int threads) {
  p_ = &p;
  const int ns = p.numSubsystems();
  const int na = static_cast<int>(p.attachments.size());
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();
  // Subsystem -> attachments (CSR, in attachment order) and attachment -> constraint.
  sub_begin_.assign(ns + 1, 0);
  att_constraint_.resize(na);
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    std::fill_n(att_constraint_.begin() + c.first_attachment, c.num_attachments, j);
  }
  for (const Attachment& at : p.attachments) ++sub_begin_[at.subsystem + 1];
  for (int i = 0; i < ns; ++i) sub_begin_[i + 1] += sub_begin_[i];
  sub_attachments_.resize(na);
  fill_.assign(sub_begin_.begin(), sub_begin_.end() - 1);
  for (int a = 0; a < na; ++a) sub_attachments_[fill_[p.attachments[a].subsystem]++] = a;
  compact_.prepare(p, nthreads);
  factors_.resize(ns);
  failed_.assign(ns, 0);
  free_v_.resize(p.numDof());
  scratch_stride_ = 0;
  for (const Subsystem& sub : p.subsystems) scratch_stride_ = std::max(scratch_stride_, sub.dof);
  scratch_.resize(static_cast<size_t>(scratch_stride_) * nthreads);
#pragma omp parallel for schedule(dynamic) num_threads(nthreads)
  for (int i = 0; i < ns; ++i) {
    failed_[i] = !factors_[i].compute(p, i);
    Eigen::Map<VecX> v(free_v_.data() + p.subsystems[i].dof_offset, p.subsystems[i].dof);
    v = p.bBlock(i);
    if (!failed_[i]) factors_[i].solveInPlace(v);
  }
  return std::find(failed_.begin(), failed_.end(), 1) == failed_.end();
}

void FactoredSubsystems::clear() {
  factors_.clear();
  failed_.clear();
  sub_begin_.assign(1, 0);
  sub_attachments_.clear();
  att_constraint_.clear();
  free_v_.clear();
}

void FactoredSubsystems::addTransposeTimes(int i, const double* lambda, double* v) const {
  const StepProblem& p = *p_;
  for (int s = sub_begin_[i]; s < sub_begin_[i + 1]; ++s) {
    const int a = sub_attachments_[s];
    compact_.addTransposeTimesBlock(p, a, lambda + p.constraints[att_constraint_[a]].row_offset, v);
  }
}

void FactoredSubsystems::addTimes(int j, const double* v, double* out) const {
  const StepProblem& p = *p_;
  const Constraint& c = p.constraints[j];
  for (int a = c.first_attachment; a < c.first_attachment + c.num_attachments; ++a) {
    double jv[6];
    compact_.multiplyBlock(p, a, v + p.subsystems[p.attachments[a].subsystem].dof_offset, jv);
    for (int r = 0; r < c.rows; ++r) out[r] += jv[r];
  }
}

void FactoredSubsystems::velocity(const double* lambda, double* vhat) const {
  // After clear(), no subsystems (and no problem) to fill.
  for (int i = 0; i < static_cast<int>(factors_.size()); ++i) {
    const StepProblem& p = *p_;
    const Subsystem& sub = p.subsystems[i];
    double* v = vhat + sub.dof_offset;
    std::copy_n(p.b.data() + sub.dof_offset, sub.dof, v);
    addTransposeTimes(i, lambda, v);
    solveInPlace(i, v, 0);
  }
}

}  // namespace subsim
