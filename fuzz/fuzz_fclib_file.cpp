// The FCLib reader and its mapping onto the StepProblem: any changes to valid FCLib files (a
// global problem with equality rows, a local problem with V and R) give a problem that passes
// StepProblem::check() or a std::runtime_error naming the file and the dataset, never a crash.  A
// problem it accepts is solved with 5 PGS iterations (PGS takes both forms) and judged by the
// metrics, so whatever the reader lets through must be safe for both.
// The first byte picks the base file (even: global, odd: local); the other bytes choose changes
// (fuzz_hdf5_edits.hpp).  Raw bytes are not fuzzed here: FCLib files from other programs carry no
// seal, so a damaged one reaches libhdf5, whose faults on damaged files fuzz/README.md lists.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_hdf5_edits.hpp"
#include "fuzz_input.hpp"
#include "subsim/io/fclib_convert.hpp"
#include "subsim/io/fclib_file.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"
#include "subsim/solvers/pgs_solver.hpp"

namespace {

/// The base files, written once: the global form of a box stack's contacts with an equality row
/// added by hand, and the local form of granular (contacts, and the rod's soft weld in V and R).
const std::string& baseFile(bool local) {
  static const std::vector<std::string> files = [] {
    std::vector<std::string> out;
    for (const bool is_local : {false, true}) {
      subsim::World world(
          subsim::buildScenario(is_local ? "granular:spheres=8" : "stack:boxes=2").model);
      for (int k = 0; k < 20; ++k) world.step();
      subsim::FclibExportOptions options;
      options.guess = &world.lastWarmStart();
      options.solution = &world.lastSolution();
      subsim::FclibProblem f =
          is_local ? subsim::fclibLocalFromStepProblem(world.lastProblem(), options)
                   : subsim::fclibGlobalFromStepProblem(world.lastProblem(), options);
      if (!is_local) {  // one equality row, the first DOF held, for G, b and equality_rows
        f.G.resize(f.M.rows(), 1);
        f.G.insert(0, 0) = 1.0;
        f.b = subsim::VecX::Zero(1);
        f.equality_rows = {1};
        f.solution.reset();
        f.guesses.clear();
      }
      const std::string path = subsim::fuzz::processPath(is_local ? "_local.hdf5" : "_global.hdf5");
      subsim::writeFclibFile(path, f);
      out.push_back(subsim::fuzz::takeFile(path));
    }
    return out;
  }();
  return files[local ? 1 : 0];
}

/// Every object of docs/fclib.md's layout in the base file of `local`.
subsim::fuzz::FileObjects objects(bool local) {
  subsim::fuzz::FileObjects o;
  const std::string root = local ? "/fclib_local" : "/fclib_global";
  const std::vector<std::string> matrices =
      local ? std::vector<std::string>{"W", "V", "R"} : std::vector<std::string>{"M", "H", "G"};
  for (const std::string& m : matrices) {
    const std::string g = root + "/" + m;
    o.removable.push_back(g);
    for (const char* name : {"nzmax", "m", "n", "nz", "p", "i"}) {
      o.datasets.push_back({g + "/" + name, true, 0});
      o.removable.push_back(g + "/" + name);
    }
    o.datasets.push_back({g + "/x", false, 0});
    o.removable.push_back(g + "/x");
  }
  const std::vector<std::string> vectors = local ? std::vector<std::string>{"q", "mu", "s"}
                                                 : std::vector<std::string>{"f", "w", "mu", "b"};
  for (const std::string& v : vectors) {
    o.datasets.push_back({root + "/vectors/" + v, false, 0});
    o.removable.push_back(root + "/vectors/" + v);
  }
  o.datasets.push_back({root + "/spacedim", true, 0});
  o.removable.push_back(root);
  o.removable.push_back(root + "/vectors");
  if (!local) {
    for (const char* name : {"subsystem_dof", "equality_rows"}) {
      o.datasets.push_back({std::string("/subsim/") + name, true, 0});
      o.removable.push_back(std::string("/subsim/") + name);
    }
  } else {
    for (const char* part : {"u", "r"}) {
      o.datasets.push_back({std::string("/solution/") + part, false, 0});
      o.datasets.push_back({std::string("/guesses/1/") + part, false, 0});
    }
    o.datasets.push_back({"/guesses/number_of_guesses", true, 0});
    o.removable.push_back("/guesses/1");
  }
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool local = (data[0] & 1) != 0;
  static const subsim::fuzz::FileObjects all[2] = {objects(false), objects(true)};
  try {
    const std::string& base = baseFile(local);
    const std::string path = subsim::fuzz::writeInput(
        reinterpret_cast<const std::uint8_t*>(base.data()), base.size(), ".hdf5");
    FuzzedDataProvider in(data + 1, size - 1);
    subsim::fuzz::applyEdits(in, path, all[local ? 1 : 0]);
    const subsim::FclibImport imported =
        subsim::stepProblemFromFclib(subsim::readFclibFile(path), path);
    subsim::PgsSolver solver;
    subsim::SolverSettings settings;
    settings.max_iterations = 5;
    subsim::StepSolution solution;
    if (!imported.guesses.empty()) solution = imported.guesses.front();
    solver.solve(imported.problem, settings, solution);
    (void)subsim::evaluateStep(imported.problem, solution);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
