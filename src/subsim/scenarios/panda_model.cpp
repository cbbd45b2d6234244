#include "subsim/scenarios/panda_model.hpp"

#include "subsim/io/urdf_loader.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

void setFrankaJointImpedance(Robot& robot, int first) {
  robot.kp.segment<7>(first) << 600.0, 600.0, 600.0, 600.0, 250.0, 150.0, 50.0;
  robot.kd.segment<7>(first) << 50.0, 50.0, 50.0, 20.0, 20.0, 20.0, 10.0;
  robot.gravity_compensation = true;
}

std::vector<IkTarget> rodDownTargets(int tool, const Vec3& tip) {
  // The stirrer frame's z points away from the flange, i.e. down when the rod is vertical.
  return {{tool, Vec3::Zero(), tip}, {tool, Vec3(0.0, 0.0, -0.1), tip + Vec3(0.0, 0.0, 0.1)}};
}

PandaOnPath addPandaFollowingTip(Model& m, const std::string& scene, const Pose& base,
                                 const DoubleBuffer& times, const std::function<Vec3(double)>& tip,
                                 double mu, std::uint32_t group) {
  UrdfRobot urdf = loadUrdfString(pandaUrdf(), "built-in panda.urdf");
  Robot panda;
  panda.name = "panda";
  panda.articulation = urdf.articulation;
  panda.articulation.finalize();
  panda.base = base;
  const Articulation& art = panda.articulation;
  PandaOnPath out;
  out.tool_link = art.findLink("panda_stirrer");
  if (out.tool_link < 0)
    throw ScenarioError(scene + ": the built-in Panda has no link 'panda_stirrer'");
  VecX q(art.nq());
  q << 0.0, 0.2, 0.0, -2.0, 0.0, 2.2, 0.785;
  for (double t : times) {
    const double miss =
        solvePositionIk(art, panda.base, rodDownTargets(out.tool_link, tip(t)), q, 500, 1e-7);
    if (miss > 1e-3)
      throw ScenarioError(scene + ": the Panda cannot reach its tool path at t = " +
                          std::to_string(t) + " s (" + std::to_string(miss * 1e3) + " mm short)");
    panda.target.times.push_back(t);
    panda.target.positions.push_back(q);
  }
  panda.initial_q = panda.target.positions.front();
  panda.kp.resize(7);
  panda.kd.resize(7);
  setFrankaJointImpedance(panda, 0);
  out.robot = m.addRobot(std::move(panda));
  for (const UrdfCollision& c : urdf.collisions)
    m.shapes[m.addRobotShape(out.robot, c.link, c.shape, c.origin, mu)].group = group;
  return out;
}

}  // namespace subsim
