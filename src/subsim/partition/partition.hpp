#pragma once
// Subsystem division: which dynamic bodies form each subsystem of the StepProblem.
#include <memory>
#include <string_view>
#include <vector>

#include "subsim/model/model.hpp"

namespace subsim {

/// Rigid bodies come first, 6 DOF each, grouped into subsystems; then one subsystem per robot
/// (Model::robots) in its generalised velocities, which its link bodies (kind Articulated) map to
/// through their Jacobians; then one per deformable piece (3 DOF per node).
struct Partition {
  std::vector<int> subsystem_of_body;  // -1 for static and kinematic bodies
  std::vector<int>
      offset_in_subsystem;  // DOF offset of a rigid body in its subsystem; -1 for a link
  std::vector<std::vector<int>>
      bodies;                      // rigid bodies per subsystem, in DOF order (none for robots)
  std::vector<int> subsystem_dof;  // per subsystem
  std::vector<int> robot_of_subsystem;  // per subsystem: the robot index, or -1
  std::vector<int> robot_subsystem;     // per robot: its subsystem
  std::vector<int> piece_of_subsystem;  // per subsystem: the deformable piece, or -1
  std::vector<int> piece_subsystem;     // per deformable piece (State::fem_x): its subsystem

  int numSubsystems() const { return static_cast<int>(subsystem_dof.size()); }
  int dofOf(int subsystem) const { return subsystem_dof[subsystem]; }
  int totalDof() const;
  /// Appends one subsystem per robot, then one per deformable piece (partitioners call it after
  /// placing the rigid bodies).
  void addRobotsAndDeformables(const Model& model);
};

class Partitioner {
 public:
  virtual ~Partitioner() = default;
  virtual std::string_view name() const = 0;
  virtual Partition partition(const Model& model) const = 0;
};

/// One subsystem per dynamic rigid body, except that bodies sharing a Body::subsystem_group share
/// one (in the order of their first body): the SubADMM papers' default.
std::unique_ptr<Partitioner> makeOneBodyPerSubsystemPartitioner();
/// Consecutive dynamic bodies grouped `group_size` at a time (cable segments).
std::unique_ptr<Partitioner> makeGroupedPartitioner(int group_size);

}  // namespace subsim
