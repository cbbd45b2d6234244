#include "subsim/fem/finger_tet_mesher.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "subsim/fem/box_tet_mesher.hpp"

namespace subsim {

TetMesh fingerTetMesh(const FingerShape& shape, int cells_along) {
  const auto require = [](bool ok, const char* field, const char* expected) {
    if (!ok)
      throw std::invalid_argument(std::string("fingerTetMesh: ") + field + ": expected " +
                                  expected);
  };
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  require(positive(shape.thickness), "thickness", "a positive length in m");
  require(positive(shape.width), "width", "a positive length in m");
  require(positive(shape.length), "length", "a positive length in m");
  require(shape.tip_width_ratio > 0.0 && shape.tip_width_ratio <= 1.0, "tip_width_ratio",
          "a ratio in (0, 1]");
  require(cells_along >= 1, "cells_along", "at least 1");
  const double cell = shape.length / cells_along;
  const auto across = [&](double extent) {
    return std::max(1, static_cast<int>(std::lround(extent / cell)));
  };
  TetMesh mesh = boxTetMesh(Vec3(shape.thickness, shape.width, shape.length),
                            across(shape.thickness), across(shape.width), cells_along);
  for (Vec3& x : mesh.nodes) {
    x.z() -= 0.5 * shape.length;  // base at z = 0, tip at -length
    const double along = -x.z() / shape.length;
    x.y() *= 1.0 - (1.0 - shape.tip_width_ratio) * along;
  }
  return mesh;
}

}  // namespace subsim
