#pragma once
// The assemble stage: Model + State + contacts -> StepProblem (ARCHITECTURE.md, step 2).
//
// Subsystem blocks use the papers' scheme with impulses: for each rigid body
// A = M_k / (1 - theta), b = M_k v_k / (1 - theta) + h f_k, M_k = diag(m I, R_k I_body R_k^T), so
// that M_k (v_{k+1} - v_k) = h f_k + J^T lambda with vhat = theta v_k + (1 - theta) v_{k+1}
// (Model::theta; at the midpoint 1/2, A = 2 M_k and b = 2 M_k v_k + h f_k).  Gyroscopic effects are
// handled by the integrator (model/integrator.hpp), which carries angular momentum exactly.
//
// Robots (Model::robots) are one subsystem each in generalised velocities: see robot_rows.hpp.
// Deformable pieces (Model::deformables) are one subsystem each, 3 DOF per node: see
// deformable_rows.hpp.
// Constraint order: joints (bilateral, then their limits), robot joint limits, springs (soft),
// deformable interfaces and attachments, contacts.
// Stabilisation (the documented choice the papers leave open):
//   contact normal  e = gap / h when gap >= 0 (speculative: the constraint allows closing the gap
//                   exactly in one step), e = erp * gap / h when penetrating;
//   joints          e = C / h: the linearised position error is removed within the step;
//                   compliant joints are soft rows with e = C (see springs);
//   joint limits    e = (distance to the limit) / h, like a contact;
//   springs         soft rows lambda = -k' e - c' J vhat with k' = h k, c' = h c + h^2 k / 2
//                   (implicit midpoint on the elastic force).
#include <cstdint>
#include <utility>
#include <vector>

#include "subsim/assembly/deformable_rows.hpp"
#include "subsim/assembly/robot_rows.hpp"
#include "subsim/geometry/contact_point.hpp"
#include "subsim/model/model.hpp"
#include "subsim/model/state.hpp"
#include "subsim/partition/partition.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// What a controller sets for one step: external forces on each body (world frame, at the centre
/// of mass) and, per robot (Model::robots), generalised forces on its velocity coordinates and
/// its drives' targets in place of its JointTrajectory.  A robot's entry of a per-robot vector
/// may be empty (none), and the vectors may be shorter than the robot count; World::step checks
/// the sizes of the entries given (std::invalid_argument naming the robot).
struct BodyForces {
  std::vector<Vec3> force;
  std::vector<Vec3> torque;
  std::vector<VecX> joint_torque;    // per robot: nv (N m or N), beside drives and gravity
  std::vector<VecX> joint_target_q;  // per robot: nq, the drives' position targets
  std::vector<VecX> joint_target_v;  // per robot: nv, their velocity targets (with q's; else 0)
  void reset(int bodies) {
    force.assign(bodies, Vec3::Zero());
    torque.assign(bodies, Vec3::Zero());
    joint_torque.clear();
    joint_target_q.clear();
    joint_target_v.clear();
  }
  /// Robot r's entry of one of the per-robot vectors, or null when it has none.
  static const VecX* entry(const std::vector<VecX>& per_robot, int r) {
    return r < static_cast<int>(per_robot.size()) && per_robot[r].size() > 0 ? &per_robot[r]
                                                                             : nullptr;
  }
};

/// A contact as it entered the problem: ContactPoint (shape indices) plus its constraint index.
struct AssembledContact {
  int shape_a = -1;
  int shape_b = -1;
  int body_a = -1;
  int body_b = -1;
  ManifoldPoint geometry;
  int constraint = -1;
};

class Assembler {
 public:
  /// Fills `problem` for one step of size h.  `contacts` index shapes of the model (object index
  /// == shape index).  The assembled contacts are kept for recording (assembledContacts()).
  /// `deformable_contacts` (deformable surfaces against rigid shapes) get their constraint index.
  void assemble(const Model& model, const Partition& partition, const State& state,
                const BodyForces& forces, const std::vector<ContactPoint>& contacts, double h,
                StepProblem& problem,
                std::vector<DeformableShapeContact>* deformable_contacts = nullptr);
  const std::vector<AssembledContact>& assembledContacts() const { return contacts_; }
  /// OpenMP threads for the rigid bodies' blocks and the contacts' rows (0: OpenMP's default);
  /// the problem is the same for every count.
  void setThreads(int threads) { threads_ = threads; }

 private:
  std::vector<AssembledContact> contacts_;
  std::vector<RobotAssembly> robots_;
  DeformableAssembly deformables_;
  std::vector<std::pair<int, int>> rigid_subsystems_;  // (partition subsystem, problem subsystem)
  int threads_ = 1;
};

/// A persistent, non-zero key for a contact between two shapes with a narrow-phase feature id.
std::uint64_t contactKey(int shape_a, int shape_b, std::uint32_t feature);
/// A persistent, non-zero key from a kind prefix (its top bits) plus an index: splitmix64 spreads
/// small integers over all 64 bits, so keys of different kinds do not collide in practice.
std::uint64_t structuralKey(std::uint64_t kind_and_index);
/// Keys for joint rows and springs: distinct from contact keys.
std::uint64_t jointKey(int joint, int part);
std::uint64_t springKey(int spring);
std::uint64_t rodKey(int coupling);  // Model::rod_couplings

}  // namespace subsim
