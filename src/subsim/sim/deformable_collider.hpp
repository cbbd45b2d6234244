#pragma once
// The collide stage for deformable bodies: each deformable's boundary surface against the rigid
// shapes (geometry/deformable_contact.hpp), once per step.
//
// Filtering: group/mask as between rigid shapes; a deformable does not collide with the shapes of
// the bodies its nodes are attached to (a gripper holding a beam).  Margin: the contact margin
// plus how far the pair can close in one step (the fastest node's speed plus the shape's reach),
// as rigid contacts are speculative.  Depth: shape features deeper than a quarter of the body's
// smallest rest extent are ignored (the nearest surface may be the far side beyond half).
// Deformables do not collide with each other or themselves (not needed by the papers' scenes).
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
  /// at their current poses, indexed like Model::shapes) to `out` (cleared first).
  void collide(const Model& model, const State& state, const std::vector<CollisionObject>& objects,
               double h, std::vector<DeformableShapeContact>& out);

 private:
  std::vector<DeformableSurfaceQuery> queries_;
  std::vector<std::vector<int>> attached_bodies_;  // per deformable, sorted
  std::vector<Vec3> nodes_;
  std::vector<DeformableContact> scratch_;
};

}  // namespace subsim
