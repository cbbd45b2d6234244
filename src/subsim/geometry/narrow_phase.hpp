#pragma once
// Exact narrow phase between every pair of primitive shapes.
#include "subsim/geometry/contact_point.hpp"
#include "subsim/geometry/shape.hpp"

namespace subsim {

/// Fills `out` with the contact points between shape `a` at `pose_a` and shape `b` at `pose_b`
/// whose gap is below `margin` (contacts are generated before touching so that constraints are
/// preventive).  Normals point from b towards a.  Either order of shape types is accepted.
/// Plane-plane gives no contact.  A signed distance shape's pair gives the first kCapacity of its
/// clustered points (collide_sdf.hpp; the detectors take up to kSignedDistanceContactCap).
void collideShapes(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                   double margin, ContactManifold& out);

}  // namespace subsim
