// FCLib files: hand-made files in each of the format's matrix encodings read as their authors
// meant them, export / import round trips that keep every bit, and a clear std::runtime_error
// naming the file and the dataset (never a crash) for every malformed file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "subsim/formulation/delassus_form.hpp"
#include "subsim/io/fclib_convert.hpp"
#include "subsim/io/fclib_file.hpp"
#include "subsim/io/file_seal.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/solvers/solver.hpp"
#include "support/hdf5_file_edits.hpp"
#include "test_files.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using ::subsim::test::TempFile;

/// A temporary .hdf5 file of this test's own.
std::string fclibPath(const std::string& suffix = "") {
  return test::tempPath(suffix + ".hdf5");
}

using IntSets = std::vector<std::pair<std::string, std::vector<int>>>;
using RealSets = std::vector<std::pair<std::string, DoubleBuffer>>;

// A 2-contact local problem, W 6 x 6 with a coupling block between the contacts:
//   W = [[2 0 0 .5 0 0], [0 1 0 0 0 0], [0 0 1 0 0 0], [.5 0 0 3 0 0], [0 0 0 0 1 0],
//        [0 0 0 0 0 1]]
MatX denseW() {
  MatX w = MatX::Zero(6, 6);
  w.diagonal() << 2, 1, 1, 3, 1, 1;
  w(0, 3) = w(3, 0) = 0.5;
  return w;
}

/// W of denseW() in one of FCLib's encodings, as another program writes it (unsealed).
void writeLocalFile(const std::string& path, int nz) {
  IntSets ints;
  RealSets reals = {{"/fclib_local/vectors/q", {-1, 0.5, 0, -2, 0, 0}},
                    {"/fclib_local/vectors/mu", {0.5, 0.3}}};
  std::vector<int> p, i;
  DoubleBuffer x;
  const MatX w = denseW();
  if (nz == -1 || nz == -2) {  // compressed columns or rows: W is symmetric, so the same arrays
    p.push_back(0);
    for (int o = 0; o < 6; ++o) {
      for (int k = 0; k < 6; ++k)
        if (w(k, o) != 0.0) {
          i.push_back(k);
          x.push_back(w(k, o));
        }
      p.push_back(static_cast<int>(i.size()));
    }
  } else {  // triplets in a shuffled order, one entry split in two (duplicates are summed)
    const int rows[] = {3, 0, 1, 2, 0, 3, 4, 5, 3};
    const int cols[] = {3, 0, 1, 2, 3, 0, 4, 5, 3};
    const double vals[] = {1, 2, 1, 1, 0.5, 0.5, 1, 1, 2};
    for (int k = 0; k < 9; ++k) {
      i.push_back(rows[k]);
      p.push_back(cols[k]);
      x.push_back(vals[k]);
    }
    nz = 9;
  }
  ints = {{"/fclib_local/spacedim", {3}}, {"/fclib_local/W/m", {6}},
          {"/fclib_local/W/n", {6}},      {"/fclib_local/W/nzmax", {static_cast<int>(x.size())}},
          {"/fclib_local/W/nz", {nz}},    {"/fclib_local/W/p", p},
          {"/fclib_local/W/i", i}};
  reals.push_back({"/fclib_local/W/x", x});
  detail::writeUnsealedHdf5ForTesting(path, ints, reals,
                                      {{"/fclib_local/info/title", "two contacts"}});
}

TEST(FclibFile, ReadsEachMatrixEncodingOfAnotherProgram) {
  for (int nz : {-1, -2, 0}) {
    SCOPED_TRACE("nz " + std::to_string(nz));
    TempFile file(fclibPath(std::to_string(nz)));
    writeLocalFile(file.path, nz);
    EXPECT_EQ(checkSeal(file.path).status, SealStatus::Missing);  // read all the same
    const FclibProblem f = readFclibFile(file.path);
    EXPECT_EQ(f.form, FclibProblem::Form::Local);
    EXPECT_EQ(f.numContacts(), 2);
    EXPECT_EQ(MatX(f.W), denseW());
    EXPECT_EQ(f.q, (VecX(6) << -1, 0.5, 0, -2, 0, 0).finished());
    EXPECT_EQ(f.mu, Eigen::Vector2d(0.5, 0.3));
    EXPECT_EQ(f.title, "two contacts");
    EXPECT_EQ(f.equalityRows(), 0);
  }
}

// Compressed rows of a non-symmetric matrix (H, n x m) are told apart from compressed columns.
TEST(FclibFile, CompressedRowsAndColumnsOfARectangularH) {
  TempFile file(fclibPath());
  // M = diag(2, 2, 2), H 3 x 3 = [[1 0 0], [0 1 0], [4 0 1]] (H(2, 0) = 4), f, w, mu.
  IntSets ints = {
      {"/fclib_global/spacedim", {3}},    {"/fclib_global/M/m", {3}},
      {"/fclib_global/M/n", {3}},         {"/fclib_global/M/nzmax", {3}},
      {"/fclib_global/M/nz", {3}},        {"/fclib_global/M/i", {0, 1, 2}},
      {"/fclib_global/M/p", {0, 1, 2}},   {"/fclib_global/H/m", {3}},
      {"/fclib_global/H/n", {3}},         {"/fclib_global/H/nzmax", {4}},
      {"/fclib_global/H/nz", {-2}},       {"/fclib_global/H/p", {0, 1, 2, 4}},  // row pointers
      {"/fclib_global/H/i", {0, 1, 0, 2}}};
  RealSets reals = {{"/fclib_global/M/x", {2, 2, 2}},
                    {"/fclib_global/H/x", {1, 1, 4, 1}},
                    {"/fclib_global/vectors/f", {0, 0, -1}},
                    {"/fclib_global/vectors/w", {0.1, 0, 0}},
                    {"/fclib_global/vectors/mu", {0.4}}};
  detail::writeUnsealedHdf5ForTesting(file.path, ints, reals);
  const FclibProblem f = readFclibFile(file.path);
  MatX h = MatX::Identity(3, 3);
  h(2, 0) = 4;
  EXPECT_EQ(MatX(f.H), h);
  EXPECT_EQ(MatX(f.M), 2.0 * MatX::Identity(3, 3));
  // The same H by columns.
  detail::rewriteDatasetForTesting(file.path, "/fclib_global/H/nz", {-1}, 0, true);
  detail::rewriteDatasetForTesting(file.path, "/fclib_global/H/p", {0, 2, 3, 4}, 0, true);
  detail::rewriteDatasetForTesting(file.path, "/fclib_global/H/i", {0, 2, 1, 2}, 0, true);
  detail::rewriteDatasetForTesting(file.path, "/fclib_global/H/x", {1, 4, 1, 1}, 0, false);
  EXPECT_EQ(MatX(readFclibFile(file.path).H), h);
}

// Problems of three scenes: box-box contacts (stack), ball joints (pendulum: bilateral rows),
// and granular (contacts and the stirring rod's compliant weld: soft rows).
const std::vector<std::pair<StepProblem, StepSolution>>& sceneProblems() {
  static const std::vector<std::pair<StepProblem, StepSolution>> problems = [] {
    std::vector<std::pair<StepProblem, StepSolution>> out;
    for (const char* spec : {"stack:boxes=3", "pendulum:links=3", "granular:spheres=8"}) {
      World world = test::worldAfter(spec, 30);
      world.step();
      out.emplace_back(world.lastProblem(), world.lastWarmStart());
    }
    return out;
  }();
  return problems;
}

std::vector<std::uint64_t> bits(const MatX& m) {
  std::vector<std::uint64_t> out;
  for (Eigen::Index k = 0; k < m.size(); ++k) out.push_back(std::bit_cast<std::uint64_t>(m(k)));
  return out;
}

/// The NCP form as dense arrays: A per subsystem, b, J (rows x DOF), e, mu and types.
struct DenseNcp {
  std::vector<MatX> a;
  MatX b, j, e, mu;
  std::vector<int> types;
};
DenseNcp denseNcp(const StepProblem& p) {
  DenseNcp d;
  for (int s = 0; s < p.numSubsystems(); ++s) d.a.push_back(p.A(s));
  d.b = Eigen::Map<const VecX>(p.b.data(), p.numDof());
  d.e = Eigen::Map<const VecX>(p.e.data(), p.numRows());
  d.j = MatX::Zero(p.numRows(), p.numDof());
  std::vector<double> mu;
  for (const Constraint& c : p.constraints) {
    d.types.push_back(static_cast<int>(c.type));
    mu.push_back(c.mu);
    for (int q = 0; q < c.num_attachments; ++q) {
      const Attachment& a = p.attachments[c.first_attachment + q];
      d.j.block(c.row_offset, p.subsystems[a.subsystem].dof_offset, c.rows, a.dof) += p.denseJ(a);
    }
  }
  d.mu = Eigen::Map<const VecX>(mu.data(), static_cast<Eigen::Index>(mu.size()));
  return d;
}

TEST(FclibFile, GlobalExportReadsBackBitForBit) {
  for (const auto& [problem, warm] :
       std::vector(sceneProblems().begin(), sceneProblems().begin() + 2)) {
    for (FclibEncoding enc : {FclibEncoding::CompressedColumns, FclibEncoding::CompressedRows,
                              FclibEncoding::Triplet}) {
      TempFile file(fclibPath(std::to_string(static_cast<int>(enc))));
      FclibExportOptions options;
      options.guess = &warm;
      writeFclibFile(file.path, fclibGlobalFromStepProblem(problem, options), enc);
      EXPECT_EQ(checkSeal(file.path).status, SealStatus::Ok);
      const FclibImport in = stepProblemFromFclib(readFclibFile(file.path), file.path);
      const DenseNcp x = denseNcp(problem), y = denseNcp(in.problem);
      ASSERT_EQ(x.a.size(), y.a.size());  // the subsystems named in /subsim/subsystem_dof
      for (std::size_t s = 0; s < x.a.size(); ++s) EXPECT_EQ(bits(x.a[s]), bits(y.a[s]));
      EXPECT_EQ(bits(x.b), bits(y.b));
      // Contacts first, then the bilateral rows, in order: the pendulum has only joints and
      // the stack only contacts, so the rows keep their order.
      EXPECT_EQ(bits(x.j), bits(y.j));
      EXPECT_EQ(bits(x.e), bits(y.e));
      EXPECT_EQ(bits(x.mu), bits(y.mu));
      EXPECT_EQ(x.types, y.types);
      ASSERT_EQ(in.guesses.size(), 1u);
      EXPECT_EQ(bits(in.guesses[0].lambda), bits(warm.lambda));
      EXPECT_EQ(bits(in.guesses[0].vhat), bits(warm.vhat));
      EXPECT_TRUE(in.problem.check().empty());
    }
  }
}

/// Converged impulses of `problem` from nonsmooth Newton.
StepSolution solved(const StepProblem& problem) {
  SolverSettings settings;
  settings.max_iterations = 200;
  settings.tolerance = 1e-13;
  StepSolution sol;
  makeSolver("nnewton")->solve(problem, settings, sol);
  return sol;
}

/// A solution of an exported form in the original problem's rows: FCLib's contact block
/// (contacts, and unilateral rows as frictionless contacts) first, then its equality block
/// (bilateral rows, and the local form's soft rows); the global form folds soft rows into M and f,
/// so their impulses come from the velocity: lambda = -k e - c J vhat.
StepSolution inOriginalRows(const StepProblem& p, const VecX& lambda, bool global,
                            const VecX& vhat = VecX(), const std::vector<int>& dof_order = {}) {
  StepSolution out;
  out.lambda = VecX::Zero(p.numRows());
  int contact = 0, equality = 0;
  for (const Constraint& c : p.constraints) {
    if (c.type == ConstraintType::Contact) contact += 3;
    if (c.type == ConstraintType::Unilateral) contact += 3 * c.rows;
    if (c.type == ConstraintType::Bilateral || (!global && c.type == ConstraintType::Soft))
      equality += c.rows;
  }
  const int contact_rows = contact;
  contact = 0;
  equality = 0;
  for (const Constraint& c : p.constraints) {
    for (int r = 0; r < c.rows; ++r) {
      const int row = c.row_offset + r;
      if (c.type == ConstraintType::Contact)
        out.lambda[row] = lambda[contact++];
      else if (c.type == ConstraintType::Unilateral)
        out.lambda[row] = lambda[contact], contact += 3;
      else if (c.type == ConstraintType::Bilateral || !global)
        out.lambda[row] = lambda[contact_rows + equality++];
    }
  }
  out.vhat.resize(p.numDof());
  if (global) {  // the soft rows' impulses from the global solution's velocity
    for (std::size_t k = 0; k < dof_order.size(); ++k) out.vhat[dof_order[k]] = vhat[k];
    for (const Constraint& c : p.constraints) {
      if (c.type != ConstraintType::Soft) continue;
      for (int r = 0; r < c.rows; ++r) {
        double jv = 0.0;
        for (int q = 0; q < c.num_attachments; ++q) {
          const Attachment& a = p.attachments[c.first_attachment + q];
          jv +=
              p.denseJ(a).row(r).dot(out.vhat.segment(p.subsystems[a.subsystem].dof_offset, a.dof));
        }
        const int row = c.row_offset + r;
        out.lambda[row] = -p.soft_k[row] * p.e[row] - p.soft_c[row] * jv;
      }
    }
  }
  DelassusForm form;
  EXPECT_TRUE(form.build(p));
  form.velocity(out.lambda.data(), out.vhat.data());
  return out;
}

// The local and the global form exported from a problem are that problem: what solves them solves
// it.  Granular's soft rows are folded into M and f by the global form and are regularised
// equality rows of the local form, so both routes are exercised.
TEST(FclibFile, LocalAndGlobalFormsSolveToTheSameImpulses) {
  for (const auto& [problem, warm] : sceneProblems()) {
    SCOPED_TRACE(std::to_string(problem.numRows()) + " rows");
    const StepSolution reference = solved(problem);
    ASSERT_TRUE(reference.stats.converged());
    TempFile global(fclibPath("global")), local(fclibPath("local"));
    writeFclibFile(global.path, fclibGlobalFromStepProblem(problem));
    writeFclibFile(local.path, fclibLocalFromStepProblem(problem));
    const FclibImport g = stepProblemFromFclib(readFclibFile(global.path), global.path);
    const FclibImport l = stepProblemFromFclib(readFclibFile(local.path), local.path);
    EXPECT_TRUE(l.problem.hasLocalForm());
    const StepSolution sg = solved(g.problem), sl = solved(l.problem);
    ASSERT_TRUE(sg.stats.converged());
    ASSERT_TRUE(sl.stats.converged());
    for (const bool from_global : {true, false}) {
      SCOPED_TRACE(from_global ? "global" : "local");
      const StepSolution back = from_global
                                    ? inOriginalRows(problem, sg.lambda, true, sg.vhat, g.dof_order)
                                    : inOriginalRows(problem, sl.lambda, false);
      const StepMetrics m = evaluateStep(problem, back);
      EXPECT_LT(m.contact_natural_map_error, 1e-8);
      EXPECT_LT(m.constraint_residual, 1e-8);
      // Granular's spheres touch in single points: its impulses are unique, and equal.
      if (&problem == &sceneProblems()[2].first) {
        ASSERT_GT(problem.numContacts(), 0);
        EXPECT_LT((back.lambda - reference.lambda).cwiseAbs().maxCoeff(), 1e-7);
      }
    }
  }
}

TEST(FclibFile, ALocalProblemIsSolvedByTheDualSolversAndRefusedByThePrimalOnes) {
  TempFile file(fclibPath());
  writeLocalFile(file.path, -1);
  const FclibImport in = stepProblemFromFclib(readFclibFile(file.path), file.path);
  ASSERT_TRUE(in.problem.hasLocalForm());
  for (const SolverEntry& e : solverRegistry()) {
    SCOPED_TRACE(e.name);
    SolverSettings settings;
    settings.max_iterations = e.kind == SolverKind::NewtonType ? 50 : 2000;
    settings.tolerance = 1e-12;
    StepSolution sol;
    std::unique_ptr<Solver> solver = e.make();
    if (!e.local_form) {
      EXPECT_THROW(solver->solve(in.problem, settings, sol), std::invalid_argument);
      continue;
    }
    solver->solve(in.problem, settings, sol);
    // By hand: W couples the normals only, q_n = (-1, -2), so both contacts close and
    // [2 .5; .5 3] r_n = (1, 2): r_n = (2, 3.5) / 5.75.  Contact 1 (mu 0.5) has q_t = (0.5, 0),
    // more than mu r_n can hold: it slides, r_t = (-mu r_n, 0).  Contact 2 has q_t = 0: r_t = 0.
    // The box MLCP bounds friction by the previous normal impulse, none here: r_t = 0 (and the
    // normals need no friction, so they are the same).  The LCP solvers' friction polygon has a
    // vertex along t1 (direction 0), so their sliding friction is the exact cone's here.
    if (e.name == "apgd") {
      // APGD solves the CCP, where the sliding contact 1 glides: its conditions per contact are
      // r in the cone, u = W r + q in the dual cone (mu |u_t| <= u_n) and r . u = 0.
      const LocalDelassus& w = in.problem.local_w;
      VecX u = Eigen::Map<const VecX>(in.problem.e.data(), 6);
      for (int row = 0; row < 6; ++row)
        for (int k = w.row_begin[row]; k < w.row_begin[row + 1]; ++k)
          u[row] += w.value[k] * sol.lambda[w.column[k]];
      for (const Constraint& c : in.problem.constraints) {
        const int o = c.row_offset;
        EXPECT_LE(sol.lambda.segment<2>(o + 1).norm(), c.mu * sol.lambda[o] + 1e-9);
        EXPECT_LE(c.mu * u.segment<2>(o + 1).norm(), u[o] + 1e-9);
        EXPECT_NEAR(sol.lambda.segment<3>(o).dot(u.segment<3>(o)), 0.0, 1e-9);
      }
      EXPECT_GT(u[0], 1e-3);  // contact 1 glides
      continue;
    }
    if (e.name == "lcp-fp") {
      // The plain fixed-point iteration stalls where a contact slides: the sliding-speed rows of
      // the Stewart-Trinkle LCP (zero diagonal, the non-monotone U / -E^T block) stop every sweep
      // from lowering the residual (docs/lcp.md).  It must say so, not claim a solution.
      EXPECT_FALSE(sol.stats.converged());
      EXPECT_GT(sol.stats.residual, 1e-3);
      continue;
    }
    const bool box = e.formulation == "box-mlcp";
    if (!box) {
      EXPECT_LT(evaluateStep(in.problem, sol).contact_natural_map_error, 1e-9);
    }
    EXPECT_NEAR(sol.lambda[0], 2.0 / 5.75, 1e-8);
    EXPECT_NEAR(sol.lambda[3], 3.5 / 5.75, 1e-8);
    EXPECT_NEAR(sol.lambda[1], box ? 0.0 : -0.5 * 2.0 / 5.75, 1e-8);
    EXPECT_NEAR(sol.lambda[2], 0.0, 1e-8);
    EXPECT_NEAR(sol.lambda[4], 0.0, 1e-8);
    EXPECT_NEAR(sol.lambda[5], 0.0, 1e-8);
  }
}

// ---------------------------------------------------------------------------------------------
// Malformed files

/// readFclibFile's message for `path`, or "" when it read.
std::string fclibReadError(const std::string& path) {
  try {
    const FclibProblem f = readFclibFile(path);
    stepProblemFromFclib(f, path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

struct Corruption {
  const char* name;
  std::function<void(const std::string&)> edit;
  const char* message;  // the message after the file's name
};

TEST(FclibFile, EveryMalformedFileIsRefusedNamingTheDataset) {
  const auto ints = [](const char* object, std::vector<double> v) {
    return [object, v](const std::string& path) {
      detail::rewriteDatasetForTesting(path, object, DoubleBuffer(v.begin(), v.end()), 0, true);
    };
  };
  const auto reals = [](const char* object, std::vector<double> v) {
    return [object, v](const std::string& path) {
      detail::rewriteDatasetForTesting(path, object, DoubleBuffer(v.begin(), v.end()), 0, false);
    };
  };
  const auto remove = [](const char* object) {
    return [object](const std::string& path) { detail::removeObjectForTesting(path, object); };
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Each message whole after the file's name, as docs/errors.md catalogues it.
  const std::vector<Corruption> cases = {
      {"missing W", remove("/fclib_local/W"),
       "' is not a valid FCLib problem: missing group /fclib_local/W"},
      {"missing x", remove("/fclib_local/W/x"),
       "' is not a valid FCLib problem: missing dataset /fclib_local/W/x"},
      {"missing q", remove("/fclib_local/vectors/q"),
       "' is not a valid FCLib problem: missing dataset /fclib_local/vectors/q"},
      {"no problem", remove("/fclib_local"),
       "' is not a valid FCLib problem: neither group /fclib_global nor /fclib_local: not an "
       "FCLib problem"},
      {"spacedim 2", ints("/fclib_local/spacedim", {2}),
       "' is not a valid FCLib problem: /fclib_local/spacedim is 2: 2-D frictional contact "
       "problems are not supported (subsim's contacts are 3-D: a normal and two tangent rows)"},
      {"spacedim 4", ints("/fclib_local/spacedim", {4}),
       "' is not a valid FCLib problem: /fclib_local/spacedim is 4, expected 3"},
      {"q of 5", reals("/fclib_local/vectors/q", {1, 2, 3, 4, 5}),
       "' is not a valid FCLib problem: dataset /fclib_local/vectors/q has 5 entries, expected 3 "
       "per contact (spacedim 3)"},
      {"mu of 3", reals("/fclib_local/vectors/mu", {1, 2, 3}),
       "' is not a valid FCLib problem: dataset /fclib_local/vectors/mu has 3 entries, expected 2"},
      {"negative mu", reals("/fclib_local/vectors/mu", {0.5, -1}),
       "' is not a valid FCLib problem: dataset /fclib_local/vectors/mu holds -1.000000 for "
       "contact 1, expected a friction coefficient >= 0"},
      {"NaN q", reals("/fclib_local/vectors/q", {1, nan, 0, 0, 0, 0}),
       "' is not a valid FCLib problem: dataset /fclib_local/vectors/q holds a non-finite value "
       "at 1"},
      {"NaN x", reals("/fclib_local/W/x", {nan, 0.5, 1, 1, 0.5, 3, 1, 1}),
       "' is not a valid FCLib problem: dataset /fclib_local/W/x holds a non-finite value at 0"},
      {"W 5 x 6", ints("/fclib_local/W/m", {5}),
       "' is not a valid FCLib problem: matrix /fclib_local/W is 5 x 6, expected m x m with m = 6 "
       "(the length of vectors/q)"},
      {"q as ints", ints("/fclib_local/vectors/q", {1, 2, 3, 4, 5, 6}),
       "' is not a valid FCLib problem: dataset /fclib_local/vectors/q does not hold "
       "floating-point numbers"},
      {"m as real", reals("/fclib_local/W/m", {6}),
       "' is not a valid FCLib problem: dataset /fclib_local/W/m does not hold integers"},
      {"m of 2", ints("/fclib_local/W/m", {6, 6}),
       "' is not a valid FCLib problem: dataset /fclib_local/W/m is not a single integer"},
      {"bad nz", ints("/fclib_local/W/nz", {-3}),
       "' is not a valid FCLib problem: dataset /fclib_local/W/nz is -3, expected -1 (compressed "
       "columns), -2 (compressed rows) or a triplet count >= 0"},
      {"short p", ints("/fclib_local/W/p", {0, 2, 3}),
       "' is not a valid FCLib problem: dataset /fclib_local/W/p has 3 entries, expected 7"},
      {"decreasing p", ints("/fclib_local/W/p", {0, 2, 1, 3, 5, 7, 8}),
       "' is not a valid FCLib problem: dataset /fclib_local/W/p decreases at 2: compressed "
       "pointers must not decrease"},
      {"p from 1", ints("/fclib_local/W/p", {1, 2, 3, 4, 5, 6, 7}),
       "' is not a valid FCLib problem: dataset /fclib_local/W/p starts at 1, expected 0"},
      {"row 9", ints("/fclib_local/W/i", {0, 9, 1, 2, 0, 3, 4, 5}),
       "' is not a valid FCLib problem: dataset /fclib_local/W/i holds row index 9 at 1, expected "
       "below 6"},
      {"negative index", ints("/fclib_local/W/i", {0, -1, 1, 2, 0, 3, 4, 5}),
       "' is not a valid FCLib problem: dataset /fclib_local/W/i holds -1 at 1, expected an index "
       ">= 0"},
      {"p beyond nzmax", ints("/fclib_local/W/nzmax", {4}),
       "' is not a valid FCLib problem: dataset /fclib_local/W/p ends at 8, beyond nzmax 4"},
      {"short x", reals("/fclib_local/W/x", {2, 0.5}),
       "' is not a valid FCLib problem: dataset /fclib_local/W/x has 2 entries, expected 8"},
      {"asymmetric W", reals("/fclib_local/W/x", {2, 0.7, 1, 1, 0.5, 3, 1, 1}),
       "' is not a valid FCLib problem: W is not symmetric"},
  };
  for (const Corruption& c : cases) {
    SCOPED_TRACE(c.name);
    TempFile file(fclibPath(c.name));
    writeLocalFile(file.path, -1);
    c.edit(file.path);
    EXPECT_EQ(fclibReadError(file.path), "'" + file.path + c.message);
  }
}

TEST(FclibFile, ANonPositiveDefiniteMIsRefusedNamingItsBlock) {
  const StepProblem& problem = sceneProblems()[0].first;
  TempFile file(fclibPath());
  FclibProblem f = fclibGlobalFromStepProblem(problem);
  f.M.coeffRef(7, 7) = -1.0;  // the second body's block
  writeFclibFile(file.path, f);
  EXPECT_EQ(fclibReadError(file.path),
            "'" + file.path +
                "' is not a valid FCLib problem: M is not positive definite: its block of 6 DOF "
                "from DOF 6 (subsystem 1) has no Cholesky factor");
}

TEST(FclibFile, AnAsymmetricMIsRefused) {
  TempFile file(fclibPath());
  FclibProblem f = fclibGlobalFromStepProblem(sceneProblems()[0].first);
  f.M.coeffRef(0, 1) += 5.0;
  writeFclibFile(file.path, f);
  EXPECT_EQ(fclibReadError(file.path),
            "'" + file.path + "' is not a valid FCLib problem: M is not symmetric");
}

TEST(FclibFile, FilesThatAreNotFclibAreRefused) {
  const std::string missing = fclibPath("missing");
  EXPECT_NE(fclibReadError(missing).find("cannot open FCLib problem '" + missing + "'"),
            std::string::npos)
      << fclibReadError(missing);
  TempFile text(fclibPath("text"));
  std::ofstream(text.path) << "not HDF5";
  EXPECT_NE(fclibReadError(text.path).find("not an HDF5 file"), std::string::npos);
  EXPECT_FALSE(isFclibFile(text.path));
  // A file subsim sealed and that was then cut short: the seal does not fit.
  TempFile cut(fclibPath("cut"));
  writeFclibFile(cut.path, fclibGlobalFromStepProblem(sceneProblems()[0].first));
  EXPECT_TRUE(isFclibFile(cut.path));
  std::ifstream in(cut.path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  std::ofstream(cut.path, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 7);
  EXPECT_NE(fclibReadError(cut.path).find("cut short or extended"), std::string::npos)
      << fclibReadError(cut.path);
}

TEST(FclibFile, ExportRefusesWhatFclibCannotHold) {
  // A problem in local form has no global form.
  TempFile file(fclibPath());
  writeLocalFile(file.path, -1);
  const FclibImport in = stepProblemFromFclib(readFclibFile(file.path), file.path);
  EXPECT_THROW(fclibGlobalFromStepProblem(in.problem), std::invalid_argument);
  // A soft row without damping has no place in the local form.
  StepProblem p;
  const int s = p.addSubsystem(1);
  p.A(s)(0, 0) = 1.0;
  p.addConstraint(ConstraintType::Soft, 1);
  p.jacobianFor(s)(0, 0) = 1.0;
  p.soft_k[0] = 2.0;
  p.e[0] = 0.1;
  EXPECT_THROW(fclibLocalFromStepProblem(p), std::invalid_argument);
  // The global form folds it into f: (A) v = b - k e J^T.
  const FclibProblem g = fclibGlobalFromStepProblem(p);
  EXPECT_EQ(g.f[0], -0.2);
  EXPECT_EQ(g.H.cols(), 0);
}

}  // namespace
}  // namespace subsim
