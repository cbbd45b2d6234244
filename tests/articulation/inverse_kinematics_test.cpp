// Damped least-squares position IK: reachable targets are met, limits are respected, and an
// unreachable target is reported by its remaining distance.
#include <gtest/gtest.h>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/articulation/inverse_kinematics.hpp"

namespace subsim {
namespace {

Articulation planarArm(bool limited) {
  Articulation art;
  art.name = "arm";
  for (int k = 0; k < 3; ++k) {
    ArticulationLink l;
    l.name = "l" + std::to_string(k);
    l.parent = k - 1;
    l.joint = ArticulationJointType::Revolute;
    l.axis = Vec3::UnitY();
    if (k > 0) l.joint_origin.position = Vec3(0.4, 0.0, 0.0);
    l.mass = 1.0;
    l.com = Vec3(0.2, 0.0, 0.0);
    l.inertia = 0.01 * Mat3::Identity();
    l.limited = limited;
    l.lower = -1.0;
    l.upper = 1.0;
    art.links.push_back(l);
  }
  art.finalize();
  return art;
}

Vec3 tip(const Articulation& art, const Pose& base, const VecX& q) {
  std::vector<Pose> poses;
  forwardKinematics(art, q, poses);
  return (base * poses[2]).transformPoint(Vec3(0.4, 0.0, 0.0));
}

TEST(InverseKinematics, ReachesAReachableTarget) {
  const Articulation art = planarArm(false);
  Pose base;
  base.position = Vec3(0.1, 0.2, 0.3);
  const VecX q_true = (VecX(3) << 0.3, -0.5, 0.4).finished();
  const Vec3 target = tip(art, base, q_true);
  VecX q = VecX::Zero(3);
  const double left = solvePositionIk(art, base, {{2, Vec3(0.4, 0.0, 0.0), target}}, q);
  EXPECT_LT(left, 1e-6);
  EXPECT_LT((tip(art, base, q) - target).norm(), 1e-6);
}

TEST(InverseKinematics, RespectsLimitsAndReportsWhatItCannotReach) {
  const Articulation art = planarArm(true);
  VecX q = VecX::Zero(3);
  // Straight back along -x is outside the +-1 rad range of every joint.
  const double left =
      solvePositionIk(art, Pose(), {{2, Vec3(0.4, 0.0, 0.0), Vec3(-1.0, 0.0, 0.0)}}, q);
  EXPECT_GT(left, 0.1);
  for (int k = 0; k < 3; ++k) {
    EXPECT_GE(q[k], -1.0);
    EXPECT_LE(q[k], 1.0);
  }
}

}  // namespace
}  // namespace subsim
