// The ICRA paper's stirring scene: a Franka Panda (robots/panda/panda.urdf, built in) stirs the
// `granular` scene's spheres with the 15 cm rod on its flange.  1303 DOF = 216 x 6 + 7, 217
// subsystems at the default size.
//
// The stirrer's tip follows the granular rod's path (scenario.hpp, stirringPath): it enters from
// above the lattice, descends at 0.1 m/s and circles at 1 rev/s.  The path is turned into
// joint-space targets by position IK on two points of the rod (tip and 10 cm above it, so the rod
// stays vertical) at knots every 20 ms; the arm tracks them with the implicit joint impedance of
// robot_rows.hpp (Franka's example gains, gravity compensated), so the spheres can push it back
// as they push the impedance-controlled arm of the paper.
#include <cmath>

#include "subsim/scenarios/panda_model.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

Model buildStirScene(const ScenarioParams& params) {
  const int n = params.getInt("spheres");
  const double mu = params.get("mu");
  const double duration = params.get("duration");
  Model m;
  m.name = "stir";
  m.dt = 0.01;
  const GranularBox box = addGranularBox(m, n, mu);
  const KinematicTrajectory path = stirringPath(box, 0.04);

  // Beside the box, facing it (+x), far enough that the upper arm clears the near wall; IK knots
  // every 20 ms.
  Pose base;
  base.position = Vec3(-0.5 * box.inner - 0.42, 0.0, 0.0);
  const double knot_dt = 0.02;
  const int knots = static_cast<int>(std::ceil(duration / knot_dt)) + 1;
  DoubleBuffer times;
  for (int k = 0; k < knots; ++k) times.push_back(k * knot_dt);
  try {
    addPandaFollowingTip(
        m, "stir", base, times, [&](double t) { return path.pose(t).position; }, mu);
  } catch (const ScenarioError& e) {
    throw ScenarioError(std::string(e.what()) + "; reduce `spheres`");
  }

  addGranularSpheres(m, n, mu);
  return m;
}

}  // namespace subsim
