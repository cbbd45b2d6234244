#pragma once
// Substructures of a step for the schur paper's solvers (Peiret et al. 2019, section 4): the
// StepProblem's subsystems (its bodies) are grouped into non-overlapping substructures; a
// constraint whose subsystems all lie in one group is internal to it, any other belongs to the
// interface Gamma that couples the groups.
//
// Minimum-degree partitioning (the paper's Algorithm 2, re-run every step): bodies are the nodes
// of the constraint graph, constraints its edges, and a body's degree counts its neighbours not
// yet in a group.  While more than n_max bodies are left: the body of least degree seeds a group,
// which grows by the least-degree unassigned neighbour of its members until it holds n_max
// bodies or has no unassigned neighbour; unassigned neighbours whose degree has fallen to zero
// (orphans: every neighbour is in a group) join it while it has room.  The cases the paper
// leaves open are decided so:
//   ties          the lowest subsystem index (deterministic);
//   leftover      the last n_max or fewer bodies form the last group, connected or not;
//   islands       a seed whose neighbours are all assigned (degree 0: an orphan that found no
//                 room) joins the group of its first neighbour if that has room, else starts one;
//   static bodies are not subsystems: a constraint to the world or to a kinematic body has one
//                 subsystem and is internal to its group;
//   free bodies   (a subsystem no constraint touches) belong to no group: they have no rows.
// Sequential partitioning (a semantic partition for chains, cables and nets built in order):
// the constrained subsystems in index order, n_max at a time.  Semantic partitioning (the paper's
// "user defined" one): the substructures the scene declares (Subsystem::substructure, from
// Body::substructure), one group each whatever its size, in order of first appearance; the
// constrained subsystems a scene leaves undeclared follow in index order, n_max at a time, as in
// the sequential one.  One group: every constraint is internal, which is the whole-system solve.
#include <cstdint>
#include <vector>

#include "subsim/problem/step_problem.hpp"

namespace subsim {

enum class PartitionMethod : std::uint8_t { MinimumDegree, Sequential, Semantic, Single };

struct SubstructurePartition {
  std::vector<int> group;  // per subsystem: its group, -1 when no constraint touches it
  int num_groups = 0;
  std::vector<int> constraint_group;  // per constraint: its group, -1 on the interface
  /// Internal rows of group g: rows[row_begin[g] .. row_begin[g + 1]), increasing.
  std::vector<int> row_begin, rows;
  std::vector<int> interface_rows;  // increasing
  std::vector<int> group_size;      // bodies per group

  int numInterfaceRows() const { return static_cast<int>(interface_rows.size()); }
};

/// Partitions `problem`'s subsystems (n_max >= 1 bodies per group at most) and classifies its
/// constraints and rows.  The workspace vectors of `out` are reused.
void partitionSubstructures(const StepProblem& problem, PartitionMethod method, int n_max,
                            SubstructurePartition& out);

}  // namespace subsim
