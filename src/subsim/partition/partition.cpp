#include "subsim/partition/partition.hpp"

#include <stdexcept>

namespace subsim {

int Partition::totalDof() const {
  int n = 0;
  for (int s = 0; s < numSubsystems(); ++s) n += dofOf(s);
  return n;
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
      p.subsystem_of_body[b] = p.numSubsystems() - 1;
      p.offset_in_subsystem[b] = 6 * static_cast<int>(p.bodies.back().size());
      p.bodies.back().push_back(b);
    }
    return p;
  }

 private:
  int group_size_;
};

}  // namespace

std::unique_ptr<Partitioner> makeOneBodyPerSubsystemPartitioner() {
  return std::make_unique<GroupedPartitioner>(1);
}
std::unique_ptr<Partitioner> makeGroupedPartitioner(int group_size) {
  return std::make_unique<GroupedPartitioner>(group_size);
}

}  // namespace subsim
