#include "python_world.hpp"

#include <cmath>
#include <sstream>

#include "subsim/metrics/step_metrics.hpp"

namespace subsim::python {

void checkSolverSettings(std::optional<int> iterations, std::optional<double> tolerance,
                         int threads) {
  if (iterations && *iterations < 1)
    throw std::invalid_argument("iterations: expected at least 1, got " +
                                std::to_string(*iterations));
  if (tolerance && !(*tolerance >= 0.0 && std::isfinite(*tolerance)))
    throw std::invalid_argument("tolerance: expected a finite value >= 0");
  if (threads < 1)
    throw std::invalid_argument("threads: expected at least 1, got " + std::to_string(threads));
}

PythonWorld::PythonWorld(const std::string& scene, const cli::RunRequest& request,
                         std::optional<double> dt)
    : scene_(scene) {
  checkSolverSettings(request.iterations, request.tolerance, request.threads);
  if (dt && !(*dt > 0.0 && std::isfinite(*dt)))
    throw std::invalid_argument("dt: expected a finite time step > 0 (s)");
  SceneSolver from_file;
  BuiltScene built = cli::loadScene(scene, &from_file);
  if (dt) built.model.dt = *dt;
  default_steps_ = built.default_steps;
  const WorldSettings ws = cli::worldSettingsFor(built, from_file, request, &note_);
  world_ = std::make_unique<World>(std::move(built.model), ws);
  clearInputs();
  world_->setController([this](const Model&, const State&, BodyForces& f) { f = inputs_; });
}

StepReport PythonWorld::step(int n) {
  if (n < 1) throw std::invalid_argument("step: n must be at least 1, got " + std::to_string(n));
  StepReport report;
  for (int k = 0; k < n; ++k) {
    report = world_->step();
    if (recorder_)
      recorder_->record(*world_, report,
                        evaluateStep(world_->lastProblem(), world_->lastSolution()));
    if (report.diverged) {
      std::ostringstream what;
      what << scene_ << ": the step to t = " << world_->state().time + world_->model().dt
           << " s diverged: " << report.divergence
           << " (the World refuses to step until set_state)";
      throw SimulationDiverged(what.str());
    }
  }
  return report;
}

namespace {
// IndexError (pybind11 maps out_of_range) naming the index and the valid range; `none` when the
// scene has no such thing.
void checkIndex(const char* what, int index, size_t count, const char* none) {
  const int n = static_cast<int>(count);
  if (index < 0 || index >= n)
    throw std::out_of_range(
        std::string(what) + " " + std::to_string(index) +
        (n == 0 ? std::string(": ") + none : ": expected 0.." + std::to_string(n - 1)));
}
}  // namespace

void PythonWorld::checkBody(int body) const {
  checkIndex("body", body, world_->model().bodies.size(), "the scene has no body");
}

void PythonWorld::checkRobot(int robot) const {
  checkIndex("robot", robot, world_->model().robots.size(), "the scene has no robot");
}

void PythonWorld::checkDeformable(int deformable) const {
  checkIndex("deformable", deformable, world_->model().deformables.size(),
             "the scene has no deformable body");
}

// Sizes and finite values are the bindings' to check (readVector, readVec3: an error names the
// argument) and World::step's (a C++ caller's inputs); here only the indices.
void PythonWorld::setBodyForce(int body, const Vec3& force, const Vec3& torque) {
  checkBody(body);
  inputs_.force[body] = force;
  inputs_.torque[body] = torque;
}

void PythonWorld::setJointTorque(int robot, const VecX& tau) {
  checkRobot(robot);
  inputs_.joint_torque[robot] = tau;
}

void PythonWorld::setJointTarget(int robot, const VecX& q, const VecX& v) {
  checkRobot(robot);
  inputs_.joint_target_q[robot] = q;
  inputs_.joint_target_v[robot] = v;
}

void PythonWorld::clearInputs() {
  const Model& m = world_->model();
  inputs_.reset(static_cast<int>(m.bodies.size()));
  inputs_.joint_torque.assign(m.robots.size(), VecX());
  inputs_.joint_target_q.assign(m.robots.size(), VecX());
  inputs_.joint_target_v.assign(m.robots.size(), VecX());
}

void PythonWorld::startRecording(const std::string& path) {
  if (recorder_) throw std::logic_error("record: already recording; call stop_recording first");
  const World& w = *world_;
  const SolverSettings& s = w.settings().solver_settings;
  recorder_ = std::make_unique<Recorder>(path, w.model(),
                                         RecordingInfo{scene_, w.settings().solver, w.model().dt,
                                                       s.threads, s.max_iterations, s.tolerance});
}

}  // namespace subsim::python
