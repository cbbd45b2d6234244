#pragma once
// The optional top-level `solver:` section of a scene file (docs/scene-format.md, "Solver"):
// the solver that runs the scene, its iteration cap and tolerance, and its own options, e.g.
//   solver: {name: subadmm, iterations: 60, tolerance: 1e-6, options: {relaxation: 1.5}}
// Each option is checked against the named solver's (solvers/solver_options.hpp) when the file
// is read, so that a typo is reported with the file, the field and the line.  The command line
// overrides what the section gives (README.md, "The command line").
#include <optional>
#include <string>

#include "subsim/solvers/solver_options.hpp"

namespace YAML {
class Node;
}

namespace subsim {

struct SceneSolver {
  std::string name;  // empty: the section names none (the command line's or the default solver)
  std::optional<int> iterations;
  std::optional<double> tolerance;
  SolverOptionValues options;  // options of `name`, checked, in the order written
};

/// Reads the `solver` section `node` of the scene `source`; SceneError as the rest of the scene
/// ("FILE: solver.options.relaxation: expected a number in (0, 2), got 2.5 (line 3, column 30)").
SceneSolver parseSceneSolver(const YAML::Node& node, const std::string& source);

}  // namespace subsim
