#include "subsim/assembly/assembler.hpp"

#include <array>

#include "subsim/assembly/constraint_rows.hpp"
#include "subsim/assembly/deformable_rows.hpp"
#include "subsim/formulation/ncp_form.hpp"
#include "subsim/math/parallel_team.hpp"
#include "subsim/model/integrator.hpp"

namespace subsim {

namespace {
// Below these counts per thread, rigid subsystems' blocks and contacts' rows are filled on one
// thread (parallel_team.hpp).
constexpr std::size_t kRigidSubsystemsPerThread = 512;
constexpr std::size_t kContactsPerThread = 512;

std::uint64_t mix64(std::uint64_t x) {
  // splitmix64 finaliser: spreads small integers over all 64 bits.
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
std::uint64_t nonZero(std::uint64_t k) {
  return k == 0 ? 1 : k;
}
}  // namespace

std::uint64_t contactKey(int shape_a, int shape_b, std::uint32_t feature) {
  return nonZero(
      mix64((static_cast<std::uint64_t>(shape_a) << 32) ^ static_cast<std::uint32_t>(shape_b)) ^
      mix64(0x100000000ull + feature));
}
std::uint64_t structuralKey(std::uint64_t kind_and_index) {
  return nonZero(mix64(kind_and_index));
}
std::uint64_t jointKey(int joint, int part) {
  return structuralKey(0xa000000000000000ull + (static_cast<std::uint64_t>(joint) << 4) + part);
}
std::uint64_t springKey(int spring) {
  return structuralKey(0xb000000000000000ull + static_cast<std::uint64_t>(spring));
}
std::uint64_t rodKey(int coupling) {
  // Prefixes in use: a joints, b springs, c robot limits, d/e deformable interfaces/attachments.
  return structuralKey(0xf000000000000000ull + static_cast<std::uint64_t>(coupling));
}

void Assembler::assemble(const Model& model, const Partition& partition, const State& state,
                         const BodyForces& forces, const std::vector<ContactPoint>& contacts,
                         double h, StepProblem& problem,
                         std::vector<DeformableShapeContact>* deformable_contacts) {
  problem.clear();
  problem.dt = h;
  problem.theta = model.theta;
  problem.erp = model.contact.erp;
  problem.has_step_data = true;
  robots_.resize(model.robots.size());
  for (size_t r = 0; r < model.robots.size(); ++r)
    prepareRobot(model, static_cast<int>(r), state, robots_[r]);
  const AssemblyContext ctx{model, partition, state, robots_};
  deformables_.prepare(model);

  // Subsystem blocks: A = M_k / (1 - theta), b = M_k v_k / (1 - theta) + h f_k per body (2 M_k
  // and 2 M_k v_k + h f_k at the midpoint theta = 1/2).
  const double g = thetaFactor(model.theta);
  rigid_subsystems_.clear();
  for (int s = 0; s < partition.numSubsystems(); ++s) {
    if (partition.piece_of_subsystem[s] >= 0) {
      const int piece = partition.piece_of_subsystem[s];
      addDeformablePieceBlock(model, model.deformableOfPiece(piece), piece, state, h, deformables_,
                              problem);
      continue;
    }
    const int sub = problem.addSubsystem(partition.dofOf(s));
    if (partition.robot_of_subsystem[s] >= 0) {
      const int r = partition.robot_of_subsystem[s];
      addRobotBlock(model, r, state, h, robots_[r], sub, problem,
                    BodyForces::entry(forces.joint_target_q, r),
                    BodyForces::entry(forces.joint_target_v, r));
      // External forces on the links (controllers) enter through the links' Jacobians, joint
      // torques directly.
      auto b = problem.bBlock(sub);
      if (const VecX* tau = BodyForces::entry(forces.joint_torque, r)) b.noalias() += h * *tau;
      for (size_t l = 0; l < model.robots[r].link_body.size(); ++l) {
        const int body = model.robots[r].link_body[l];
        Vec6 wrench;
        wrench << forces.force[body], forces.torque[body];
        if (!wrench.isZero()) b.noalias() += h * robots_[r].com_jacobian[l].transpose() * wrench;
      }
      continue;
    }
    if (!partition.bodies[s].empty())
      problem.subsystems[sub].substructure = model.bodies[partition.bodies[s].front()].substructure;
    rigid_subsystems_.emplace_back(s, sub);
  }
  // The rigid bodies' blocks, once every subsystem has its place: each writes its own.
  const int rigid = static_cast<int>(rigid_subsystems_.size());
#pragma omp parallel for schedule(static) \
    num_threads(parallelTeam(threads_, rigid_subsystems_.size(), kRigidSubsystemsPerThread))
  for (int k = 0; k < rigid; ++k) {
    const auto [s, sub] = rigid_subsystems_[k];
    auto A = problem.A(sub);
    auto b = problem.bBlock(sub);
    auto M = problem.M(sub);
    auto v = problem.velocityBlock(sub);
    for (int body : partition.bodies[s]) {
      const Body& B = model.bodies[body];
      const int o = partition.offset_in_subsystem[body];
      const Mat3 R = state.pose[body].orientation.toRotationMatrix();
      const Mat3 I_world = R * B.inertia * R.transpose();
      M.block<3, 3>(o, o) = B.mass * Mat3::Identity();
      M.block<3, 3>(o + 3, o + 3) = I_world;
      v.segment<3>(o) = state.linear_velocity[body];
      v.segment<3>(o + 3) = state.angular_velocity[body];
      A.block<3, 3>(o, o) = g * B.mass * Mat3::Identity();
      A.block<3, 3>(o + 3, o + 3) = g * I_world;
      Vec3 f = B.mass * model.gravity + forces.force[body];
      Vec3 torque = forces.torque[body];
      // (Added only when set, so that a scene without one keeps its bits.)
      if (!B.applied_force.isZero()) f += B.applied_force;
      if (!B.applied_torque.isZero()) torque += B.applied_torque;
      b.segment<3>(o) = g * B.mass * state.linear_velocity[body] + h * f;
      // The gyroscopic impulse I_k (w' - w_k) (model/integrator.hpp) beside the torque's.
      const Vec3& w = state.angular_velocity[body];
      const Vec3 w_free = gyroscopicEndVelocity(B, state.pose[body].orientation, w, h);
      b.segment<3>(o + 3) = g * I_world * w + I_world * (w_free - w) + h * torque;
    }
  }

  for (int j = 0; j < static_cast<int>(model.joints.size()); ++j)
    addJointConstraints(ctx, j, h, problem);
  for (int r = 0; r < static_cast<int>(model.robots.size()); ++r) {
    addRobotLimitConstraints(ctx, r, h, problem);
    addRobotNoSlipConstraint(ctx, r, h, problem);
  }
  for (int s = 0; s < static_cast<int>(model.springs.size()); ++s)
    addSpringConstraint(ctx, s, h, problem);
  for (int r = 0; r < static_cast<int>(model.rod_couplings.size()); ++r)
    addRodCouplingConstraint(ctx, r, h, problem);
  for (int d = 0; d < static_cast<int>(model.deformables.size()); ++d)
    addDeformableConstraints(ctx, d, problem);

  contacts_.clear();
  // A pair's points are consecutive (CollisionDetector::detect); its subcontact sets' local ids
  // become the index of each set's first constraint.
  std::array<int, kMaxSubcontactSets> set_first{};
  int pair_a = -1, pair_b = -1;
  for (const ContactPoint& cp : contacts) {
    AssembledContact c;
    c.shape_a = cp.object_a;
    c.shape_b = cp.object_b;
    c.body_a = model.shapes[cp.object_a].body;
    c.body_b = model.shapes[cp.object_b].body;
    c.geometry = cp.geometry;
    c.constraint = reserveContactConstraint(ctx, c, problem);
    if (contactOnRobot(ctx, c)) fillContactConstraint(ctx, c, c.constraint, problem);
    contacts_.push_back(c);
    if (cp.object_a != pair_a || cp.object_b != pair_b) {
      pair_a = cp.object_a;
      pair_b = cp.object_b;
      set_first.fill(-1);
    }
    if (const int set = cp.geometry.subcontact_set; set >= 0 && set < kMaxSubcontactSets) {
      if (set_first[set] < 0) set_first[set] = c.constraint;
      problem.constraints[c.constraint].subcontact_set = set_first[set];
    }
  }
  // The rows of the contacts reserved above, each writing its own constraint's entries.
  const int reserved = static_cast<int>(contacts_.size());
#pragma omp parallel for schedule(static) \
    num_threads(parallelTeam(threads_, contacts_.size(), kContactsPerThread))
  for (int k = 0; k < reserved; ++k) {
    const AssembledContact& c = contacts_[k];
    if (!contactOnRobot(ctx, c)) fillContactConstraint(ctx, c, c.constraint, problem);
  }
  if (deformable_contacts)
    for (DeformableShapeContact& c : *deformable_contacts)
      c.constraint = addDeformableContactConstraint(ctx, c, problem);
  formNcpErrors(problem);
}

}  // namespace subsim
