// The URDF reader: any text is a robot or a SceneError naming the element, never a crash, a hang
// or another exception.  The first byte picks a fixed or floating base.
#include <cstddef>
#include <cstdint>
#include <string>

#include "subsim/io/urdf_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool floating_base = (data[0] & 1) != 0;
  const std::string xml(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    subsim::loadUrdfString(xml, "fuzz.urdf", floating_base);
  } catch (const subsim::SceneError&) {
  }
  return 0;
}
