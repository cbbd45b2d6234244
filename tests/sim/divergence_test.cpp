// Divergence messages name what went wrong: the body (or deformable, or the two bodies of the
// deepest contact) and the quantity.  The rigid-body cases run through the command line in the
// error catalogue (docs/errors.md); deformables and a stepped diverged World can only be reached
// from C++, so they are checked here.  Every case diverges by orders of magnitude, never by
// round-off.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "subsim/fem/box_tet_mesher.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {
namespace {

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_PRED_FORMAT2(::testing::IsSubstring, needle, haystack)

// A free 10 cm FEM cube named "blob", without gravity, at rest in its rest shape unless given a
// velocity: only that velocity moves it.
Model blobModel(const Vec3& velocity, double dt, double z = 1.0) {
  Model m;
  m.dt = dt;
  m.gravity = Vec3::Zero();
  DeformableBody d;
  d.name = "blob";
  d.rest_mesh = boxTetMesh(Vec3(0.1, 0.1, 0.1), 1, 1, 1);
  d.material.young = 1e5;
  d.material.poisson = 0.3;
  d.material.density = 1000.0;
  d.initial_pose.position = Vec3(0.0, 0.0, z);
  d.initial_velocity = velocity;
  m.addDeformable(std::move(d));
  return m;
}

TEST(Divergence, AFastDeformableNodeIsNamed) {
  World w(blobModel(Vec3(200.0, 0.0, 0.0), 0.01));
  const StepReport r = w.step();
  ASSERT_TRUE(r.diverged);
  EXPECT_CONTAINS(r.divergence, "a node of deformable 'blob' moves at ");
  EXPECT_CONTAINS(r.divergence, " m/s along an axis (limit 100 m/s)");
}

TEST(Divergence, ANonFiniteDeformableNamesTheQuantity) {
  // 1e306 m/s for 1000 s: the positions overflow to infinity.
  World w(blobModel(Vec3(1e306, 0.0, 0.0), 1000.0));
  const StepReport r = w.step();
  ASSERT_TRUE(r.diverged);
  EXPECT_CONTAINS(r.divergence, "deformable 'blob' has a non-finite node position");
}

TEST(Divergence, PenetrationNamesTheDeformableAndTheBody) {
  Model m = blobModel(Vec3::Zero(), 0.01, 0.0);  // half of the cube below the floor
  m.addShape(m.addBody(namedBody("ground", BodyKind::Static)), Shape::plane(), Pose(), 0.5);
  WorldSettings settings;
  settings.penetration_limit = 0.001;
  World w(std::move(m), settings);
  const StepReport r = w.step();
  ASSERT_TRUE(r.diverged);
  std::ostringstream depth;
  depth << r.max_penetration;
  EXPECT_EQ(r.divergence, "penetration " + depth.str() +
                              " m between deformable 'blob' and body 'ground' exceeds the limit "
                              "0.001 m");
}

TEST(Divergence, ADivergedWorldRefusesToStep) {
  World w(blobModel(Vec3(200.0, 0.0, 0.0), 0.01));
  ASSERT_TRUE(w.step().diverged);
  try {
    w.step();
    ADD_FAILURE() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "World::step: the simulation has diverged");
  }
}

// A solve whose factorisation failed has no answer to integrate: the step diverges there, names
// the solver, and leaves the state as it was.  (The built-in solvers report it on a mass block
// that is not positive definite, tests/solvers/solve_status_test.cpp; a valid model never gives
// one, so a registered stand-in plays the failing solver.)
class UnfactorableSolver : public Solver {
 public:
  std::string_view name() const override { return "unfactorable"; }
  void solve(const StepProblem& p, const SolverSettings& settings,
             StepSolution& solution) override {
    beginStats(solution.stats, "none", settings);
    finishUnfactored(p, solution, settings, std::chrono::steady_clock::now());
  }
};

TEST(Divergence, AFailedFactorizationIsNamedAndLeavesTheStateAsItWas) {
  registerSolver({"unfactorable", SolverKind::FirstOrder, "ncp", "always fails (test)",
                  [] { return std::make_unique<UnfactorableSolver>(); }});
  struct Unregister {
    ~Unregister() { unregisterSolver("unfactorable"); }
  } unregister;
  WorldSettings ws;
  ws.solver = "unfactorable";
  World w(buildScenario("sphere").model, ws);
  const State before = w.state();
  const StepReport r = w.step();
  ASSERT_TRUE(r.diverged);
  EXPECT_EQ(r.solve_status, SolveStatus::FactorizationFailed);
  EXPECT_EQ(r.divergence,
            "the solver 'unfactorable' could not factor its system (a subsystem's A_i + beta J^T J "
            "or its Newton matrix is not positive definite: an extreme mass or stiffness ratio; "
            "try another solver or a smaller time step)");
  EXPECT_EQ(w.state().hash(), before.hash());
  EXPECT_THROW(w.step(), std::logic_error);
}

}  // namespace
}  // namespace subsim
