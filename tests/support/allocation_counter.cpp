// Counting global allocator for the no-allocation tests (allocation_count.hpp): every operator new
// in a test binary that links this file is counted, so a test can assert that a solver's iteration
// loop, or a whole World::step, allocates nothing.
#include <atomic>
#include <cstdlib>
#include <new>

#include "support/allocation_count.hpp"

namespace {
std::atomic<long> g_allocations{0};
}

void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// GCC cannot see that these pair with the malloc-based operator new above.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop

namespace subsim::test {
long allocationCount() {
  return g_allocations.load();
}
}  // namespace subsim::test
