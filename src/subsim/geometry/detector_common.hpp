#pragma once
// Internal to the collision detectors: the narrow-phase step they share, so that both produce
// exactly the same points for the same pair.
#include <vector>

#include "subsim/geometry/box_box_subcontacts.hpp"
#include "subsim/geometry/collide_sdf.hpp"
#include "subsim/geometry/collision_detector.hpp"
#include "subsim/geometry/narrow_phase.hpp"

namespace subsim::detail {

/// Two immovable objects never need contact (nothing can respond to it).
inline bool eitherMovable(const CollisionObject& a, const CollisionObject& b) {
  return a.movable || b.movable;
}

/// Narrow phase of objects a < b with the sum of their margins, appended to `out` with
/// object_a = a so that normals point from b towards a.
/// `threads` serve a signed distance pair's triangle search (collideSignedDistance): one pair of
/// the bolt and nut is most of its step.  Across pairs the sweep-and-prune detector splits large
/// pair lists into contiguous chunks itself (and passes 1 here then).
inline void appendPairContacts(const std::vector<CollisionObject>& objects, int a, int b,
                               ContactManifold& manifold, std::vector<ContactPoint>& out,
                               int threads = 1) {
  const CollisionObject& oa = objects[static_cast<std::size_t>(a)];
  const CollisionObject& ob = objects[static_cast<std::size_t>(b)];
  if ((oa.subcontacts || ob.subcontacts) && oa.shape.type == ShapeType::Box &&
      ob.shape.type == ShapeType::Box) {
    collideBoxBoxSubcontacts(oa.shape, oa.pose, ob.shape, ob.pose, oa.margin + ob.margin, a, b,
                             out);
    return;
  }
  if (oa.shape.type == ShapeType::SignedDistance || ob.shape.type == ShapeType::SignedDistance) {
    thread_local std::vector<ManifoldPoint> points;
    collideSignedDistance(oa.shape, oa.pose, ob.shape, ob.pose, oa.margin + ob.margin,
                          kSignedDistanceContactCap, points, threads);
    for (const ManifoldPoint& p : points) out.push_back(ContactPoint{a, b, p});
    return;
  }
  collideShapes(oa.shape, oa.pose, ob.shape, ob.pose, oa.margin + ob.margin, manifold);
  for (int i = 0; i < manifold.count; ++i) {
    out.push_back(ContactPoint{a, b, manifold.points[static_cast<std::size_t>(i)]});
  }
}

}  // namespace subsim::detail
