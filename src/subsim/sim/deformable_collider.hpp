#pragma once
// The collide stage for deformable bodies, once per step (geometry/deformable_contact.hpp):
// - each deformable's boundary surface against the rigid shapes;
// - each deformable's surface nodes against every other deformable's surface, both ways
//   (node-to-face, node-to-edge and node-to-vertex), and against its own surface when the body
//   asks for self contact (DeformableBody::self_contact: a folded mat touches itself), skipping
//   the triangles near the node at rest.
//
// Filtering: group/mask as between rigid shapes; a deformable does not collide with the shapes of
// the bodies its nodes are attached to (a gripper holding a beam).  Margin: the contact margin
// plus how far the pair can close in one step (the fastest node's speed plus the shape's reach,
// or the two bodies' fastest nodes), as rigid contacts are speculative.  Depth: features deeper
// than a quarter of the body's smallest rest extent are ignored (the nearest surface may be the
// far side beyond half).
#include <vector>

#include "subsim/assembly/deformable_rows.hpp"
#include "subsim/geometry/collision_detector.hpp"
#include "subsim/model/model.hpp"
#include "subsim/model/state.hpp"

namespace subsim {

class DeformableCollider {
 public:
  explicit DeformableCollider(const Model& model);
  /// Appends the contacts of every deformable with every rigid shape (objects: the rigid shapes
  /// at their current poses, indexed like Model::shapes), with the other deformables and with
  /// itself to `out` (cleared first): rigid-shape contacts first, by deformable and shape, then
  /// the deformable pairs (a, b) with a <= b, b's nodes against a's surface before a's against b's.
  void collide(const Model& model, const State& state, const std::vector<CollisionObject>& objects,
               double h, std::vector<DeformableShapeContact>& out);

 private:
  void nodesAgainstSurface(int surface, int points, double margin,
                           std::vector<DeformableShapeContact>& out);

  std::vector<DeformableSurfaceQuery> queries_;
  std::vector<std::vector<int>> attached_bodies_;  // per deformable, sorted
  // Per deformable, this step: node positions, bounding box and fastest node.
  std::vector<std::vector<Vec3>> nodes_;
  std::vector<Aabb> box_;
  std::vector<double> speed_;
  std::vector<DeformableContact> scratch_;
};

}  // namespace subsim
