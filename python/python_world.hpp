#pragma once
// The World as Python sees it (the `subsim` module, python/subsim_module.cpp): a scene loaded as
// `subsim run` loads it, with the same precedence of solver settings (cli::worldSettingsFor), so
// that stepping it gives the command line's bits; the controller inputs (body forces, joint
// torques and targets) held between steps, as MuJoCo's xfrc_applied and ctrl are; an optional
// recording.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "scene_loading.hpp"
#include "subsim/sim/recorder.hpp"
#include "subsim/sim/world.hpp"

namespace subsim::python {

/// A step that diverged (Python: subsim.SimulationDiverged, a RuntimeError).
class SimulationDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// std::invalid_argument (Python: ValueError) unless iterations >= 1, tolerance is finite and
/// >= 0 and threads >= 1 (unset parts pass).
void checkSolverSettings(std::optional<int> iterations, std::optional<double> tolerance,
                         int threads);

class PythonWorld {
 public:
  /// Loads `scene` (a scene file or a built-in scene with parameters); the request's unset parts
  /// come from the scene file's solver section, then the defaults.  `dt` (s) replaces the scene's.
  PythonWorld(const std::string& scene, const cli::RunRequest& request, std::optional<double> dt);

  World& world() { return *world_; }
  const World& world() const { return *world_; }
  const std::string& scene() const { return scene_; }
  int defaultSteps() const { return default_steps_; }
  /// The line `subsim run` prints when the scene file's solver options are dropped (or empty).
  const std::string& note() const { return note_; }

  /// Steps `n` times (>= 1); records each step when recording; throws SimulationDiverged with
  /// the step and its reason when one diverges (the World then refuses to step until setState).
  StepReport step(int n);

  // Controller inputs, applied at every step until changed.
  void setBodyForce(int body, const Vec3& force, const Vec3& torque);
  void setJointTorque(int robot, const VecX& tau);
  /// q (nq) and v (nv, or empty: zero) targets of the robot's drives in place of its trajectory;
  /// an empty q gives the trajectory back.  (Sizes: checked by World::step.)
  void setJointTarget(int robot, const VecX& q, const VecX& v);
  void clearInputs();

  /// Starts writing a recording (subsim replay / view read it); one at a time.
  void startRecording(const std::string& path);
  /// Closes and seals the recording (also done when the World goes away).
  void stopRecording() { recorder_.reset(); }
  bool recording() const { return recorder_ != nullptr; }

  /// Throw std::out_of_range (Python's IndexError) unless the index names a body / robot /
  /// deformable body of the model.
  void checkBody(int body) const;
  void checkRobot(int robot) const;
  void checkDeformable(int deformable) const;

 private:
  std::string scene_;
  std::string note_;
  int default_steps_ = 0;
  std::unique_ptr<World> world_;
  std::unique_ptr<Recorder> recorder_;
  BodyForces inputs_;  // copied into the step's forces by the World's controller
};

}  // namespace subsim::python
