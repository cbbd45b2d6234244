#pragma once
// An articulated body: a kinematic tree of rigid links in generalised coordinates (issue 4; the
// journal version's subsystem "a kinematic tree rooted at ground", section 4 of the AL paper).
// A robot is one subsystem: its StepProblem block is built from the joint-space mass matrix.
//
// Conventions (shared with the rest of subsim):
//   - every link has a frame; joint j connects link j to its parent (-1: the world);
//   - at q = 0 the child frame coincides with the joint frame, `joint_origin` in the parent's frame
//     (URDF's <origin>); revolute and prismatic joints move along `axis`, given in that joint
//     frame;
//   - a Floating joint has q = [position (3), quaternion (4: x, y, z, w, Eigen's coeffs order)] and
//     v = [linear velocity of the link frame origin (3), angular velocity (3)], both in the world
//     frame, as rigid bodies have in the StepProblem;
//   - Jacobians map v (nv) to world-frame velocities: a point's linear velocity (3 x nv), or a
//     link's [linear velocity of a point; angular velocity] (6 x nv);
//   - links are stored topologically: parent < child (finalize() checks it).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "subsim/math/pose.hpp"
#include "subsim/math/types.hpp"

namespace subsim {

enum class ArticulationJointType : std::uint8_t { Fixed, Revolute, Prismatic, Floating };

struct ArticulationLink {
  std::string name;
  int parent = -1;  // parent link, -1 for the world
  ArticulationJointType joint = ArticulationJointType::Fixed;
  std::string joint_name;
  Pose joint_origin;          // joint frame in the parent's frame (the world's for parent -1)
  Vec3 axis = Vec3::UnitZ();  // unit, in the joint frame (revolute, prismatic)
  // Inertial: mass (kg), centre of mass in the link frame, inertia about the centre of mass in
  // the link frame's axes (kg m^2).  A massless link is allowed when its subtree has mass.
  double mass = 0.0;
  Vec3 com = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
  // Joint properties (revolute, prismatic): position limits (rad or m), effort limit (N m or N),
  // velocity limit, viscous joint damping (N m s/rad or N s/m).
  bool limited = false;
  double lower = 0.0, upper = 0.0;
  double effort_limit = std::numeric_limits<double>::infinity();
  double velocity_limit = std::numeric_limits<double>::infinity();
  double damping = 0.0;
  // Filled by Articulation::finalize(): where this link's joint coordinates start (-1 for Fixed).
  int q_index = -1;
  int v_index = -1;
};

struct Articulation {
  std::string name;
  std::vector<ArticulationLink> links;

  /// Checks the tree (parents before children, finite values, unit axes, positive-definite link
  /// inertia where mass > 0, lower <= upper, at most one Floating joint and only on a root link)
  /// and assigns q_index / v_index.  std::invalid_argument naming the link and field otherwise.
  void finalize();
  int nq() const { return nq_; }
  int nv() const { return nv_; }
  int findLink(const std::string& link_name) const;  // -1 if absent
  /// The tree of velocity coordinates (branch-induced sparsity of M): the parent of each DOF, -1
  /// for a root; a multi-DOF joint's coordinates form a chain.
  const std::vector<int>& dofParents() const { return dof_parent_; }
  /// The last DOF that moves link i (its own joint's, or the nearest moving ancestor's); -1 for a
  /// link welded to the world.  The link's Jacobian is nonzero only on it and its ancestors.
  int deepestDof(int link) const { return deepest_dof_[link]; }
  /// q = 0 with identity quaternions for floating joints.
  VecX neutralConfiguration() const;

 private:
  int nq_ = 0;
  int nv_ = 0;
  std::vector<int> dof_parent_, deepest_dof_;
};

/// Number of configuration / velocity coordinates of one joint.
int jointConfigurationSize(ArticulationJointType type);
int jointVelocitySize(ArticulationJointType type);

}  // namespace subsim
