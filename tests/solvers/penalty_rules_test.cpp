// The penalty rules the ADMM and AL solvers share (solvers/penalty_rules.hpp): rule (23)'s trace
// ratio and residual balancing.
#include "subsim/solvers/penalty_rules.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace subsim {
namespace {

TEST(PenaltyRules, TraceRatioAndResidualBalancing) {
  EXPECT_EQ(traceRatio(6.0, 3.0), 2.0);
  EXPECT_EQ(traceRatio(6.0, 0.0), 1.0);  // no constraint rows
  const ResidualBalancing b{5, 5.0, 2.0};
  EXPECT_EQ(b.factor(1.0, 1.0), 1.0);  // balanced
  EXPECT_EQ(b.factor(4.0, 1.0), 1.0);  // within gamma
  EXPECT_EQ(b.factor(9.0, 1.0), 2.0);  // sqrt(9) clamped to 2
  EXPECT_EQ(b.factor(1.0, 6.0), 0.5);  // sqrt(1 / 6) clamped to 1 / 2
  const ResidualBalancing wide{10, 5.0, 10.0};
  EXPECT_DOUBLE_EQ(wide.factor(1.0, 36.0), 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(wide.factor(49.0, 1.0), 7.0);
  EXPECT_EQ(b.factor(1.0, 0.0), 2.0);  // dual 0: the largest step up
  EXPECT_EQ(b.factor(0.0, 1.0), 0.5);  // primal 0: the largest step down
  EXPECT_FALSE(b.due(3, 60));
  EXPECT_TRUE(b.due(4, 60));    // after the 5th iteration
  EXPECT_FALSE(b.due(59, 60));  // never after the last
}

}  // namespace
}  // namespace subsim
