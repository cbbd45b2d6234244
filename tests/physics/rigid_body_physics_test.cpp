// Physics of rigid bodies against analytic solutions: free fall, rest, Coulomb friction on an
// incline, stacking, jointed chains and torque-free rotation.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "subsim/metrics/step_metrics.hpp"
#include "subsim/model/integrator.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using test::makeWorld;

TEST(FreeFall, MatchesTheDiscreteMidpointFormulaExactly) {
  Model m;
  const Shape s = Shape::sphere(0.1);
  Body b = namedBody("ball", BodyKind::Dynamic, 2.0);
  b.inertia = s.unitDensityInertia(2.0);
  b.initial_pose.position = Vec3(0.1, -0.2, 3.0);
  b.initial_linear_velocity = Vec3(0.5, 0.0, 1.0);
  m.addShape(m.addBody(b), s);
  m.dt = 0.01;
  World w(m);
  const Vec3 x0 = b.initial_pose.position, v0 = b.initial_linear_velocity, g = m.gravity;
  const double h = m.dt;
  const double theta = m.theta;
  for (int n = 1; n <= 200; ++n) {
    w.step();
    // vhat_k = v_k + (1 - theta) h g and v_{k+1} = v_k + h g, so with x_{k+1} = x_k + h vhat_k:
    // x_n = x_0 + n h v_0 + h^2 g (n (n - 1) / 2 + (1 - theta) n)   (n^2 h^2 g / 2 at theta = 1/2).
    const double t = n * h;
    const Vec3 x = x0 + t * v0 + h * h * (0.5 * n * (n - 1) + (1.0 - theta) * n) * g;
    const Vec3 v = v0 + t * g;
    EXPECT_NEAR((w.state().pose[0].position - x).norm(), 0.0, 1e-12 * (1.0 + x.norm()));
    EXPECT_NEAR((w.state().linear_velocity[0] - v).norm(), 0.0, 1e-12 * (1.0 + v.norm()));
  }
}

TEST(FreeFall, MidpointRuleIsTheHalfWeight) {
  Model m;
  const Shape s = Shape::sphere(0.1);
  Body b = namedBody("ball", BodyKind::Dynamic, 2.0);
  b.inertia = s.unitDensityInertia(2.0);
  m.addShape(m.addBody(b), s);
  m.theta = 0.5;
  World w(m);
  for (int n = 1; n <= 100; ++n) w.step();
  // x_n = n^2 h^2 g / 2 exactly at the midpoint rule.
  EXPECT_NEAR(w.state().pose[0].position.z(), 0.5 * 1.0 * 1.0 * -9.81, 1e-12);
  EXPECT_DOUBLE_EQ(w.lastProblem().A(0)(0, 0), 4.0);  // A = 2 M
}

TEST(Rest, SphereOnPlaneStaysWithinATenthOfAMillimetreForTenSeconds) {
  World w = makeWorld("sphere:radius=0.05", 60, 1e-10);
  const Vec3 start = w.state().pose[1].position;
  for (int k = 0; k < 1000; ++k) {
    w.step();
    ASSERT_LT((w.state().pose[1].position - start).norm(), 1e-4) << "t = " << w.state().time;
  }
}

double degreesOf(double tangent) {
  return std::atan(tangent) * 180.0 / std::numbers::pi;
}

/// Displacement along the slope of the box on the incline after `seconds`, and its position
/// history for the acceleration fit.
std::vector<double> slideHistory(double angle_deg, double mu, double seconds) {
  World w = makeWorld("incline:angle=" + std::to_string(angle_deg) + ",mu=" + std::to_string(mu),
                      2000, 1e-12);
  const double theta = angle_deg * std::numbers::pi / 180.0;
  const Vec3 downhill(std::cos(theta), 0.0, -std::sin(theta));  // rotation about +y tilts +x down
  const Vec3 start = w.state().pose[1].position;
  std::vector<double> s;
  const int steps = static_cast<int>(std::lround(seconds / w.model().dt));
  for (int k = 0; k < steps; ++k) {
    w.step();
    s.push_back((w.state().pose[1].position - start).dot(downhill));
  }
  return s;
}

TEST(Incline, BoxSticksBelowTheFrictionAngle) {
  const double mu = 0.5;
  const std::vector<double> s = slideHistory(degreesOf(0.8 * mu), mu, 2.0);
  for (double d : s) ASSERT_LT(std::abs(d), 1e-3);
}

TEST(Incline, BoxSlidesWithCoulombAccelerationAboveTheFrictionAngle) {
  const double mu = 0.5;
  const double angle = degreesOf(1.25 * mu);
  const std::vector<double> s = slideHistory(angle, mu, 2.0);
  const double theta = angle * std::numbers::pi / 180.0;
  const double expected = 9.81 * (std::sin(theta) - mu * std::cos(theta));
  // Constant acceleration: s(t2) - 2 s(t1) + s(t0) = a (dt_span)^2 over equal spans.
  const int i1 = (static_cast<int>(s.size()) - 1) / 2, i2 = 2 * i1;
  const double span = i1 * 0.01;
  const double a = (s[i2] - 2.0 * s[i1] + s[0]) / (span * span);
  EXPECT_NEAR(a, expected, 0.02 * expected) << "measured " << a << " expected " << expected;
}

TEST(Stack, TenBoxesStandForTenSecondsWithSubadmm) {
  World w = makeWorld("stack:boxes=10", 100, 0.0);
  const Vec3 top0 = w.state().pose[10].position;
  for (int k = 0; k < 1000; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << r.divergence;
  }
  const Vec3 top = w.state().pose[10].position;
  EXPECT_LT(std::abs(top.x() - top0.x()), 5e-3);
  EXPECT_LT(std::abs(top.y() - top0.y()), 5e-3);
  EXPECT_LT(std::abs(top.z() - top0.z()), 5e-3);
  for (int b = 1; b <= 10; ++b) {
    // Upright: the body z axis stays vertical.
    const Vec3 up = w.state().pose[b].orientation * Vec3::UnitZ();
    EXPECT_GT(up.z(), std::cos(0.05)) << "box " << b - 1;
  }
}

/// Largest anchor separation over all joints and all steps of a 2 s swing.
double maxJointError(double dt) {
  World w = makeWorld("pendulum:links=5,length=0.1,angle=30", 100000, 1e-12, 1, dt);
  double worst = 0.0;
  const int steps = static_cast<int>(std::lround(2.0 / dt));
  for (int k = 0; k < steps; ++k) {
    w.step();
    for (const Joint& j : w.model().joints) {
      const Vec3 a = w.state().pose[j.body_a].transformPoint(j.anchor_a);
      const Vec3 b =
          j.body_b < 0 ? j.anchor_b : w.state().pose[j.body_b].transformPoint(j.anchor_b);
      worst = std::max(worst, (a - b).norm());
    }
  }
  return worst;
}

TEST(Chain, BallJointErrorIsSmallAndShrinksWithTheStep) {
  const double coarse = maxJointError(0.01);
  const double fine = maxJointError(0.005);
  EXPECT_LT(coarse, 1e-3);
  EXPECT_GT(coarse / fine, 3.0) << "coarse " << coarse << " fine " << fine;
}

TEST(Spinner, TorqueFreeBodyKeepsItsAngularMomentum) {
  World w = makeWorld("spinner:omega=5", 10, 0.0);
  auto momentum = [&w]() {
    const Mat3 R = w.state().pose[0].orientation.toRotationMatrix();
    return Vec3(R * w.model().bodies[0].inertia * R.transpose() * w.state().angular_velocity[0]);
  };
  const Vec3 L0 = momentum();
  const double E0 = w.kineticEnergy();
  double worst = 0.0, worst_energy = 0.0;
  bool flipped = false;
  for (int k = 0; k < 1000; ++k) {
    w.step();
    worst = std::max(worst, (momentum() - L0).norm() / L0.norm());
    worst_energy = std::max(worst_energy, std::abs(w.kineticEnergy() / E0 - 1.0));
    // The intermediate axis is unstable: the body must actually tumble for the test to mean
    // something.
    const Vec3 y_axis = w.state().pose[0].orientation * Vec3::UnitY();
    flipped = flipped || y_axis.dot(L0.normalized()) < 0.0;
  }
  EXPECT_LT(worst, 0.05);
  EXPECT_LT(worst_energy, 1e-6);  // the body-frame midpoint rule keeps it (integrator.hpp)
  EXPECT_TRUE(flipped);
}

TEST(Spinner, GyroscopicEndVelocityKeepsEnergyAndMomentumAtAnySpeed) {
  // The body-frame midpoint rule keeps 1/2 w.I w and |I w| exactly; where Newton gives up (h |w|
  // far beyond a radian a step) the velocity is returned unchanged, which keeps them too.
  Body body = namedBody("box", BodyKind::Dynamic, 1.0);
  body.inertia = Vec3(0.01, 0.05, 0.08).asDiagonal();
  const Quat q = Quat(0.3, -0.5, 0.7, 0.4).normalized();
  for (const double speed : {0.1, 3.0, 30.0, 300.0, 3e3, 3e4}) {
    const Vec3 w = speed * Vec3(0.6, -0.48, 0.64);
    const Vec3 w1 = gyroscopicEndVelocity(body, q, w, 0.01);
    const Vec3 b0 = q.conjugate() * w, b1 = q.conjugate() * w1;
    EXPECT_NEAR(b1.dot(body.inertia * b1) / b0.dot(body.inertia * b0), 1.0, 1e-9) << speed;
    EXPECT_NEAR((body.inertia * b1).norm() / (body.inertia * b0).norm(), 1.0, 1e-9) << speed;
    if (speed <= 30.0) {
      EXPECT_GT((w1 - w).norm(), 1e-6 * speed) << "no gyroscopic change at " << speed;
    }
  }
}

TEST(Spinner, TumblingRodNeitherGainsNorLosesEnergy) {
  // A free rod (inertia 18:1) tumbling end over end with a little spin about its axis: with the
  // angular momentum carried across an explicit rotation it drifted to spinning about its axis,
  // gaining 18x its energy within 3 s.  Energy and |L| stay those of the start.
  Model m;
  m.gravity = Vec3::Zero();
  Body rod = namedBody("rod", BodyKind::Dynamic, 1.0);
  rod.inertia = Vec3(4.2e-4, 7.7e-3, 7.7e-3).asDiagonal();
  rod.initial_angular_velocity = Vec3(1.0, 5.0, 0.0);
  m.addShape(m.addBody(rod), Shape::capsule(0.025, 0.125));
  WorldSettings ws;
  World w(std::move(m), ws);
  const auto momentum = [&w]() {
    const Mat3 R = w.state().pose[0].orientation.toRotationMatrix();
    return Vec3(R * w.model().bodies[0].inertia * R.transpose() * w.state().angular_velocity[0]);
  };
  const double E0 = w.kineticEnergy(), L0 = momentum().norm();
  for (int k = 0; k < 600; ++k) {
    w.step();
    ASSERT_NEAR(w.kineticEnergy() / E0, 1.0, 1e-9) << "step " << k;
    ASSERT_NEAR(momentum().norm() / L0, 1.0, 1e-9) << "step " << k;
  }
}

}  // namespace
}  // namespace subsim
