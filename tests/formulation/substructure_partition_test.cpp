// Substructure partitions (formulation/substructure_partition.hpp): every constrained body in
// exactly one group of at most n_max, every row internal to one group or on the interface, and
// the interface exactly the constraints that span groups.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "subsim/formulation/substructure_partition.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

void expectValidPartition(const StepProblem& p, const SubstructurePartition& part, int n_max,
                          const std::string& who) {
  // Bodies: constrained ones in exactly one group, sizes within n_max and as counted.
  std::vector<char> constrained(p.numSubsystems(), 0);
  for (const Attachment& a : p.attachments) constrained[a.subsystem] = 1;
  std::vector<int> size(part.num_groups, 0);
  for (int i = 0; i < p.numSubsystems(); ++i) {
    if (!constrained[i]) {
      EXPECT_EQ(part.group[i], -1) << who;
      continue;
    }
    ASSERT_GE(part.group[i], 0) << who << " subsystem " << i;
    ASSERT_LT(part.group[i], part.num_groups) << who;
    ++size[part.group[i]];
  }
  for (int g = 0; g < part.num_groups; ++g) {
    EXPECT_GE(size[g], 1) << who << " group " << g;
    EXPECT_LE(size[g], n_max) << who << " group " << g;
    EXPECT_EQ(size[g], part.group_size[g]) << who;
  }
  // Constraints: internal ones have all their subsystems in their group, interface ones span two.
  std::vector<int> row_owner(p.numRows(), -2);
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    std::set<int> groups;
    for (int a = 0; a < c.num_attachments; ++a)
      groups.insert(part.group[p.attachments[c.first_attachment + a].subsystem]);
    if (part.constraint_group[j] >= 0) {
      EXPECT_EQ(groups, std::set<int>{part.constraint_group[j]}) << who << " constraint " << j;
    } else {
      EXPECT_GE(groups.size(), 2u) << who << " constraint " << j;
    }
  }
  // Rows: each exactly once, internal rows in their constraint's group, increasing.
  for (int g = 0; g < part.num_groups; ++g)
    for (int q = part.row_begin[g]; q < part.row_begin[g + 1]; ++q) {
      EXPECT_EQ(row_owner[part.rows[q]], -2) << who;
      row_owner[part.rows[q]] = g;
      if (q > part.row_begin[g]) {
        EXPECT_LT(part.rows[q - 1], part.rows[q]) << who;
      }
    }
  for (int r : part.interface_rows) {
    EXPECT_EQ(row_owner[r], -2) << who;
    row_owner[r] = -1;
  }
  for (int j = 0; j < p.numConstraints(); ++j)
    for (int r = 0; r < p.constraints[j].rows; ++r)
      EXPECT_EQ(row_owner[p.constraints[j].row_offset + r], part.constraint_group[j]) << who;
}

TEST(SubstructurePartition, MinimumDegreeGroupsAreValidOnPilesAndChains) {
  const std::pair<const char*, int> scenes[] = {
      {"granular:spheres=125", 40}, {"stack:boxes=10", 40}, {"pendulum:links=50,load=100", 5}};
  for (const auto& [spec, steps] : scenes) {
    World w = test::worldAfter(spec, steps);
    const StepProblem& p = w.lastProblem();
    ASSERT_GT(p.numConstraints(), 0) << spec;
    for (int n_max : {1, 3, 8, 16, 64}) {
      SubstructurePartition part;
      partitionSubstructures(p, PartitionMethod::MinimumDegree, n_max, part);
      expectValidPartition(p, part, n_max, std::string(spec) + " n_max " + std::to_string(n_max));
      partitionSubstructures(p, PartitionMethod::Sequential, n_max, part);
      expectValidPartition(p, part, n_max, std::string(spec) + " sequential");
    }
  }
}

TEST(SubstructurePartition, SemanticGroupsAreTheDeclaredSubstructures) {
  // A 10-link pendulum with links 0-3 declared as substructure 5 and links 6-7 as 2: one group
  // each in order of first appearance, whatever n_max; the undeclared links 4, 5, 8 and 9
  // follow in index order, n_max = 3 at a time.
  Model m = buildScenario("pendulum:links=10").model;
  for (int k = 0; k < 10; ++k) {
    Body& b = m.bodies[m.findBody("link" + std::to_string(k))];
    b.substructure = k < 4 ? 5 : (k == 6 || k == 7) ? 2 : -1;
  }
  WorldSettings ws;
  World w(std::move(m), ws);
  w.step();
  const StepProblem& p = w.lastProblem();
  SubstructurePartition part;
  partitionSubstructures(p, PartitionMethod::Semantic, 3, part);
  expectValidPartition(p, part, 4, "semantic");
  ASSERT_EQ(part.num_groups, 4);
  const std::vector<int> sizes = {4, 2, 3, 1};
  EXPECT_EQ(part.group_size, sizes);
  const auto groupOf = [&](int link) {
    const Body& b = w.model().bodies[w.model().findBody("link" + std::to_string(link))];
    for (int s = 0; s < p.numSubsystems(); ++s)
      if (p.subsystems[s].substructure == b.substructure && b.substructure >= 0)
        return part.group[s];
    return -2;
  };
  EXPECT_EQ(groupOf(0), 0);
  EXPECT_EQ(groupOf(6), 1);
  // Without declarations semantic is the sequential partition.
  World plain = test::worldAfter("pendulum:links=10", 1);
  SubstructurePartition semantic, sequential;
  partitionSubstructures(plain.lastProblem(), PartitionMethod::Semantic, 3, semantic);
  partitionSubstructures(plain.lastProblem(), PartitionMethod::Sequential, 3, sequential);
  EXPECT_EQ(semantic.group, sequential.group);
}

TEST(SubstructurePartition, TheTruckIsOneGroupAndEachNetLineAnother) {
  World w = test::worldAfter("nettruck:cells=4", 1);
  const StepProblem& p = w.lastProblem();
  SubstructurePartition part;
  partitionSubstructures(p, PartitionMethod::Semantic, 16, part);
  expectValidPartition(p, part, 22, "nettruck");
  // The truck's 22 bodies, then 2 (cells - 1) = 6 lines of cells x 2 = 8 links.
  ASSERT_EQ(part.num_groups, 7);
  EXPECT_EQ(part.group_size[0], 22);
  for (int g = 1; g < 7; ++g) EXPECT_EQ(part.group_size[g], 8) << g;
}

TEST(SubstructurePartition, AChainIsCutIntoRunsOfNeighbours) {
  // A 48-link chain's constraint graph is a path: min-degree seeds at an end (degree 1) and
  // grows along it, so the groups are consecutive runs of n_max links and the interface is the
  // joints between runs.
  World w = test::worldAfter("pendulum:links=48", 1);
  const StepProblem& p = w.lastProblem();
  SubstructurePartition part;
  partitionSubstructures(p, PartitionMethod::MinimumDegree, 8, part);
  EXPECT_EQ(part.num_groups, 6);
  for (int g = 0; g < part.num_groups; ++g) EXPECT_EQ(part.group_size[g], 8);
  EXPECT_EQ(part.numInterfaceRows(), 5 * 3);  // five ball joints of three rows
  SubstructurePartition one;
  partitionSubstructures(p, PartitionMethod::Single, 8, one);
  EXPECT_EQ(one.num_groups, 1);
  EXPECT_EQ(one.numInterfaceRows(), 0);
}

}  // namespace
}  // namespace subsim
