// Sweep and prune: sort the objects' margin-grown boxes along one axis and sweep, so that only
// pairs overlapping on that axis are examined.  Planes have no bounded box and are paired with
// every other object directly.
//
// Each sorted entry carries its whole box, so that the sweep reads memory in order (on
// granular:spheres=2197, each entry passes about 250 others on the sweep axis; looking their
// boxes up by object index made the sweep most of the collision stage).  With several threads
// the sweep and the narrow phase are split into contiguous chunks whose results are joined in
// chunk order: the pairs are sorted afterwards and the points stay in pair order, so the output
// is the same for every thread count.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "subsim/geometry/collision_detector.hpp"
#include "subsim/geometry/detector_common.hpp"
#include "subsim/math/parallel_team.hpp"

namespace subsim {

namespace {

// Below these counts per thread, a parallel region costs more than the work it splits (measured
// on granular scenes of 125 to 2197 spheres, 2 threads).
constexpr std::size_t kEntriesPerThread = 512;
constexpr std::size_t kPairsPerThread = 2048;

class SweepAndPruneDetector final : public CollisionDetector {
 public:
  std::string_view name() const override { return "sweep_and_prune"; }

  void detect(const std::vector<CollisionObject>& objects, const PairFilter& filter,
              std::vector<ContactPoint>& out) override {
    out.clear();
    // Buffers are members and only ever cleared: no allocation once they have grown.
    entries_.clear();
    planes_.clear();
    pairs_.clear();

    Vec3 sum = Vec3::Zero(), sum_sq = Vec3::Zero();
    for (int i = 0; i < static_cast<int>(objects.size()); ++i) {
      const CollisionObject& o = objects[static_cast<std::size_t>(i)];
      if (o.shape.type == ShapeType::Plane) {
        planes_.push_back(i);
        continue;
      }
      const Aabb box = computeAabb(o.shape, o.pose, o.margin);
      const Vec3 c = 0.5 * (box.lower + box.upper);
      sum += c;
      sum_sq += c.cwiseProduct(c);
      entries_.push_back(Entry{box, o.pose.position, boundingRadius(o), i});
    }
    // The axis of largest spread separates the most boxes, leaving the fewest to sweep past.
    const double count = static_cast<double>(std::max<std::size_t>(entries_.size(), 1));
    const Vec3 variance = sum_sq / count - (sum / count).cwiseProduct(sum / count);
    int axis = 0;
    variance.maxCoeff(&axis);
    std::sort(entries_.begin(), entries_.end(), [axis](const Entry& x, const Entry& y) {
      return x.box.lower[axis] < y.box.lower[axis] ||
             (x.box.lower[axis] == y.box.lower[axis] && x.index < y.index);
    });

    const int sweepers = parallelTeam(threads_, entries_.size(), kEntriesPerThread);
    if (sweepers == 1) {
      sweep(objects, axis, 0, entries_.size(), pairs_);
    } else {
      inChunks(sweepers, entries_.size(), chunk_pairs_, pairs_,
               [&](std::size_t begin, std::size_t end, std::vector<std::uint64_t>& pairs) {
                 sweep(objects, axis, begin, end, pairs);
               });
    }
    for (const int p : planes_) {
      for (int i = 0; i < static_cast<int>(objects.size()); ++i) {
        // Plane-plane pairs never touch.
        if (objects[static_cast<std::size_t>(i)].shape.type != ShapeType::Plane) {
          addPair(objects, p, i, pairs_);
        }
      }
    }

    // Output order must not depend on the sweep: pairs in (a, b) order as brute force has them.
    sortPairs(objects.size());
    const int colliders = parallelTeam(threads_, pairs_.size(), kPairsPerThread);
    if (colliders == 1) {
      collide(objects, filter, 0, pairs_.size(), manifold_, out, threads_);
      return;
    }
    inChunks(colliders, pairs_.size(), chunk_points_, out,
             [&](std::size_t begin, std::size_t end, std::vector<ContactPoint>& points) {
               ContactManifold manifold;
               // One thread per pair here: a signed distance pair's own search stays serial.
               collide(objects, filter, begin, end, manifold, points, 1);
             });
  }

 private:
  struct Entry {
    Aabb box;
    Vec3 centre;    // of a sphere that holds the object grown by its margin (its pose's origin),
    double radius;  // infinite where no such sphere is used
    int index;
  };

  // Boxes overlap for many pairs whose shapes cannot touch: in a lattice of spheres, the
  // diagonal neighbours (four pairs of five on granular:spheres=2197).  Two grown shapes in
  // disjoint bounding spheres are farther apart than their margins, so the narrow phase would
  // give them no point.  Not for signed distance shapes (their field bounds the gap only
  // approximately) or objects asking for PEG's subcontacts (candidates beyond the margin).
  static double boundingRadius(const CollisionObject& o) {
    const Shape& s = o.shape;
    if (o.subcontacts) return kNoSphere;
    switch (s.type) {
      case ShapeType::Sphere:
        return s.radius + o.margin;
      case ShapeType::Capsule:
        return s.half_length + s.radius + o.margin;
      case ShapeType::Cylinder:
        return std::hypot(s.half_length, s.radius) + o.margin;
      case ShapeType::Box:
        return s.half_extents.norm() + o.margin;
      default:
        return kNoSphere;
    }
  }
  static bool spheresOverlap(const Entry& x, const Entry& y) {
    const double reach = x.radius + y.radius;
    return !(reach < kNoSphere) || (x.centre - y.centre).squaredNorm() <= reach * reach;
  }
  static constexpr double kNoSphere = std::numeric_limits<double>::infinity();

  // work(begin, end, chunk) over [0, n) in `parts` contiguous chunks, in parallel, each into its
  // own buffer of `chunks`, appended to `out` in chunk order: the serial result for any count.
  template <class T, class Work>
  static void inChunks(int parts, std::size_t n, std::vector<std::vector<T>>& chunks,
                       std::vector<T>& out, const Work& work) {
    chunks.resize(static_cast<std::size_t>(parts));
    const auto count = static_cast<std::size_t>(parts);
#pragma omp parallel for schedule(static, 1) num_threads(parts)
    for (int t = 0; t < parts; ++t) {
      const auto k = static_cast<std::size_t>(t);
      chunks[k].clear();
      work(n * k / count, n * (k + 1) / count, chunks[k]);
    }
    for (const std::vector<T>& chunk : chunks) out.insert(out.end(), chunk.begin(), chunk.end());
  }

  // Pairs of entries [begin, end) with the entries after them that their boxes overlap.
  void sweep(const std::vector<CollisionObject>& objects, int axis, std::size_t begin,
             std::size_t end, std::vector<std::uint64_t>& pairs) const {
    const int u = (axis + 1) % 3, w = (axis + 2) % 3;
    for (std::size_t k = begin; k < end; ++k) {
      const Aabb& e = entries_[k].box;
      // Sorted on the sweep axis: the later box starts within e there, so only the other two
      // axes remain to test.
      for (std::size_t l = k + 1;
           l < entries_.size() && entries_[l].box.lower[axis] <= e.upper[axis]; ++l) {
        const Aabb& o = entries_[l].box;
        if (e.lower[u] <= o.upper[u] && o.lower[u] <= e.upper[u] && e.lower[w] <= o.upper[w] &&
            o.lower[w] <= e.upper[w] && spheresOverlap(entries_[k], entries_[l])) {
          addPair(objects, entries_[k].index, entries_[l].index, pairs);
        }
      }
    }
  }

  // The narrow phase of sorted pairs [begin, end) that the filter allows.
  void collide(const std::vector<CollisionObject>& objects, const PairFilter& filter,
               std::size_t begin, std::size_t end, ContactManifold& manifold,
               std::vector<ContactPoint>& out, int threads) const {
    for (std::size_t k = begin; k < end; ++k) {
      const std::uint64_t key = pairs_[k];
      const int a = static_cast<int>(key >> 32), b = static_cast<int>(key & 0xffffffffu);
      if (filter && !filter(a, b)) continue;
      detail::appendPairContacts(objects, a, b, manifold, out, threads);
    }
  }

  // pairs_ in increasing (a, b) order: counted out by a (linear time; a global comparison sort
  // of the tens of thousands of pairs in a pile was most of the collision stage), then each a's
  // few partners sorted by b.
  void sortPairs(std::size_t objects) {
    first_.assign(objects + 1, 0);
    for (const std::uint64_t key : pairs_) ++first_[(key >> 32) + 1];
    for (std::size_t a = 0; a < objects; ++a) first_[a + 1] += first_[a];
    sorted_.resize(pairs_.size());
    next_.assign(first_.begin(), first_.end() - 1);
    for (const std::uint64_t key : pairs_) sorted_[next_[key >> 32]++] = key;
    const auto count = static_cast<std::ptrdiff_t>(objects);
#pragma omp parallel for schedule(static) \
    num_threads(parallelTeam(threads_, objects, kEntriesPerThread))
    for (std::ptrdiff_t a = 0; a < count; ++a)
      std::sort(sorted_.begin() + static_cast<std::ptrdiff_t>(first_[a]),
                sorted_.begin() + static_cast<std::ptrdiff_t>(first_[a + 1]));
    pairs_.swap(sorted_);
  }

  static void addPair(const std::vector<CollisionObject>& objects, int i, int j,
                      std::vector<std::uint64_t>& pairs) {
    if (!detail::eitherMovable(objects[static_cast<std::size_t>(i)],
                               objects[static_cast<std::size_t>(j)])) {
      return;
    }
    const auto a = static_cast<std::uint64_t>(std::min(i, j));
    const auto b = static_cast<std::uint64_t>(std::max(i, j));
    pairs.push_back((a << 32) | b);
  }

  std::vector<Entry> entries_;
  std::vector<int> planes_;
  std::vector<std::uint64_t> pairs_, sorted_;
  std::vector<std::size_t> first_, next_;  // per object a: where its pairs start in sorted_
  std::vector<std::vector<std::uint64_t>> chunk_pairs_;
  std::vector<std::vector<ContactPoint>> chunk_points_;
  ContactManifold manifold_;
};

}  // namespace

std::unique_ptr<CollisionDetector> makeSweepAndPruneDetector() {
  return std::make_unique<SweepAndPruneDetector>();
}

}  // namespace subsim
