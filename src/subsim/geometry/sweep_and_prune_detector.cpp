// Sweep and prune: sort the objects' margin-grown boxes along one axis and sweep, so that only
// pairs overlapping on that axis are examined.  Planes have no bounded box and are paired with
// every other object directly.
#include <algorithm>
#include <cstdint>

#include "subsim/geometry/collision_detector.hpp"
#include "subsim/geometry/detector_common.hpp"

namespace subsim {

namespace {

class SweepAndPruneDetector final : public CollisionDetector {
 public:
  std::string_view name() const override { return "sweep_and_prune"; }

  void detect(const std::vector<CollisionObject>& objects, const PairFilter& filter,
              std::vector<ContactPoint>& out) override {
    out.clear();
    const int n = static_cast<int>(objects.size());
    // Buffers are members and only ever cleared: no allocation once they have grown.
    boxes_.resize(objects.size());
    entries_.clear();
    planes_.clear();
    pairs_.clear();

    Vec3 sum = Vec3::Zero(), sum_sq = Vec3::Zero();
    for (int i = 0; i < n; ++i) {
      const CollisionObject& o = objects[static_cast<std::size_t>(i)];
      if (o.shape.type == ShapeType::Plane) {
        planes_.push_back(i);
        continue;
      }
      const Aabb box = computeAabb(o.shape, o.pose, o.margin);
      boxes_[static_cast<std::size_t>(i)] = box;
      const Vec3 c = 0.5 * (box.lower + box.upper);
      sum += c;
      sum_sq += c.cwiseProduct(c);
      entries_.push_back(Entry{0.0, 0.0, i});
    }
    // The axis of largest spread separates the most boxes, leaving the fewest to sweep past.
    const double count = static_cast<double>(std::max<std::size_t>(entries_.size(), 1));
    const Vec3 variance = sum_sq / count - (sum / count).cwiseProduct(sum / count);
    int axis = 0;
    variance.maxCoeff(&axis);
    for (Entry& e : entries_) {
      const Aabb& box = boxes_[static_cast<std::size_t>(e.index)];
      e.lower = box.lower[axis];
      e.upper = box.upper[axis];
    }
    std::sort(entries_.begin(), entries_.end(), [](const Entry& x, const Entry& y) {
      return x.lower < y.lower || (x.lower == y.lower && x.index < y.index);
    });

    for (std::size_t k = 0; k < entries_.size(); ++k) {
      const Entry& e = entries_[k];
      for (std::size_t l = k + 1; l < entries_.size() && entries_[l].lower <= e.upper; ++l) {
        const int i = e.index, j = entries_[l].index;
        if (!boxes_[static_cast<std::size_t>(i)].overlaps(boxes_[static_cast<std::size_t>(j)])) {
          continue;
        }
        addPair(objects, i, j);
      }
    }
    for (const int p : planes_) {
      for (int i = 0; i < n; ++i) {
        // Plane-plane pairs never touch.
        if (objects[static_cast<std::size_t>(i)].shape.type != ShapeType::Plane) {
          addPair(objects, p, i);
        }
      }
    }

    // Output order must not depend on the sweep: pairs in (a, b) order as brute force has them.
    std::sort(pairs_.begin(), pairs_.end());
    for (const std::uint64_t key : pairs_) {
      const int a = static_cast<int>(key >> 32), b = static_cast<int>(key & 0xffffffffu);
      if (filter && !filter(a, b)) continue;
      detail::appendPairContacts(objects, a, b, manifold_, out, threads_);
    }
  }

 private:
  struct Entry {
    double lower;
    double upper;
    int index;
  };

  void addPair(const std::vector<CollisionObject>& objects, int i, int j) {
    if (!detail::eitherMovable(objects[static_cast<std::size_t>(i)],
                               objects[static_cast<std::size_t>(j)])) {
      return;
    }
    const auto a = static_cast<std::uint64_t>(std::min(i, j));
    const auto b = static_cast<std::uint64_t>(std::max(i, j));
    pairs_.push_back((a << 32) | b);
  }

  std::vector<Aabb> boxes_;
  std::vector<Entry> entries_;
  std::vector<int> planes_;
  std::vector<std::uint64_t> pairs_;
  ContactManifold manifold_;
};

}  // namespace

std::unique_ptr<CollisionDetector> makeSweepAndPruneDetector() {
  return std::make_unique<SweepAndPruneDetector>();
}

}  // namespace subsim
