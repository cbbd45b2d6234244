#include "subsim/partition/partition.hpp"

#include <map>
#include <stdexcept>

namespace subsim {

int Partition::totalDof() const {
  int n = 0;
  for (int s = 0; s < numSubsystems(); ++s) n += dofOf(s);
  return n;
}

void Partition::addRobotsAndDeformables(const Model& model) {
  piece_of_subsystem.assign(numSubsystems(), -1);
  robot_subsystem.clear();
  for (size_t r = 0; r < model.robots.size(); ++r) {
    const Robot& robot = model.robots[r];
    const int s = numSubsystems();
    bodies.emplace_back();
    subsystem_dof.push_back(robot.articulation.nv());
    robot_of_subsystem.push_back(static_cast<int>(r));
    robot_subsystem.push_back(s);
    for (int b : robot.link_body) {
      if (model.bodies[b].kind != BodyKind::Articulated) continue;  // welded to the world
      subsystem_of_body[b] = s;
      offset_in_subsystem[b] = -1;
    }
    piece_of_subsystem.push_back(-1);
  }
  piece_subsystem.clear();
  for (const DeformableBody& d : model.deformables)
    for (const FemPiece& piece : d.piece) {
      piece_of_subsystem.push_back(static_cast<int>(piece_subsystem.size()));
      piece_subsystem.push_back(numSubsystems());
      bodies.emplace_back();
      subsystem_dof.push_back(piece.fem.numDof());
      robot_of_subsystem.push_back(-1);
    }
}

namespace {

class GroupedPartitioner final : public Partitioner {
 public:
  explicit GroupedPartitioner(int group_size) : group_size_(group_size) {
    if (group_size < 1) throw std::invalid_argument("partition group size must be >= 1");
  }
  std::string_view name() const override { return group_size_ == 1 ? "per-body" : "grouped"; }
  Partition partition(const Model& model) const override {
    Partition p;
    const int n = static_cast<int>(model.bodies.size());
    p.subsystem_of_body.assign(n, -1);
    p.offset_in_subsystem.assign(n, 0);
    for (int b = 0; b < n; ++b) {
      if (model.bodies[b].kind != BodyKind::Dynamic) continue;
      if (p.bodies.empty() || static_cast<int>(p.bodies.back().size()) == group_size_)
        p.bodies.emplace_back();
      p.subsystem_of_body[b] = static_cast<int>(p.bodies.size()) - 1;
      p.offset_in_subsystem[b] = 6 * static_cast<int>(p.bodies.back().size());
      p.bodies.back().push_back(b);
    }
    for (const std::vector<int>& group : p.bodies) {
      p.subsystem_dof.push_back(6 * static_cast<int>(group.size()));
      p.robot_of_subsystem.push_back(-1);
    }
    p.addRobotsAndDeformables(model);
    return p;
  }

 private:
  int group_size_;
};

class BodyGroupPartitioner final : public Partitioner {
 public:
  std::string_view name() const override { return "per-body"; }
  Partition partition(const Model& model) const override {
    Partition p;
    const int n = static_cast<int>(model.bodies.size());
    p.subsystem_of_body.assign(n, -1);
    p.offset_in_subsystem.assign(n, 0);
    std::map<int, int> group_subsystem;
    for (int b = 0; b < n; ++b) {
      const Body& body = model.bodies[b];
      if (body.kind != BodyKind::Dynamic) continue;
      int s = -1;
      if (body.subsystem_group >= 0) {
        const auto it = group_subsystem.find(body.subsystem_group);
        if (it != group_subsystem.end()) s = it->second;
      }
      if (s < 0) {
        s = static_cast<int>(p.bodies.size());
        p.bodies.emplace_back();
        if (body.subsystem_group >= 0) group_subsystem[body.subsystem_group] = s;
      }
      p.subsystem_of_body[b] = s;
      p.offset_in_subsystem[b] = 6 * static_cast<int>(p.bodies[s].size());
      p.bodies[s].push_back(b);
    }
    for (const std::vector<int>& group : p.bodies) {
      p.subsystem_dof.push_back(6 * static_cast<int>(group.size()));
      p.robot_of_subsystem.push_back(-1);
    }
    p.addRobotsAndDeformables(model);
    return p;
  }
};

}  // namespace

std::unique_ptr<Partitioner> makeOneBodyPerSubsystemPartitioner() {
  return std::make_unique<BodyGroupPartitioner>();
}
std::unique_ptr<Partitioner> makeGroupedPartitioner(int group_size) {
  return std::make_unique<GroupedPartitioner>(group_size);
}

}  // namespace subsim
