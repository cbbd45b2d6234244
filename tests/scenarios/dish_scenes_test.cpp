// The AL paper's dishes (Sec. VII-B): the stack built in order and touching, at rest for 5 s under
// CANAL, still stacked under SubADMM, CANAL's superlinear tail on its problems; the Panda placing
// a bowl into another with the Franka Hand and with the 16-DOF Allegro hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "subsim/metrics/step_metrics.hpp"
#include "subsim/solvers/al_newton_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

TEST(DishStack, PiecesAreStackedInOrderWithTheirCentreOfMassAtTheBodyOrigin) {
  const Model m = buildScenario("dishstack:segments=16").model;
  ASSERT_EQ(m.bodies.size(), 5u);  // the floor and four pieces
  double below = -1.0;
  for (int b = 1; b < 5; ++b) {
    const Body& body = m.bodies[b];
    EXPECT_GT(body.initial_pose.position.z(), below) << body.name;
    below = body.initial_pose.position.z();
    const BodyShape& s = m.shapes[body.shapes.front()];
    // The shape's frame sits at minus its centroid: the body frame is the centre of mass.
    EXPECT_TRUE(s.local_pose.position.isApprox(-s.shape.centroid()));
    EXPECT_GT(body.inertia.trace(), 0.0);
  }
  EXPECT_EQ(m.bodies[4].name, "pot");
  EXPECT_DOUBLE_EQ(m.bodies[4].mass, 5.0);
  EXPECT_EQ(buildScenario("dishstack:pieces=2,segments=16").model.bodies.size(), 3u);
}

/// Largest displacement of a piece from its start, in m, after `steps`.
double settle(World& w, int steps) {
  const State start = w.state();
  for (int k = 0; k < steps; ++k) {
    const StepReport r = w.step();
    EXPECT_FALSE(r.diverged) << r.divergence;
    if (r.diverged) return 1.0;
  }
  double moved = 0.0;
  for (std::size_t b = 1; b < start.pose.size(); ++b)
    moved = std::max(moved, (w.state().pose[b].position - start.pose[b].position).norm());
  return moved;
}

// 0.1 kg dishes under a 5 kg pot (the paper: CANAL and SubADMM succeed, PGS jitters).  Each piece
// starts 0.1 mm above the one below, so it may settle by about that much per piece.
TEST(DishStack, StaysStackedForFiveSecondsUnderSubadmm) {
  World w = test::makeWorld("dishstack", 60, 0.0);
  EXPECT_LT(settle(w, 1200), 1e-3);
}

/// The stack under CANAL at 100 Newton iterations, `steps` steps in.
World canalHeldStack(int steps) {
  WorldSettings ws;
  ws.solver = "canal";
  World w = test::makeWorld("dishstack", 100, 0.0, 1, 0.0, ws);
  for (int k = 0; k < steps; ++k) w.step();
  return w;
}

// CANAL at 100 Newton iterations holds it still: the settling's kinetic energy is 5e-12 J at 1 s
// (at 40 iterations 1.5e-7 J after 5 s, measured).  One second is checked here.
TEST(DishStack, CanalHoldsItStill) {
  World w = canalHeldStack(0);
  EXPECT_LT(settle(w, 240), 1e-3);
  EXPECT_LT(w.kineticEnergy(), 1e-10);
}

// The AL paper: CANAL below 1e-8 in about ten AL iterations on the dish stack (Table II: 30.55
// Newton iterations over its 10 AL loops).  Here, on the problems of steps 21-40 of a stack CANAL
// holds, stopping on its own (natural-map) residual at 1e-8: all 20 converge (constraint
// residual at most 6.2e-10) in 18 to 19 AL loops and 35 to 41 Newton iterations (measured
// 2026-11-29; with the trace penalty rule 16 to 18 loops and 32 to 51 Newton iterations; with
// settled_beta_max_scale=0 16 to 19 loops, at most 49 Newton iterations: the settled penalty
// rarely applies to these warm-started steps).  Not the
// paper's ten: at this mu (0.5) the AL loops converge linearly, by about 0.4 per loop, and at a
// penalty of 1e6 times the mass scale so does the cascade's frozen shift mu ||z_t||
// (docs/signed-distance-shapes.md, "Table II as the paper runs it": at mu = 0.1 the paper's
// residual after ten loops is reached).  The bounds leave a few loops of margin.
TEST(DishStack, CanalReaches1e8WithinAboutTwentyAlIterations) {
  World w = canalHeldStack(20);
  for (int k = 0; k < 20; ++k) {
    w.step();
    const StepProblem& p = w.lastProblem();
    ASSERT_GT(p.numContacts(), 50);
    AlNewtonSolver canal(AlNewtonSolver::Variant::Canal);
    SolverSettings s;
    s.max_iterations = 400;
    s.tolerance = 1e-8;
    StepSolution sol = w.lastWarmStart();
    canal.solve(p, s, sol);
    EXPECT_TRUE(sol.stats.converged()) << "step " << 21 + k << ": " << sol.stats.residual;
    EXPECT_LT(evaluateStep(p, sol).constraint_residual, 1e-8) << "step " << 21 + k;
    EXPECT_LE(canal.alLoops(), 22) << "step " << 21 + k;
    EXPECT_LE(sol.stats.iterations, 56) << "step " << 21 + k;
  }
}

// Table II's protocol (the paper: 10 AL loops, 30.55 Newton iterations, no failed Newton solve,
// residual 10^-8.22): on the problems of steps 21-30 of a stack CANAL holds, 10 AL loops with
// each loop's Newton solve to round-off take 40 to 43 Newton iterations, none runs to its cap,
// and the judge's residual ends at 4.4e-7 to 2.3e-6 (measured 2026-11-29; with the trace
// penalty rule 33 to 45 and 1.8e-7 to 5.5e-7).  The residual is not
// the paper's: at the stack's mu = 0.5 the cascade's frozen shift mu ||z_t|| converges by about
// 0.4 per loop (docs/signed-distance-shapes.md, "Table II as the paper runs it").
TEST(DishStack, CanalTakesTheTenAlLoopsOfTableIIWithoutAFailedNewtonSolve) {
  World w = canalHeldStack(20);
  for (int k = 0; k < 10; ++k) {
    w.step();
    const StepProblem& p = w.lastProblem();
    AlNewtonOptions o;
    o.max_al_loops = 10;
    o.inner_ratio = 0.0;
    AlNewtonSolver canal(AlNewtonSolver::Variant::Canal, o);
    SolverSettings s;
    s.max_iterations = 100000;  // the loops are the cap
    s.tolerance = 0.0;
    StepSolution sol = w.lastWarmStart();
    canal.solve(p, s, sol);
    EXPECT_EQ(canal.alLoops(), 10) << "step " << 21 + k;
    EXPECT_EQ(sol.stats.inner_unconverged, 0) << "step " << 21 + k;
    EXPECT_LE(sol.stats.iterations, 55) << "step " << 21 + k;
    EXPECT_LT(evaluateStep(p, sol).constraint_residual, 1e-5) << "step " << 21 + k;
  }
}

// The piling task with the robot: the Panda's hand picks a bowl up by its rim, lifts it 10 cm,
// holds it against gravity while it carries it 40 cm, and lets it go above the other bowl, into
// which it settles.  Checked: while carried (2.5-4 s) the bowl stays in the hand (at least 9 cm
// up, tilted less than `carried_tilt` degrees); at the end it is nested in the other bowl (on its
// axis within 5 mm, 3-10 mm above it, tilted less than 4 degrees), the lower bowl and what it
// stands on are where they were within 2 cm and level, and no contact penetrates by 0.5 mm.
void expectBowlPlaced(const std::string& scene, double carried_tilt) {
  World w = test::makeWorld(scene, 60, 1e-6);
  const int lower = w.model().findBody("bowl0"), placed = w.model().findBody("bowl1");
  ASSERT_GE(lower, 0);
  ASSERT_GE(placed, 0);
  std::vector<int> pile = {lower};
  for (const char* name : {"plate", "pot"})
    if (const int b = w.model().findBody(name); b >= 0) pile.push_back(b);
  const State start = w.state();
  const double start_height = start.pose[placed].position.z();
  auto tilt = [&](int b) {
    return std::acos(std::clamp((w.state().pose[b].orientation * Vec3::UnitZ()).z(), -1.0, 1.0));
  };
  const double degree = M_PI / 180.0;
  double worst = 0.0;
  for (int k = 0; k < 1920; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << r.divergence;
    worst = std::max(worst, r.max_penetration);
    const double t = w.state().time;
    if (t >= 2.5 && t <= 4.0) {
      EXPECT_GT(w.state().pose[placed].position.z() - start_height, 0.09) << "t = " << t;
      EXPECT_LT(tilt(placed), carried_tilt * degree) << "t = " << t;
    }
  }
  EXPECT_LT(worst, 5e-4);
  const Vec3 a = w.state().pose[lower].position, b = w.state().pose[placed].position;
  EXPECT_LT(std::hypot(b.x() - a.x(), b.y() - a.y()), 0.005);
  EXPECT_GT(b.z() - a.z(), 0.003);
  EXPECT_LT(b.z() - a.z(), 0.010);
  EXPECT_LT(tilt(placed), 4.0 * degree);
  for (int piece : pile) {
    EXPECT_LT(tilt(piece), 0.5 * degree) << w.model().bodies[piece].name;
    EXPECT_LT((w.state().pose[piece].position - start.pose[piece].position).norm(), 0.02)
        << w.model().bodies[piece].name;
  }
}

// The Franka Hand pinches the wall between its pads.  Measured under SubADMM: tilted 0.4-0.8
// degrees while carried; placed, 1.6 degrees and still creeping level (2.9 at 6 s; CANAL 2.1, PGS
// 3.4, both creeping too).
TEST(Dishes, ThePandaPicksABowlUpAndPlacesItInTheOther) {
  expectBowlPlaced("dishes", 2.0);
}

// The paper's robot and dishes (47 DOF): the 16-DOF Allegro hand places a bowl into one standing
// on a plate on the 5 kg pot.  Three fingertips outside the wall, the thumb's inside it, squeezed
// by the joints' impedance.  The bowl hangs from one side of its rim and swings in the hand when
// the carry starts: its largest tilt while carried, measured, 4.9 degrees under SubADMM at 60
// iterations (CANAL at 30 Newton iterations 5.0, PGS at 60 5.0; on the floor with the hand's kd a
// tenth, 7.6); placed 0.02 mm off the lower bowl's axis, 6.5 mm above it, level to 0.02 degrees
// (PGS the same to 0.01 mm; CANAL 1.9 mm off, 8.4 mm up, 2.3 degrees); the lower bowl moved 1.2
// mm, the plate 0.2, the pot 0.1.
TEST(Dishes, TheAllegroHandPlacesABowlOnThePile) {
  expectBowlPlaced("dishes:allegro=1,pile=1", 8.0);
}

}  // namespace
}  // namespace subsim
