// The ISO metric thread (the AL paper's M48 bolt and nut, Sec. VII-A): the field against the
// analytic profile and against brute-force distances to its own triangulation, its invariance
// along the helix, the solids' volumes against the helix integral, the contacts' normals against
// the screw motion, and every bad parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include "geometry/geometry_test_util.hpp"
#include "subsim/geometry/collide_sdf.hpp"
#include "subsim/geometry/helical_thread_shape.hpp"
#include "subsim/geometry/mesh_grid_shape.hpp"

namespace subsim {
namespace {

using test::uniform;

constexpr double kPi = std::numbers::pi;
constexpr double kSqrt3 = 1.7320508075688772;
constexpr double kPitch = 0.005;

ThreadSpec m48(bool internal, double length) {
  ThreadSpec s;
  s.pitch = kPitch;
  s.length = length;
  s.internal = internal;
  s.outer_diameter = internal ? 0.072 : 0.0;
  return s;
}

/// The crest and root radii of a part (the basic profile's, moved by the clearance).
double crestRadius(const ThreadSpec& s) {
  return 0.024 + (s.internal ? s.clearance : -s.clearance);
}
double rootRadius(const ThreadSpec& s) {
  return crestRadius(s) - 5.0 * kSqrt3 / 16.0 * s.pitch;
}

TEST(HelicalThreadShape, FieldIsTheProfilesDistanceAtItsAnalyticPoints) {
  const double d = 2e-4;
  for (bool internal : {false, true}) {
    const ThreadSpec spec = m48(internal, 0.03);
    const HelicalThreadShape thread(spec);
    const double outside = internal ? -1.0 : 1.0;  // the side away from the material, radially
    Vec3 g;
    // theta = 0: u = z.  A crest's middle at u = 2P, a root's at 2.5P.
    EXPECT_NEAR(thread.distance(Vec3(crestRadius(spec) + d, 0, 2 * kPitch), g), internal ? -d : d,
                1e-12);
    EXPECT_TRUE(g.isApprox(outside * Vec3::UnitX(), 1e-12)) << g.transpose();
    EXPECT_NEAR(thread.distance(Vec3(rootRadius(spec) - d, 0, 2.5 * kPitch), g), internal ? d : -d,
                1e-12);
    // The middle of the flank from the crest (u = P/16) down to the root (u = 6P/16), offset
    // along its normal away from the material: (r, u) moves by d (1/2, sqrt(3)/2) for a bolt.
    const double u = (2.0 + 7.0 / 32.0) * kPitch;
    const double r = 0.5 * (crestRadius(spec) + rootRadius(spec));
    EXPECT_NEAR(thread.distance(Vec3(r + outside * 0.5 * d, 0, u + outside * 0.5 * kSqrt3 * d), g),
                d, 1e-12);
    // The gradient of u = z - P theta / (2 pi) leans along -e_theta by P / (2 pi r).
    const Vec3 expected = outside * Vec3(0.5, -0.5 * kSqrt3 * kPitch / (2 * kPi * r), 0.5 * kSqrt3);
    EXPECT_TRUE(g.isApprox(expected.normalized(), 1e-3)) << g.transpose();
    // Beyond an end face, the face's plane bounds it.
    EXPECT_NEAR(thread.distance(Vec3(0.5 * (crestRadius(spec) + rootRadius(spec)), 0, -0.003), g),
                0.003, 1e-12);
    EXPECT_EQ(g, -Vec3::UnitZ());
  }
}

TEST(HelicalThreadShape, FieldIsInvariantAlongTheHelix) {
  // Turned by alpha and raised by P alpha / (2 pi), every point keeps its value, and the
  // gradient turns with it.
  const HelicalThreadShape bolt(m48(false, 0.08));
  std::mt19937 rng(5);
  for (int k = 0; k < 200; ++k) {
    const Vec3 p(uniform(rng, -0.03, 0.03), uniform(rng, -0.03, 0.03), uniform(rng, 0.02, 0.05));
    const double alpha = uniform(rng, -3.0, 3.0);
    const Quat turn(Eigen::AngleAxisd(alpha, Vec3::UnitZ()));
    Vec3 g, g_moved;
    const double value = bolt.distance(p, g);
    const double moved = bolt.distance(turn * p + Vec3(0, 0, kPitch * alpha / (2 * kPi)), g_moved);
    EXPECT_NEAR(moved, value, 1e-10) << p.transpose();
    EXPECT_TRUE(g_moved.isApprox(turn * g, 1e-6)) << p.transpose();
  }
}

TEST(HelicalThreadShape, FieldMatchesTheDistanceToItsOwnSurface) {
  // Points within 1 mm of the thread, away from the end faces: |field| against the brute-force
  // distance to the triangulation, equal up to the chords' sag (r (1 - cos(pi / 96)) = 0.013 mm)
  // and the twist's excess (1 / cos(lead angle) - 1: 0.07 % of the distance at the root).
  for (bool internal : {false, true}) {
    const ThreadSpec spec = m48(internal, 0.02);
    const HelicalThreadShape thread(spec);
    std::mt19937 rng(internal ? 7 : 11);
    for (int k = 0; k < 150; ++k) {
      const double theta = uniform(rng, -kPi, kPi);
      const double z = uniform(rng, 0.005, 0.015);
      const double u = z - kPitch * theta / (2 * kPi);
      const double r = thread.surfaceRadius(u) + uniform(rng, -1e-3, 1e-3);
      const Vec3 p(r * std::cos(theta), r * std::sin(theta), z);
      Vec3 g;
      const double field = thread.distance(p, g);
      const double exact = MeshGridShape::exactDistance(thread.surface(), p);
      EXPECT_NEAR(field, exact, 1.5e-5 + 3e-3 * std::abs(exact)) << p.transpose();
    }
  }
}

TEST(HelicalThreadShape, GradientIsTheFieldsDerivativeAcrossTheFlanks) {
  // On lines across a flank's middle (where the field is smooth), at eight angles: central
  // differences against the gradient's direction; their length is the twist's excess, within
  // lipschitz().
  const HelicalThreadShape bolt(m48(false, 0.08));
  const ThreadSpec& spec = bolt.spec();
  const double h = 1e-7;
  for (int i = 0; i < 8; ++i) {
    const double theta = 2 * kPi * i / 8.0 + 0.1;
    for (double offset : {-3e-4, -1e-4, 1e-4, 3e-4}) {
      const double u = (5.0 + 7.0 / 32.0) * kPitch;
      const double r = 0.5 * (crestRadius(spec) + rootRadius(spec)) + 0.5 * offset;
      const double z = u + 0.5 * kSqrt3 * offset + kPitch * theta / (2 * kPi);
      const Vec3 p(r * std::cos(theta), r * std::sin(theta), z);
      Vec3 g, unused;
      bolt.distance(p, g);
      Vec3 fd;
      for (int a = 0; a < 3; ++a) {
        Vec3 e = Vec3::Zero();
        e[a] = h;
        fd[a] = (bolt.distance(p + e, unused) - bolt.distance(p - e, unused)) / (2 * h);
      }
      EXPECT_NEAR(g.norm(), 1.0, 1e-12);
      EXPECT_TRUE(g.isApprox(fd.normalized(), 1e-5)) << g.transpose() << " / " << fd.transpose();
      EXPECT_LE(fd.norm(), bolt.lipschitz() + 1e-6);
      EXPECT_GE(fd.norm(), 1.0 - 1e-6);
    }
  }
}

/// The integral of f(u)^2 over a period for a piecewise linear profile: the flats' and the two
/// flanks' (a ramp from a to b over w gives w (a^2 + a b + b^2) / 3).
double squaredRadiusIntegral(const ThreadSpec& s) {
  const double a = crestRadius(s), b = rootRadius(s);
  return s.pitch / 8.0 * a * a + s.pitch / 4.0 * b * b +
         2.0 * (5.0 * s.pitch / 16.0) * (a * a + a * b + b * b) / 3.0;
}

TEST(HelicalThreadShape, SurfacesAreClosedAndBoundTheHelixVolume) {
  // Every horizontal slice of a helical solid has the area pi / P times the integral of f^2
  // over a period (the profile turns once under it): volume = length x that.  The 96-gon's
  // chords take 0.07 % of it.
  for (bool internal : {false, true}) {
    const ThreadSpec spec = m48(internal, 0.03);
    const HelicalThreadShape thread(spec);
    EXPECT_NO_THROW(requireClosedSurface(thread.surface()));
    const double hole = spec.length * kPi / kPitch * squaredRadiusIntegral(spec);
    const double outer = 0.5 * spec.outer_diameter;
    const double expected = internal ? kPi * outer * outer * spec.length - hole : hole;
    EXPECT_NEAR(thread.massProperties().volume / expected, 1.0, 2e-3) << thread.kind();
    EXPECT_LT(thread.massProperties().centroid.head<2>().norm(), 1e-6) << thread.kind();
  }
}

TEST(HelicalThreadShape, NutContactsAreTangentToTheScrewMotion) {
  // A nut on the bolt, turned and pressed down onto its flanks: its contacts come from its own
  // triangles in the bolt's field (the nut's field, bounded by its end faces' planes, does not
  // serve), so each normal n at x is tangent to the screw motion (e_z x x + P / (2 pi) e_z).
  const Shape bolt = Shape::signedDistance(std::make_shared<HelicalThreadShape>(m48(false, 0.08)));
  const Shape nut = Shape::signedDistance(std::make_shared<HelicalThreadShape>(m48(true, 0.03)));
  EXPECT_TRUE(bolt.field->servesAsField());
  EXPECT_FALSE(nut.field->servesAsField());
  const double alpha = 0.7;
  const Pose nut_pose{Vec3(0, 0, 8 * kPitch + kPitch * alpha / (2 * kPi) - 1e-4),
                      Quat(Eigen::AngleAxisd(alpha, Vec3::UnitZ()))};
  for (bool nut_first : {true, false}) {
    std::vector<ManifoldPoint> points;
    if (nut_first)
      collideSignedDistance(nut, nut_pose, bolt, Pose(), 5e-4, kSignedDistanceContactCap, points);
    else
      collideSignedDistance(bolt, Pose(), nut, nut_pose, 5e-4, kSignedDistanceContactCap, points);
    EXPECT_GT(points.size(), 20u);
    double worst = 0.0;
    for (const ManifoldPoint& c : points) {
      const Vec3 screw = Vec3::UnitZ().cross(c.point) + kPitch / (2 * kPi) * Vec3::UnitZ();
      worst = std::max(worst, std::abs(c.normal.dot(screw)));
      EXPECT_GT(c.gap, -2e-4);
    }
    // A face's normal would give P / (2 pi) = 0.8 mm here.
    EXPECT_LT(worst, 1e-6);
  }
}

TEST(HelicalThreadShape, RefusesBadParametersNamingThem) {
  const auto expectError = [](ThreadSpec s, const std::string& what) {
    try {
      HelicalThreadShape shape(s);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  ThreadSpec s = m48(false, 0.03);
  s.pitch = 0.0;
  expectError(s, "pitch:");
  s = m48(false, 0.03);
  s.major_diameter = std::nan("");
  expectError(s, "major_diameter:");
  s.major_diameter = 0.012;  // a 5 mm pitch on a 12 mm thread: the root nears the axis
  expectError(s, "major_diameter: expected more than 2 pitches");
  s = m48(false, 0.03);
  s.clearance = -1e-4;
  expectError(s, "clearance:");
  s = m48(false, -0.01);
  expectError(s, "length:");
  s = m48(false, 1e3);
  expectError(s, "length: too many pitches");
  s = m48(false, 0.03);
  s.segments = 4;
  expectError(s, "segments:");
  s = m48(true, 0.03);
  s.outer_diameter = 0.049;
  expectError(s, "outer_diameter:");
}

}  // namespace
}  // namespace subsim
