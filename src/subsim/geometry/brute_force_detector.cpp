// All-pairs detector: no broad phase at all, so it is the reference the sweep and prune is
// checked against (any pair it finds that SAP misses is a broad-phase bug).
#include "subsim/geometry/collision_detector.hpp"
#include "subsim/geometry/detector_common.hpp"

namespace subsim {

namespace {

class BruteForceDetector final : public CollisionDetector {
 public:
  std::string_view name() const override { return "brute_force"; }

  void detect(const std::vector<CollisionObject>& objects, const PairFilter& filter,
              std::vector<ContactPoint>& out) override {
    out.clear();
    const int n = static_cast<int>(objects.size());
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        if (!detail::eitherMovable(objects[static_cast<std::size_t>(a)],
                                   objects[static_cast<std::size_t>(b)])) {
          continue;
        }
        if (filter && !filter(a, b)) continue;
        detail::appendPairContacts(objects, a, b, manifold_, out, threads_);
      }
    }
  }

 private:
  ContactManifold manifold_;
};

}  // namespace

std::unique_ptr<CollisionDetector> makeBruteForceDetector() {
  return std::make_unique<BruteForceDetector>();
}

}  // namespace subsim
