#pragma once
// subsim_mujoco_peer: one scene run in subsim and in MuJoCo, figures side by side (README.md).
// The scenes are built once as subsim Models; the MuJoCo side translates that Model to MJCF so that
// geometry, masses, inertias, friction and dt are the same numbers in both engines.
#include <string>
#include <vector>

#include "subsim/model/model.hpp"

namespace peer {

/// One engine run's figures, in the units of the printed table.
struct RunFigures {
  std::string engine;  // "subsim subadmm", "MuJoCo Newton elliptic default", ...
  std::string iterations;
  int steps_completed = 0;
  double contacts_mean = 0.0;
  double iterations_mean = 0.0;
  double step_ms_mean = 0.0;
  double solver_ms_mean = 0.0;     // solve only (MuJoCo: its mjTIMER_CONSTRAINT)
  double max_penetration_m = 0.0;  // over all steps and contacts
  double accuracy_fb_mean = 0.0;   // -log10 FB residual, averaged over steps with contacts
  int steps_with_contacts = 0;
  std::string note;  // divergence, contact buffer overflow, ...
};

/// A scene for both engines: the subsim Model and what the MJCF needs beyond it.
struct PeerScene {
  std::string name;
  subsim::Model model;
  int steps = 300;
  /// Cable: the bodies form one chain (segment i's parent is segment i - 1) with ball joints;
  /// MuJoCo gets them as nested bodies instead of free bodies joined by constraints.
  bool chain = false;
  int chain_first_body = -1, chain_segments = 0;
  double chain_segment_length = 0.0;
  double chain_joint_stiffness = 0.0;  // N m/rad (bending EI/L)
  double chain_joint_damping = 0.0;    // N m s/rad
};

/// "granular": the built-in scene.  "cable": the peer cable (one end pinned, README.md).
/// cable_damping_scale multiplies the MuJoCo chain's joint damping (README.md: with subsim's own
/// damping the 96-link chain goes unstable at dt = 10 ms in MuJoCo 2.2.2).
PeerScene buildPeerScene(const std::string& name, int cable_segments, double cable_damping_scale);

struct MujocoConfig {
  std::string solver = "newton";    // newton | pgs | cg
  std::string cone = "elliptic";    // elliptic | pyramidal
  std::string contact = "default";  // default | stiff (solref / solimp, README.md)
  int iterations = 60;
  double tolerance = 1e-10;  // 0 (run every iteration) hangs 2.2.2's Newton line search
};

/// The MJCF text of the scene under the config (exposed so that --print-mjcf can show it).
std::string mujocoXml(const PeerScene& scene, const MujocoConfig& config);
/// Runs the scene in MuJoCo for scene.steps steps; throws std::runtime_error when MuJoCo refuses
/// the model.
RunFigures runMujoco(const PeerScene& scene, const MujocoConfig& config);
/// "2.2.2 (header 222)".
std::string mujocoVersion();

/// Fischer-Burmeister residual of one contact, exactly as subsim's metrics/step_metrics.hpp:
/// lambda = [n, t1, t2] impulse (N s), g = [n, t1, t2] velocity + gap term (m/s).
double fbSquared(const double lambda[3], const double g[3], double mu);

}  // namespace peer
