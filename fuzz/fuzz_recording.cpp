// The HDF5 recording reader: any input is a Recording or a std::runtime_error naming the file and
// the object, never a crash.  The first byte picks the mode (fuzz/README.md):
//   odd:  raw, the other bytes are the file (refused unless sealed: HDF5 sees only sealed bytes);
//   even: values, the other bytes choose changes to a valid recording (fuzz_hdf5_edits.hpp).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "fuzz_hdf5_edits.hpp"
#include "fuzz_input.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/recorder.hpp"
#include "subsim/sim/world.hpp"

namespace {

// Boxes resting on the ground: contacts in every step.
constexpr const char* kScene = "stack:boxes=2";
constexpr std::size_t kSteps = 3;

// The valid, sealed recording every input of the values mode starts from, written once.
const std::string& baseFile() {
  static const std::string bytes = [] {
    const std::string path = subsim::fuzz::processPath("_base.h5");
    {
      subsim::World world(subsim::buildScenario(kScene).model);
      const subsim::Model& model = world.model();
      subsim::Recorder recorder(path, model, {kScene, "subadmm", model.dt, 1, 100, 1e-6});
      for (std::size_t k = 0; k < kSteps; ++k) {
        const subsim::StepReport report = world.step();
        recorder.record(world, report,
                        subsim::evaluateStep(world.lastProblem(), world.lastSolution()));
      }
    }
    return subsim::fuzz::takeFile(path);
  }();
  return bytes;
}

// Every object of docs/recording-format.md, in each step group and in one beyond the last.
const subsim::fuzz::FileObjects& objects() {
  static const subsim::fuzz::FileObjects all = [] {
    const struct {
      const char* name;
      bool integers;
      std::size_t cols;
    } datasets[] = {{"position", false, 3},        {"orientation", false, 4},
                    {"contact_point", false, 3},   {"contact_normal", false, 3},
                    {"contact_impulse", false, 3}, {"contact_gap", false, 0},
                    {"contact_bodies", true, 2}};
    subsim::fuzz::FileObjects o;
    for (const char* name :
         {"schema_version", "scene", "solver", "dt", "threads", "iterations_cap", "tolerance"})
      o.attributes.push_back({"/", name});
    // The names are strings, which the helpers can only replace by numbers.
    o.datasets.push_back({"/bodies/kind", true, 0});
    o.datasets.push_back({"/bodies/names", false, 0});
    for (const char* object : {"/bodies", "/bodies/names", "/bodies/kind", "/steps"})
      o.removable.push_back(object);
    for (std::size_t k = 0; k <= kSteps; ++k) {
      char group[32];
      std::snprintf(group, sizeof(group), "/steps/%06zu", k);
      o.removable.push_back(group);
      for (const char* name :
           {"time", "iterations", "residual", "solver_ms", "step_ms", "constraint_residual",
            "contact_fb_residual", "max_penetration", "contacts", "energy", "joint_error"})
        o.attributes.push_back({group, name});
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
    subsim::readRecording(path);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
