// Broad phase: sweep and prune against brute force on random scenes, the pair filter, immovable
// pairs, output order and normal orientation, and no allocation once warmed up.
#include <gtest/gtest.h>

#include <memory>
#include <numbers>
#include <random>
#include <utility>
#include <vector>

#include "geometry/geometry_test_util.hpp"
#include "subsim/geometry/collision_detector.hpp"
#include "subsim/geometry/helical_thread_shape.hpp"
#include "support/allocation_count.hpp"

namespace subsim {
namespace {

using test::makePose;
using test::randomRotation;
using test::randomVec;
using test::uniform;

std::vector<CollisionObject> randomScene(std::mt19937& rng, int n, bool with_cylinders) {
  std::vector<CollisionObject> objects;
  // The ground plane sits in the middle of the list so that it is both an a and a b.
  for (int i = 0; i < n; ++i) {
    if (i == n / 3) {
      objects.push_back(CollisionObject{Shape::plane(), makePose(Vec3(0, 0, 0)), 0.0, false});
    }
    const int kind = std::uniform_int_distribution<int>(0, with_cylinders ? 3 : 2)(rng);
    Shape s;
    switch (kind) {
      case 0:
        s = Shape::sphere(uniform(rng, 0.1, 0.3));
        break;
      case 1:
        s = Shape::box(randomVec(rng, 0.08, 0.3));
        break;
      case 2:
        s = Shape::capsule(uniform(rng, 0.05, 0.2), uniform(rng, 0.05, 0.3));
        break;
      default:
        s = Shape::cylinder(uniform(rng, 0.1, 0.25), uniform(rng, 0.05, 0.25));
        break;
    }
    CollisionObject o{s, makePose(randomVec(rng, -2.0, 2.0) + Vec3(0, 0, 1.5), randomRotation(rng)),
                      uniform(rng, 0.0, 0.05), uniform(rng, 0.0, 1.0) > 0.15};
    // Stretch the scene along y so that the sweep axis is not x.
    o.pose.position.y() *= 2.0;
    objects.push_back(o);
  }
  return objects;
}

bool samePoints(const std::vector<ContactPoint>& x, const std::vector<ContactPoint>& y) {
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const ContactPoint &p = x[i], &q = y[i];
    if (p.object_a != q.object_a || p.object_b != q.object_b || p.geometry.gap != q.geometry.gap ||
        p.geometry.point != q.geometry.point || p.geometry.normal != q.geometry.normal ||
        p.geometry.feature != q.geometry.feature) {
      return false;
    }
  }
  return true;
}

TEST(Detectors, SweepAndPruneMatchesBruteForce) {
  std::mt19937 rng(42);
  const auto sap = makeSweepAndPruneDetector();
  const auto brute = makeBruteForceDetector();
  EXPECT_NE(sap->name(), brute->name());
  const PairFilter all = [](int, int) { return true; };
  for (int scene = 0; scene < 5; ++scene) {
    const auto objects = randomScene(rng, 200, scene % 2 == 1);
    std::vector<ContactPoint> a, b;
    sap->detect(objects, all, a);
    brute->detect(objects, all, b);
    EXPECT_GT(a.size(), 50u);
    EXPECT_TRUE(samePoints(a, b)) << "scene " << scene << ": " << a.size() << " vs " << b.size();
    // Ordered by pair, a < b, and gaps within the pair's margin.
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_LT(a[i].object_a, a[i].object_b);
      if (i > 0) {
        EXPECT_LE(std::make_pair(a[i - 1].object_a, a[i - 1].object_b),
                  std::make_pair(a[i].object_a, a[i].object_b));
      }
      EXPECT_LT(a[i].geometry.gap, objects[a[i].object_a].margin + objects[a[i].object_b].margin);
    }
    // Same answer again from warm buffers.
    std::vector<ContactPoint> again;
    sap->detect(objects, all, again);
    EXPECT_TRUE(samePoints(a, again));
  }
}

TEST(Detectors, NormalPointsFromObjectBTowardsObjectA) {
  // Object 0 is the plane, object 1 a sphere resting on it: a = plane, so the normal is -z.
  const std::vector<CollisionObject> objects = {
      {Shape::plane(), makePose(Vec3::Zero()), 0.0, false},
      {Shape::sphere(0.5), makePose(Vec3(0, 0, 0.49)), 0.02, true},
  };
  for (const auto& detector : {makeSweepAndPruneDetector(), makeBruteForceDetector()}) {
    std::vector<ContactPoint> out;
    detector->detect(
        objects, [](int, int) { return true; }, out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].object_a, 0);
    EXPECT_EQ(out[0].object_b, 1);
    EXPECT_TRUE(out[0].geometry.normal.isApprox(-Vec3::UnitZ()));
    EXPECT_NEAR(out[0].geometry.gap, -0.01, 1e-12);
  }
}

TEST(Detectors, FilterIsRespectedAndImmovablePairsSkipped) {
  std::mt19937 rng(8);
  auto objects = randomScene(rng, 150, true);
  for (const auto& detector : {makeSweepAndPruneDetector(), makeBruteForceDetector()}) {
    std::vector<std::pair<int, int>> asked;
    const PairFilter odd_sum = [&](int a, int b) {
      asked.emplace_back(a, b);
      return (a + b) % 2 == 1;
    };
    std::vector<ContactPoint> out;
    detector->detect(objects, odd_sum, out);
    EXPECT_FALSE(out.empty());
    for (const ContactPoint& c : out) EXPECT_EQ((c.object_a + c.object_b) % 2, 1);
    for (const auto& [a, b] : asked) {
      EXPECT_LT(a, b);
      EXPECT_TRUE(objects[a].movable || objects[b].movable) << detector->name();
    }
    for (const ContactPoint& c : out) {
      EXPECT_TRUE(objects[c.object_a].movable || objects[c.object_b].movable);
    }
  }
  // Two overlapping immovable boxes and a movable sphere touching both.
  const std::vector<CollisionObject> stack = {
      {Shape::box(Vec3(1, 1, 1)), makePose(Vec3(0, 0, 0)), 0.01, false},
      {Shape::box(Vec3(1, 1, 1)), makePose(Vec3(0.5, 0, 0)), 0.01, false},
      {Shape::sphere(0.5), makePose(Vec3(0.25, 0, 1.45)), 0.01, true},
  };
  for (const auto& detector : {makeSweepAndPruneDetector(), makeBruteForceDetector()}) {
    std::vector<ContactPoint> out;
    detector->detect(
        stack, [](int, int) { return true; }, out);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].object_b, 2);
    EXPECT_EQ(out[1].object_b, 2);
  }
}

// The narrow phase on 1, 2 and 3 threads (across pairs; within a signed distance pair across
// its triangles): the same points, bit for bit, in the same order.
TEST(Detectors, SameContactsInTheSameOrderOnAnyThreadCount) {
  std::mt19937 rng(9);
  std::vector<CollisionObject> objects = randomScene(rng, 200, true);
  ThreadSpec bolt_spec;
  bolt_spec.clearance = 1e-4;
  ThreadSpec nut_spec = bolt_spec;
  nut_spec.internal = true;
  nut_spec.length = 0.03;
  nut_spec.outer_diameter = 0.072;
  // The nut turned on the bolt and pressed onto its flanks, far from the random shapes.
  const Vec3 away(0, 0, -10);
  objects.push_back(
      CollisionObject{Shape::signedDistance(std::make_shared<HelicalThreadShape>(bolt_spec)),
                      makePose(away), 5e-4, false});
  objects.push_back(CollisionObject{
      Shape::signedDistance(std::make_shared<HelicalThreadShape>(nut_spec)),
      makePose(away + Vec3(0, 0, 0.04 + 0.005 * 0.7 / (2 * std::numbers::pi) - 1e-4),
               Quat(Eigen::AngleAxisd(0.7, Vec3::UnitZ()))),
      5e-4, true});
  const PairFilter all = [](int, int) { return true; };
  for (const auto& detector : {makeSweepAndPruneDetector(), makeBruteForceDetector()}) {
    std::vector<ContactPoint> one;
    detector->detect(objects, all, one);
    EXPECT_EQ(detector->threads(), 1);
    int thread_contacts = 0;
    for (const ContactPoint& c : one)
      thread_contacts += c.object_a == static_cast<int>(objects.size()) - 2;
    EXPECT_GT(thread_contacts, 20) << detector->name();
    for (int threads : {2, 3}) {
      detector->setThreads(threads);
      std::vector<ContactPoint> many;
      detector->detect(objects, all, many);
      EXPECT_TRUE(samePoints(one, many)) << detector->name() << " on " << threads << " threads";
    }
  }
}

// A pile large enough that the sweep and the narrow phase split into chunks (several thousand
// boxes and pairs): the chunks joined give brute force's points in brute force's order.
TEST(Detectors, ChunkedSweepAndNarrowPhaseGiveTheSerialPoints) {
  std::vector<CollisionObject> objects;
  objects.push_back(CollisionObject{Shape::plane(), makePose(Vec3(0, 0, 0)), 0.0, false});
  std::mt19937 rng(5);
  const int side = 14;
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j)
      for (int k = 0; k < side; ++k) {
        // Radius 0.1 on a 0.19 lattice, jittered: each sphere touches most of its neighbours.
        const Vec3 at = 0.19 * Vec3(i, j, k) + Vec3(0, 0, 0.09) + randomVec(rng, -0.01, 0.01);
        objects.push_back(CollisionObject{Shape::sphere(0.1), makePose(at), 0.005, true});
      }
  const PairFilter odd_out = [](int a, int b) { return (a + b) % 7 != 0; };
  std::vector<ContactPoint> reference;
  makeBruteForceDetector()->detect(objects, odd_out, reference);
  EXPECT_GT(reference.size(), 6000u);
  const auto sap = makeSweepAndPruneDetector();
  for (int threads : {1, 2, 3}) {
    sap->setThreads(threads);
    std::vector<ContactPoint> points;
    sap->detect(objects, odd_out, points);
    EXPECT_TRUE(samePoints(reference, points)) << threads << " threads";
    // Warm: the chunks' buffers have grown, and the next call allocates nothing.
    const long before = test::allocationCount();
    sap->detect(objects, odd_out, points);
    EXPECT_EQ(test::allocationCount(), before) << threads << " threads";
  }
}

TEST(Detectors, NoAllocationOnceWarm) {
  std::mt19937 rng(77);
  const auto objects = randomScene(rng, 200, true);
  const PairFilter all = [](int, int) { return true; };
  for (const auto& detector : {makeSweepAndPruneDetector(), makeBruteForceDetector()}) {
    std::vector<ContactPoint> out;
    detector->detect(objects, all, out);  // grows the buffers and `out`
    const long before = test::allocationCount();
    detector->detect(objects, all, out);
    EXPECT_EQ(test::allocationCount(), before) << detector->name();
    EXPECT_FALSE(out.empty());
  }
}

}  // namespace
}  // namespace subsim
