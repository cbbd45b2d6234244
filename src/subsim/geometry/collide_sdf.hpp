#pragma once
// Contact with signed distance shapes (signed_distance_shape.hpp), the AL paper's way (Sec.
// VII-A): for every triangle of one shape's surface, Frank-Wolfe finds the point of the triangle
// deepest in the other shape's distance field; those below the margin are contacts, clustered
// when there are more than a cap (the paper's 120).  A pair of two such shapes is searched both
// ways (or one way, where one field does not serve: servesAsField); an analytic shape is the field
// side, its own distance function serving; a sphere against a field is exact (one point).
#include <vector>

#include "subsim/geometry/contact_point.hpp"
#include "subsim/geometry/shape.hpp"

namespace subsim {

/// The paper's cap on one pair's contacts ("empirically found to be impractical" above it).
inline constexpr int kSignedDistanceContactCap = 120;

/// Contacts of a pair of which at least one shape is ShapeType::SignedDistance (and neither is a
/// plane against a plane), normals from b towards a, gap < margin, at most `cap` points, in a
/// deterministic order (deepest first).  `out` is cleared first.  The triangles are searched on
/// `threads` OpenMP threads (0: OpenMP's default), with the same result for any count.
void collideSignedDistance(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                           double margin, int cap, std::vector<ManifoldPoint>& out,
                           int threads = 1);

/// The deepest point of the triangle (v0, v1, v2) in the field of `field` (any shape type but a
/// plane's unbounded use is fine too), everything in the field shape's own frame, by Frank-Wolfe
/// from the centroid with a halving line search.  Returns the signed distance; `point` and
/// `gradient` (the field's) are at the minimiser.
double frankWolfeTriangle(const Vec3& v0, const Vec3& v1, const Vec3& v2, const Shape& field,
                          Vec3& point, Vec3& gradient);

}  // namespace subsim
