#pragma once
// The counting global operator new of the no-allocation tests (allocation_counter.cpp): a test
// binary that calls allocationCount() links it, and then every operator new in that binary is
// counted, so that a test can assert that a stretch of code allocates nothing.

namespace subsim::test {

/// operator new calls so far in this test binary.
long allocationCount();

}  // namespace subsim::test
