// FEM beam insertion (ICRA SubADMM paper, scene 3): a Franka Panda holds one end of a corotational
// FEM beam, 0.05 x 0.05 x 0.5 m, E = 10 MPa, nu = 0.45 (density 1000 kg/m^3, documented: the
// paper gives none), and pushes it horizontally through a narrow gap between two fixed blocks.
// The beam is cut into `pieces` subsystems (20 in the paper: 21 subsystems with the robot);
// its mesh has `cells` cells along the beam and `across` x `across` (5) across, 6 tets each (42:
// 1548 nodes and 6300 tets, the paper's 1591 and 6347).  `dof` counts the interface nodes once per
// piece.
//
// The gap is 4 mm wider than the beam at its exit and 5 mm off its axis, between two blocks
// turned into a funnel (`lead_in` degrees): the beam's corner meets one block's inclined face and
// slides along it, the beam bends to pass, and its side rubs past the blocks' exit edges:
// deformable-vs-rigid contact with sharp edges.
// The arm holds the beam's last 4 cm (nodes welded to the stirring rod's link) and moves it 0.25 m
// along its axis in 3 s.
#include <cmath>

#include "subsim/fem/box_tet_mesher.hpp"
#include "subsim/math/portable_math.hpp"
#include "subsim/math/so3.hpp"
#include "subsim/scenarios/panda_model.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim {

Model buildBeamScene(const ScenarioParams& params) {
  const int pieces = params.getInt("pieces");
  const int cells = params.getInt("cells");
  const int across = params.getInt("across");
  const double mu = params.get("mu");
  Model m;
  m.name = "beam";
  m.dt = 0.01;
  addGround(m, mu);

  const double length = 0.5, width = 0.05, height = 0.45, grip = 0.04;
  const Vec3 tip0(0.35, 0.0, height + 0.5 * width);  // the rod's end on the beam's top face
  const double travel = 0.25, duration = 3.0;

  // Held at the rod's end, moved `travel` along the beam in `duration` (IK knots every 0.5 s);
  // the arm's shapes are in group 2, which the beam masks out (it does not touch what holds it).
  DoubleBuffer times;
  for (int k = 0; k <= 6; ++k) times.push_back(duration * k / 6);
  const PandaOnPath panda = addPandaFollowingTip(
      m, "beam", Pose(), times,
      [&](double t) { return Vec3(tip0 + Vec3(travel * t / duration, 0.0, 0.0)); }, mu, 2);

  DeformableBody beam;
  beam.name = "beam";
  beam.rest_mesh = boxTetMesh(Vec3(length, width, width), cells, across, across);
  beam.material.young = 10e6;
  beam.material.poisson = 0.45;
  beam.material.density = 1000.0;
  beam.material.rayleigh_stiffness = 0.002;
  beam.pieces = pieces;
  beam.mu = mu;
  beam.mask = ~2u;
  // Held at its -x end, centred under the rod's end.
  beam.initial_pose.position = Vec3(tip0.x() - 0.5 * grip + 0.5 * length, 0.0, height);
  const int tool_body = m.robots[panda.robot].link_body[panda.tool_link];
  const Pose& tool_pose = m.bodies[tool_body].initial_pose;
  for (int n = 0; n < beam.rest_mesh.numNodes(); ++n) {
    const Vec3 x = beam.initial_pose.transformPoint(beam.rest_mesh.nodes[n]);
    if (x.x() <= tip0.x() - 0.5 * grip + grip + 1e-9)
      beam.attachments.push_back({n, tool_body, tool_pose.inverseTransformPoint(x)});
  }
  m.addDeformable(std::move(beam));

  // Two blocks 0.1 m long and 0.2 m high, each turned by `lead_in` about z so that they form a
  // funnel: 4 mm wider than the beam at its exit, 5 mm off the beam's axis.  The beam's corner
  // meets the inclined face of one block, slides along it, and the beam bends to pass; a square
  // beam end driven straight into a flat face would jam instead.
  const double gap = width + 0.004, offset = 0.005, block_x = tip0.x() - 0.5 * grip + length + 0.02;
  const double lead_in = params.get("lead_in") * M_PI / 180.0;
  const Vec3 half(0.05, 0.1, 0.1);
  const double exit_x = block_x + 2.0 * half.x();
  for (int side = -1; side <= 1; side += 2) {
    // u runs along the block's inner face towards the exit, n from that face into the gap.
    double sin_lead, cos_lead;
    portableSinCos(lead_in, sin_lead, cos_lead);
    const Vec3 u(cos_lead, -side * sin_lead, 0.0);
    const Vec3 n(-sin_lead, -side * cos_lead, 0.0);
    const Vec3 exit_edge(exit_x, offset + side * 0.5 * gap, height);
    Body block = namedBody(side < 0 ? "block_right" : "block_left", BodyKind::Static);
    block.initial_pose.position = exit_edge - half.x() * u - half.y() * n;
    block.initial_pose.orientation = quatFromAxisAngle(Vec3::UnitZ(), -side * lead_in);
    m.addShape(m.addBody(block), Shape::box(half), Pose(), mu);
  }
  return m;
}

}  // namespace subsim
