#pragma once
// The collide stage: broad phase over collision objects, then narrow phase per candidate pair.
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "subsim/geometry/contact_point.hpp"
#include "subsim/geometry/shape.hpp"

namespace subsim {

/// A shape placed in the world, as the detector sees it.  It knows no bodies: `margin` is the
/// object's own contact distance (the caller grows it by how far the object can move in a step),
/// and the pair filter decides which pairs may collide.
struct CollisionObject {
  Shape shape;
  Pose pose;
  double margin = 0.0;
  bool movable = true;  // two immovable objects are never tested
  /// A box pair of which either object sets it reports PEG's candidate subcontacts
  /// (box_box_subcontacts.hpp) instead of the clipped face manifold (ContactSettings).
  bool subcontacts = false;
};

/// Decides whether two objects (by index) may collide; called once per broad-phase pair.
using PairFilter = std::function<bool(int, int)>;

class CollisionDetector {
 public:
  virtual ~CollisionDetector() = default;
  virtual std::string_view name() const = 0;
  /// Appends to `out` (after clearing it) every contact point between allowed pairs whose gap is
  /// below the sum of the two objects' margins.  Output order is deterministic: pairs sorted by
  /// (object_a, object_b) with object_a < object_b, points in narrow-phase order.
  virtual void detect(const std::vector<CollisionObject>& objects, const PairFilter& filter,
                      std::vector<ContactPoint>& out) = 0;
  /// OpenMP threads (0: OpenMP's default) for the narrow phase of signed distance pairs, which
  /// search their triangles in parallel, and in sweep and prune for the sweep and the pairs of a
  /// large scene, in chunks.  The points and their order are the same for every count.
  void setThreads(int threads) { threads_ = threads; }
  int threads() const { return threads_; }

 protected:
  int threads_ = 1;
};

/// Sweep-and-prune broad phase along the axis of largest spread, planes tested against all.
std::unique_ptr<CollisionDetector> makeSweepAndPruneDetector();
/// All pairs: O(n^2), the reference the broad phase is tested against.
std::unique_ptr<CollisionDetector> makeBruteForceDetector();

}  // namespace subsim
