#pragma once
// The no-allocation guarantee of a solver's iteration loop, checked the same way for every solver.
#include <gtest/gtest.h>

#include "subsim/solvers/solver.hpp"
#include "support/allocation_count.hpp"

namespace subsim::test {

/// Solves `problem` once to warm the workspace, then again with Eigen's runtime malloc check off
/// and operator new counted from the first iteration to the end of solve(): neither may fire.
/// The history is recorded (reserved up front) and exactly max_iterations are run.
inline void expectIterationsDoNotAllocate(Solver& solver, const StepProblem& problem,
                                          SolverSettings settings) {
  settings.tolerance = 0.0;
  settings.record_history = true;
  StepSolution solution;
  solver.solve(problem, settings, solution);
  long at_first = -1;
  settings.on_iteration = [&at_first](int l) {
    if (l != 0) return;
    // From here Eigen asserts on any allocation (builds with assertions).
    Eigen::internal::set_is_malloc_allowed(false);
    at_first = allocationCount();
  };
  solver.solve(problem, settings, solution);
  const long at_end = allocationCount();
  Eigen::internal::set_is_malloc_allowed(true);
  EXPECT_GE(at_first, 0) << solver.name();
  EXPECT_EQ(at_end, at_first) << solver.name();
  EXPECT_EQ(solution.stats.iterations, settings.max_iterations) << solver.name();
  EXPECT_EQ(static_cast<int>(solution.stats.residual_history.size()), settings.max_iterations)
      << solver.name();
}

}  // namespace subsim::test
