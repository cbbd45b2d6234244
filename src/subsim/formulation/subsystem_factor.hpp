#pragma once
// The Cholesky factor of one subsystem's A_i in either of its storages (step_problem.hpp,
// Subsystem): Eigen's dense LLT^T for a dense block, a simplicial sparse LLT^T under approximate
// minimum degree ordering for a sparse one (a large FEM body as one subsystem, whose dense factor
// would not fit in memory).  What the Delassus assembly and the metrics' unconstrained and
// constrained velocities need: factor once, solve for many right-hand sides.
#include <Eigen/Cholesky>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>
#include <memory>

#include "subsim/problem/step_problem.hpp"

namespace subsim {

class SubsystemFactor {
 public:
  /// Factors A_i of `subsystem`; false when it is not positive definite.
  bool compute(const StepProblem& p, int subsystem);
  bool sparse() const { return sparse_form_; }

  /// x = A_i^-1 x for the columns of x (the subsystem's DOF rows).  The sparse form solves
  /// through a temporary (set-up work, not an iteration's).
  template <typename Derived>
  void solveInPlace(const Eigen::MatrixBase<Derived>& x) const {
    auto& out = const_cast<Eigen::MatrixBase<Derived>&>(x);
    if (!sparse_form_) {
      dense_.solveInPlace(out);
      return;
    }
    const MatX rhs = out;
    out = sparse_->solve(rhs);
  }

  /// out = A_i^-1 in for one vector (the subsystem's DOF entries; in and out may be the same),
  /// without allocating: an iteration's solve.  The sparse form needs `scratch` of as many
  /// entries; the dense one ignores it.
  void solve(const double* in, double* out, double* scratch) const;

 private:
  using SparseLlt = Eigen::SimplicialLLT<SparseColumnMatrix, Eigen::Lower, Eigen::AMDOrdering<int>>;
  bool sparse_form_ = false;
  Eigen::LLT<MatX> dense_;
  // Eigen's sparse factorisations cannot be copied or moved; held by pointer so that factors
  // can live in a std::vector, one per subsystem.
  std::unique_ptr<SparseLlt> sparse_;
};

}  // namespace subsim
