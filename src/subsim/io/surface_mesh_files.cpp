#include "subsim/io/surface_mesh_files.hpp"

#include <tiny_obj_loader.h>

#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace subsim {

TriangleSurface loadSurfaceMesh(const std::string& path, double scale) {
  const auto fail = [&](const std::string& what) {
    throw std::runtime_error("cannot read surface mesh '" + path + "': " + what);
  };
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(path, config)) {
    std::string error = reader.Error();
    while (!error.empty() && (error.back() == '\n' || error.back() == ' ')) error.pop_back();
    fail(error.empty() ? "not a Wavefront OBJ file" : error);
  }
  const auto& positions = reader.GetAttrib().vertices;
  TriangleSurface s;
  for (std::size_t i = 0; i + 2 < positions.size(); i += 3) {
    const Vec3 v(positions[i], positions[i + 1], positions[i + 2]);
    if (!v.allFinite()) fail("vertex " + std::to_string(i / 3 + 1) + " is not finite");
    s.vertices.push_back(scale * v);
  }
  const int nv = static_cast<int>(s.vertices.size());
  for (const tinyobj::shape_t& shape : reader.GetShapes()) {
    const auto& indices = shape.mesh.indices;
    std::size_t first = 0;
    for (const unsigned char corners : shape.mesh.num_face_vertices) {
      if (corners != 3) fail("a face of " + std::to_string(corners) + " vertices");
      std::array<int, 3> t{};
      for (int k = 0; k < 3; ++k) {
        t[k] = indices[first + static_cast<std::size_t>(k)].vertex_index;
        if (t[k] < 0 || t[k] >= nv)
          fail("a face names vertex " + std::to_string(t[k] + 1) + " of " + std::to_string(nv));
      }
      s.triangles.push_back(t);
      first += corners;
    }
  }
  if (s.triangles.empty()) fail("no faces (expected `f` lines of a closed surface)");
  return s;
}

}  // namespace subsim
