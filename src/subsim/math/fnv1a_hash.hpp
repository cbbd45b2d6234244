#pragma once
// FNV-1a (64-bit) over the bit patterns of numbers: equal inputs hash equal, bit for bit, so the
// hashes certify determinism (State::hash) and identical solver input (problem/problem_hash.hpp).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "subsim/math/types.hpp"

namespace subsim {

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
  void add(const DoubleBuffer& values) {
    addSize(values.size());
    for (double v : values) add(v);
  }
  void add(const std::vector<int>& values) {
    addSize(values.size());
    for (int v : values) add(v);
  }
  void add(const VecX& values) {
    addSize(static_cast<std::size_t>(values.size()));
    for (Eigen::Index i = 0; i < values.size(); ++i) add(values[i]);
  }

  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

/// A 64-bit hash as 16 hexadecimal digits, as the command line and tests print it.
inline std::string hex64(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace subsim
