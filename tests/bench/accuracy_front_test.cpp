// The accuracy-time front's reading of curves (bench/accuracy_front.hpp): which points no other
// point beats, when a curve reaches an accuracy, and what it reaches within a time.
#include "subsim/bench/accuracy_front.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace subsim::bench {
namespace {

TEST(AccuracyFront, APointBeatenInTimeAndAccuracyByAnotherCurveIsOffTheFront) {
  // Curve 0 is faster at low accuracy, curve 1 wins above AA 4: (2 ms, 3.5) of curve 0 is beaten
  // by (1.5 ms, 4.0) of curve 1, and (4 ms, 4.2) of curve 0 by (3 ms, 5.0).
  const std::vector<std::vector<FrontPoint>> curves = {
      {{0.5, 2.5}, {2.0, 3.5}, {4.0, 4.2}},
      {{1.5, 4.0}, {3.0, 5.0}, {6.0, 5.0}},
  };
  const std::vector<std::vector<bool>> on = paretoFront(curves);
  ASSERT_EQ(on.size(), 2u);
  EXPECT_EQ(on[0], (std::vector<bool>{true, false, false}));
  // (6 ms, 5.0) is as accurate as (3 ms, 5.0) and slower: off.
  EXPECT_EQ(on[1], (std::vector<bool>{true, true, false}));
}

TEST(AccuracyFront, EqualPointsAreBothOnTheFront) {
  const std::vector<std::vector<bool>> on = paretoFront({{{1.0, 3.0}}, {{1.0, 3.0}}});
  EXPECT_TRUE(on[0][0]);
  EXPECT_TRUE(on[1][0]);
}

TEST(AccuracyFront, TimeToReachInterpolatesInLogTimeOnTheEnvelope) {
  // Given out of time order, with a dip (AA 3.0 at 8 ms below 4.0 at 4 ms: a solver that got
  // worse with more iterations); the envelope keeps 4.0 from 4 ms on.
  const std::vector<FrontPoint> curve = {{4.0, 4.0}, {1.0, 2.0}, {8.0, 3.0}, {16.0, 6.0}};
  // Half way from AA 2 (1 ms) to 4 (4 ms) in log time: sqrt(1 * 4) = 2 ms.
  ASSERT_TRUE(timeToReach(curve, 3.0).has_value());
  EXPECT_NEAR(*timeToReach(curve, 3.0), 2.0, 1e-12);
  // The first point already there: its own time.
  EXPECT_DOUBLE_EQ(*timeToReach(curve, 1.5), 1.0);
  // Between the envelope's (8 ms, 4.0) and (16 ms, 6.0), a quarter of the way from 4 to 6 in AA.
  EXPECT_NEAR(*timeToReach(curve, 4.5), std::exp(std::log(8.0) + 0.25 * std::log(2.0)), 1e-12);
  EXPECT_DOUBLE_EQ(*timeToReach(curve, 6.0), 16.0);
  EXPECT_FALSE(timeToReach(curve, 6.01).has_value());
  EXPECT_FALSE(timeToReach({}, 1.0).has_value());
}

TEST(AccuracyFront, AccuracyWithinIsTheInverseOfTimeToReachOnARisingCurve) {
  const std::vector<FrontPoint> curve = {{1.0, 2.0}, {4.0, 4.0}, {16.0, 6.0}};
  for (const double target : {2.0, 2.7, 3.9, 4.0, 5.5, 6.0}) {
    const std::optional<double> t = timeToReach(curve, target);
    ASSERT_TRUE(t.has_value()) << target;
    ASSERT_TRUE(accuracyWithin(curve, *t).has_value()) << target;
    EXPECT_NEAR(*accuracyWithin(curve, *t), target, 1e-12) << target;
  }
  EXPECT_FALSE(accuracyWithin(curve, 0.5).has_value());  // faster than its fastest point
  EXPECT_DOUBLE_EQ(*accuracyWithin(curve, 100.0), 6.0);  // beyond its slowest: its best
}

}  // namespace
}  // namespace subsim::bench
