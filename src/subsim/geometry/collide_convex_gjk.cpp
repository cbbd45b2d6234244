// Generic convex pair by GJK + EPA: exact for any two bounded convex shapes, but a single point,
// so the pairs that rely on it (box-cylinder, cylinder-cylinder) have no manifold to rest flat on.
#include "subsim/geometry/gjk_epa.hpp"
#include "subsim/geometry/narrow_phase_pairs.hpp"

namespace subsim::detail {

void collideConvexGjk(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, double margin,
                      ContactManifold& out) {
  ConvexContact c;
  if (convexContact(a, pa, b, pb, margin, c)) {
    out.add(0.5 * (c.point_a + c.point_b), c.normal, c.gap, 0);
  }
}

}  // namespace subsim::detail
