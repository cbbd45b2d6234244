#include "subsim/articulation/inverse_kinematics.hpp"

#include <algorithm>

#include "subsim/articulation/articulation_dynamics.hpp"

namespace subsim {

double solvePositionIk(const Articulation& art, const Pose& base,
                       const std::vector<IkTarget>& targets, VecX& q, int max_iterations,
                       double tolerance, double damping) {
  const int m = 3 * static_cast<int>(targets.size()), nv = art.nv();
  std::vector<Pose> poses;
  MatX J(m, nv), Jp;
  VecX error(m), v(nv), q_next;
  double worst = 0.0;
  for (int it = 0; it <= max_iterations; ++it) {
    forwardKinematics(art, q, poses);
    for (Pose& p : poses) p = base * p;
    worst = 0.0;
    for (size_t k = 0; k < targets.size(); ++k) {
      const IkTarget& t = targets[k];
      const Vec3 p = poses[t.link].transformPoint(t.point_in_link);
      error.segment<3>(3 * k) = t.target_world - p;
      worst = std::max(worst, error.segment<3>(3 * k).norm());
      pointJacobian(art, poses, t.link, p, Jp);
      J.middleRows(3 * k, 3) = Jp;
    }
    if (worst <= tolerance || it == max_iterations) break;
    // v = J^T (J J^T + lambda^2 I)^-1 e: the damping keeps steps bounded near singularities.
    const MatX JJt = J * J.transpose() + damping * damping * MatX::Identity(m, m);
    v = J.transpose() * JJt.ldlt().solve(error);
    integrateConfiguration(art, q, v, 1.0, q_next);
    q = q_next;
    for (const ArticulationLink& link : art.links)
      if (link.limited && link.q_index >= 0)
        q[link.q_index] = std::clamp(q[link.q_index], link.lower, link.upper);
  }
  return worst;
}

}  // namespace subsim
