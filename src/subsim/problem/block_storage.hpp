#pragma once
// The same StepProblem with its subsystem blocks A_i and M_i and its J blocks in the other storage
// (step_problem.hpp, Subsystem and Attachment): dense, or sparse over their nonzeros.  Every
// solver and the metrics take both and must give the same solution up to round-off; these
// conversions are how that is checked, and how a problem recorded in one form is handed to a tool
// that wants the other.
#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// Every sparse subsystem and J block stored dense (each subsystem within kMaxDensifiedDof, else
/// std::invalid_argument).
StepProblem withDenseBlocks(const StepProblem& problem);
/// Every dense subsystem that is not a kinematic tree stored sparse: the pattern is the union of
/// A_i's and M_i's nonzeros with the diagonal, made symmetric; the J blocks on those subsystems
/// store their nonzero columns (a block without any stays dense).
StepProblem withSparseBlocks(const StepProblem& problem);

}  // namespace subsim
