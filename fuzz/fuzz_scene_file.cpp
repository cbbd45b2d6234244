// The YAML scene reader: any text is a Model or a SceneError naming the field, never a crash, a
// hang or another exception.  The Model is also turned into a World and stepped once, so the
// reader's checks cover what the simulator assumes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "subsim/io/scene_file.hpp"
#include "subsim/sim/world.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    subsim::SceneFile scene = subsim::parseScene(text, "fuzz.yaml");
    subsim::World world(std::move(scene.model));
    world.step();
  } catch (const subsim::SceneError&) {
  }
  return 0;
}
