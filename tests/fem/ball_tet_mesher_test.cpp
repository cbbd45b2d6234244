// ballTetMesh: a valid, positively oriented mesh whose boundary lies on the sphere and whose
// volume tends to the ball's; bad arguments are refused with the argument's name.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "subsim/fem/ball_tet_mesher.hpp"

namespace subsim {
namespace {

TEST(BallTetMesh, IsValidWithItsBoundaryOnTheSphere) {
  const double r = 0.04;
  double previous_error = 1.0;
  for (int cells : {4, 8, 16}) {
    const TetMesh m = ballTetMesh(r, cells);
    EXPECT_EQ(checkTetMesh(m), "") << cells;
    EXPECT_EQ(m.numNodes(), (cells + 1) * (cells + 1) * (cells + 1));
    EXPECT_EQ(m.numTets(), 6 * cells * cells * cells);
    double volume = 0.0;
    for (int t = 0; t < m.numTets(); ++t) {
      ASSERT_GT(signedVolume6(m, t), 0.0);
      volume += signedVolume6(m, t) / 6.0;
    }
    int on_sphere = 0;
    for (const auto& face : boundaryTriangles(m))
      for (int n : face) on_sphere += std::abs(m.nodes[n].norm() - r) < 1e-12 ? 1 : 0;
    EXPECT_GT(on_sphere, 0);
    for (const auto& face : boundaryTriangles(m))
      for (int n : face) EXPECT_NEAR(m.nodes[n].norm(), r, 1e-12);
    // The inscribed polyhedron's volume approaches the ball's from below.
    const double exact = 4.0 / 3.0 * std::numbers::pi * r * r * r;
    const double error = (exact - volume) / exact;
    EXPECT_GT(error, 0.0) << cells;
    EXPECT_LT(error, previous_error) << cells;
    previous_error = error;
  }
  EXPECT_LT(previous_error, 0.02);
}

TEST(BallTetMesh, RefusesBadArguments) {
  EXPECT_THROW(ballTetMesh(0.0, 4), std::invalid_argument);
  EXPECT_THROW(ballTetMesh(std::nan(""), 4), std::invalid_argument);
  EXPECT_THROW(ballTetMesh(1.0, 1), std::invalid_argument);
  try {
    ballTetMesh(1.0, 1);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cells"), std::string::npos);
  }
}

}  // namespace
}  // namespace subsim
