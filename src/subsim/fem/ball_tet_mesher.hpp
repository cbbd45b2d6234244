#pragma once
// A tetrahedral mesh of a ball, for the COND paper's soft-ball scene and simple round bodies.
#include "subsim/fem/tet_mesh.hpp"

namespace subsim {

/// The ball of `radius` (metres) centred at the origin: the Kuhn-split grid of a cube with
/// `cells` cells per edge (box_tet_mesher.hpp), mapped radially onto the ball by
/// x = radius p ||p||_inf / ||p||_2 for p in the cube [-1, 1]^3, which takes the cube's surface
/// onto the sphere and keeps every tet positively oriented.  Nodes (cells + 1)^3, tets 6 cells^3;
/// cells = 10 gives 1331 nodes and 6000 tets (the paper's ball: 1463 and 6928).
/// Throws std::invalid_argument for a radius that is not positive and finite or fewer than 2
/// cells.
TetMesh ballTetMesh(double radius, int cells);

}  // namespace subsim
