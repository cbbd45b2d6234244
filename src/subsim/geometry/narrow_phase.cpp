// collideShapes: dispatch on the (unordered) pair of shape types to one pair function.
#include "subsim/geometry/narrow_phase.hpp"

#include <vector>

#include "subsim/geometry/collide_sdf.hpp"
#include "subsim/geometry/narrow_phase_pairs.hpp"

namespace subsim {

namespace {

using PairFn = void (*)(const Shape&, const Pose&, const Shape&, const Pose&, double,
                        ContactManifold&);

// Indexed [lower type][higher type] in ShapeType order; null: no contact (plane-plane).
constexpr int kTypes = 5;
constexpr PairFn kPairs[kTypes][kTypes] = {
    // a = Sphere
    {detail::collideSphereSphere, detail::collideSphereCapsule, detail::collideSphereBox,
     detail::collideSphereCylinder, detail::collideSpherePlane},
    // a = Capsule
    {nullptr, detail::collideCapsuleCapsule, detail::collideCapsuleBox,
     detail::collideCapsuleCylinder, detail::collideCapsulePlane},
    // a = Box
    {nullptr, nullptr, detail::collideBoxBox, detail::collideConvexGjk, detail::collideBoxPlane},
    // a = Cylinder
    {nullptr, nullptr, nullptr, detail::collideConvexGjk, detail::collideCylinderPlane},
    // a = Plane
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

}  // namespace

void collideShapes(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                   double margin, ContactManifold& out) {
  out.clear();
  if (a.type == ShapeType::SignedDistance || b.type == ShapeType::SignedDistance) {
    thread_local std::vector<ManifoldPoint> points;
    collideSignedDistance(a, pose_a, b, pose_b, margin, ContactManifold::kCapacity, points);
    for (const ManifoldPoint& p : points) out.add(p.point, p.normal, p.gap, p.feature);
    return;
  }
  const int ta = static_cast<int>(a.type), tb = static_cast<int>(b.type);
  if (ta <= tb) {
    if (const PairFn fn = kPairs[ta][tb]) fn(a, pose_a, b, pose_b, margin, out);
    return;
  }
  const PairFn fn = kPairs[tb][ta];
  if (!fn) return;
  fn(b, pose_b, a, pose_a, margin, out);
  // Computed with the roles exchanged: normals pointed from a to b.
  for (int i = 0; i < out.count; ++i) out.points[i].normal = -out.points[i].normal;
}

}  // namespace subsim
