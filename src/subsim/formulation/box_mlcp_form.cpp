#include "subsim/formulation/box_mlcp_form.hpp"

#include <algorithm>

namespace subsim {

bool BoxMlcpForm::build(const StepProblem& p, const VecX* previous, const BoxMlcpSettings& settings,
                        int threads) {
  const bool factored = delassus_.build(p, threads);
  const int n = p.numRows();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  b_.resize(n);
  lower_.setConstant(n, -kInf);
  upper_.setConstant(n, kInf);
  equality_.assign(n, 0);
  const bool has_previous = previous != nullptr && previous->size() == n;
  const DoubleBuffer& c = delassus_.rhs();
  triplets_.clear();
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& con = p.constraints[j];
    const int o = con.row_offset;
    const int rows = con.rows;
    // Diagonal block (with the compliance of hard rows) and the neighbour blocks.
    const double* diag = delassus_.diagonalBlock(j);
    for (int r = 0; r < rows; ++r)
      for (int q = 0; q < rows; ++q) {
        double v = diag[r * rows + q];
        if (r == q && con.type != ConstraintType::Soft) v += settings.compliance;
        if (v != 0.0 || r == q) triplets_.emplace_back(o + r, o + q, v);
      }
    for (int e = delassus_.neighbourBegin(j); e < delassus_.neighbourEnd(j); ++e) {
      const Constraint& ck = p.constraints[delassus_.neighbourConstraint(e)];
      const double* block = delassus_.neighbourBlock(e);
      for (int r = 0; r < rows; ++r)
        for (int q = 0; q < ck.rows; ++q)
          if (block[r * ck.rows + q] != 0.0)
            triplets_.emplace_back(o + r, ck.row_offset + q, block[r * ck.rows + q]);
    }
    for (int r = 0; r < rows; ++r) b_[o + r] = c[o + r];
    switch (con.type) {
      case ConstraintType::Bilateral:
        std::fill_n(equality_.begin() + o, rows, 1);
        break;
      case ConstraintType::Unilateral:
        lower_.segment(o, rows).setZero();
        break;
      case ConstraintType::Soft:
        for (int r = 0; r < rows; ++r) {
          if (delassus_.fixedRow(o + r)) {
            lower_[o + r] = upper_[o + r] = delassus_.fixedValue(o + r);
          } else {
            equality_[o + r] = 1;
          }
        }
        break;
      case ConstraintType::Contact: {
        lower_[o] = 0.0;
        const double bound = has_previous ? con.mu * std::max((*previous)[o], 0.0) : 0.0;
        for (int r = 1; r < rows; ++r) {
          lower_[o + r] = -bound;
          upper_[o + r] = bound;
        }
        break;
      }
    }
  }
  a_.resize(n, n);
  a_.setFromTriplets(triplets_.begin(), triplets_.end());
  a_.makeCompressed();
  return factored;
}

void BoxMlcpForm::slack(const VecX& lambda, VecX& w) const {
  w.noalias() = a_ * lambda;
  w += b_;
}

void BoxMlcpForm::naturalResidual(const VecX& lambda, double& max_norm, double& two_norm) const {
  slack(lambda, w_);
  max_norm = 0.0;
  double sum = 0.0;
  for (int r = 0; r < numRows(); ++r) {
    const double e = naturalResidualRow(lambda[r], w_[r], lower_[r], upper_[r]);
    max_norm = std::max(max_norm, e);
    sum += e * e;
  }
  two_norm = std::sqrt(sum);
}

void BoxMlcpForm::velocity(const VecX& lambda, VecX& vhat) const {
  const StepProblem& p = delassus_.problem();
  vhat.resize(p.numDof());
  if (p.numDof() > 0) delassus_.velocity(lambda.data(), vhat.data());
}

}  // namespace subsim
