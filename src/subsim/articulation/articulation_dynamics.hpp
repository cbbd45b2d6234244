#pragma once
// Kinematics and dynamics of an Articulation (conventions in articulation.hpp):
//   forward kinematics, point and link Jacobians, the joint-space mass matrix by the composite
//   rigid body algorithm (CRBA) and bias forces / inverse dynamics by the recursive Newton-Euler
//   algorithm (RNEA) (Featherstone, "Rigid Body Dynamics Algorithms", 2008, chapters 5 and 6),
//   and the configuration update q <- q (+) h v (quaternion exponential for floating joints).
// All functions write into caller-owned outputs sized by them (resize is a no-op when the size
// already fits), so a caller that keeps its buffers across steps does not allocate.
#include <vector>

#include "subsim/articulation/articulation.hpp"

namespace subsim {

/// Per-link scratch of the recursive algorithms.  The overloads without a workspace use one kept
/// per thread; pass your own to control where the memory lives.  Either way, once the buffers
/// have grown to the articulation's size, no call allocates.
struct ArticulationWorkspace {
  std::vector<Pose> poses;
  std::vector<Mat6> motion_subspace;  // S_i in world Plucker coordinates, first nv_i columns used
  std::vector<Mat6> inertia;          // spatial inertia (world), composite inertia in CRBA
  std::vector<Vec6> velocity, acceleration, force;
  void resize(int num_links);
};

/// World pose of every link frame for configuration q (size nq).
void forwardKinematics(const Articulation& art, const VecX& q, std::vector<Pose>& link_poses);

/// World-frame linear velocity Jacobian (3 x nv) of a point fixed to `link`, given in world
/// coordinates at the current poses.
void pointJacobian(const Articulation& art, const std::vector<Pose>& link_poses, int link,
                   const Vec3& point_world, MatX& J);

/// [linear velocity of point_world; angular velocity] Jacobian (6 x nv) of `link`.
void linkJacobian(const Articulation& art, const std::vector<Pose>& link_poses, int link,
                  const Vec3& point_world, MatX& J);

/// Joint-space mass matrix M(q) (nv x nv, symmetric positive definite when every joint moves
/// some mass) by CRBA.
void massMatrix(const Articulation& art, const VecX& q, MatX& M);
void massMatrix(const Articulation& art, const VecX& q, MatX& M, ArticulationWorkspace& ws);

/// Inverse dynamics by RNEA: tau = M(q) a + C(q, v) v + g(q), gravity the world acceleration of
/// gravity (e.g. (0, 0, -9.81)).  Joint damping is not included.
void inverseDynamics(const Articulation& art, const VecX& q, const VecX& v, const VecX& a,
                     const Vec3& gravity, VecX& tau);
void inverseDynamics(const Articulation& art, const VecX& q, const VecX& v, const VecX& a,
                     const Vec3& gravity, VecX& tau, ArticulationWorkspace& ws);

/// Bias forces C(q, v) v + g(q) = inverseDynamics with a = 0.
void biasForces(const Articulation& art, const VecX& q, const VecX& v, const Vec3& gravity,
                VecX& bias);
void biasForces(const Articulation& art, const VecX& q, const VecX& v, const Vec3& gravity,
                VecX& bias, ArticulationWorkspace& ws);

/// q_out = q (+) h v: q + h v for revolute and prismatic coordinates; for a floating joint the
/// position moves by h v_linear and the orientation by the exponential of h omega (world frame).
void integrateConfiguration(const Articulation& art, const VecX& q, const VecX& v, double h,
                            VecX& q_out);

/// Kinetic energy 1/2 sum_links (m |v_com|^2 + w^T I_world w) from the link velocities (an
/// independent check of massMatrix: equals 1/2 v^T M v).
double kineticEnergy(const Articulation& art, const VecX& q, const VecX& v);

}  // namespace subsim
