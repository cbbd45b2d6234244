#pragma once
// Built-in scenes of the papers, parameterised by size: "granular", "granular:spheres=1000,mu=0.3".
// The same builders serve the command line, the tests, the examples and the benchmarks.
#include <map>
#include <numbers>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "subsim/model/model.hpp"

namespace subsim {

/// `d` degrees in radians (scene builders state angles in degrees, as the papers do).
constexpr double degrees(double d) {
  return d * std::numbers::pi / 180.0;
}

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
  explicit ScenarioParams(std::map<std::string, double> values, std::set<std::string> given = {})
      : values_(std::move(values)), given_(std::move(given)) {}
  double get(const std::string& name) const { return values_.at(name); }
  int getInt(const std::string& name) const { return static_cast<int>(values_.at(name)); }
  /// Whether the scene spec set `name` (rather than its default).
  bool given(const std::string& name) const { return given_.count(name) == 1; }

 private:
  std::map<std::string, double> values_;
  std::set<std::string> given_;
};

struct Scenario {
  std::string name;
  std::string description;  // one line
  std::vector<ScenarioParameter> parameters;
  int default_steps = 300;
  Model (*build)(const ScenarioParams&) = nullptr;
  /// `subsim run`'s iteration cap when --iterations is not given; 0: the solver's default.
  int default_iterations = 0;
};

struct BuiltScene {
  Model model;
  int default_steps = 0;
  int default_iterations = 0;  // 0: the solver's default
};

const std::vector<Scenario>& builtinScenarios();
/// The scenario named by the part of `spec` before ':' or null.
const Scenario* findScenario(const std::string& spec);
/// A built-in scene and its parameter values, read from a spec without building anything.
struct ScenarioRequest {
  const Scenario* scenario = nullptr;
  ScenarioParams params;
};

/// Reads "name" or "name:k=v,k=v"; ScenarioError names the unknown scene, unknown parameter
/// (listing the known ones), malformed pair, or out-of-range value.  Cheap: the command line
/// checks every scene with it before the first (possibly long) build.
ScenarioRequest parseScenarioSpec(const std::string& spec);
/// Builds the scene parseScenarioSpec(spec) reads, with the same errors.
BuiltScene buildScenario(const std::string& spec);

// The builders, one file each.
Model buildGranularScene(const ScenarioParams& p);
Model buildStirScene(const ScenarioParams& p);
Model buildMobileScene(const ScenarioParams& p);
Model buildGraspScene(const ScenarioParams& p);
Model buildQuadrupedsScene(const ScenarioParams& p);
Model buildCableScene(const ScenarioParams& p);
Model buildBeamScene(const ScenarioParams& p);

/// A static body "ground" with the plane z = 0 (friction mu); returns its index.
int addGround(Model& m, double mu);

/// The granular scenes' open box (ground, four walls) sized for n spheres, and its dimensions.
struct GranularBox {
  int layers = 0;
  double scale = 1.0;        // lattice side / 6
  double inner = 0.0;        // inner width (m)
  double wall_height = 0.0;  // m
  double lattice_top = 0.0;  // height of the top of the initial sphere lattice (m)
};
GranularBox addGranularBox(Model& m, int n, double mu);
/// n spheres (r 1 cm, 4 g) on the lattice inside the box.
void addGranularSpheres(Model& m, int n, double mu);
/// The stirring tool's lower end: a circle of radius 4 cm x scale about the box centre at 1 rev/s
/// at `tip_height`, entering from 1.4 cm above the lattice and descending at 0.1 m/s.
KinematicTrajectory stirringPath(const GranularBox& box, double tip_height);
Model buildStackScene(const ScenarioParams& p);
Model buildSphereCubeScene(const ScenarioParams& p);
Model buildInclineScene(const ScenarioParams& p);
Model buildPendulumScene(const ScenarioParams& p);
Model buildSpinnerScene(const ScenarioParams& p);
Model buildRestingSphereScene(const ScenarioParams& p);

// The COND paper's scenes, cond_scenes.cpp.
Model buildPushedBoxScene(const ScenarioParams& p);
Model buildAnisotropicBoxScene(const ScenarioParams& p);
Model buildSoftBallScene(const ScenarioParams& p);
Model buildSoftMatScene(const ScenarioParams& p);
Model buildCableWindingScene(const ScenarioParams& p);
Model buildSoftGripperScene(const ScenarioParams& p);

// The Schur-complement substructuring paper's scenes (Peiret et al., TOG 2019), schur_scenes.cpp.
Model buildChainWrapScene(const ScenarioParams& p);
Model buildChainDropScene(const ScenarioParams& p);
Model buildLogTowerScene(const ScenarioParams& p);
Model buildRockPileScene(const ScenarioParams& p);
Model buildCableSpinnerScene(const ScenarioParams& p);
Model buildNetTruckScene(const ScenarioParams& p);
Model buildCranesScene(const ScenarioParams& p);
Model buildBridgeScene(const ScenarioParams& p);

// The AL paper's scenes (canal), dish_scenes.cpp, bolt_nut_scene.cpp and pouring_scene.cpp.
Model buildDishStackScene(const ScenarioParams& p);
Model buildDishesScene(const ScenarioParams& p);
Model buildBoltNutScene(const ScenarioParams& p);
Model buildPouringScene(const ScenarioParams& p);

}  // namespace subsim
