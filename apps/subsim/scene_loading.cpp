#include "scene_loading.hpp"

#include <filesystem>
#include <iostream>
#include <memory>
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

WorldSettings worldSettingsFor(const BuiltScene& scene, const SceneSolver& from_file,
                               const RunRequest& request, std::string* note) {
  WorldSettings ws;
  if (request.solver)
    ws.solver = *request.solver;
  else if (!from_file.name.empty())
    ws.solver = from_file.name;
  if (note != nullptr) note->clear();
  if (from_file.name == ws.solver)
    ws.solver_options = from_file.options;
  else if (!from_file.options.empty() && note != nullptr)
    *note = "the scene's solver options are " + from_file.name + "'s; " + ws.solver +
            " runs without them";
  for (const SolverOption& given : request.solver_options) ws.solver_options.push_back(given);
  if (request.iterations)
    ws.solver_settings.max_iterations = *request.iterations;
  else if (from_file.iterations)
    ws.solver_settings.max_iterations = *from_file.iterations;
  else if (scene.default_iterations > 0)
    ws.solver_settings.max_iterations = scene.default_iterations;
  if (request.tolerance)
    ws.solver_settings.tolerance = *request.tolerance;
  else if (from_file.tolerance)
    ws.solver_settings.tolerance = *from_file.tolerance;
  ws.solver_settings.threads = request.threads;
  return ws;
}

bool loadSharedModel(const std::string& spec, std::shared_ptr<const Model>& model,
                     int& default_steps) {
  try {
    BuiltScene scene = loadScene(spec);
    scene.model.validate();
    model = std::make_shared<const Model>(std::move(scene.model));
    default_steps = scene.default_steps;
    return true;
  } catch (const std::exception& e) {
    std::cerr << "subsim: " << spec << ": " << e.what() << "\n";
    return false;
  }
}

}  // namespace subsim::cli
