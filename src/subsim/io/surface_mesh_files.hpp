#pragma once
// Closed triangle surfaces from Wavefront OBJ files (`v` vertices and `f` faces; polygons are
// fan-triangulated, normals, texture coordinates and materials ignored), read by tinyobjloader,
// for mesh shapes (geometry/mesh_grid_shape.hpp).  docs/mesh-formats.md.
#include <string>

#include "subsim/geometry/triangle_surface.hpp"

namespace subsim {

/// The surface of every object in the file, vertices multiplied by `scale` (the file's unit in
/// m).  std::runtime_error names the file and what is wrong (unreadable, malformed, no faces, a
/// face naming a missing vertex).  Closedness is the shape's to check.
TriangleSurface loadSurfaceMesh(const std::string& path, double scale = 1.0);

}  // namespace subsim
