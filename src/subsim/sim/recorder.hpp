#pragma once
// Recording a run to HDF5 (`subsim run --record FILE.h5`) and reading it back for tests, replay
// and plots.  The file layout is documented in docs/recording-format.md.
//
// Example:
//   subsim::World world(model);
//   subsim::Recorder recorder("run.h5", world.model(), {"granular", "subadmm", model.dt});
//   for (int k = 0; k < 100; ++k) {
//     const subsim::StepReport report = world.step();
//     recorder.record(world, report, subsim::evaluateStep(world.lastProblem(),
//                                                        world.lastSolution()));
//   }
//
// This header deliberately does not include hdf5.h: only the library sees HDF5, so code using
// the recorder needs neither its include path nor its link flags.
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "subsim/math/types.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/model/model.hpp"
#include "subsim/sim/world.hpp"

namespace subsim {

/// How the run was made, stored as root attributes so a recording explains itself.
struct RecordingInfo {
  std::string scene, solver;
  double dt = 0;
  int threads = 1;
  int iterations_cap = 0;
  double tolerance = 0;
};

struct RecordedStep;

/// Writes a run to an HDF5 file, one group per step (layout in docs/recording-format.md).
class Recorder {
 public:
  /// Creates (truncates) the file; throws std::runtime_error("cannot create recording 'PATH': ...")
  /// on failure (e.g. a directory that does not exist).
  Recorder(const std::string& path, const Model& model, const RecordingInfo& info);
  /// Closes the file, which flushes it, then seals it (io/file_seal.hpp), after which
  /// readRecording accepts it.  Errors at this point can only be ignored: a file that failed to
  /// close or to be sealed, like that of a process that died mid-run, stays unsealed, and
  /// readRecording refuses it with a message saying what to do (`subsim seal FILE` once the file
  /// is known to be good).
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  /// Appends the state after world.step() and that step's contacts, impulses and figures.
  /// std::invalid_argument when the world's body count differs from the model's;
  /// std::runtime_error("cannot write recording 'PATH': ...") when HDF5 fails (e.g. disk full).
  void record(const World& world, const StepReport& report, const StepMetrics& metrics);
  /// Appends a step already taken by captureStep (sim/recording_capture.hpp), for a caller that
  /// hands the same step to others too (`subsim run --record --serve`).  std::invalid_argument
  /// when its body count differs from the model's.
  void record(const RecordedStep& step);
  int stepsRecorded() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One step of a recording, read back.
struct RecordedStep {
  double time;
  int iterations;
  double residual, solver_ms, step_ms, constraint_residual, contact_fb_residual, max_penetration;
  std::string solve_status;  // solveStatusName(); empty in recordings written before it existed
  // Kinetic + gravitational energy after the step (J) and the step problem's largest bilateral
  // row error; absent in recordings written before they existed.
  std::optional<double> energy, joint_error;
  std::vector<Vec3> position;
  std::vector<Quat> orientation;
  std::vector<Vec3> contact_point, contact_normal, contact_impulse;  // impulse [n, t1, t2] N s
  DoubleBuffer contact_gap;
  std::vector<std::array<int, 2>> contact_bodies;  // body indices, -1 none
  /// Every deformable's node positions after the step, deformables in order (empty without).
  std::vector<Vec3> deformable_x;
};

/// One collision shape of a body, as the viewer draws it: size is (radius, half length, 0) for a
/// sphere, capsule or cylinder (axis along the shape's z), the half extents for a box, 0 for a
/// plane (the shape's z = 0 plane); pose places it in the body's centre-of-mass frame.
struct RecordedShape {
  int body = 0;
  ShapeType type = ShapeType::Sphere;
  Vec3 size = Vec3::Zero();
  Pose pose;
  /// A signed distance shape's surface in its frame (empty for the analytic types).
  std::vector<Vec3> mesh_vertices;
  std::vector<std::array<int, 3>> mesh_triangles;
};

/// What a recording holds, read back (for tests, replay and plots).
struct Recording {
  std::string scene, solver;
  double dt;
  int threads;
  int iterations_cap;
  double tolerance;
  std::vector<std::string> body_names;
  std::vector<int> body_kind;  // BodyKind values
  // Added after schema version 1 was fixed (empty in recordings made before them): the bodies'
  // shapes and the deformables' names, node counts and surface triangles (node indices into all
  // deformables' nodes in order, as RecordedStep::deformable_x).
  std::vector<RecordedShape> shapes;
  std::vector<std::string> deformable_names;
  std::vector<int> deformable_node_count, deformable_surface_count;
  std::vector<std::array<int, 3>> deformable_surface;
  std::vector<RecordedStep> steps;
};

/// Throws std::runtime_error naming the file and the missing/bad object for a file that is not a
/// subsim recording (not HDF5, no seal or one that does not fit the file, wrong schema_version,
/// missing group/attribute/dataset, bad shape).  HDF5 sees the file only once its seal is verified.
Recording readRecording(const std::string& path);

}  // namespace subsim
