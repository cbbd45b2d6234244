// The HDF5 problem-file reader: any bytes are problems that pass StepProblem::check() or a
// std::runtime_error naming the file and the object, never a crash.  A problem it accepts is
// solved once, so whatever the reader lets through must be safe for a solver.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "fuzz_input.hpp"
#include "subsim/problem/problem_file.hpp"
#include "subsim/solvers/subadmm_solver.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const subsim::ProblemFile file =
        subsim::readProblemFile(subsim::fuzz::writeInput(data, size, ".h5"));
    subsim::SubadmmSolver solver;
    subsim::SolverSettings settings;
    settings.max_iterations = 5;
    for (const subsim::RecordedProblem& p : file.problems) {
      subsim::StepSolution solution;
      solver.solve(p.problem, settings, solution);
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
