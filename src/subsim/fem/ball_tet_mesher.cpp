#include "subsim/fem/ball_tet_mesher.hpp"

#include <cmath>
#include <stdexcept>

#include "subsim/fem/box_tet_mesher.hpp"

namespace subsim {

TetMesh ballTetMesh(double radius, int cells) {
  if (!(radius > 0.0) || !std::isfinite(radius))
    throw std::invalid_argument("ballTetMesh: radius must be positive and finite");
  if (cells < 2) throw std::invalid_argument("ballTetMesh: cells must be >= 2");
  TetMesh mesh = boxTetMesh(Vec3(2.0, 2.0, 2.0), cells, cells, cells);
  for (Vec3& x : mesh.nodes) {
    const double norm = x.norm();
    if (norm > 0.0) x *= radius * x.cwiseAbs().maxCoeff() / norm;
  }
  return mesh;
}

}  // namespace subsim
