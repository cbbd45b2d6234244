#pragma once
// The scene argument of `subsim run` and `subsim bench`: a scene file or a built-in scene.
#include <memory>
#include <optional>
#include <string>

#include "subsim/io/scene_solver_section.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

namespace subsim::cli {

/// True when `scene` names a scene file (a .yaml, .yml or .json name, or an existing path)
/// rather than a built-in scene such as "granular:spheres=27".
bool looksLikeFile(const std::string& scene);

/// Throws what loadScene(scene) would for a built-in scene's spec or an HDF5 file given as a
/// scene, without building anything; a scene file is left to its reader.
void checkSceneSpec(const std::string& scene);

/// What a run asks for on top of its scene (the command line's options, the Python World's
/// arguments); unset parts fall back to the scene file's solver section, then to the defaults.
struct RunRequest {
  std::optional<std::string> solver;
  SolverOptionValues solver_options;  // applied after the scene file's (when for the same solver)
  std::optional<int> iterations;
  std::optional<double> tolerance;
  int threads = 1;
};

/// The World settings of a run: the request over the scene file's `solver` section over the
/// scene's default iterations over WorldSettings' defaults.  `note`, when given, receives a line
/// for the user when the file's solver options are dropped for another solver (empty if none).
WorldSettings worldSettingsFor(const BuiltScene& scene, const SceneSolver& from_file,
                               const RunRequest& request, std::string* note = nullptr);

/// Loads the scene file or builds the built-in scene `scene`, with its default step count (a
/// file's `steps`, or 300 when it has none) and, into `solver` when given, a file's `solver`
/// section (empty for a built-in scene).  Bad input throws, with the loader's message.
BuiltScene loadScene(const std::string& scene, SceneSolver* solver = nullptr);

/// loadScene and Model::validate, the model shared by the Worlds of a bench; on bad input prints
/// "subsim: SPEC: what" on stderr and returns false.
bool loadSharedModel(const std::string& spec, std::shared_ptr<const Model>& model,
                     int& default_steps);

}  // namespace subsim::cli
