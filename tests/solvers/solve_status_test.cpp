// Every solve ends with a status (SolveStats::status), decided the same way for every solver.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "subsim/solvers/solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

StepSolution sized(const StepProblem& p) {
  StepSolution s;
  s.vhat.setZero(p.numDof());
  s.lambda.setZero(p.numRows());
  return s;
}

TEST(SolveStatus, FinishStatsDecidesByToleranceFinitenessAndNotedFailures) {
  const StepProblem p = test::worldAfter("stack:boxes=2", 5).lastProblem();
  SolverSettings settings;
  settings.tolerance = 1e-6;
  const auto t0 = std::chrono::steady_clock::now();

  StepSolution s = sized(p);
  beginStats(s.stats, "r", settings);
  finishStats(s, 7, 1e-7, settings, t0);
  EXPECT_EQ(s.stats.status, SolveStatus::Converged);
  EXPECT_TRUE(s.stats.converged());
  EXPECT_EQ(s.stats.iterations, 7);

  beginStats(s.stats, "r", settings);
  finishStats(s, 7, 1e-5, settings, t0);
  EXPECT_EQ(s.stats.status, SolveStatus::IterationCap);

  // Tolerance 0 runs exactly the cap and never claims convergence.
  SolverSettings exact = settings;
  exact.tolerance = 0.0;
  beginStats(s.stats, "r", exact);
  finishStats(s, 7, 0.0, exact, t0);
  EXPECT_EQ(s.stats.status, SolveStatus::IterationCap);

  // A stall gives way to convergence, not to the cap.
  beginStats(s.stats, "r", settings);
  noteFailure(s.stats, SolveStatus::Stalled);
  finishStats(s, 7, 1e-5, settings, t0);
  EXPECT_EQ(s.stats.status, SolveStatus::Stalled);
  beginStats(s.stats, "r", settings);
  noteFailure(s.stats, SolveStatus::Stalled);
  finishStats(s, 7, 1e-7, settings, t0);
  EXPECT_EQ(s.stats.status, SolveStatus::Converged);

  // A NaN anywhere: non-finite, even below the tolerance.
  s.vhat[0] = std::numeric_limits<double>::quiet_NaN();
  beginStats(s.stats, "r", settings);
  finishStats(s, 7, 1e-7, settings, t0);
  EXPECT_EQ(s.stats.status, SolveStatus::NonFinite);
  s = sized(p);
  s.lambda[0] = std::numeric_limits<double>::infinity();
  beginStats(s.stats, "r", settings);
  finishStats(s, 7, 1e-7, settings, t0);
  EXPECT_EQ(s.stats.status, SolveStatus::NonFinite);
  s = sized(p);
  beginStats(s.stats, "r", settings);
  finishStats(s, 7, std::numeric_limits<double>::quiet_NaN(), settings, t0);
  EXPECT_EQ(s.stats.status, SolveStatus::NonFinite);

  // A failed factorisation is the cause and stays the status, whatever the numbers became; the
  // first failure noted stands.
  s.vhat[0] = std::numeric_limits<double>::quiet_NaN();
  beginStats(s.stats, "r", settings);
  noteFailure(s.stats, SolveStatus::FactorizationFailed);
  noteFailure(s.stats, SolveStatus::Stalled);
  finishStats(s, 3, 1e-7, settings, t0);
  EXPECT_EQ(s.stats.status, SolveStatus::FactorizationFailed);
}

TEST(SolveStatus, NamesAreDistinctAndStable) {
  EXPECT_STREQ(solveStatusName(SolveStatus::Converged), "converged");
  EXPECT_STREQ(solveStatusName(SolveStatus::IterationCap), "iteration-cap");
  EXPECT_STREQ(solveStatusName(SolveStatus::FactorizationFailed), "factorization-failed");
  EXPECT_STREQ(solveStatusName(SolveStatus::NonFinite), "non-finite");
  EXPECT_STREQ(solveStatusName(SolveStatus::Stalled), "stalled");
}

// A mass block that is not positive definite (here -I on the first box) cannot be factored: the
// solvers that factor A_i say so instead of returning what a failed Cholesky leaves behind.  (The
// AL solvers factor A + J^T D J, which the constraints may make definite again; they report a
// failure of that factorisation the same way, which this problem need not trigger.)
TEST(SolveStatus, SolversThatFactorTheMassBlocksReportAnIndefiniteOne) {
  StepProblem p = test::worldAfter("stack:boxes=2", 5).lastProblem();
  ASSERT_GT(p.numConstraints(), 0);
  const Subsystem& s = p.subsystems[0];
  Eigen::Map<MatX> A(p.a_data.data() + s.a_offset, s.dof, s.dof);
  A = -MatX::Identity(s.dof, s.dof);
  ASSERT_EQ(p.check(), "");
  for (const char* name : {"subadmm", "fadmm", "pgs", "pgs-cg", "pj", "nnewton"}) {
    SolverSettings settings;
    settings.max_iterations = 20;
    StepSolution cold;  // FADMM factors A itself only on a cold start
    makeSolver(name)->solve(p, settings, cold);
    EXPECT_EQ(cold.stats.status, SolveStatus::FactorizationFailed) << name;
    EXPECT_FALSE(cold.stats.converged()) << name;
    EXPECT_EQ(cold.vhat.size(), p.numDof()) << name;
    EXPECT_EQ(cold.lambda.size(), p.numRows()) << name;
  }
}

// The healthy case for every solver: a tolerance reached is Converged, tolerance 0 the cap.
TEST(SolveStatus, EverySolverReportsConvergenceAndTheCap) {
  const StepProblem p = test::worldAfter("stack:boxes=2", 5).lastProblem();
  for (const std::string& name : solverNames()) {
    SolverSettings settings;
    settings.max_iterations = isNewtonTypeSolver(name) ? 200 : 20000;
    settings.tolerance = 1e-6;
    StepSolution s;
    makeSolver(name)->solve(p, settings, s);
    EXPECT_EQ(s.stats.status, SolveStatus::Converged) << name << ": " << s.stats.residual;
    settings.tolerance = 0.0;
    settings.max_iterations = 3;
    StepSolution capped;
    makeSolver(name)->solve(p, settings, capped);
    EXPECT_EQ(capped.stats.status, SolveStatus::IterationCap) << name;
    // The pivoting methods end when no row is infeasible, which is the exact solution: there is
    // nothing to iterate after it, whatever the tolerance.  Lemke counts pivots, which its own
    // cap (max_pivots) bounds, not the iteration cap.
    const bool exact_end = name == "bpp" || name == "pgs-sm" || name == "schur-bpp" ||
                           name == "schur-pgs-sm" || name == "fbic";
    if (name == "lemke") continue;
    if (exact_end) {
      EXPECT_LE(capped.stats.iterations, 3) << name;
    } else {
      EXPECT_EQ(capped.stats.iterations, 3) << name;
    }
  }
}

}  // namespace
}  // namespace subsim
