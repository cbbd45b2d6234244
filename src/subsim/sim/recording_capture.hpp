#pragma once
// What a recording holds, taken from a model and a world in memory: the one place that decides
// it, for the HDF5 Recorder (recorder.hpp) and for a run's live view (`subsim run --serve`),
// which keeps the steps in memory and never writes a file.
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/model/model.hpp"
#include "subsim/sim/recorder.hpp"
#include "subsim/sim/world.hpp"

namespace subsim {

/// A recording without steps: the run's settings, the bodies' names, kinds and shapes, the
/// deformables' names, node counts and surfaces.
Recording recordingHeader(const Model& model, const RecordingInfo& info);

/// The state after world.step() and that step's contacts, impulses and figures, into `out`
/// (whose buffers are reused).  std::logic_error when a contact has no impulse in the world's
/// last solution.
void captureStep(const World& world, const StepReport& report, const StepMetrics& metrics,
                 RecordedStep& out);

}  // namespace subsim
