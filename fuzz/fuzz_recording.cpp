// The HDF5 recording reader: any bytes are a Recording or a std::runtime_error naming the file
// and the object, never a crash.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "fuzz_input.hpp"
#include "subsim/sim/recorder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    subsim::readRecording(subsim::fuzz::writeInput(data, size, ".h5"));
  } catch (const std::runtime_error&) {
  }
  return 0;
}
