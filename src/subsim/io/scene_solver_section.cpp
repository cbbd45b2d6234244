// The `solver:` section of a scene file.  Its messages have the shape of the rest of the scene
// reader's (io/scene_file.cpp): "FILE: PATH: expected WHAT, got VALUE (line L, column C)".
#include "subsim/io/scene_solver_section.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "subsim/io/scene_file.hpp"
#include "subsim/io/yaml_reader.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

namespace {

using yaml::Node;

constexpr long long kMaxIterations = 100000000;  // as the command line's --iterations

bool isPlainScalar(const Node& n) {
  return n.IsScalar() && !yaml::isQuoted(n);
}

}  // namespace

SceneSolver parseSceneSolver(const Node& node, const std::string& source) {
  const yaml::Reader r(source);
  SceneSolver out;
  const yaml::Fields fields(r, node, "solver",
                            "a map {name: SOLVER, iterations: N, tolerance: T, options: {...}} "
                            "(see docs/scene-format.md)");
  fields.allowOnly({"name", "iterations", "tolerance", "options"});
  if (const Node* value = fields.get("name")) {
    const std::string what = "a solver name (known: " + solverNameList() + ")";
    if (!value->IsScalar() || findSolver(value->Scalar()) == nullptr)
      r.expected(fields.at("name"), what, *value);
    out.name = value->Scalar();
  }
  if (const Node* value = fields.get("iterations")) {
    const std::string what =
        "a whole number of iterations from 0 to " + std::to_string(kMaxIterations);
    const std::optional<long long> v =
        isPlainScalar(*value) ? option_text::parseInt(value->Scalar()) : std::nullopt;
    if (!v || *v < 0 || *v > kMaxIterations) r.expected(fields.at("iterations"), what, *value);
    out.iterations = static_cast<int>(*v);
  }
  if (const Node* value = fields.get("tolerance")) {
    const std::string what = "a residual >= 0 (0 runs exactly the iterations)";
    const std::optional<double> v =
        isPlainScalar(*value) ? option_text::parseDouble(value->Scalar()) : std::nullopt;
    if (!v || *v < 0.0) r.expected(fields.at("tolerance"), what, *value);
    out.tolerance = *v;
  }
  const Node* options = fields.get("options");
  if (options == nullptr) return out;

  if (out.name.empty())
    r.fail("solver.options", "expected solver.name beside the options: they belong to one solver",
           options);
  const SolverEntry& entry = *findSolver(out.name);
  const std::unique_ptr<Solver> solver = entry.make();
  const yaml::Fields values(
      r, *options, "solver.options",
      "a map of " + out.name + "'s options (subsim solvers " + out.name + " lists them)");
  values.forEach([&](const std::string& name, const Node& key, const Node& value) {
    const std::string path = values.at(name);
    const OptionInfo* info = nullptr;
    for (const OptionInfo& o : entry.options)
      if (o.name == name) info = &o;
    if (info == nullptr) {
      yaml::Keys names;
      for (const OptionInfo& o : entry.options) names.push_back(o.name);
      r.fail(path,
             names.empty() ? "unknown option: solver '" + out.name + "' has no options"
                           : "unknown option of solver '" + out.name +
                                 "', expected one of: " + yaml::joined(names),
             &key);
    }
    // Numbers and true/false unquoted, as everywhere in a scene; a name may be quoted.
    if (!value.IsScalar() || value.Scalar().empty() ||
        (info->type != OptionType::Enum && !isPlainScalar(value)))
      r.expected(path, info->expected, value);
    try {
      solver->setOption(info->name, value.Scalar());
    } catch (const std::invalid_argument&) {
      r.expected(path, info->expected, value);
    }
    out.options.push_back({info->name, value.Scalar()});
  });
  return out;
}

}  // namespace subsim
