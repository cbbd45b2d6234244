// subsim's FCLib files against the format's own library (Debian's libfclib, the reference
// implementation of fclib.h): what subsim writes, libfclib reads as the same problem, solution and
// guesses; what libfclib writes, subsim reads; and libfclib's merit function (the natural map of
// the local problem) agrees with subsim's natural-map error.  Only this test links libfclib:
// subsim's reader and writer are its own code.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

// fclib.h declares C functions without extern "C".
extern "C" {
#include <fclib.h>
}

#include "subsim/io/fclib_convert.hpp"
#include "subsim/io/fclib_file.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/solvers/solver.hpp"
#include "test_files.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using ::subsim::test::TempFile;

/// A temporary .hdf5 file of this test's own.
std::string fclibPath(const std::string& suffix = "") {
  return test::tempPath(suffix + ".hdf5");
}

/// libfclib's matrix as a dense matrix, read in CSparse's conventions (fclib_file.hpp).
MatX dense(const fclib_matrix* a) {
  MatX out = MatX::Zero(a->m, a->n);
  if (a->nz == -1) {
    for (int c = 0; c < a->n; ++c)
      for (int k = a->p[c]; k < a->p[c + 1]; ++k) out(a->i[k], c) += a->x[k];
  } else if (a->nz == -2) {
    for (int r = 0; r < a->m; ++r)
      for (int k = a->p[r]; k < a->p[r + 1]; ++k) out(r, a->i[k]) += a->x[k];
  } else {
    for (int k = 0; k < a->nz; ++k) out(a->i[k], a->p[k]) += a->x[k];
  }
  return out;
}

Eigen::Map<const VecX> vec(const double* data, int n) {
  return Eigen::Map<const VecX>(data, n);
}

std::pair<StepProblem, StepSolution> pendulumAndStack(bool pendulum) {
  World world = test::worldAfter(pendulum ? "pendulum:links=3" : "stack:boxes=3", 30);
  world.step();
  return {world.lastProblem(), world.lastWarmStart()};
}

TEST(FclibLibrary, ReadsWhatSubsimWritesInEveryEncoding) {
  for (const bool pendulum : {false, true}) {
    const auto [problem, warm] = pendulumAndStack(pendulum);
    FclibExportOptions options;
    options.title = "subsim test";
    options.guess = &warm;
    options.solution = &warm;
    const FclibProblem ours = fclibGlobalFromStepProblem(problem, options);
    for (FclibEncoding enc : {FclibEncoding::CompressedColumns, FclibEncoding::CompressedRows,
                              FclibEncoding::Triplet}) {
      SCOPED_TRACE(std::to_string(pendulum) + " " + std::to_string(static_cast<int>(enc)));
      TempFile file(fclibPath(std::to_string(static_cast<int>(enc))));
      writeFclibFile(file.path, ours, enc);
      fclib_global* theirs = fclib_read_global(file.path.c_str());
      ASSERT_NE(theirs, nullptr);
      EXPECT_EQ(theirs->spacedim, 3);
      EXPECT_EQ(theirs->M->nz, enc == FclibEncoding::CompressedColumns ? -1
                               : enc == FclibEncoding::CompressedRows  ? -2
                                                                       : theirs->M->nzmax);
      EXPECT_EQ(dense(theirs->M), MatX(ours.M));
      EXPECT_EQ(dense(theirs->H), MatX(ours.H));
      const int n = theirs->M->m, m = theirs->H->n;
      EXPECT_EQ(vec(theirs->f, n), ours.f);
      EXPECT_EQ(vec(theirs->w, m), ours.w);
      EXPECT_EQ(vec(theirs->mu, m / 3), ours.mu);
      if (ours.G.cols() > 0) {
        ASSERT_NE(theirs->G, nullptr);
        EXPECT_EQ(dense(theirs->G), MatX(ours.G));
        EXPECT_EQ(vec(theirs->b, theirs->G->n), ours.b);
      } else {
        EXPECT_EQ(theirs->G, nullptr);
      }
      ASSERT_NE(theirs->info, nullptr);
      EXPECT_STREQ(theirs->info->title, "subsim test");
      fclib_delete_global(theirs);
      std::free(theirs);
      if (m > 0) {  // libfclib's solution reader wants contact rows
        int count = 0;
        fclib_solution* guesses = fclib_read_guesses(file.path.c_str(), &count);
        ASSERT_EQ(count, 1);
        EXPECT_EQ(vec(guesses[0].v, n), ours.guesses[0].v);
        EXPECT_EQ(vec(guesses[0].r, m), ours.guesses[0].r);
        EXPECT_EQ(vec(guesses[0].u, m), ours.guesses[0].u);
        fclib_delete_solutions(guesses, count);
        fclib_solution* solution = fclib_read_solution(file.path.c_str());
        ASSERT_NE(solution, nullptr);
        EXPECT_EQ(vec(solution->r, m), ours.solution->r);
        fclib_delete_solutions(solution, 1);
      }
    }
  }
}

TEST(FclibLibrary, SubsimReadsWhatLibfclibWrites) {
  // A 2-contact local problem by libfclib, W by compressed columns, with a solution and guesses.
  MatX w = MatX::Zero(6, 6);
  w.diagonal() << 2, 1, 1, 3, 1, 1;
  w(0, 3) = w(3, 0) = 0.5;
  const Eigen::SparseMatrix<double> sparse = w.sparseView();
  std::vector<int> p(sparse.outerIndexPtr(), sparse.outerIndexPtr() + 7);
  std::vector<int> i(sparse.innerIndexPtr(), sparse.innerIndexPtr() + sparse.nonZeros());
  std::vector<double> x(sparse.valuePtr(), sparse.valuePtr() + sparse.nonZeros());
  fclib_matrix W{static_cast<int>(x.size()), 6, 6, p.data(), i.data(), x.data(), -1, nullptr};
  std::vector<double> q = {-1, 0.5, 0, -2, 0, 0}, mu = {0.5, 0.3};
  char title[] = "from libfclib";
  fclib_info info{title, nullptr, nullptr};
  fclib_local local{};
  local.W = &W;
  local.q = q.data();
  local.mu = mu.data();
  local.spacedim = 3;
  local.info = &info;
  TempFile file(fclibPath(""));
  ASSERT_EQ(fclib_write_local(&local, file.path.c_str()), 1);
  std::vector<double> r = {0.3, -0.1, 0, 0.6, 0, 0}, u = {0, 0.4, 0, 0, 0, 0};
  fclib_solution solution{nullptr, u.data(), r.data(), nullptr};
  ASSERT_EQ(fclib_write_solution(&solution, file.path.c_str()), 1);
  std::vector<fclib_solution> guesses = {solution, solution};
  ASSERT_EQ(fclib_write_guesses(2, guesses.data(), file.path.c_str()), 1);

  const FclibProblem f = readFclibFile(file.path);
  EXPECT_EQ(f.form, FclibProblem::Form::Local);
  EXPECT_EQ(MatX(f.W), w);
  EXPECT_EQ(f.q, vec(q.data(), 6));
  EXPECT_EQ(f.mu, vec(mu.data(), 2));
  EXPECT_EQ(f.title, "from libfclib");
  ASSERT_TRUE(f.solution.has_value());
  EXPECT_EQ(f.solution->r, vec(r.data(), 6));
  EXPECT_EQ(f.solution->u, vec(u.data(), 6));
  ASSERT_EQ(f.guesses.size(), 2u);
  EXPECT_EQ(f.guesses[1].r, vec(r.data(), 6));
  const FclibImport in = stepProblemFromFclib(f, file.path);
  ASSERT_TRUE(in.solution.has_value());
  EXPECT_EQ(in.solution->lambda, vec(r.data(), 6));
}

// libfclib's MERIT_1 is the natural map of the local problem, sqrt(sum ||r - P_K(r - u~)||^2),
// divided by 1 + sqrt(||q||); subsim divides the same sum by max(||q||, ||r||, ||u||).  Their
// numerators agree on any impulses, converged or not.
TEST(FclibLibrary, NaturalMapAgreesWithLibfclibsMerit) {
  World world = test::worldAfter("granular:spheres=8", 30);
  world.step();
  const StepProblem& problem = world.lastProblem();
  ASSERT_GT(problem.numContacts(), 0);
  TempFile file(fclibPath(""));
  writeFclibFile(file.path, fclibLocalFromStepProblem(problem));
  const FclibImport in = stepProblemFromFclib(readFclibFile(file.path), file.path);
  const FclibProblem f = readFclibFile(file.path);
  fclib_local* theirs = fclib_read_local(file.path.c_str());
  ASSERT_NE(theirs, nullptr);
  const int m = theirs->W->m;
  for (const int iterations : {3, 30, 300}) {
    SCOPED_TRACE(iterations);
    SolverSettings settings;
    settings.max_iterations = iterations;
    settings.tolerance = 0.0;
    StepSolution sol;
    makeSolver("pgs")->solve(in.problem, settings, sol);
    // The equality rows (the rod's weld) are not in libfclib's sum: compare on contacts only,
    // with the equality impulses in l.
    std::vector<double> r(sol.lambda.data(), sol.lambda.data() + m);
    std::vector<double> l(sol.lambda.data() + m, sol.lambda.data() + sol.lambda.size());
    std::vector<double> u(m, 0.0);
    fclib_solution s{nullptr, u.data(), r.data(), l.empty() ? nullptr : l.data()};
    const double merit = fclib_merit_local(theirs, MERIT_1, &s);
    const StepMetrics ours = evaluateStep(in.problem, sol);
    // Undo each normalisation.
    const VecX q = vec(theirs->q, m);
    const VecX rv = vec(r.data(), m), lv = vec(l.data(), static_cast<int>(l.size()));
    double sum_l = 0.0;  // libfclib adds the equality rows' relative residual
    VecX u_all = f.W * rv + f.q;
    if (!l.empty()) {
      sum_l = (f.V.transpose() * rv + f.R * lv + f.s).norm() / (1.0 + f.s.norm());
      u_all += f.V * lv;
    }
    const double theirs_numerator = (merit - sum_l) * (1.0 + std::sqrt(q.norm()));
    const double scale = std::max({q.norm(), vec(r.data(), m).norm(), u_all.norm()});
    const double ours_numerator = ours.contact_natural_map_error * scale;
    EXPECT_NEAR(ours_numerator, theirs_numerator, 1e-9 * (1.0 + ours_numerator));
  }
  fclib_delete_local(theirs);
  std::free(theirs);
}

}  // namespace
}  // namespace subsim
