#pragma once
// A soft finger's tetrahedral mesh: a block hanging from its base that narrows towards its tip,
// the shape of the silicone fingers of the COND paper's soft gripper (section V-C6).
#include "subsim/fem/tet_mesh.hpp"
#include "subsim/math/types.hpp"

namespace subsim {

struct FingerShape {
  double thickness = 0.016;  // m, along x: the gripping faces are the x = +-thickness / 2 planes
  double width = 0.024;      // m, along y at the base
  double length = 0.08;      // m, along -z: the base at z = 0, the tip at z = -length
  /// The tip's width over the base's (the width narrows linearly along the finger).
  double tip_width_ratio = 0.6;
};

/// The finger cut into `cells_along` cells along its length and as many across as keep them
/// about cubic (at least one), each split into 6 tets as boxTetMesh's: a box mesh whose
/// y coordinates are scaled by the width profile, which keeps every tet positively oriented and
/// the gripping faces flat.  Throws std::invalid_argument naming the field for a non-positive or
/// non-finite size, a tip_width_ratio outside (0, 1] or cells_along below 1.
TetMesh fingerTetMesh(const FingerShape& shape, int cells_along);

}  // namespace subsim
