// Subsystem division (partition/partition.hpp): counts, DOF and offsets for a stack (one body per
// subsystem), robots (one subsystem each in generalised velocities), a cable (segments grouped
// four to a subsystem by Body::subsystem_group) and the grouped partitioner.
#include <gtest/gtest.h>

#include <stdexcept>

#include "subsim/partition/partition.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

namespace subsim {
namespace {

Partition partitionOf(const Model& m, const Partitioner& partitioner) {
  const Partition p = partitioner.partition(m);
  EXPECT_EQ(p.subsystem_of_body.size(), m.bodies.size());
  EXPECT_EQ(p.offset_in_subsystem.size(), m.bodies.size());
  EXPECT_EQ(static_cast<int>(p.bodies.size()), p.numSubsystems());
  EXPECT_EQ(static_cast<int>(p.robot_of_subsystem.size()), p.numSubsystems());
  EXPECT_EQ(static_cast<int>(p.piece_of_subsystem.size()), p.numSubsystems());
  return p;
}

TEST(Partition, StackIsOneSixDofSubsystemPerBox) {
  const Model m = buildScenario("stack:boxes=3").model;
  const Partition p = partitionOf(m, *makeOneBodyPerSubsystemPartitioner());
  ASSERT_EQ(p.numSubsystems(), 3);
  EXPECT_EQ(p.totalDof(), 18);
  int next = 0;
  for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b) {
    if (m.bodies[b].kind != BodyKind::Dynamic) {
      EXPECT_EQ(p.subsystem_of_body[b], -1) << m.bodies[b].name;
      continue;
    }
    EXPECT_EQ(p.subsystem_of_body[b], next) << m.bodies[b].name;
    EXPECT_EQ(p.offset_in_subsystem[b], 0);
    EXPECT_EQ(p.bodies[next], std::vector<int>{b});
    EXPECT_EQ(p.dofOf(next), 6);
    EXPECT_EQ(p.robot_of_subsystem[next], -1);
    ++next;
  }
  // The problem lays the subsystems out in order.
  World w(m);
  w.step();
  for (int s = 0; s < 3; ++s) EXPECT_EQ(w.lastProblem().subsystems[s].dof_offset, 6 * s);
}

TEST(Partition, EachRobotIsOneSubsystemInItsGeneralisedVelocities) {
  const Model m = buildScenario("quadrupeds:robots=2").model;
  const Partition p = partitionOf(m, *makeOneBodyPerSubsystemPartitioner());
  ASSERT_EQ(p.robot_subsystem.size(), 2u);
  int rigid = 0;
  for (int b = 0; b < static_cast<int>(m.bodies.size()); ++b)
    rigid += m.bodies[b].kind == BodyKind::Dynamic ? 1 : 0;
  EXPECT_EQ(p.numSubsystems(), rigid + 2) << "robots come after the rigid bodies";
  for (int r = 0; r < 2; ++r) {
    const int s = p.robot_subsystem[r];
    EXPECT_EQ(s, rigid + r);
    EXPECT_EQ(p.robot_of_subsystem[s], r);
    EXPECT_EQ(p.dofOf(s), m.robots[r].articulation.nv());
    EXPECT_EQ(p.dofOf(s), 18);
    EXPECT_TRUE(p.bodies[s].empty());
    for (int body : m.robots[r].link_body) {
      if (m.bodies[body].kind != BodyKind::Articulated) continue;
      EXPECT_EQ(p.subsystem_of_body[body], s);
      EXPECT_EQ(p.offset_in_subsystem[body], -1) << "a link maps through its Jacobian";
    }
  }
}

TEST(Partition, CableSegmentsShareSubsystemsFourByFour) {
  const Model m = buildScenario("cable:segments=16").model;
  const Partition p = partitionOf(m, *makeOneBodyPerSubsystemPartitioner());
  int cable_subsystems = 0;
  for (int s = 0; s < p.numSubsystems(); ++s) {
    if (p.robot_of_subsystem[s] >= 0 || p.bodies[s].size() < 2) continue;
    ++cable_subsystems;
    ASSERT_EQ(p.bodies[s].size(), 4u) << "subsystem " << s;
    EXPECT_EQ(p.dofOf(s), 24);
    for (int k = 0; k < 4; ++k) {
      const int body = p.bodies[s][static_cast<size_t>(k)];
      EXPECT_EQ(p.subsystem_of_body[body], s);
      EXPECT_EQ(p.offset_in_subsystem[body], 6 * k);
      EXPECT_EQ(m.bodies[body].subsystem_group, m.bodies[p.bodies[s][0]].subsystem_group);
    }
  }
  EXPECT_EQ(cable_subsystems, 4);
  EXPECT_EQ(p.robot_subsystem.size(), m.robots.size());
}

TEST(Partition, GroupedPartitionerTakesConsecutiveBodies) {
  const Model m = buildScenario("stack:boxes=7").model;
  const Partition p = partitionOf(m, *makeGroupedPartitioner(3));
  ASSERT_EQ(p.numSubsystems(), 3);
  EXPECT_EQ(p.dofOf(0), 18);
  EXPECT_EQ(p.dofOf(1), 18);
  EXPECT_EQ(p.dofOf(2), 6);
  EXPECT_EQ(p.totalDof(), 42);
  for (int s = 0; s < 3; ++s)
    for (size_t k = 0; k < p.bodies[s].size(); ++k)
      EXPECT_EQ(p.offset_in_subsystem[p.bodies[s][k]], 6 * static_cast<int>(k));
  EXPECT_THROW(makeGroupedPartitioner(0), std::invalid_argument);
}

}  // namespace
}  // namespace subsim
