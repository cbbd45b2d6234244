#pragma once
// Tetrahedral mesh files (docs/mesh-formats.md): TetGen .node/.ele and Gmsh MSH 2.2 / 4.1 ASCII.
//
// Every reader swaps nodes 2 and 3 of a tet with negative signed volume (some exporters write
// the opposite orientation), then requires the mesh to pass checkTetMesh().  Bad input of any
// kind is a SceneError "FILE: FIELD: what was expected, got ... (line N)".
#include <string>

#include "subsim/fem/tet_mesh.hpp"
#include "subsim/io/scene_file.hpp"

namespace subsim {

/// A TetGen mesh: `node_path` (.node) and `ele_path` (.ele).  Node numbering starts at the first
/// node's index (0 or 1), as in TetGen; 10-node tets are read as their 4 corner nodes.
TetMesh readTetgenMesh(const std::string& node_path, const std::string& ele_path);

/// A Gmsh MSH file, ASCII version 2.2 or 4.1.  Only 4-node tetrahedra (element type 4) are read;
/// other elements are ignored, and nodes no tet uses are dropped.  Nodes keep the file's order.
TetMesh readGmshMesh(const std::string& path);

/// By extension: ".msh" Gmsh; ".node" or ".ele" TetGen, with the sibling file of the same stem.
TetMesh loadTetMesh(const std::string& path);

}  // namespace subsim
