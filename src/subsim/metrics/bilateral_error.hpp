#pragma once
// The position-level error of a step's bilateral rows (joints, welds, FEM cut interfaces,
// no-slip rows), from the problem alone: how far the joints had drifted apart when the step was
// assembled, the figure a recording keeps per step as `joint_error` (docs/recording-format.md).
#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// max |StepProblem::error| over the rows of Bilateral constraints, each in its row's own unit
/// (m for a point row, rad for an angular one); 0 without bilateral rows.
double maxBilateralError(const StepProblem& problem);

}  // namespace subsim
