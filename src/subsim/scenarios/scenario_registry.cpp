#include <cmath>
#include <set>
#include <sstream>
#include <utility>

#include "subsim/scenarios/scenario.hpp"

namespace subsim {

const std::vector<Scenario>& builtinScenarios() {
  static const std::vector<Scenario> scenarios = {
      {"granular",
       "spheres (r 1 cm, 4 g) in an open box stirred by a driven rod on a circle (ICRA stir "
       "scene without the robot)",
       {{"spheres", 216, 1, 1e6, true, "number of spheres; the box and lattice scale with it"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"},
        {"drive_stiffness", 300, 0, 1e9, false,
         "stiffness of the rod's drive in N/m (the same at the tip in rotation); 0: a kinematic "
         "rod"}},
       300,
       buildGranularScene},
      {"stir",
       "a Franka Panda stirs the granular scene's spheres with a rod on its flange (ICRA stir "
       "scene)",
       {{"spheres", 216, 1, 1e5, true, "number of spheres; the box and lattice scale with it"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"},
        {"duration", 3.0, 0.02, 600, false,
         "length of the planned stirring motion in s (the arm holds its last target after it)"}},
       300,
       buildStirScene},
      {"quadrupeds",
       "Laikago-like 18-DOF quadrupeds (box trunk, capsule legs, sphere feet) dropped on the "
       "floor, legs held by joint PD toward a standing pose (AL paper, Table III)",
       {{"robots", 8, 1, 10000, true, "number of quadrupeds (one subsystem each)"},
        {"mu", 0.8, 0, 10, false, "friction coefficient"},
        {"height", 0.1, 0, 10, false, "initial height of the lowest foot above the floor in m"},
        {"spacing", 1.0, 0.6, 100, false, "distance between neighbouring robots on the grid in m"}},
       200,
       buildQuadrupedsScene},
      {"grasp",
       "a Franka Panda with the Franka Hand picks a cube up from the floor along joint angles "
       "interpolated between IK poses (the RPI simulator paper's grasp example)",
       {{"mu", 0.8, 0, 10, false, "friction coefficient"},
        {"size", 0.05, 0.02, 0.07, false, "the cube's edge in m (the fingers open to 8 cm)"},
        {"mass", 0.1, 0.001, 1.5, false, "the cube's mass in kg (the fingers squeeze with 20 N)"},
        {"distance", 0.5, 0.3, 0.7, false, "the cube's distance from the Panda's base in m"}},
       400,
       buildGraspScene},
      {"mobile",
       "a 10-DOF mobile manipulator (no-slip wheeled base + Panda) drives to a table and reaches "
       "above a box",
       {{"distance", 0.6, 0, 5, false, "distance driven in m"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"}},
       500,
       buildMobileScene},
      {"cable",
       "two 10-DOF mobile manipulators carry a 1.2 m Cosserat cable (E = 0.1 MPa, 4 segments "
       "per subsystem; ICRA cable scene)",
       {{"segments", 640, 4, 100000, true, "number of cable segments"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"},
        // Above 0.82 m the arms cannot raise the ends the further 0.1 m the plan asks for.
        {"height", 0.8, 0.3, 0.8, false, "height of the cable's ends at the start in m"},
        {"grip_stiffness", 1000, 1e-3, 1e9, false,
         "stiffness of the grippers' hold on the cable ends in N/m (1e-3 of it in N m/rad)"},
        {"per_subsystem", 4, 1, 64, true,
         "cable segments per SubADMM subsystem (one dense block of 6 x this many DOF)"}},
       300,
       buildCableScene},
      {"beam",
       "a Franka Panda pushes a corotational FEM beam (0.05 x 0.05 x 0.5 m, E = 10 MPa, nu = "
       "0.45) through a narrow gap between two blocks (ICRA beam scene, 20 pieces; "
       "docs/deformables.md)",
       {{"pieces", 20, 1, 10000, true, "subsystems the beam is cut into"},
        {"cells", 42, 1, 1000, true,
         "mesh cells along the beam (6 tets each; 42 with 5 across: 1548 nodes, 6300 tets)"},
        {"across", 5, 1, 50, true, "mesh cells across the beam, in each direction"},
        {"mu", 0.3, 0, 10, false, "friction coefficient"},
        {"lead_in", 5, 0, 30, false, "angle of the blocks' funnel in degrees"}},
       300,
       buildBeamScene},
      {"stack",
       "a column of boxes (10 cm, 1 kg) resting on the ground",
       {{"boxes", 10, 1, 1000, true, "number of boxes"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"}},
       1000,
       buildStackScene},
      {"spherecube",
       "spheres stacked in a cube, side x side columns of side spheres in a box (the RPI "
       "simulator paper's 125 spheres: its solver study)",
       {{"side", 5, 1, 50, true, "spheres along each edge of the cube"},
        {"radius", 0.05, 1e-3, 10, false, "sphere radius in m (water's density)"},
        {"gap", 0.002, 0, 1, false, "gap between neighbouring columns in m"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"}},
       400,
       buildSphereCubeScene},
      {"pushedbox",
       "a 0.2 m, 0.5 kg cube on the floor pushed along y by a constant force (the COND paper's "
       "virtual-node test; analytic y = (F / m - mu g) t^2 / 2)",
       {{"force", 2, 0, 1e3, false, "push along y in N"},
        {"mu", 0.2, 0, 10, false, "friction coefficient"}},
       100,
       buildPushedBoxScene},
      {"anisobox",
       "a 0.2 m, 0.5 kg box launched on a floor with anisotropic friction, mu1 along x and mu2 "
       "along y (the COND paper's elliptic-cone test; solvers with the strict operator: cond, "
       "subadmm, fadmm)",
       {{"mu1", 0.2, 0, 10, false, "friction coefficient along x"},
        {"mu2", 0.6, 0, 10, false, "friction coefficient along y"},
        {"vx", 1, -100, 100, false, "initial velocity along x in m/s"},
        {"vy", 1, -100, 100, false, "initial velocity along y in m/s"}},
       100,
       buildAnisotropicBoxScene},
      {"softball",
       "a soft FEM ball (r 4 cm) on the floor squeezed by two kinematic finger pads, then lifted "
       "by them (the COND paper's soft-ball gripping scene)",
       {{"cells", 10, 2, 40, true,
         "mesh cells along the ball's diameter (10: 1331 nodes, 6000 tets)"},
        {"young", 1, 0.01, 1000, false, "Young's modulus in MPa (the paper: 0.5-2)"},
        {"pieces", 1, 1, 1000, true, "subsystems the ball is cut into"},
        {"speed", 0.01, 0, 1, false, "closing speed of each finger in m/s"},
        {"squeeze", 0.3, 0, 100, false, "time the fingers close, in s; then they lift"},
        {"lift", 0.02, 0, 1, false, "lifting speed of the fingers after the squeeze in m/s"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"}},
       100,
       buildSoftBallScene},
      {"softmat",
       "a Panda folds a soft FEM mat (0.3 x 0.3 x 0.01 m) in half: it lifts one edge over the "
       "middle and lays it on the other half, which it then touches (self contact; the COND "
       "paper's soft-mat scene)",
       {{"cells", 26, 2, 200, true,
         "mesh cells along each side (26: 1458 nodes, 4056 tets; the paper's 1477, 4100)"},
        {"layers", 1, 1, 20, true, "mesh cells through the thickness"},
        {"young", 75, 1, 1e6, false, "Young's modulus in kPa (the paper: 50-100)"},
        {"pieces", 1, 1, 1000, true, "subsystems the mat is cut into"},
        {"duration", 3, 0.1, 100, false, "time the fold takes, in s"},
        {"mu", 0.5, 0, 10, false, "friction coefficient (the paper: 0.1-0.5)"}},
       400,
       buildSoftMatScene},
      {"cablewind",
       "a Panda winds a 0.6 m Cosserat cable (E 2.954 MPa, nu 0.49, 1 cm thick), its far end "
       "welded to the floor, around a 3 cm post (the COND paper's cable winding scene)",
       {{"segments", 320, 4, 100000, true,
         "number of cable segments (the paper: 320; 120 in its Table VIII)"},
        {"young", 2.954, 0.01, 1e4, false, "Young's modulus in MPa"},
        {"mu", 1.3, 0, 10, false, "friction coefficient"},
        {"turns", 0.5, 0, 1.5, false, "turns the held end goes around the post"},
        {"rise", 0.03, 0, 0.2, false, "height the held end gains while winding, in m"},
        {"duration", 3, 0.6, 100, false, "time the winding takes (after a 0.5 s lift), in s"},
        {"per_subsystem", 4, 0, 100000, true,
         "consecutive segments per subsystem (0: each its own)"},
        {"grip_stiffness", 1000, 1e-3, 1e9, false,
         "stiffness of the rod's hold on the cable's end in N/m (1e-3 of it in N m/rad)"}},
       350,
       buildCableWindingScene,
       // SubADMM diverges on the stiff 320-link chain at 60 iterations (step 43).
       200},
      {"softgripper",
       "two soft FEM fingers (E 83 kPa, 4340 nodes, one subsystem) on kinematic jaws grip a rigid "
       "4 cm cube and lift it (the COND paper's soft-gripper scene)",
       {{"cells", 30, 2, 200, true,
         "mesh cells along each finger (30: 2 x 2170 nodes, 2 x 9720 tets; the paper's 4889, "
         "18122)"},
        {"young", 83, 1, 1e6, false, "Young's modulus in kPa (the paper: Ecoflex 00-50, 83)"},
        {"pieces", 1, 1, 1000, true, "subsystems the fingers are cut into"},
        {"speed", 0.01, 0, 1, false, "closing speed of each jaw in m/s"},
        {"squeeze", 0.25, 0, 10, false, "time the jaws close, in s; then they lift"},
        {"lift", 0.02, 0, 1, false, "lifting speed of the jaws after the squeeze in m/s"},
        {"mu", 2.1, 0, 10, false, "friction coefficient (the paper: 2.1, measured)"}},
       100,
       buildSoftGripperScene},
      {"incline",
       "a squat box (0.2 x 0.2 x 0.05 m, 1 kg) on a plane inclined by `angle`",
       {{"angle", 20, 0, 89, false, "inclination in degrees"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"}},
       200,
       buildInclineScene},
      {"pendulum",
       "a chain of capsule links on ball joints hanging from a world pivot, released from an angle",
       {{"links", 5, 1, 1000, true, "number of links"},
        {"length", 0.1, 1e-3, 100, false, "link length in m"},
        {"angle", 30, -180, 180, false, "initial angle from the vertical in degrees"},
        {"load", 0, 0, 1e6, false,
         "mass of a steel sphere hung from the last link, in link masses (0: none)"}},
       500,
       buildPendulumScene},
      {"spinner",
       "a torque-free asymmetric box spinning about its intermediate axis (no gravity)",
       {{"omega", 5, 0, 1000, false, "initial spin rate in rad/s"}},
       1000,
       buildSpinnerScene},
      {"sphere",
       "a single sphere resting on the ground",
       {{"radius", 0.05, 1e-4, 100, false, "sphere radius in m"}},
       1000,
       buildRestingSphereScene},
      // The Schur-complement substructuring paper's scenes (schur_scenes.cpp; dt = 1/60 s).
      {"chainwrap",
       "a chain of 0.25 kg links on ball joints wound around a static bar, holding a 500 kg box "
       "swinging at its free end (schur paper, chain wrap)",
       {{"links", 100, 2, 5000, true, "number of chain links (0.25 kg, 10 cm)"},
        {"load", 500, 0, 1e6, false, "mass of the box at the free end in kg (0: none)"},
        {"wraps", 1.25, 0, 5, false, "turns of chain wound around the bar"},
        {"swing", 1.0, 0, 10, false, "initial speed of the box in m/s (the hanging part swings)"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"}},
       400,
       buildChainWrapScene},
      {"chaindrop",
       "a chain of 0.25 kg links on ball joints dropped onto a ramp it slowly slides off (schur "
       "paper, chain drop)",
       {{"links", 250, 2, 10000, true, "number of chain links (0.25 kg, 10 cm)"},
        {"angle", 20, 0, 60, false, "inclination of the ramp in degrees"},
        {"mu", 0.35, 0, 10, false, "friction coefficient (below tan(angle): the chain slides)"},
        {"row_links", 25, 1, 1000, true, "links per row of the serpentine the chain starts in"},
        {"height", 0.05, 0, 10, false, "drop height above the ramp in m"}},
       600,
       buildChainDropScene},
      {"logtower",
       "50 kg logs stacked log-cabin style under a 2500 kg box, knocked down by a rolling 2000 "
       "kg ball (schur paper, log tower)",
       {{"logs", 160, 2, 100000, true, "number of logs (a multiple of per_layer)"},
        {"per_layer", 4, 2, 20, true, "parallel logs in each layer"},
        {"round", 1, 0, 1, true, "1: round logs (capsules), 0: square logs (boxes)"},
        {"top_mass", 2500, 0, 1e6, false, "mass of the box on top in kg (0: none)"},
        {"ball_mass", 2000, 1, 1e7, false, "mass of the rolling ball in kg"},
        {"ball_speed", 3, 0, 20, false, "speed of the rolling ball in m/s"},
        {"impact_time", 1.5, 0.05, 100, false, "time at which the ball reaches the tower in s"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"}},
       300,
       buildLogTowerScene},
      {"rockpile",
       "a pile of 80-250 kg box rocks pushed by a 1 kg shovel on a driven weld (schur paper, "
       "rock pile)",
       {{"rocks", 100, 1, 100000, true, "number of rocks"},
        {"seed", 1, 0, 1e9, true, "seed of the rocks' sizes and orientations"},
        {"shovel_speed", 0.5, 0, 10, false, "speed of the shovel's drive in m/s"},
        {"drive_stiffness", 1e6, 0, 1e12, false,
         "stiffness of the shovel's weld to its drive in N/m (N m/rad likewise); 0: a hard weld"},
        {"mu", 0.6, 0, 10, false, "friction coefficient"}},
       400,
       buildRockPileScene},
      {"cablespinner",
       "cables of 0.1 kg links on ball joints between a spun 10 kg plate and a 2500 kg ball "
       "(schur paper, cable spinner)",
       {{"cables", 8, 1, 64, true, "number of cables"},
        {"links", 40, 2, 1000, true, "links per cable (0.1 kg, 7.5 cm)"},
        {"spin", 0.5, 0, 10, false, "the plate's drive rate in rev/s"},
        {"ball_mass", 2500, 1, 1e6, false, "mass of the ball in kg"},
        {"mu", 0.3, 0, 10, false, "friction coefficient"}},
       400,
       buildCableSpinnerScene},
      {"nettruck",
       "an 8000 kg truck of 22 bodies dropped onto a net of 0.2 kg cable links (mass ratio "
       "40000:1; schur paper, net with truck)",
       {{"cells", 10, 1, 100, true, "net cells along each side of the 10 m square"},
        {"segments", 2, 1, 20, true, "links per cell edge"},
        {"height", 0.5, 0, 20, false, "drop height above the net in m"},
        {"sag", 1.0, 0.05, 4, false, "depth of the net's centre below its fixed rim in m"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"}},
       300,
       buildNetTruckScene},
      {"cranes",
       "two 75000 kg cranes holding a swinging 3500 kg pipe on two cables of links (schur paper, "
       "tandem cranes)",
       {{"cable_links", 40, 2, 1000, true, "links per cable (1 kg)"},
        {"swing", 1.0, 0, 10, false, "initial sideways speed of the pipe in m/s"},
        {"mu", 0.6, 0, 10, false, "friction coefficient"}},
       400,
       buildCranesScene},
      {"bridge",
       "a suspension bridge of hinged planks hung from two main cables by hangers, only "
       "bilateral constraints (schur paper, scaling scene)",
       {{"planks", 128, 2, 100000, true, "number of planks (0.5 m each)"},
        {"hanger_links", 2, 1, 20, true, "links per hanger"},
        {"mu", 0.5, 0, 10, false, "friction coefficient"}},
       300,
       buildBridgeScene},
      {"dishstack",
       "bowl, bowl, plate and a pot stacked on the floor, revolved signed distance shapes with "
       "Frank-Wolfe contact (AL paper's dish piling, single-step configuration, dt 1/240 s)",
       {{"mu", 0.5, 0, 10, false, "friction coefficient"},
        {"dish_mass", 0.1, 1e-3, 100, false, "mass of each bowl and the plate in kg"},
        {"pot_mass", 5, 1e-3, 1000, false, "mass of the pot on top in kg"},
        {"segments", 48, 8, 512, true, "triangles around each dish's axis"},
        {"pieces", 4, 1, 4, true, "how much of the stack: bowl, bowl, plate, pot, bottom up"}},
       1200,
       buildDishStackScene},
      {"dishes",
       "the Panda with the Franka Hand (allegro=1: the 16-DOF Allegro hand) picks a bowl up by "
       "its rim and places it into another (AL paper's dish piling, dt 1/240 s)",
       {{"mu", 0.5, 0, 10, false, "friction coefficient"},
        {"dish_mass", 0.1, 1e-3, 1, false, "mass of each bowl in kg"},
        {"segments", 96, 8, 512, true, "triangles around each dish's axis"},
        {"allegro", 0, 0, 1, true,
         "1: the 16-DOF Allegro hand holds the bowl by its rim (fingers out, thumb in) in place "
         "of the Franka Hand"},
        {"pile", 0, 0, 1, true,
         "1: the lower bowl stands on a plate on a pot (the paper's four dishes) instead of the "
         "floor"},
        {"pot_mass", 5, 1e-3, 1000, false, "mass of the pot in kg (with pile=1)"}},
       1920,
       buildDishesScene},
      {"boltnut",
       "the Panda threads an M48 nut down an upright M48 bolt under joint impedance (robot=0: "
       "the nut alone, screwed by a constant torque), ISO thread signed distance shapes with "
       "Frank-Wolfe contact (AL paper's bolt-nut assembly, dt 1/240 s)",
       {{"robot", 1, 0, 1, true,
         "1: the Panda holds the nut in its hand and threads it; 0: the nut alone under a torque"},
        {"duration", 1, 0.1, 600, false,
         "robot=1: time the Panda takes to turn the nut its 0.875 turn (4.4 mm down) in s"},
        {"press", 0.002, 0, 0.02, false,
         "robot=1: how far below the thread's helix the hand's path runs in m (its impedance "
         "then presses the nut's flanks onto the bolt's)"},
        {"weld", 0, 0, 1, true,
         "robot=1: 0: the nut is a link of the Panda's hand; 1: a free body held to the hand by "
         "a weld joint (bilateral rows, its own subsystem)"},
        {"torque", -0.05, -10, 10, false,
         "robot=0: torque on the nut about the bolt's axis in N m (negative screws it down)"},
        {"mu", 0.1, 0, 10, false, "friction coefficient"},
        {"nut_mass", 0.75, 1e-3, 100, false, "mass of the nut in kg"},
        {"clearance", 1e-4, 1e-5, 1e-3, false,
         "radial clearance of each thread against the basic profile in m"},
        {"segments", 96, 16, 512, true, "surface columns per turn of each thread"}},
       240,
       buildBoltNutScene},
      {"pouring",
       "two Pandas with hands, each holding a bottle: one tilts its bottle and pours particles "
       "(r 5 mm, 10 g/cm^3) into the other's (AL paper's pouring, its dual-arm G1 replaced, "
       "dt 1/240 s)",
       {{"particles", 27, 1, 130, true, "particles in the source bottle (the paper: 9 to 45)"},
        {"density", 10, 0.01, 1000, false, "the particles' density in g/cm^3"},
        {"mu", 0.3, 0, 10, false, "friction coefficient"},
        {"tilt", 120, 0, 160, false, "how far the source bottle tilts, in degrees"},
        {"duration", 2, 0.1, 600, false, "time the tilt takes in s (after 0.5 s of settling)"},
        {"bottle_mass", 0.2, 1e-3, 100, false, "mass of each bottle in kg"},
        {"segments", 48, 8, 512, true, "triangles around each bottle's axis"}},
       840,
       buildPouringScene},
  };
  return scenarios;
}

const Scenario* findScenario(const std::string& spec) {
  const std::string name = spec.substr(0, spec.find(':'));
  for (const Scenario& s : builtinScenarios())
    if (s.name == name) return &s;
  return nullptr;
}

ScenarioRequest parseScenarioSpec(const std::string& spec) {
  const Scenario* scenario = findScenario(spec);
  if (scenario == nullptr) {
    std::string known;
    for (const Scenario& s : builtinScenarios()) known += (known.empty() ? "" : ", ") + s.name;
    throw ScenarioError("unknown scene '" + spec.substr(0, spec.find(':')) +
                        "' (built-in scenes: " + known + "; or give a scene file path)");
  }
  std::map<std::string, double> values;
  for (const ScenarioParameter& p : scenario->parameters) values[p.name] = p.default_value;
  std::set<std::string> given;
  const size_t colon = spec.find(':');
  if (colon != std::string::npos) {
    std::stringstream list(spec.substr(colon + 1));
    std::string item;
    while (std::getline(list, item, ',')) {
      const size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw ScenarioError("scene '" + spec + "': expected name=value, got '" + item + "'");
      const std::string key = item.substr(0, eq), text = item.substr(eq + 1);
      const ScenarioParameter* param = nullptr;
      for (const ScenarioParameter& p : scenario->parameters)
        if (p.name == key) param = &p;
      if (param == nullptr) {
        std::string known;
        for (const ScenarioParameter& p : scenario->parameters)
          known += (known.empty() ? "" : ", ") + p.name;
        throw ScenarioError("scene '" + scenario->name + "': unknown parameter '" + key +
                            "' (parameters: " + known + ")");
      }
      // The last value silently winning would hide a typo in a long list.
      if (!given.insert(key).second)
        throw ScenarioError("scene '" + scenario->name + "': parameter " + key +
                            ": expected each parameter at most once, got it twice");
      size_t used = 0;
      double value = 0.0;
      try {
        value = std::stod(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != text.size() || !std::isfinite(value))
        throw ScenarioError("scene '" + scenario->name + "': parameter " + key +
                            ": expected a finite number, got '" + text + "'");
      if (param->integer && value != std::floor(value))
        throw ScenarioError("scene '" + scenario->name + "': parameter " + key +
                            ": expected an integer, got '" + text + "'");
      if (value < param->min || value > param->max) {
        std::ostringstream msg;
        msg << "scene '" << scenario->name << "': parameter " << key << ": expected a value in ["
            << param->min << ", " << param->max << "], got " << text;
        throw ScenarioError(msg.str());
      }
      values[key] = value;
    }
  }
  return ScenarioRequest{scenario, ScenarioParams(std::move(values), std::move(given))};
}

BuiltScene buildScenario(const std::string& spec) {
  const ScenarioRequest request = parseScenarioSpec(spec);
  BuiltScene scene{request.scenario->build(request.params), request.scenario->default_steps,
                   request.scenario->default_iterations};
  scene.model.name = spec;
  return scene;
}

}  // namespace subsim
