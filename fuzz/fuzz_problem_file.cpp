// The HDF5 problem-file reader: any input is problems that pass StepProblem::check() or a
// std::runtime_error naming the file and the object, never a crash.  A problem it accepts is
// solved with 5 SubADMM iterations, so whatever the reader lets through must be safe for a solver.
// The first byte picks the mode (fuzz/README.md):
//   odd:  raw, the other bytes are the file (refused unless sealed: HDF5 sees only sealed bytes);
//   even: values, the other bytes choose changes to a valid problem file (fuzz_hdf5_edits.hpp).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_hdf5_edits.hpp"
#include "fuzz_input.hpp"
#include "subsim/io/problem_file.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"
#include "subsim/solvers/subadmm_solver.hpp"

namespace {

// Contacts and friction (stack), bilateral rows (pendulum), a robot's tree structure and contacts
// on its links (quadrupeds), an FEM body's sparse subsystem block (softball).
struct Recorded {
  const char* scene;
  int steps;
};
constexpr Recorded kProblems[] = {{"stack:boxes=2", 2},
                                  {"pendulum:links=2", 1},
                                  {"quadrupeds:robots=1", 40},
                                  {"softball:cells=2", 3}};
constexpr std::size_t kCount = std::size(kProblems);

// The valid, sealed file every input of the values mode starts from, written once.
const std::string& baseFile() {
  static const std::string bytes = [] {
    std::vector<subsim::RecordedProblem> problems;
    for (const Recorded& r : kProblems) {
      subsim::World world(subsim::buildScenario(r.scene).model);
      for (int k = 0; k < r.steps; ++k) world.step();
      problems.push_back({world.lastProblem(), world.lastWarmStart(), {}});
    }
    const std::string path = subsim::fuzz::processPath("_base.h5");
    subsim::writeProblemFile(path, {"fuzz", "subadmm", 0.01}, problems);
    return subsim::fuzz::takeFile(path);
  }();
  return bytes;
}

// Every object of docs/problem-format.md, in each problem group and in one beyond the last.
const subsim::fuzz::FileObjects& objects() {
  static const subsim::fuzz::FileObjects all = [] {
    const struct {
      const char* name;
      bool integers;
      std::size_t cols;
    } datasets[] = {{"subsystems", true, 3},
                    {"a_data", false, 0},
                    {"b", false, 0},
                    {"constraint_type", true, 0},
                    {"constraint_rows", true, 0},
                    {"constraint_row_offset", true, 0},
                    {"constraint_first_attachment", true, 0},
                    {"constraint_num_attachments", true, 0},
                    {"constraint_mu", false, 0},
                    {"constraint_key", true, 0},
                    {"attachments", true, 4},
                    {"jacobian_data", false, 0},
                    {"e", false, 0},
                    {"soft_k", false, 0},
                    {"soft_c", false, 0},
                    {"warm_start_vhat", false, 0},
                    {"warm_start_lambda", false, 0},
                    {"subsystem_tree_offset", true, 0},
                    {"dof_parent", true, 0},
                    {"tree_bodies", true, 3},
                    {"tree_body_jacobian_data", false, 0},
                    {"attachment_body", true, 2},
                    {"local_jacobian_data", false, 0},
                    {"subsystem_pattern_offset", true, 0},
                    {"sparse_pattern", true, 0}};
    subsim::fuzz::FileObjects o;
    o.removable.push_back("/problems");
    for (const char* name : {"schema_version", "scene", "source_solver", "dt", "count"})
      o.attributes.push_back({"/", name});
    for (std::size_t k = 0; k <= kCount; ++k) {
      char group[32];
      std::snprintf(group, sizeof(group), "/problems/%06zu", k);
      o.removable.push_back(group);
      o.attributes.push_back({group, "dt"});
      for (const auto& d : datasets) {
        o.datasets.push_back({std::string(group) + "/" + d.name, d.integers, d.cols});
        o.removable.push_back(std::string(group) + "/" + d.name);
      }
    }
    return o;
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  try {
    std::string path;
    if ((data[0] & 1) != 0) {
      path = subsim::fuzz::writeInput(data + 1, size - 1, ".h5");
    } else {
      const std::string& base = baseFile();
      path = subsim::fuzz::writeInput(reinterpret_cast<const std::uint8_t*>(base.data()),
                                      base.size(), ".h5");
      FuzzedDataProvider in(data + 1, size - 1);
      subsim::fuzz::applyEdits(in, path, objects());
    }
    const subsim::ProblemFile file = subsim::readProblemFile(path);
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
