#pragma once
// Built-in scenes of the papers, parameterised by size: "granular", "granular:spheres=1000,mu=0.3".
// The same builders serve the command line, the tests, the examples and the benchmarks.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "subsim/model/model.hpp"

namespace subsim {

class ScenarioError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct ScenarioParameter {
  std::string name;
  double default_value = 0.0;
  double min = 0.0;
  double max = 0.0;
  bool integer = false;
  std::string help;  // meaning and unit
};

/// Parameter values by name, every declared parameter present (defaults filled in).
class ScenarioParams {
 public:
  explicit ScenarioParams(std::map<std::string, double> values) : values_(std::move(values)) {}
  double get(const std::string& name) const { return values_.at(name); }
  int getInt(const std::string& name) const { return static_cast<int>(values_.at(name)); }

 private:
  std::map<std::string, double> values_;
};

struct Scenario {
  std::string name;
  std::string description;  // one line
  std::vector<ScenarioParameter> parameters;
  int default_steps = 300;
  Model (*build)(const ScenarioParams&) = nullptr;
};

struct BuiltScene {
  Model model;
  int default_steps = 0;
};

const std::vector<Scenario>& builtinScenarios();
/// The scenario named by the part of `spec` before ':' or null.
const Scenario* findScenario(const std::string& spec);
/// Builds "name" or "name:k=v,k=v"; ScenarioError names the unknown scene, unknown parameter
/// (listing the known ones), malformed pair, or out-of-range value.
BuiltScene buildScenario(const std::string& spec);

// The builders, one file each.
Model buildGranularScene(const ScenarioParams& p);
Model buildStackScene(const ScenarioParams& p);
Model buildInclineScene(const ScenarioParams& p);
Model buildPendulumScene(const ScenarioParams& p);
Model buildSpinnerScene(const ScenarioParams& p);
Model buildRestingSphereScene(const ScenarioParams& p);

}  // namespace subsim
