#pragma once
// Recorded StepProblems in HDF5: a run's per-step solver problems, with the warm start each solver
// was given, saved so that solvers can be compared and debugged on exactly the same input without
// re-running the simulation.  The layout is documented in docs/problem-format.md.
//
// Example:
//   subsim::World world(model);
//   std::vector<subsim::RecordedProblem> problems;
//   for (int k = 0; k < 100; ++k) {
//     world.step();
//     problems.push_back({world.lastProblem(), world.lastWarmStart(), {}});
//   }
//   subsim::writeProblemFile("problems.h5", {"granular", "subadmm", model.dt}, problems);
//   const subsim::ProblemFile file = subsim::readProblemFile("problems.h5");
//
// Doubles are stored as IEEE 64-bit values, so a problem read back is bit-identical to the one
// written (problemHash in problem_hash.hpp compares them).  Like the recorder, this header does not
// include hdf5.h: only the library sees HDF5.
#include <string>
#include <vector>

#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// One step's problem and the warm start given to the solver with it (vhat guess and lambda; the
/// stats are not stored).  Each warm start part is either empty (none) or fits the problem.
struct RecordedProblem {
  StepProblem problem;
  StepSolution warm_start;
  /// What the recording solver returned (vhat and lambda), when the file holds it (datasets
  /// solution_vhat and solution_lambda; files written before they existed have none): empty
  /// parts mean none.
  StepSolution solution;
};

/// Where the problems came from, stored as root attributes so that the file explains itself.
struct ProblemFileInfo {
  std::string scene;          // the scene as given on the command line
  std::string source_solver;  // the solver that ran while the problems were recorded
  double dt = 0.0;            // the run's time step (s)
};

/// Creates (truncates) `path` and writes the problems in order.  std::invalid_argument naming the
/// problem index and the defect, before the file is touched, when a problem fails
/// StepProblem::check(), has an inconsistent layout or non-finite values, or a warm start part of
/// the wrong size; std::runtime_error("cannot create problem file 'PATH': ...") or
/// ("cannot write problem file 'PATH': ...") when HDF5 fails, ("cannot seal 'PATH': ...") when the
/// complete file cannot be sealed (io/file_seal.hpp; the reader refuses an unsealed file).
void writeProblemFile(const std::string& path, const ProblemFileInfo& info,
                      const std::vector<RecordedProblem>& problems);

struct ProblemFile {
  ProblemFileInfo info;
  std::vector<RecordedProblem> problems;
};

/// Reads a whole problem file, once its seal (io/file_seal.hpp) shows that it is exactly as
/// writeProblemFile left it: HDF5 never sees a damaged file.  Every problem is validated (layout,
/// offsets, enum values, finite values, then StepProblem::check()) before it is returned, so a
/// solver can use it directly; std::runtime_error naming the file and the first missing or bad
/// object otherwise (missing file, not HDF5, no seal or one that does not fit, wrong
/// schema_version, missing group/attribute/dataset, wrong type or size, offsets out of range,
/// non-finite values).
ProblemFile readProblemFile(const std::string& path);

}  // namespace subsim
