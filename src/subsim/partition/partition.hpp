#pragma once
// Subsystem division: which dynamic bodies form each subsystem of the StepProblem.
#include <memory>
#include <string_view>
#include <vector>

#include "subsim/model/model.hpp"

namespace subsim {

struct Partition {
  std::vector<int> subsystem_of_body;    // -1 for static and kinematic bodies
  std::vector<int> offset_in_subsystem;  // DOF offset of the body inside its subsystem
  std::vector<std::vector<int>> bodies;  // per subsystem, in DOF order

  int numSubsystems() const { return static_cast<int>(bodies.size()); }
  int dofOf(int subsystem) const { return 6 * static_cast<int>(bodies[subsystem].size()); }
  int totalDof() const;
};

class Partitioner {
 public:
  virtual ~Partitioner() = default;
  virtual std::string_view name() const = 0;
  virtual Partition partition(const Model& model) const = 0;
};

/// One subsystem per dynamic rigid body: the SubADMM papers' default for free bodies.
std::unique_ptr<Partitioner> makeOneBodyPerSubsystemPartitioner();
/// Consecutive dynamic bodies grouped `group_size` at a time (cable segments).
std::unique_ptr<Partitioner> makeGroupedPartitioner(int group_size);

}  // namespace subsim
