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

#include "subsim/articulation/inverse_kinematics.hpp"
#include "subsim/io/urdf_loader.hpp"
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

  UrdfRobot urdf = loadUrdfString(pandaUrdf(), "built-in panda.urdf");
  Robot panda;
  panda.name = "panda";
  panda.articulation = urdf.articulation;
  panda.articulation.finalize();
  const Articulation& art = panda.articulation;
  // Beside the box, facing it (+x), far enough that the upper arm clears the near wall.
  panda.base.position = Vec3(-0.5 * box.inner - 0.42, 0.0, 0.0);
  const int tool = art.findLink("panda_stirrer");
  if (tool < 0) throw ScenarioError("stir: the built-in Panda has no link 'panda_stirrer'");

  // Knots: IK with the rod pointing down (rodDownTargets), each solve starting from the previous
  // knot.
  VecX q(art.nq());
  q << 0.0, 0.2, 0.0, -2.0, 0.0, 2.2, 0.785;  // elbow up, flange down, toward +x
  const double knot_dt = 0.02;
  const int knots = static_cast<int>(std::ceil(duration / knot_dt)) + 1;
  for (int k = 0; k < knots; ++k) {
    const double t = k * knot_dt;
    const Vec3 tip = path.pose(t).position;
    const double miss = solvePositionIk(art, panda.base, rodDownTargets(tool, tip), q, 500, 1e-7);
    if (miss > 1e-3)
      throw ScenarioError(
          "stir: the Panda cannot reach the stirring path at t = " + std::to_string(t) + " s (" +
          std::to_string(miss * 1e3) + " mm short); reduce `spheres`");
    panda.target.times.push_back(t);
    panda.target.positions.push_back(q);
  }
  panda.initial_q = panda.target.positions.front();
  panda.kp.resize(7);
  panda.kd.resize(7);
  setFrankaJointImpedance(panda, 0);
  const int robot = m.addRobot(std::move(panda));
  for (const UrdfCollision& c : urdf.collisions)
    m.addRobotShape(robot, c.link, c.shape, c.origin, mu);

  addGranularSpheres(m, n, mu);
  return m;
}

}  // namespace subsim
