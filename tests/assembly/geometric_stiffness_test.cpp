// The joints' geometric stiffness (assembly/geometric_stiffness.hpp) against a hand-derived value
// and against the instability it is there for.
#include <gtest/gtest.h>

#include "subsim/assembly/assembler.hpp"
#include "subsim/model/integrator.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

namespace subsim {
namespace {

/// A 2 kg sphere hanging at rest from the world by a ball joint `length` above its centre.
Model hangingSphere(double length, bool geometric_stiffness) {
  Model m;
  m.dt = 0.01;
  m.geometric_stiffness = geometric_stiffness;
  const Shape s = Shape::sphere(0.1);
  Body b = namedBody("bob", BodyKind::Dynamic, 2.0);
  b.inertia = s.unitDensityInertia(2.0);
  const int body = m.addBody(b);
  m.addShape(body, s);
  m.addJointAtWorld(JointType::Ball, body, -1, Vec3(0, 0, length));
  return m;
}

TEST(GeometricStiffness, AddsTheLeverTimesTheJointImpulseToTheTransverseInertia) {
  // At rest the joint carries lambda = m g h upward at the lever r = L e_z from the centre:
  // K = [lambda]x [r]x = L lambda_z (e_z e_z^T - I), so h |K| = h L lambda_z diag(1, 1, 0) on top
  // of A's angular block g I (g = 1 / (1 - theta)); nothing on the linear block.
  const double length = 0.7;
  WorldSettings ws;
  ws.solver = "bpp";
  World with(hangingSphere(length, true), ws), without(hangingSphere(length, false), ws);
  with.step();
  without.step();
  const WarmStart& warm = with.state().warm_start;
  const int offset = warm.offsetOf(jointKey(0, 0), 3);
  ASSERT_GE(offset, 0);
  const Vec3 impulse = warm.lambda.segment<3>(offset);
  EXPECT_NEAR(impulse.z(), 2.0 * 9.81 * 0.01, 1e-9);
  with.step();
  without.step();
  const auto a = with.lastProblem().A(0);
  const auto plain = without.lastProblem().A(0);
  const double h = 0.01, added = h * length * impulse.z();
  EXPECT_NEAR(a(3, 3) - plain(3, 3), added, 1e-12);
  EXPECT_NEAR(a(4, 4) - plain(4, 4), added, 1e-12);
  EXPECT_NEAR(a(5, 5) - plain(5, 5), 0.0, 1e-12);
  EXPECT_NEAR((a - plain).topRows<3>().cwiseAbs().maxCoeff(), 0.0, 1e-15);
  // The block stays symmetric.
  EXPECT_NEAR((a - a.transpose()).cwiseAbs().maxCoeff(), 0.0, 1e-15);
}

// The instability it removes: an 8-plank cable bridge at the schur paper's h = 1/60 s, only
// joints, at rest.  Without geometric stiffness the main cables' links leave rest by themselves
// (measured: 1.7 mJ after 33 steps, their energy growing tenfold and more a step); with it the
// bridge stays at rest.
TEST(GeometricStiffness, KeepsALoadedCableBridgeAtRestAtTheSchurPapersStep) {
  WorldSettings ws;
  ws.solver = "bpp";
  Model model = buildScenario("bridge:planks=8").model;
  ASSERT_TRUE(model.geometric_stiffness);  // the schur scenes have it on
  World with(model, ws);
  for (int k = 0; k < 300; ++k) ASSERT_FALSE(with.step().diverged) << "step " << k;
  EXPECT_LT(with.kineticEnergy(), 1e-9);

  model.geometric_stiffness = false;
  World without(model, ws);
  double energy = 0.0;
  for (int k = 0; k < 150 && energy < 1e-3 && !without.step().diverged; ++k)
    energy = without.kineticEnergy();
  EXPECT_TRUE(without.diverged() || energy >= 1e-3) << "kinetic energy " << energy << " J";
}

}  // namespace
}  // namespace subsim
