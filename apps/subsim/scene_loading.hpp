#pragma once
// The scene argument of `subsim run` and `subsim bench`: a scene file or a built-in scene.
#include <string>

#include "subsim/io/scene_solver_section.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim::cli {

/// True when `scene` names a scene file (a .yaml, .yml or .json name, or an existing path)
/// rather than a built-in scene such as "granular:spheres=27".
bool looksLikeFile(const std::string& scene);

/// Throws what loadScene(scene) would for a built-in scene's spec or an HDF5 file given as a
/// scene, without building anything; a scene file is left to its reader.
void checkSceneSpec(const std::string& scene);

/// Loads the scene file or builds the built-in scene `scene`, with its default step count (a
/// file's `steps`, or 300 when it has none) and, into `solver` when given, a file's `solver`
/// section (empty for a built-in scene).  Bad input throws, with the loader's message.
BuiltScene loadScene(const std::string& scene, SceneSolver* solver = nullptr);

}  // namespace subsim::cli
