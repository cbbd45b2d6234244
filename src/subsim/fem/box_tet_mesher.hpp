#pragma once
// A structured tetrahedral mesh of a box, for FEM tests and simple deformable bodies (issue 5).
#include "subsim/fem/tet_mesh.hpp"
#include "subsim/math/types.hpp"

namespace subsim {

/// Upper bound on the node count of boxTetMesh(): far above any interactive body, and low enough
/// that 3 * nodes and 6 * cells stay well inside int.
inline constexpr long long kMaxBoxMeshNodes = 10'000'000;

/// Index of grid node (i, j, k), 0 <= i <= nx, 0 <= j <= ny, 0 <= k <= nz, in boxTetMesh():
/// lexicographic with x fastest, then y, then z.
inline int boxNodeIndex(int nx, int ny, int i, int j, int k) {
  return i + (nx + 1) * (j + (ny + 1) * k);
}

/// The box of extents `size` (metres), centred at the origin and aligned with the axes, i.e.
/// [-sx/2, sx/2] x [-sy/2, sy/2] x [-sz/2, sz/2], cut into nx * ny * nz equal cells.
/// Each cell is split into 6 tets around its diagonal from the (-,-,-) corner to the (+,+,+)
/// corner (Kuhn / Freudenthal split): every cell face is cut along the diagonal joining its
/// lowest and highest corners, so the split conforms across cells without alternating patterns.
///
/// Nodes: (nx+1)(ny+1)(nz+1), ordered as boxNodeIndex(); tets: 6 nx ny nz, cell by cell in the
/// same lexicographic order, all positively oriented (tet_mesh.hpp).
/// Throws std::invalid_argument naming the argument for a non-positive or non-finite size, a
/// count below 1 or a node count above kMaxBoxMeshNodes.
TetMesh boxTetMesh(const Vec3& size, int nx, int ny, int nz);

}  // namespace subsim
