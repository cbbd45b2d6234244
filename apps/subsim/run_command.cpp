#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "commands.hpp"
#include "interrupt.hpp"
#include "live_view.hpp"
#include "option_checks.hpp"
#include "scene_loading.hpp"
#include "subsim/math/fnv1a_hash.hpp"
#include "subsim/math/median.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/recorder.hpp"
#include "subsim/sim/recording_capture.hpp"
#include "subsim/sim/thread_governor.hpp"
#include "subsim/sim/world.hpp"

namespace subsim::cli {

namespace {

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
class ProgressBar {
 public:
  explicit ProgressBar(int total) : total_(total), enabled_(isatty(STDERR_FILENO) != 0) {}
  void update(int done) {
    if (!enabled_ || total_ <= 0) return;
    const int width = 40, filled = width * done / total_;
    if (filled == last_ && done != total_) return;
    last_ = filled;
    std::cerr << "\r[" << std::string(filled, '#') << std::string(width - filled, ' ') << "] "
              << done << "/" << total_ << std::flush;
    if (done == total_) std::cerr << "\n";
  }

 private:
  int total_;
  bool enabled_;
  int last_ = -1;
};

struct RunFigures {
  int steps_completed = 0;
  long iterations_sum = 0;
  long contacts_sum = 0;
  DoubleBuffer solver_ms, step_ms;
  double solver_setup_ms_sum = 0.0, collision_ms_sum = 0.0, assembly_ms_sum = 0.0;
  double accuracy_sum = 0.0, accuracy_fb_sum = 0.0, natural_map_sum = 0.0;
  int steps_with_constraints = 0, steps_with_contacts = 0;
  double bilateral_max = 0.0, dynamics_max = 0.0, penetration_max = 0.0;
  bool diverged = false, interrupted = false;
  std::string divergence;
  std::array<int, kSolveStatusCount> solve_status{};  // completed steps' solves, per status
};

double mean(const DoubleBuffer& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}

}  // namespace

int runSimulation(const RunOptions& o) {
  checkRunOptions(o);  // OptionError reaches main
  BuiltScene scene;
  SceneSolver from_file;  // a scene file's `solver` section
  try {
    scene = loadScene(o.scene, &from_file);
  } catch (const std::exception& e) {
    std::cerr << "subsim: " << e.what() << "\n";
    return kExitBadInput;
  }
  Model& model = scene.model;
  int steps = scene.default_steps;
  if (o.dt) model.dt = *o.dt;
  if (o.steps) steps = *o.steps;

  // The command line over the scene file's solver section over the defaults.
  RunRequest request;
  request.solver = o.solver;
  request.iterations = o.iterations;
  request.tolerance = o.tolerance;
  request.threads = o.threads;
  std::string note;
  WorldSettings ws = worldSettingsFor(scene, from_file, request, &note);
  if (!note.empty()) std::cerr << "subsim: note: " << note << "\n";
  const std::string& solver = ws.solver;
  for (SolverOption& given : runSolverOptions(o, solver))  // OptionError reaches main
    ws.solver_options.push_back(std::move(given));
  std::unique_ptr<World> world;
  try {
    world = std::make_unique<World>(std::move(model), ws);
  } catch (const std::exception& e) {
    std::cerr << "subsim: " << o.scene << ": " << e.what() << "\n";
    return kExitBadInput;
  }

  // --view records too: to --record's file, else the page's name with .h5.
  const std::string record_path =
      o.record.empty() && !o.view.empty()
          ? std::filesystem::path(o.view).replace_extension(".h5").string()
          : o.record;
  const RecordingInfo info{o.scene,
                           solver,
                           world->model().dt,
                           o.threads,
                           ws.solver_settings.max_iterations,
                           ws.solver_settings.tolerance};
  std::unique_ptr<Recorder> recorder;
  if (!record_path.empty()) {
    try {
      recorder = std::make_unique<Recorder>(record_path, world->model(), info);
    } catch (const std::exception& e) {
      std::cerr << "subsim: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  std::unique_ptr<LiveView> live;
  RecordedStep captured;  // a step for the recording and the live view, taken once
  if (o.serve) {
    try {
      live = std::make_unique<LiveView>(recordingHeader(world->model(), info),
                                        o.port.value_or(kDefaultServePort));
    } catch (const std::exception& e) {
      std::cerr << "subsim: --serve: " << e.what() << "\n";
      return kExitBadInput;
    }
    std::cerr << "subsim: watch the run at " << live->url() << " (Ctrl-C ends it)" << std::endl;
  }
  const InterruptGuard interrupt;

  RunFigures f;
  f.solver_ms.reserve(steps);
  f.step_ms.reserve(steps);
  ProgressBar progress(steps);
  // Threads chosen at run time (sim/thread_governor.hpp); results do not depend on them.
  const bool governed = o.threads > 1 && !o.fixed_threads;
  ThreadGovernor governor(governed ? o.threads : 1);
  for (int k = 0; k < steps; ++k) {
    if (interrupt.interrupted()) {
      f.interrupted = true;
      break;
    }
    if (governed) world->solverSettings().threads = governor.threads();
    const StepReport r = world->step();
    governor.record(r.solver_ms);
    f.penetration_max = std::max(f.penetration_max, r.max_penetration);
    if (r.diverged) {
      f.diverged = true;
      f.divergence = r.divergence;
      break;
    }
    const StepMetrics m = evaluateStep(world->lastProblem(), world->lastSolution());
    if (recorder || live) captureStep(*world, r, m, captured);
    if (recorder) recorder->record(captured);
    if (live) live->append(captured);
    ++f.steps_completed;
    ++f.solve_status[static_cast<int>(r.solve_status)];
    f.iterations_sum += r.iterations;
    f.contacts_sum += r.contacts;
    f.solver_ms.push_back(r.solver_ms);
    f.solver_setup_ms_sum += r.solver_setup_ms;
    f.collision_ms_sum += r.collision_ms;
    f.assembly_ms_sum += r.assembly_ms;
    f.step_ms.push_back(r.step_ms);
    // As in bench: a step without constraints has nothing to judge (accuracyOf would report a
    // perfect 16), and the Fischer-Burmeister figure only exists with contacts.
    if (m.constraints > 0) {
      ++f.steps_with_constraints;
      f.accuracy_sum += accuracyOf(m.constraint_residual);
    }
    if (m.contacts > 0) {
      ++f.steps_with_contacts;
      f.accuracy_fb_sum += accuracyOf(m.contact_fb_residual);
      f.natural_map_sum += m.contact_natural_map_error;
    }
    f.bilateral_max = std::max(f.bilateral_max, m.bilateral_residual);
    f.dynamics_max = std::max(f.dynamics_max, m.dynamics_residual);
    progress.update(k + 1);
  }
  recorder.reset();
  if (live) live->finish();

  const int n = std::max(f.steps_completed, 1);
  nlohmann::json j;
  j["schema_version"] = 1;
  j["scene"] = o.scene;
  j["solver"] = solver;
  // The options set by the scene file and the command line, in effect (later ones win).
  j["solver_options"] = nlohmann::json::object();
  for (const SolverOption& so : ws.solver_options) j["solver_options"][so.name] = so.value;
  j["threads"] = o.threads;
  // The steps whose solve ran on 1 thread when --threads gave more (the governor's choice).
  j["steps_on_one_thread"] = governed ? governor.stepsAtOne() : 0;
  j["iterations_cap"] = ws.solver_settings.max_iterations;
  j["iterations_mean"] = static_cast<double>(f.iterations_sum) / n;
  j["tolerance"] = ws.solver_settings.tolerance;
  j["residual_name"] = world->lastSolution().stats.residual_name;
  // Every status named, so that a reader need not know which can occur.
  j["solve_status"] = nlohmann::json::object();
  for (int k = 0; k < kSolveStatusCount; ++k)
    j["solve_status"][solveStatusName(static_cast<SolveStatus>(k))] = f.solve_status[k];
  j["steps"] = steps;
  j["steps_completed"] = f.steps_completed;
  j["dt"] = world->model().dt;
  j["dof"] = world->dof();
  j["subsystems"] = world->partition().numSubsystems();
  j["contacts_mean"] = static_cast<double>(f.contacts_sum) / n;
  j["solver_ms_mean"] = mean(f.solver_ms);
  j["solver_ms_median"] = median(f.solver_ms);
  j["solver_setup_ms_mean"] = f.solver_setup_ms_sum / n;
  j["step_ms_mean"] = mean(f.step_ms);
  j["collision_ms_mean"] = f.collision_ms_sum / n;
  j["assembly_ms_mean"] = f.assembly_ms_sum / n;
  j["accuracy_mean"] = f.steps_with_constraints > 0
                           ? nlohmann::json(f.accuracy_sum / f.steps_with_constraints)
                           : nlohmann::json(nullptr);
  j["accuracy_fb_mean"] = f.steps_with_contacts > 0
                              ? nlohmann::json(f.accuracy_fb_sum / f.steps_with_contacts)
                              : nlohmann::json(nullptr);
  j["natural_map_error_mean"] = f.steps_with_contacts > 0
                                    ? nlohmann::json(f.natural_map_sum / f.steps_with_contacts)
                                    : nlohmann::json(nullptr);
  j["bilateral_residual_max"] = f.bilateral_max;
  j["dynamics_residual_max"] = f.dynamics_max;
  j["max_penetration_m"] = f.penetration_max;
  j["final_kinetic_energy"] = world->kineticEnergy();
  j["final_state_hash"] = hex64(world->state().hash());
  j["diverged"] = f.diverged;
  if (f.diverged) j["divergence"] = f.divergence;
  j["interrupted"] = f.interrupted;
  if (!record_path.empty()) j["record"] = record_path;
  if (!o.view.empty()) j["view"] = o.view;
  if (live) j["serve"] = live->url();

  // The page, from the recording just sealed; a run that diverged shows its steps up to there.
  if (!o.view.empty()) {
    if (const int code = writeViewerPage(record_path, o.view, std::cerr); code != kExitOk)
      return code;
    std::cerr << "subsim: the run's page: " << o.view
              << " (open it in a browser; it needs no network)\n";
  }
  if (o.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    for (auto it = j.begin(); it != j.end(); ++it)
      std::cout << it.key() << ": " << it.value().dump() << "\n";
  }
  std::cout << std::flush;
  if (f.interrupted) {
    std::cerr << "subsim: interrupted after " << f.steps_completed << " of " << steps
              << " steps; the figures above, and any recording, cover those\n";
    return kExitInterrupted;
  }
  if (f.diverged)
    std::cerr << "subsim: diverged at step " << f.steps_completed + 1 << ": " << f.divergence
              << "\n";
  if (live) {
    // The page keeps its steps; a diverged run's page shows it up to the divergence.
    std::cerr << "subsim: the run has ended; its page stays at " << live->url() << " until Ctrl-C"
              << std::endl;
    interrupt.wait();
  }
  return f.diverged ? kExitDiverged : kExitOk;
}

}  // namespace subsim::cli
