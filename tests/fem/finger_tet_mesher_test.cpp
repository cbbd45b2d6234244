// fingerTetMesh: a valid mesh of the tapered finger, its exact volume and flat gripping faces;
// appendTetMesh: two fingers as one mesh.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "subsim/fem/finger_tet_mesher.hpp"

namespace subsim {
namespace {

double meshVolume(const TetMesh& m) {
  double v = 0.0;
  for (int t = 0; t < m.numTets(); ++t) v += signedVolume6(m, t) / 6.0;
  return v;
}

TEST(FingerTetMesher, FillsTheTaperedFingerWithValidTets) {
  const FingerShape shape;  // 1.6 x 2.4 (base) .. 1.44 (tip) x 8 cm
  const TetMesh m = fingerTetMesh(shape, 30);
  EXPECT_EQ(checkTetMesh(m), "");
  // 30 cells along, 2.667 mm each: 6 across the thickness, 9 across the width.
  EXPECT_EQ(m.numNodes(), 7 * 10 * 31);
  EXPECT_EQ(m.numTets(), 6 * 6 * 9 * 30);
  // The width falls linearly, so the volume is the trapezoid's area times the thickness.
  const double volume =
      shape.thickness * shape.length * shape.width * 0.5 * (1.0 + shape.tip_width_ratio);
  EXPECT_NEAR(meshVolume(m), volume, 1e-12 * volume);
  int base = 0, tip = 0;
  for (const Vec3& x : m.nodes) {
    EXPECT_LE(std::abs(x.x()), 0.5 * shape.thickness);  // the gripping faces stay flat
    const double half_width =
        0.5 * shape.width * (1.0 - (1.0 - shape.tip_width_ratio) * (-x.z() / shape.length));
    EXPECT_LE(std::abs(x.y()), half_width * (1.0 + 1e-12));
    base += x.z() == 0.0;
    tip += x.z() == -shape.length;
  }
  EXPECT_EQ(base, 7 * 10);
  EXPECT_EQ(tip, 7 * 10);
}

TEST(FingerTetMesher, NamesTheBadField) {
  const auto message = [](FingerShape s, int cells) {
    try {
      fingerTetMesh(s, cells);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  FingerShape s;
  s.width = -1.0;
  EXPECT_NE(message(s, 4).find("width: expected a positive length"), std::string::npos);
  s = FingerShape();
  s.tip_width_ratio = 1.5;
  EXPECT_NE(message(s, 4).find("tip_width_ratio: expected a ratio in (0, 1]"), std::string::npos);
  s = FingerShape();
  s.length = std::nan("");
  EXPECT_NE(message(s, 4).find("length"), std::string::npos);
  EXPECT_NE(message(FingerShape(), 0).find("cells_along: expected at least 1"),
            std::string::npos);
}

TEST(FingerTetMesher, TwoFingersAppendToOneMesh) {
  const TetMesh finger = fingerTetMesh(FingerShape(), 6);
  TetMesh both;
  appendTetMesh(both, finger, Vec3(-0.03, 0.0, 0.0));
  appendTetMesh(both, finger, Vec3(0.03, 0.0, 0.0));
  EXPECT_EQ(checkTetMesh(both), "");
  ASSERT_EQ(both.numNodes(), 2 * finger.numNodes());
  ASSERT_EQ(both.numTets(), 2 * finger.numTets());
  EXPECT_EQ(both.nodes[finger.numNodes()], finger.nodes[0] + Vec3(0.03, 0.0, 0.0));
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(both.tets[finger.numTets()][k], finger.tets[0][k] + finger.numNodes());
  EXPECT_NEAR(meshVolume(both), 2.0 * meshVolume(finger), 1e-15);
  // The two are disconnected: each keeps its own boundary.
  EXPECT_EQ(boundaryTriangles(both).size(), 2 * boundaryTriangles(finger).size());
}

}  // namespace
}  // namespace subsim
