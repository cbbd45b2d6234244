// Reduction of a face manifold to the four points that matter for support.
#include <algorithm>
#include <array>
#include <limits>

#include "subsim/geometry/narrow_phase_pairs.hpp"

namespace subsim::detail {

void reduceManifold(ContactManifold& m, int first) {
  const int n = m.count - first;
  if (n <= 4) return;
  const ManifoldPoint* c = m.points.data() + first;
  const auto argmax = [&](auto score) {
    int best = 0;
    double best_score = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < n; ++i) {
      const double s = score(i);
      if (s > best_score) {
        best_score = s;
        best = i;
      }
    }
    return best;
  };
  // The deepest point bounds the penetration; the others span the largest area so the support
  // polygon (and with it the resistance to tipping) is kept: farthest point, largest triangle,
  // largest growth of that triangle.
  const int i0 = argmax([&](int i) { return -c[i].gap; });
  const Vec3 p0 = c[i0].point;
  const int i1 = argmax([&](int i) { return (c[i].point - p0).squaredNorm(); });
  const Vec3 p1 = c[i1].point;
  const Vec3 e1 = p1 - p0;
  const int i2 = argmax([&](int i) { return e1.cross(c[i].point - p0).squaredNorm(); });
  const Vec3 p2 = c[i2].point;
  const Vec3 tri_normal = e1.cross(p2 - p0);
  const int i3 = argmax([&](int i) {
    // Area added outside the edges of the (oriented) triangle.
    const Vec3& q = c[i].point;
    const double s01 = tri_normal.dot((p1 - p0).cross(q - p0));
    const double s12 = tri_normal.dot((p2 - p1).cross(q - p1));
    const double s20 = tri_normal.dot((p0 - p2).cross(q - p2));
    return std::max(0.0, -s01) + std::max(0.0, -s12) + std::max(0.0, -s20);
  });
  std::array<int, 4> keep{i0, i1, i2, i3};
  std::sort(keep.begin(), keep.end());
  // In their original order, which follows the features and so is stable from step to step.
  std::array<ManifoldPoint, 4> kept;
  int k = 0;
  for (int i = 0; i < 4; ++i) {
    if (i == 0 || keep[i] != keep[i - 1]) kept[k++] = c[keep[i]];
  }
  for (int i = 0; i < k; ++i) m.points[first + i] = kept[i];
  m.count = first + k;
}

}  // namespace subsim::detail
