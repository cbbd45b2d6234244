#include "scene_loading.hpp"

#include <filesystem>
#include <utility>

#include "subsim/io/scene_file.hpp"

namespace subsim::cli {

bool looksLikeFile(const std::string& scene) {
  const std::filesystem::path p(scene);
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json" || std::filesystem::exists(p);
}

void checkSceneSpec(const std::string& scene) {
  // Read as YAML, an HDF5 file would give a baffling syntax error.
  if (std::filesystem::path(scene).extension() == ".h5")
    throw SceneError(scene +
                     ": expected a scene (a .yaml file or a built-in scene), got an HDF5 file: "
                     "subsim bench solves a problem file with --problems; a recording is read "
                     "with readRecording()");
  if (!looksLikeFile(scene)) parseScenarioSpec(scene);
}

BuiltScene loadScene(const std::string& scene, SceneSolver* solver) {
  checkSceneSpec(scene);
  if (!looksLikeFile(scene)) return buildScenario(scene);
  SceneFile file = loadSceneFile(scene);
  if (solver != nullptr) *solver = std::move(file.solver);
  BuiltScene loaded;
  loaded.model = std::move(file.model);
  loaded.default_steps = file.steps > 0 ? file.steps : 300;
  return loaded;
}

}  // namespace subsim::cli
