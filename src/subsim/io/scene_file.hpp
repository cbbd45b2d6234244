#pragma once
// Scene files: a YAML description of a Model (settings, bodies, shapes, joints, springs, friction
// pairs, robots from URDF).  The format is specified in docs/scene-format.md; this loader is its
// reference.
#include <stdexcept>
#include <string>

#include "subsim/io/scene_solver_section.hpp"
#include "subsim/model/model.hpp"

namespace subsim {

/// Thrown for any bad scene input.  what() is "FILE: FIELD.PATH: what was expected, got ..."
/// (followed by the line and column when the input has them), e.g.
/// "scenes/x.yaml: bodies[2].mass: expected a positive number in kg, got -1 (line 9, column 11)",
/// so that a user can fix the file without reading the loader.
class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SceneFile {
  Model model;
  int steps = 0;       // 0 = the file does not say how many steps to run
  SceneSolver solver;  // the `solver` section (io/scene_solver_section.hpp); empty when absent
};

/// Reads and parses the scene file at `path`; a missing or unreadable file is a SceneError
/// naming it.
SceneFile loadSceneFile(const std::string& path);

/// Parses scene text; `source_name` names it in error messages and its stem is the default
/// model name.
SceneFile parseScene(const std::string& yaml_text, const std::string& source_name);

}  // namespace subsim
