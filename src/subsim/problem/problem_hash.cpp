#include "subsim/problem/problem_hash.hpp"

#include <bit>
#include <cstddef>
#include <vector>

namespace subsim {
namespace {

class Fnv1a64 {
 public:
  // Bytes are fed least significant first whatever the host's byte order, so a hash stored in a
  // file or a test log means the same on every machine.
  void add(std::uint64_t value) {
    for (int i = 0; i < 8; ++i) {
      hash_ ^= (value >> (8 * i)) & 0xffu;
      hash_ *= 0x100000001b3ull;
    }
  }
  // Signed values are sign-extended, so distinct ints stay distinct 64-bit words.
  void add(int value) { add(static_cast<std::uint64_t>(static_cast<std::int64_t>(value))); }
  void add(double value) { add(std::bit_cast<std::uint64_t>(value)); }
  // The length first: without it [1, 2] + [3] and [1] + [2, 3] would hash alike.
  void addSize(std::size_t size) { add(static_cast<std::uint64_t>(size)); }
  void add(const std::vector<double>& values) {
    addSize(values.size());
    for (double v : values) add(v);
  }
  void add(const VecX& values) {
    addSize(static_cast<std::size_t>(values.size()));
    for (Eigen::Index i = 0; i < values.size(); ++i) add(values[i]);
  }

  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

}  // namespace

std::uint64_t problemHash(const StepProblem& p) {
  Fnv1a64 h;
  h.add(p.dt);
  h.addSize(p.subsystems.size());
  for (const Subsystem& s : p.subsystems) {
    h.add(s.dof);
    h.add(s.dof_offset);
    h.add(s.a_offset);
  }
  h.add(p.a_data);
  h.add(p.b);
  h.addSize(p.constraints.size());
  for (const Constraint& c : p.constraints) {
    h.add(static_cast<int>(c.type));
    h.add(c.rows);
    h.add(c.row_offset);
    h.add(c.first_attachment);
    h.add(c.num_attachments);
    h.add(c.mu);
    h.add(c.key);
  }
  h.addSize(p.attachments.size());
  for (const Attachment& a : p.attachments) {
    h.add(a.subsystem);
    h.add(a.rows);
    h.add(a.dof);
    h.add(a.j_offset);
  }
  h.add(p.jacobian_data);
  h.add(p.e);
  h.add(p.soft_k);
  h.add(p.soft_c);
  return h.value();
}

std::uint64_t solutionHash(const StepSolution& warm_start) {
  Fnv1a64 h;
  h.add(warm_start.vhat);
  h.add(warm_start.lambda);
  return h.value();
}

}  // namespace subsim
