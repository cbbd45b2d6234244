// Every registered solver against the same reference on small problems with a known solution: a
// box resting on a plane, a sphere in a V-groove, a box on an incline below and above the friction
// angle, a resting sphere.  The same vhat (1e-6 m/s) and the same net impulse J^T lambda on each
// subsystem (1e-6 relative); lambda itself only where it is unique (one contact, the V-groove).
// Projected Jacobi is left out: it needs relaxation and may fail (as in the ICRA paper's Table I).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <numbers>
#include <string>

#include "subsim/math/so3.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/solvers/fadmm_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using test::denseJacobian;

/// A sphere dropped into a frictionless groove of two planes at +-45 degrees about x.  With
/// friction the groove is a wedge: the faces' tangential impulses can trade against their normal
/// ones (one free parameter, as under a box), so lambda is unique only without friction.
Model vGrooveModel() {
  Model m;
  const int ground = m.addBody(namedBody("groove", BodyKind::Static));
  const double tilt = std::numbers::pi / 4.0;
  for (double sign : {1.0, -1.0}) {
    Pose face;
    face.orientation = Quat(Eigen::AngleAxisd(sign * tilt, Vec3::UnitX()));
    m.addShape(ground, Shape::plane(), face, 0.0);
  }
  const Shape sphere = Shape::sphere(0.05);
  Body b = namedBody("ball", BodyKind::Dynamic, 0.7);
  b.inertia = sphere.unitDensityInertia(0.7);
  b.initial_pose.position = Vec3(0.0, 0.0, 0.05 * std::sqrt(2.0) + 0.002);
  m.addShape(m.addBody(b), sphere, Pose(), 0.0);
  m.dt = 0.01;
  return m;
}

struct AgreementCase {
  const char* name;
  const char* spec;  // built-in scene, or "vgroove"
  int steps;
  int contacts;        // expected contact constraints in the problem
  bool unique_lambda;  // lambda itself is determined
};

World caseWorld(const AgreementCase& c) {
  WorldSettings ws;
  ws.solver_settings.max_iterations = 200;
  ws.solver_settings.tolerance = 0.0;
  World w = std::string(c.spec) == "vgroove" ? World(vGrooveModel(), ws)
                                             : test::makeWorld(c.spec, 200, 0.0, 1, 0.0, ws);
  for (int k = 0; k < c.steps; ++k) w.step();
  return w;
}

class SolverAgreement : public ::testing::TestWithParam<std::tuple<AgreementCase, std::string>> {};

TEST_P(SolverAgreement, SameVelocityAndNetImpulseAsFadmm) {
  const auto& [c, name] = GetParam();
  World w = caseWorld(c);
  const StepProblem& p = w.lastProblem();
  ASSERT_EQ(p.numContacts(), c.contacts) << c.name;
  const StepSolution ref = test::solveTightly("fadmm", p);
  ASSERT_TRUE(ref.stats.converged()) << "reference residual " << ref.stats.residual;
  const StepSolution sol = test::solveTightly(name, p);
  if (name == "apgd" && std::string(c.name) == "incline_sliding") {
    // APGD solves the CCP (its Euclidean cone projection): a sliding contact glides, its normal
    // velocity mu |v_t| instead of 0 (the COND paper's Prop. 5), so it differs from the NCP here.
    const VecX u = denseJacobian(p) * sol.vhat + Eigen::Map<const VecX>(p.e.data(), p.numRows());
    for (const Constraint& k : p.constraints) {
      const int o = k.row_offset;
      if (sol.lambda[o] <= 1e-9) continue;
      EXPECT_GT(u[o], 1e-4);
      EXPECT_NEAR(u[o], k.mu * u.segment<2>(o + 1).norm(), 1e-6);
    }
    return;
  }

  EXPECT_LT((sol.vhat - ref.vhat).cwiseAbs().maxCoeff(), 1e-6) << name << " on " << c.name;
  const MatX J = denseJacobian(p);
  const VecX net = J.transpose() * sol.lambda, net_ref = J.transpose() * ref.lambda;
  for (int i = 0; i < p.numSubsystems(); ++i) {
    const Subsystem& sub = p.subsystems[i];
    const VecX a = net.segment(sub.dof_offset, sub.dof),
               b = net_ref.segment(sub.dof_offset, sub.dof);
    EXPECT_LE((a - b).norm(), 1e-6 * std::max(b.norm(), 1e-9)) << name << " on " << c.name;
  }
  if (c.unique_lambda) {
    EXPECT_LE((sol.lambda - ref.lambda).norm(), 1e-6 * std::max(ref.lambda.norm(), 1e-9))
        << name << " on " << c.name;
  }
  // The common judge agrees that the solution is (nearly) exact.
  EXPECT_LT(evaluateStep(p, sol).constraint_residual, 1e-7) << name << " on " << c.name;
}

const AgreementCase kCases[] = {
    {"box_on_plane", "stack:boxes=1", 30, 4, false},
    {"resting_sphere", "sphere", 30, 1, true},
    {"sphere_in_v_groove", "vgroove", 40, 2, true},
    {"incline_sticking", "incline:angle=10,mu=0.5", 20, 4, false},
    {"incline_sliding", "incline:angle=40,mu=0.5", 20, 4, false},
};

/// Registered solvers but the named ones; with `ncp_only`, those of the NCP formulation (the
/// Coulomb-cone problem the reference solves; the box MLCP's box friction is another problem,
/// which tests/solvers/box_mlcp_solvers_test.cpp checks).
std::vector<std::string> solversExcept(std::initializer_list<std::string> excluded,
                                       bool ncp_only = false) {
  std::vector<std::string> names;
  for (const SolverEntry& e : solverRegistry())
    if (std::find(excluded.begin(), excluded.end(), e.name) == excluded.end() &&
        (!ncp_only || e.formulation == "ncp"))
      names.push_back(e.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(
    AllSolvers, SolverAgreement,
    ::testing::Combine(::testing::ValuesIn(kCases),
                       ::testing::ValuesIn(solversExcept({"pj", "fadmm"}, true))),
    [](const ::testing::TestParamInfo<SolverAgreement::ParamType>& param_info) {
      std::string solver = std::get<1>(param_info.param);
      for (char& ch : solver)
        if (ch == '-') ch = '_';
      return std::string(std::get<0>(param_info.param).name) + "_" + solver;
    });

// A swinging chain has only bilateral (ball-joint) rows: the step is the linear KKT system
// [A -J^T; J 0] [v; lambda] = [b; -e], solved densely as the reference for every solver.
class BilateralKkt : public ::testing::TestWithParam<std::string> {};

TEST_P(BilateralKkt, MatchesTheDirectSolve) {
  const std::string name = GetParam();
  World w = test::worldAfter("pendulum:links=3", 10, 60);
  const StepProblem& p = w.lastProblem();
  ASSERT_EQ(p.numContacts(), 0);
  ASSERT_GT(p.numConstraints(), 0);
  auto solver = makeSolver(name);
  SolverSettings s;
  s.max_iterations = isNewtonTypeSolver(name) ? 400 : 200000;
  // 1e-11, a hundred times the round-off floor of these residuals (the Newton-type solvers stall
  // near 2e-13 on some machines' round-off), and far tighter than the KKT comparison needs.
  s.tolerance = 1e-11;
  StepSolution sol;
  solver->solve(p, s, sol);
  EXPECT_TRUE(sol.stats.converged()) << name << " residual " << sol.stats.residual;
  test::expectMatchesDenseKkt(p, sol, name);
}

// COND is left out: its virtual nodes put a compliance 1 / k_v on the joints of rigid links, so
// it converges to a nearby problem (tests/solvers/cond_solver_test.cpp checks that it tends to
// the exact one as 1 / k_v, and is exact on FEM nodes).
INSTANTIATE_TEST_SUITE_P(AllSolvers, BilateralKkt,
                         ::testing::ValuesIn(solversExcept({"pj", "cond"})),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string n = param_info.param;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST(SolverAgreement, VGrooveImpulsesAreSymmetricAndCarryTheWeight) {
  World w = caseWorld({"v", "vgroove", 300, 2, true});
  const StepProblem& p = w.lastProblem();
  ASSERT_EQ(p.numContacts(), 2);
  const StepSolution sol = test::solveTightly("canal", p);
  // Both faces push equally and their vertical components carry the weight over the step.
  const double ln0 = sol.lambda[p.constraints[0].row_offset];
  const double ln1 = sol.lambda[p.constraints[1].row_offset];
  EXPECT_NEAR(ln0, ln1, 1e-9);
  for (const Constraint& c : p.constraints) {  // frictionless: normal impulses only
    EXPECT_EQ(sol.lambda[c.row_offset + 1], 0.0);
    EXPECT_EQ(sol.lambda[c.row_offset + 2], 0.0);
  }
  const double h = w.model().dt;
  EXPECT_NEAR((ln0 + ln1) * std::cos(std::numbers::pi / 4.0), 0.7 * 9.81 * h,
              1e-3 * 0.7 * 9.81 * h);
}

}  // namespace
}  // namespace subsim
