#pragma once
// A tetrahedral mesh: the rest configuration of a deformable body (FEM, issue 5).
//
// Conventions: node positions in metres; every tet (n0, n1, n2, n3) is positively oriented,
// det[x1 - x0, x2 - x0, x3 - x0] > 0 (six times its volume).  Readers and meshers produce meshes
// in this convention; checkTetMesh() verifies it.
#include <array>
#include <string>
#include <vector>

#include "subsim/math/types.hpp"

namespace subsim {

struct TetMesh {
  std::vector<Vec3> nodes;
  std::vector<std::array<int, 4>> tets;

  int numNodes() const { return static_cast<int>(nodes.size()); }
  int numTets() const { return static_cast<int>(tets.size()); }
};

/// Six times the signed volume of tet `t`: positive for the mesh convention.
double signedVolume6(const TetMesh& mesh, int t);

/// The first defect of the mesh as "tets[12]: ..." or "nodes[3]: ..." (empty when valid): no
/// nodes or tets, non-finite coordinates, node indices out of range or repeated within a tet,
/// inverted or degenerate tets (|6 V| below 1e-12 times the cube of the tet's longest edge),
/// nodes no tet uses.
std::string checkTetMesh(const TetMesh& mesh);

/// Appends `part`, moved by `offset`, to `mesh` (its node indices shifted past mesh's nodes): one
/// mesh of several disconnected bodies, e.g. a gripper's fingers as one deformable subsystem.
void appendTetMesh(TetMesh& mesh, const TetMesh& part, const Vec3& offset);

/// The boundary surface: every face that belongs to exactly one tet, as node triples ordered so
/// that the right-hand normal points out of the body.  Deterministic order (by tet, then face).
std::vector<std::array<int, 3>> boundaryTriangles(const TetMesh& mesh);

}  // namespace subsim
