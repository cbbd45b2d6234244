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
#include <vector>

#include "subsim/assembly/deformable_rows.hpp"
#include "subsim/assembly/robot_rows.hpp"
#include "subsim/geometry/contact_point.hpp"
#include "subsim/model/model.hpp"
#include "subsim/model/state.hpp"
#include "subsim/partition/partition.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// External forces on each body for one step (controller output), world frame, at the centre of
/// mass.
struct BodyForces {
  std::vector<Vec3> force;
  std::vector<Vec3> torque;
  void reset(int bodies) {
    force.assign(bodies, Vec3::Zero());
    torque.assign(bodies, Vec3::Zero());
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

 private:
  std::vector<AssembledContact> contacts_;
  std::vector<RobotAssembly> robots_;
  DeformableAssembly deformables_;
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
