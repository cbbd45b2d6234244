// The tet-mesh readers (Gmsh .msh, TetGen .node + .ele): any bytes are a TetMesh or a SceneError
// naming the file and line.  The first byte picks the format; for TetGen the rest is split at the
// first NUL into the .node and the .ele text.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fuzz_input.hpp"
#include "subsim/io/scene_file.hpp"
#include "subsim/io/tet_mesh_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool gmsh = (data[0] & 1) != 0;
  ++data;
  --size;
  try {
    if (gmsh) {
      subsim::readGmshMesh(subsim::fuzz::writeInput(data, size, ".msh"));
    } else {
      const void* nul = std::memchr(data, 0, size);
      const std::size_t node_size =
          nul != nullptr ? static_cast<std::size_t>(static_cast<const std::uint8_t*>(nul) - data)
                         : size;
      const std::size_t ele_offset = nul != nullptr ? node_size + 1 : size;
      subsim::readTetgenMesh(
          subsim::fuzz::writeInput(data, node_size, ".node"),
          subsim::fuzz::writeInput(data + ele_offset, size - ele_offset, ".ele"));
    }
  } catch (const subsim::SceneError&) {
  }
  return 0;
}
