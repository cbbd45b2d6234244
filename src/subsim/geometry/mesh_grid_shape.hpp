#pragma once
// A closed triangle mesh as a signed distance shape: the AL paper's meshes (the nut, a bottle;
// Sec. VII) for Frank-Wolfe contact, with their field sampled on a grid.  The exact signed
// distance (nearest triangle, sign by the generalized winding number) is computed at every grid
// node once; queries interpolate it trilinearly, beyond the grid add the distance to it.  The
// surface itself is the mesh side of Frank-Wolfe (collide_sdf.hpp).
#include <array>
#include <vector>

#include "subsim/geometry/signed_distance_shape.hpp"

namespace subsim {

class MeshGridShape final : public SignedDistanceShape {
 public:
  /// `surface`: closed (every edge in exactly two triangles) and wound outward; `cell`: the grid
  /// spacing in m (the field's error is about cell^2 times its curvature, and at most a cell at
  /// edges and corners).  std::invalid_argument names what is wrong ("surface: ...",
  /// "cell: ...").  Building costs grid nodes x triangles point-triangle distances.
  MeshGridShape(TriangleSurface surface, double cell);

  std::string kind() const override { return "mesh"; }
  double distance(const Vec3& p, Vec3& gradient) const override;
  /// Each partial derivative of the trilinear interpolant blends node differences of at most a
  /// cell per cell: the slope is at most sqrt(3).
  double lipschitz() const override { return 1.7320508075688772; }

  /// The exact signed distance of `p` to `surface` (brute force over its triangles; the sign
  /// from the generalized winding number): what the grid samples, exposed for tests.
  static double exactDistance(const TriangleSurface& surface, const Vec3& p);

  double cell() const { return cell_; }
  const std::array<int, 3>& nodes() const { return nodes_; }

 private:
  double node(int i, int j, int k) const {
    return values_[static_cast<std::size_t>((k * nodes_[1] + j) * nodes_[0] + i)];
  }

  double cell_;
  Vec3 origin_;                 // the grid's first node
  std::array<int, 3> nodes_{};  // nodes along x, y, z
  std::vector<double> values_;
};

}  // namespace subsim
