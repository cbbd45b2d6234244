// The AL paper's bolt and nut (Sec. VII-A): the nut screwed by a constant torque follows the
// thread, one pitch per turn, and without friction the work done on it is its kinetic energy.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "subsim/io/scene_file.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kPitch = 0.005;

/// The nut's rotation about the bolt's axis, unwrapped step by step (a step turns it by far
/// less than half a turn).
struct TurnCounter {
  double previous = 0.0;
  double total = 0.0;  // rad
  void update(const Quat& q) {
    const double yaw = 2.0 * std::atan2(q.z(), q.w());
    total += std::remainder(yaw - previous, 2.0 * kPi);
    previous = yaw;
  }
};

TEST(BoltNut, TheNutIsInPhaseWithTheBoltAndItsFrameAtItsCentreOfMass) {
  const Model m = buildScenario("boltnut:robot=0").model;
  ASSERT_EQ(m.bodies.size(), 2u);
  EXPECT_EQ(m.bodies[0].kind, BodyKind::Static);
  const Body& nut = m.bodies[1];
  EXPECT_EQ(nut.name, "nut");
  const BodyShape& s = m.shapes[nut.shapes.front()];
  EXPECT_TRUE(s.local_pose.position.isApprox(-s.shape.centroid()));
  // A whole number of pitches up the bolt, on its axis (a thread over whole pitches has its
  // centroid on the axis).
  const Vec3 frame = nut.initial_pose.position + s.local_pose.position;
  EXPECT_NEAR(std::remainder(frame.z(), kPitch), 0.0, 1e-12);
  EXPECT_LT(Vec3(nut.initial_pose.position.x(), nut.initial_pose.position.y(), 0).norm(), 1e-6);
  EXPECT_EQ(nut.applied_torque, Vec3(0, 0, -0.05));
}

// Screwed down by 0.05 N m against friction 0.1 under gravity: at every step the nut's descent
// is the thread's lead times its turn, within the axial play of the two clearances (2 x 2c /
// sqrt 3 = 0.23 mm at c = 0.1 mm) and the solver's penetration; it makes a full turn.
TEST(BoltNut, ATorqueScrewsTheNutDownOnePitchPerTurn) {
  World w = test::makeWorld("boltnut:robot=0", 60, 0.0);
  const double z0 = w.state().pose[1].position.z();
  const double play = 2.0 * 2.0 * 1e-4 / std::sqrt(3.0);
  TurnCounter turn;
  double worst = 0.0;
  int steps = 0;
  while (turn.total > -2.0 * kPi && steps < 240) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << r.divergence;
    ++steps;
    turn.update(w.state().pose[1].orientation);
    const double descent = z0 - w.state().pose[1].position.z();
    worst = std::max(worst, std::abs(descent + kPitch * turn.total / (2.0 * kPi)));
    // It stays on the axis and upright within the radial play.
    EXPECT_LT(Vec3(w.state().pose[1].position.x(), w.state().pose[1].position.y(), 0).norm(), 3e-4);
  }
  EXPECT_LE(turn.total, -2.0 * kPi) << "one turn not reached in " << steps << " steps";
  EXPECT_LT(worst, play + 5e-5);
}

// Without friction the thread's contacts do no work on a screw motion: the torque's work and
// gravity's are the nut's kinetic energy (the work-energy theorem), here within 0.5 % over 120
// steps under CANAL (measured 0.02 %; SubADMM at 60 iterations keeps 89 %).  It holds only if
// every contact's normal is tangent to the screw motion: the nut's end faces are not, and
// searching the bolt's triangles in the nut's field (their planes) lost 78 % by 25 rad/s.
TEST(BoltNut, WithoutFrictionTheWorkDoneIsTheKineticEnergy) {
  WorldSettings ws;
  ws.solver = "canal";
  World w = test::makeWorld("boltnut:robot=0,mu=0", 60, 0.0, 1, 0.0, ws);
  const Model& m = w.model();
  const double z0 = w.state().pose[1].position.z();
  TurnCounter turn;
  for (int k = 0; k < 120; ++k) {
    ASSERT_FALSE(w.step().diverged);
    turn.update(w.state().pose[1].orientation);
  }
  const double drop = w.state().pose[1].position.z() - z0;
  const double work =
      m.bodies[1].applied_torque.z() * turn.total + m.bodies[1].mass * m.gravity.z() * drop;
  EXPECT_LT(turn.total, -2.0 * kPi);  // more than a turn: a fast screw motion
  EXPECT_NEAR(w.kineticEnergy() / work, 1.0, 5e-3);
}

// The same bolt and nut written as a scene file (shape types bolt and nut, the nut's torque as
// a body's `torque`) screw the same way.
TEST(BoltNut, AsASceneFileItScrewsTheSameWay) {
  Model m = parseScene(R"(
name: boltnut_file
dt: 0.004166666666666667
bodies:
  - name: bolt
    type: static
    shapes: [{type: bolt, major_diameter: 0.048, pitch: 0.005, length: 0.08, clearance: 0.0001,
              mu: 0.1}]
  - name: nut
    mass: 0.75
    position: [0, 0, 0.04]
    torque: [0, 0, -0.05]
    shapes: [{type: nut, major_diameter: 0.048, pitch: 0.005, length: 0.03,
              outer_diameter: 0.072, clearance: 0.0001, mu: 0.1}]
)",
                       "boltnut.yaml")
                .model;
  // The scene file puts the nut's centre of mass at `position` (its frame then sits below by
  // the centroid's height): move it up so that its frame is at 8 pitches, in phase.
  const BodyShape& s = m.shapes[m.bodies[1].shapes.front()];
  m.bodies[1].initial_pose.position.z() -= s.local_pose.position.z();
  // The file's nut is the built-in scene's: the same shape and inertia, its thread's frame in
  // the same place (the file centres the body on the axis, the built-in scene the thread's
  // frame: they differ by the centroid's distance from the axis, about 1e-8 m).
  const Model builtin = buildScenario("boltnut:robot=0").model;
  const BodyShape& builtin_shape = builtin.shapes[builtin.bodies[1].shapes.front()];
  EXPECT_TRUE(s.local_pose.position.isApprox(builtin_shape.local_pose.position, 1e-12));
  EXPECT_TRUE(m.bodies[1].inertia.isApprox(builtin.bodies[1].inertia, 1e-12));
  const Vec3 frame = m.bodies[1].initial_pose.position + s.local_pose.position;
  const Vec3 builtin_frame =
      builtin.bodies[1].initial_pose.position + builtin_shape.local_pose.position;
  EXPECT_LT((frame - builtin_frame).norm(), 1e-6);
  WorldSettings ws;
  ws.solver_settings.max_iterations = 60;
  ws.solver_settings.tolerance = 0.0;
  World w(m, ws);
  const double z0 = w.state().pose[1].position.z();
  TurnCounter turn;
  for (int k = 0; k < 150 && turn.total > -2.0 * kPi; ++k) {
    ASSERT_FALSE(w.step().diverged);
    turn.update(w.state().pose[1].orientation);
    const double descent = z0 - w.state().pose[1].position.z();
    EXPECT_NEAR(descent, -kPitch * turn.total / (2.0 * kPi), 2.0 * 2.0 * 1e-4 / std::sqrt(3.0));
  }
  EXPECT_LE(turn.total, -2.0 * kPi);
}

// The paper's task: the Panda holds the nut in its hand and threads it under Franka's joint
// impedance, its path 2 mm below the thread's helix so that the hand presses the nut's flanks
// onto the bolt's.  The nut's descent is the thread's lead times its turn at every step, within
// the axial play of the two clearances, it stays on the bolt's axis within the radial play, and
// the flanks carry the press (over the second half second the normal impulses average several
// newtons: measured about 10 N; in the first half the flanks take up the axial play and bounce
// once).  One second (240 steps) and 48 columns per turn keep the test short.
TEST(BoltNut, ThePandaThreadsTheNutOnePitchPerTurn) {
  WorldSettings ws;
  ws.solver = "canal";
  World w = test::makeWorld("boltnut:duration=1,segments=48", 60, 1e-6, 1, 0.0, ws);
  const int nut = w.model().findBody("panda/nut");
  ASSERT_GE(nut, 0);
  const Vec3 axis(0.45, 0.0, 0.0);  // the bolt's foot, x and y
  const double z0 = w.state().pose[nut].position.z();
  const double play = 2.0 * 2.0 * 1e-4 / std::sqrt(3.0);
  TurnCounter turn;
  turn.previous =
      2.0 * std::atan2(w.state().pose[nut].orientation.z(), w.state().pose[nut].orientation.w());
  double worst = 0.0, worst_off_axis = 0.0, press = 0.0;
  for (int k = 0; k < 240; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << r.divergence;
    EXPECT_LT(r.max_penetration, 1e-4);
    const Pose& pose = w.state().pose[nut];
    turn.update(pose.orientation);
    worst = std::max(worst, std::abs(z0 - pose.position.z() + kPitch * turn.total / (2.0 * kPi)));
    worst_off_axis =
        std::max(worst_off_axis, Vec3(pose.position.x() - axis.x(), pose.position.y(), 0).norm());
    if (k < 120) continue;
    const StepProblem& p = w.lastProblem();
    double normal = 0.0;
    for (const Constraint& c : p.constraints)
      if (c.type == ConstraintType::Contact) normal += w.lastSolution().lambda[c.row_offset];
    press += normal / p.dt / 120.0;
  }
  EXPECT_LT(turn.total, -0.8 * 2.0 * kPi);  // 0.875 turn clockwise (5.5 rad) measured
  EXPECT_LT(worst, play + 5e-5);
  EXPECT_LT(worst_off_axis, 3e-4);
  EXPECT_GT(press, 3.0);  // N
}

}  // namespace
}  // namespace subsim
