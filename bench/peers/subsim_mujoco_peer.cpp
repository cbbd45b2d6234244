// subsim_mujoco_peer: the granular scene and a pinned cable run in subsim and in MuJoCo with the
// same geometry, masses, friction, dt and iteration count, printed side by side (README.md).
//
//   subsim_mujoco_peer [--scene granular|cable|all] [--steps N] [--iterations N]
//                      [--mujoco-solvers pgs,cg,newton] [--cones elliptic,pyramidal]
//                      [--contacts default,stiff] [--mujoco-tolerance X] [--cable-segments N]
//                      [--cable-damping-scale X] [--subsim-solver NAME] [--print-mjcf]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "peer.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/model/cosserat_cable.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

namespace peer {

namespace {

struct Options {
  std::vector<std::string> scenes = {"granular", "cable"};
  int steps = 300;
  int iterations = 60;
  // Newton is left out by default: in MuJoCo 2.2.2 it hangs inside mj_fwdConstraint on the
  // granular scene at t = 0.84 s (README.md); --mujoco-solvers newton reproduces it.
  std::vector<std::string> solvers = {"pgs", "cg"};
  std::vector<std::string> cones = {"elliptic"};
  std::vector<std::string> contacts = {"default", "stiff"};
  /// The MuJoCo chain is nested bodies, and the XML parser of Debian's MuJoCo 2.2.2 (tinyxml2)
  /// refuses more than 100 nested elements: 96 segments is the longest chain it loads.
  int cable_segments = 96;
  /// MuJoCo's chain with subsim's damping (c = 0.01 s x k) blows up at dt = 10 ms, with or without
  /// the joint springs; 10 x that damping (c = 0.1 s x k) is stable.
  double cable_damping_scale = 10.0;
  /// MuJoCo's tolerance: 0 (run every iteration) hangs 2.2.2's Newton line search (README.md).
  double mujoco_tolerance = 1e-10;
  std::string subsim_solver = "subadmm";
  bool print_mjcf = false;
};

class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

const char* kUsage =
    "usage: subsim_mujoco_peer [--scene granular|cable|all] [--steps N] [--iterations N]\n"
    "                          [--mujoco-solvers newton,pgs,cg] [--cones elliptic,pyramidal]\n"
    "                          [--contacts default,stiff] [--mujoco-tolerance X]\n"
    "                          [--cable-segments N] [--cable-damping-scale X]\n"
    "                          [--subsim-solver NAME] [--print-mjcf]\n";

std::vector<std::string> splitList(const std::string& flag, const std::string& text,
                                   const std::vector<std::string>& allowed) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (std::find(allowed.begin(), allowed.end(), item) == allowed.end())
      throw UsageError(flag + ": unknown value '" + item + "'");
    out.push_back(item);
  }
  if (out.empty()) throw UsageError(flag + ": empty list");
  return out;
}

int positiveInt(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v <= 0 || v > 1000000)
    throw UsageError(flag + ": expected a positive integer, got '" + text + "'");
  return static_cast<int>(v);
}

Options parseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (a == "--print-mjcf") {
      o.print_mjcf = true;
      continue;
    }
    if (i + 1 >= argc) throw UsageError(a + ": unknown option or missing value");
    const std::string v = argv[++i];
    if (a == "--scene") {
      o.scenes = v == "all" ? std::vector<std::string>{"granular", "cable"}
                            : splitList(a, v, {"granular", "cable"});
    } else if (a == "--steps") {
      o.steps = positiveInt(a, v);
    } else if (a == "--iterations") {
      o.iterations = positiveInt(a, v);
    } else if (a == "--mujoco-solvers") {
      o.solvers = splitList(a, v, {"newton", "pgs", "cg"});
    } else if (a == "--cones") {
      o.cones = splitList(a, v, {"elliptic", "pyramidal"});
    } else if (a == "--contacts") {
      o.contacts = splitList(a, v, {"default", "stiff"});
    } else if (a == "--cable-segments") {
      o.cable_segments = positiveInt(a, v);
      if (o.cable_segments < 2 || o.cable_segments > 96)
        throw UsageError(a + ": 2 to 96 (MuJoCo 2.2.2 parses at most 100 nested XML elements)");
    } else if (a == "--mujoco-tolerance") {
      char* end = nullptr;
      o.mujoco_tolerance = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(o.mujoco_tolerance >= 0.0))
        throw UsageError(a + ": expected a non-negative number, got '" + v + "'");
    } else if (a == "--cable-damping-scale") {
      char* end = nullptr;
      o.cable_damping_scale = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(o.cable_damping_scale >= 0.0))
        throw UsageError(a + ": expected a non-negative number, got '" + v + "'");
    } else if (a == "--subsim-solver") {
      o.subsim_solver = v;
    } else {
      throw UsageError("unknown option '" + a + "'");
    }
  }
  return o;
}

}  // namespace

PeerScene buildPeerScene(const std::string& name, int cable_segments, double cable_damping_scale) {
  PeerScene sc;
  sc.name = name;
  if (name == "granular") {
    subsim::BuiltScene built = subsim::buildScenario("granular");
    sc.model = std::move(built.model);
    sc.steps = built.default_steps;
    return sc;
  }
  // The cable: subsim's Cosserat cable (1.2 m, r 4 mm, E 0.1 MPa, nu 0.49, 1100 kg/m^3) starting
  // straight and horizontal 0.8 m above the ground, its first end pinned to the world by a ball
  // joint.  It swings down under gravity and lands on the ground.  Both ends are not pinned: a
  // ball-joint chain is inextensible, so a straight chain pinned at both ends cannot sag at all
  // while subsim's stretches (EA = 5 N against 0.65 N of weight); the comparison would be moot.
  subsim::Model m;
  m.name = "peer_cable";
  m.dt = 0.01;
  subsim::addGround(m, 0.5);
  subsim::CosseratCableSpec spec;
  spec.segments = cable_segments;
  spec.start = subsim::Vec3(-0.6, 0.0, 0.8);
  spec.direction = subsim::Vec3::UnitX();
  const subsim::CosseratCable cable = subsim::addCosseratCable(m, spec);
  m.addJointAtWorld(subsim::JointType::Ball, cable.first_body, -1, spec.start);
  const subsim::RodCoupling coupling = subsim::cosseratCouplingFor(spec);
  sc.model = std::move(m);
  sc.chain = true;
  sc.chain_first_body = cable.first_body;
  sc.chain_segments = cable.segments;
  sc.chain_segment_length = cable.segment_length;
  // MuJoCo's ball joint has one isotropic stiffness: bending EI/L (subsim's twist GJ/L is 0.67 of
  // it); the damping is subsim's Rayleigh c = damping_time k, which MuJoCo's Euler integrator
  // treats implicitly and which keeps its explicit joint spring stable at dt = 10 ms.
  sc.chain_joint_stiffness = coupling.bend_stiffness[0];
  sc.chain_joint_damping = cable_damping_scale * coupling.bend_damping[0];
  return sc;
}

namespace {

RunFigures runSubsim(const PeerScene& sc, const Options& o) {
  subsim::WorldSettings ws;
  ws.solver = o.subsim_solver;
  ws.solver_settings.max_iterations = o.iterations;
  ws.solver_settings.tolerance = 0.0;  // every step runs all iterations
  subsim::World world(sc.model, ws);
  RunFigures f;
  f.engine = "subsim " + o.subsim_solver;
  f.iterations = std::to_string(o.iterations) + ", tol 0";
  double step_ms = 0.0, solver_ms = 0.0, fb_sum = 0.0;
  long contacts = 0, iterations = 0;
  for (int k = 0; k < sc.steps; ++k) {
    const subsim::StepReport r = world.step();
    f.max_penetration_m = std::max(f.max_penetration_m, r.max_penetration);
    if (r.diverged) {
      f.note = "diverged at step " + std::to_string(k + 1) + ": " + r.divergence;
      break;
    }
    ++f.steps_completed;
    step_ms += r.step_ms;
    solver_ms += r.solver_ms;
    contacts += r.contacts;
    iterations += r.iterations;
    const subsim::StepMetrics m = subsim::evaluateStep(world.lastProblem(), world.lastSolution());
    if (m.contacts > 0) {  // as `subsim run`: the FB figure exists only with contacts
      fb_sum += subsim::accuracyOf(m.contact_fb_residual);
      ++f.steps_with_contacts;
    }
  }
  const int n = std::max(f.steps_completed, 1);
  f.step_ms_mean = step_ms / n;
  f.solver_ms_mean = solver_ms / n;
  f.contacts_mean = static_cast<double>(contacts) / n;
  f.iterations_mean = static_cast<double>(iterations) / n;
  f.accuracy_fb_mean = f.steps_with_contacts > 0 ? fb_sum / f.steps_with_contacts : 0.0;
  return f;
}

void printTable(const PeerScene& sc, const std::vector<RunFigures>& rows) {
  std::printf("\n### %s (%d steps, dt %.3g s)\n\n", sc.name.c_str(), sc.steps, sc.model.dt);
  std::printf(
      "| engine / solver | iterations | iter. mean | contacts mean | step ms mean | solver ms "
      "mean | max penetration mm | accuracy FB mean | note |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const RunFigures& f : rows) {
    std::printf("| %s | %s | %.1f | %.0f | %.3f | %.3f | %.3f | %.2f | %s |\n", f.engine.c_str(),
                f.iterations.c_str(), f.iterations_mean, f.contacts_mean, f.step_ms_mean,
                f.solver_ms_mean, f.max_penetration_m * 1e3, f.accuracy_fb_mean, f.note.c_str());
  }
  std::fflush(stdout);
}

int run(const Options& o) {
  std::printf("MuJoCo %s; subsim solver %s; %d iterations per step\n", mujocoVersion().c_str(),
              o.subsim_solver.c_str(), o.iterations);
  for (const std::string& name : o.scenes) {
    PeerScene sc = buildPeerScene(name, o.cable_segments, o.cable_damping_scale);
    sc.steps = o.steps;
    if (o.print_mjcf) {
      std::cout << mujocoXml(
          sc, MujocoConfig{o.solvers[0], o.cones[0], o.contacts[0], o.iterations, 0.0});
      continue;
    }
    std::vector<RunFigures> rows;
    rows.push_back(runSubsim(sc, o));
    for (const std::string& solver : o.solvers)
      for (const std::string& cone : o.cones)
        for (const std::string& contact : o.contacts)
          rows.push_back(
              runMujoco(sc, MujocoConfig{solver, cone, contact, o.iterations, o.mujoco_tolerance}));
    printTable(sc, rows);
  }
  return 0;
}

}  // namespace

}  // namespace peer

int main(int argc, char** argv) {
  peer::Options options;
  try {
    options = peer::parseOptions(argc, argv);
  } catch (const peer::UsageError& e) {
    std::cerr << "subsim_mujoco_peer: " << e.what() << "\n" << peer::kUsage;
    return 2;
  }
  try {
    return peer::run(options);
  } catch (const std::exception& e) {
    std::cerr << "subsim_mujoco_peer: " << e.what() << "\n";
    return 1;
  }
}
