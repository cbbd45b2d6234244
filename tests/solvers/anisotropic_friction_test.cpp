// Anisotropic (elliptic) friction, the COND paper's eq. (12) and Prop. 6: the strict operator's
// projection onto the ellipse, the maximal-dissipation friction of the solvers that use it, the
// box's path against the maximal-dissipation ODE, the metrics, the problem file, and the
// isotropic solvers' refusal.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "subsim/io/problem_file.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/problem/cone_projection.hpp"
#include "subsim/problem/problem_hash.hpp"
#include "subsim/scenarios/anisobox_reference.hpp"
#include "subsim/solvers/solver.hpp"
#include "test_files.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

// The Euclidean distance from y to the ellipse of semi-axes a1, a2 by a fine search over its
// boundary (an independent reference for the projection).
double distanceToEllipse(const Eigen::Vector2d& y, double a1, double a2) {
  double best = HUGE_VAL, best_t = 0.0;
  const int n = 20000;
  for (int k = 0; k < n; ++k) {
    const double t = 2.0 * M_PI * k / n;
    const double d = (Eigen::Vector2d(a1 * std::cos(t), a2 * std::sin(t)) - y).norm();
    if (d < best) best = d, best_t = t;
  }
  double lo = best_t - 2.0 * M_PI / n, hi = best_t + 2.0 * M_PI / n;  // golden-section refinement
  for (int k = 0; k < 200; ++k) {
    const double m1 = lo + (hi - lo) / 3.0, m2 = hi - (hi - lo) / 3.0;
    const auto dist = [&](double t) {
      return (Eigen::Vector2d(a1 * std::cos(t), a2 * std::sin(t)) - y).norm();
    };
    (dist(m1) < dist(m2) ? hi : lo) = dist(m1) < dist(m2) ? m2 : m1;
  }
  const double t = 0.5 * (lo + hi);
  return (Eigen::Vector2d(a1 * std::cos(t), a2 * std::sin(t)) - y).norm();
}

TEST(EllipticCone, TheStrictOperatorProjectsOntoTheEllipse) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-3.0, 3.0), m(0.05, 1.5);
  int outside = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const double mu1 = m(rng), mu2 = m(rng);
    const Vec3 star(std::abs(u(rng)), u(rng), u(rng));
    const Vec3 l = projectEllipticConeStrict(star, mu1, mu2);
    EXPECT_EQ(l[0], star[0]);
    const double a1 = mu1 * star[0], a2 = mu2 * star[0];
    const double g = std::pow(star[1] / a1, 2) + std::pow(star[2] / a2, 2);
    if (g <= 1.0) {  // sticking: unchanged
      EXPECT_EQ(l, star);
      continue;
    }
    ++outside;
    // On the ellipse, at the distance of the nearest boundary point, and the residual y - x along
    // the ellipse's normal (l1 / a1^2, l2 / a2^2) at x: the KKT conditions of the projection.
    EXPECT_NEAR(std::pow(l[1] / a1, 2) + std::pow(l[2] / a2, 2), 1.0, 1e-12);
    const Eigen::Vector2d y = star.tail<2>(), x = l.tail<2>();
    EXPECT_NEAR((y - x).norm(), distanceToEllipse(y, a1, a2), 1e-9 * (1.0 + y.norm()));
    const Eigen::Vector2d normal(x[0] / (a1 * a1), x[1] / (a2 * a2));
    const double cross = (y - x)[0] * normal[1] - (y - x)[1] * normal[0];
    EXPECT_NEAR(cross, 0.0, 1e-9 * (y - x).norm() * normal.norm());
    EXPECT_GT((y - x).dot(normal), 0.0);
  }
  EXPECT_GT(outside, 100);
}

TEST(EllipticCone, SpecialCases) {
  // Equal coefficients: the isotropic strict operator.
  const Vec3 star(2.0, 3.0, -4.0);
  EXPECT_LT((projectEllipticConeStrict(star, 0.5, 0.5) - projectConeStrict(star, 0.5)).norm(),
            1e-14);
  // Separating: no impulse at all.
  EXPECT_EQ(projectEllipticConeStrict(Vec3(-1.0, 3.0, 4.0), 0.5, 0.2), Vec3::Zero());
  // A frictionless axis: its component goes, the other is clamped to its segment.
  EXPECT_EQ(projectEllipticConeStrict(Vec3(2.0, 0.3, 5.0), 0.5, 0.0), Vec3(2.0, 0.3, 0.0));
  EXPECT_EQ(projectEllipticConeStrict(Vec3(2.0, 3.0, 5.0), 0.5, 0.0), Vec3(2.0, 1.0, 0.0));
  EXPECT_EQ(projectContactStrict(star, 0.5, -1.0), projectConeStrict(star, 0.5));
}

// The friction a sliding contact gets under maximal dissipation: -lambda_n (mu1^2 u1, mu2^2 u2) /
// |(mu1 u1, mu2 u2)| for the tangential velocity u (the maximiser of -lambda_t . u_t over the
// ellipse).
Eigen::Vector2d maximalDissipation(double n, double mu1, double mu2, const Eigen::Vector2d& u) {
  const double norm = std::hypot(mu1 * u[0], mu2 * u[1]);
  return -n * Eigen::Vector2d(mu1 * mu1 * u[0], mu2 * mu2 * u[1]) / norm;
}

// `tolerance`: relative to lambda_n.  COND's converged solution holds at its virtual nodes, whose
// coupling 1 / k_a (Prop. 2) leaves J vhat a compliance away from them: about 1e-5 here.
void expectMaximalDissipation(const std::string& solver, double tolerance) {
  WorldSettings ws;
  ws.solver = solver;
  World w = test::makeWorld("anisobox:mu1=0.2,mu2=0.6", 20000, 1e-11, 1, 0.0, ws);
  for (int k = 0; k < 10; ++k) ASSERT_FALSE(w.step().diverged) << solver;
  const StepProblem& p = w.lastProblem();
  const StepSolution& sol = w.lastSolution();
  ASSERT_TRUE(sol.stats.converged()) << solver << ": " << sol.stats.iterations;
  const VecX u =
      test::denseJacobian(p) * sol.vhat + Eigen::Map<const VecX>(p.e.data(), p.numRows());
  int sliding = 0;
  for (const Constraint& c : p.constraints) {
    ASSERT_TRUE(c.anisotropic());
    EXPECT_NEAR(c.mu, 0.2, 1e-12);
    EXPECT_NEAR(c.mu_t2, 0.6, 1e-12);
    const double* l = sol.lambda.data() + c.row_offset;
    const Eigen::Vector2d ut = u.segment<2>(c.row_offset + 1);
    if (l[0] <= 1e-6 || ut.norm() < 1e-3) continue;
    ++sliding;
    const Eigen::Vector2d expected = maximalDissipation(l[0], c.mu, c.mu_t2, ut);
    EXPECT_LT((Eigen::Vector2d(l[1], l[2]) - expected).norm(), tolerance * l[0]) << solver;
    // Not opposite to the sliding: the two directions differ by degrees here.
    const Eigen::Vector2d opposite = -ut.normalized() * expected.norm();
    EXPECT_GT((expected - opposite).norm(), 0.05 * expected.norm());
  }
  EXPECT_EQ(sliding, 4) << solver;  // the box's four bottom corners
  // The common judge agrees: a converged solution has no residual to speak of.
  const StepMetrics m = evaluateStep(p, sol);
  EXPECT_LT(m.constraint_residual, tolerance) << solver;
  EXPECT_LT(m.contact_natural_map_error, 10.0 * tolerance) << solver;
  EXPECT_LT(m.contact_fb_residual, tolerance) << solver;
}

TEST(AnisotropicFriction, CondSlidesInTheMaximalDissipationDirection) {
  expectMaximalDissipation("cond", 1e-4);
}
TEST(AnisotropicFriction, SubadmmSlidesInTheMaximalDissipationDirection) {
  expectMaximalDissipation("subadmm", 1e-7);
}

// The box's path against the maximal-dissipation ODE (scenarios/anisobox_reference.hpp): the
// discrete path converges to it at first order in h, so it is compared at h = 10 ms and 2.5 ms.
double pathError(double dt) {
  World w = test::makeWorld("anisobox:mu1=0.2,mu2=0.6", 5000, 1e-10, 1, dt);
  const int steps = static_cast<int>(std::lround(1.0 / dt));
  Vec3 before = Vec3::Zero();
  for (int k = 0; k < steps; ++k) {
    EXPECT_FALSE(w.step().diverged);
    if (k == steps - steps / 10) before = w.state().pose[1].position;
  }
  // It has stopped (its position; the midpoint rule's end-of-step velocity may flip sign about a
  // zero vhat).
  const Vec3 x = w.state().pose[1].position;
  EXPECT_LT((x - before).norm(), 1e-7);
  return (x.head<2>() - anisotropicSlideStop(0.2, 0.6, Eigen::Vector2d(1.0, 1.0))).norm();
}

TEST(AnisotropicFriction, TheBoxFollowsTheMaximalDissipationPath) {
  const Eigen::Vector2d end = anisotropicSlideStop(0.2, 0.6, Eigen::Vector2d(1.0, 1.0));
  // Bent towards the slippery x axis: past the diagonal the velocity started on.
  EXPECT_GT(end[0], 1.5 * end[1]);
  const double coarse = pathError(0.01), fine = pathError(0.0025);
  EXPECT_LT(coarse, 2e-3 * end.norm());  // 0.16 mm of the 0.35 m path measured
  EXPECT_LT(fine, 0.4 * coarse);  // first order: a quarter of the step, a quarter of the error
}

TEST(AnisotropicFriction, ProblemFilesKeepIt) {
  World w = test::makeWorld("anisobox", 60, 0.0, 1);
  w.step();
  const test::TempFile file(test::tempPath("anisotropic.h5"));
  writeProblemFile(file.path, {"anisobox", "subadmm", 0.01}, {{w.lastProblem(), {}, {}}});
  const ProblemFile read = readProblemFile(file.path);
  ASSERT_EQ(read.problems.size(), 1u);
  EXPECT_TRUE(read.problems[0].problem.hasAnisotropicFriction());
  EXPECT_EQ(problemHash(read.problems[0].problem), problemHash(w.lastProblem()));
}

TEST(AnisotropicFriction, CheckAndTheIsotropicSolversNameIt) {
  World w = test::makeWorld("anisobox", 60, 0.0, 1);
  w.step();
  StepProblem p = w.lastProblem();
  StepSolution sol;
  try {
    makeSolver("pgs")->solve(p, SolverSettings(), sol);
    FAIL() << "pgs took anisotropic friction";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    for (const char* part : {"solver 'pgs' takes isotropic friction only", "contact 0",
                             "cond (cone=strict), subadmm or fadmm"})
      EXPECT_NE(m.find(part), std::string::npos) << part << " not in: " << m;
  }
  EXPECT_THROW(makeSolver("cond", {{"cone", "proximal"}})->solve(p, SolverSettings(), sol),
               std::invalid_argument);
  p.constraints[0].mu_t2 = -0.5;
  EXPECT_EQ(p.check(),
            "constraint 0: mu_t2 -0.5, expected -1 (isotropic) or a contact's mu_t2 >= 0");
}

TEST(AnisotropicFriction, AGrainNeedsAStaticBody) {
  BuiltScene scene = buildScenario("anisobox");
  Model m = scene.model;
  m.shapes[1].mu_across = 0.3;  // the box's own shape
  EXPECT_THROW(m.validate(), std::invalid_argument);
  m = scene.model;
  m.shapes[0].friction_axis = Vec3::Zero();
  EXPECT_THROW(m.validate(), std::invalid_argument);
}

}  // namespace
}  // namespace subsim
