// Problem files: bit-exact round trips of problems taken from simulations, hashes that see every
// bit, and a std::runtime_error naming the file and the object (never a crash) for corrupt files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "subsim/io/file_seal.hpp"
#include "subsim/io/problem_file.hpp"
#include "subsim/problem/block_storage.hpp"
#include "subsim/problem/problem_hash.hpp"
#include "support/hdf5_file_edits.hpp"
#include "test_files.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using ::subsim::test::TempFile;

/// A temporary .h5 file of this test's own.
std::string problemPath(const std::string& suffix = "") {
  return test::tempPath(suffix + ".h5");
}

/// `steps` consecutive problems (with the warm start each solver was given) after `warmup` steps.
std::vector<RecordedProblem> recordProblems(const std::string& spec, int warmup, int steps) {
  World world = test::worldAfter(spec, warmup);
  std::vector<RecordedProblem> out;
  for (int k = 0; k < steps; ++k) {
    world.step();
    out.push_back({world.lastProblem(), world.lastWarmStart(), world.lastSolution()});
  }
  return out;
}

/// Problems in which contact, bilateral and soft rows all occur (granular: contacts and the rod's
/// compliant weld; pendulum: ball joints; stack: box-box contacts).
const std::vector<RecordedProblem>& mixedProblems() {
  static const std::vector<RecordedProblem> problems = [] {
    std::vector<RecordedProblem> all = recordProblems("granular:spheres=27", 40, 2);
    for (const char* spec : {"pendulum:links=3", "stack:boxes=3"})
      for (RecordedProblem& r : recordProblems(spec, 10, 1)) all.push_back(std::move(r));
    return all;
  }();
  return problems;
}

std::vector<std::uint64_t> bits(const subsim::DoubleBuffer& v) {
  std::vector<std::uint64_t> out;
  for (double x : v) out.push_back(std::bit_cast<std::uint64_t>(x));
  return out;
}
std::vector<std::uint64_t> bits(const VecX& v) {
  return bits(subsim::DoubleBuffer(v.data(), v.data() + v.size()));
}

// Field by field rather than through the hash, so that the hash is tested independently.
void expectBitIdentical(const RecordedProblem& x, const RecordedProblem& y) {
  const StepProblem &p = x.problem, &q = y.problem;
  EXPECT_EQ(std::bit_cast<std::uint64_t>(p.dt), std::bit_cast<std::uint64_t>(q.dt));
  ASSERT_EQ(p.subsystems.size(), q.subsystems.size());
  for (std::size_t i = 0; i < p.subsystems.size(); ++i) {
    EXPECT_EQ(p.subsystems[i].dof, q.subsystems[i].dof);
    EXPECT_EQ(p.subsystems[i].dof_offset, q.subsystems[i].dof_offset);
    EXPECT_EQ(p.subsystems[i].a_offset, q.subsystems[i].a_offset);
  }
  EXPECT_EQ(bits(p.a_data), bits(q.a_data));
  EXPECT_EQ(bits(p.b), bits(q.b));
  ASSERT_EQ(p.constraints.size(), q.constraints.size());
  for (std::size_t j = 0; j < p.constraints.size(); ++j) {
    const Constraint &c = p.constraints[j], &d = q.constraints[j];
    EXPECT_EQ(c.type, d.type);
    EXPECT_EQ(c.rows, d.rows);
    EXPECT_EQ(c.row_offset, d.row_offset);
    EXPECT_EQ(c.first_attachment, d.first_attachment);
    EXPECT_EQ(c.num_attachments, d.num_attachments);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(c.mu), std::bit_cast<std::uint64_t>(d.mu));
    EXPECT_EQ(c.key, d.key);
  }
  ASSERT_EQ(p.attachments.size(), q.attachments.size());
  for (std::size_t k = 0; k < p.attachments.size(); ++k) {
    EXPECT_EQ(p.attachments[k].subsystem, q.attachments[k].subsystem);
    EXPECT_EQ(p.attachments[k].rows, q.attachments[k].rows);
    EXPECT_EQ(p.attachments[k].dof, q.attachments[k].dof);
    EXPECT_EQ(p.attachments[k].j_offset, q.attachments[k].j_offset);
    EXPECT_EQ(p.attachments[k].width, q.attachments[k].width);
    EXPECT_EQ(p.attachments[k].column_offset, q.attachments[k].column_offset);
  }
  EXPECT_EQ(bits(p.jacobian_data), bits(q.jacobian_data));
  EXPECT_EQ(p.jacobian_columns, q.jacobian_columns);
  EXPECT_EQ(bits(p.e), bits(q.e));
  EXPECT_EQ(bits(p.soft_k), bits(q.soft_k));
  EXPECT_EQ(bits(p.soft_c), bits(q.soft_c));
  EXPECT_EQ(bits(x.warm_start.vhat), bits(y.warm_start.vhat));
  EXPECT_EQ(bits(x.warm_start.lambda), bits(y.warm_start.lambda));
  EXPECT_EQ(bits(x.solution.vhat), bits(y.solution.vhat));
  EXPECT_EQ(bits(x.solution.lambda), bits(y.solution.lambda));
  // The optional tree structure (robots) and declared substructures.
  for (std::size_t i = 0; i < p.subsystems.size(); ++i) {
    EXPECT_EQ(p.subsystems[i].tree_offset, q.subsystems[i].tree_offset);
    EXPECT_EQ(p.subsystems[i].substructure, q.subsystems[i].substructure);
  }
  EXPECT_EQ(p.dof_parent, q.dof_parent);
  ASSERT_EQ(p.tree_bodies.size(), q.tree_bodies.size());
  for (std::size_t b = 0; b < p.tree_bodies.size(); ++b) {
    EXPECT_EQ(p.tree_bodies[b].subsystem, q.tree_bodies[b].subsystem);
    EXPECT_EQ(p.tree_bodies[b].deepest_dof, q.tree_bodies[b].deepest_dof);
    EXPECT_EQ(p.tree_bodies[b].j_offset, q.tree_bodies[b].j_offset);
  }
  EXPECT_EQ(bits(p.tree_body_jacobian_data), bits(q.tree_body_jacobian_data));
  for (std::size_t k = 0; k < p.attachments.size(); ++k) {
    EXPECT_EQ(p.attachments[k].body, q.attachments[k].body);
    EXPECT_EQ(p.attachments[k].local_offset, q.attachments[k].local_offset);
  }
  EXPECT_EQ(bits(p.local_jacobian_data), bits(q.local_jacobian_data));
}

TEST(ProblemFile, RoundTripOfSimulatedProblemsIsBitExact) {
  const std::vector<RecordedProblem>& problems = mixedProblems();
  // The file must cover every kind of row that simulations produce, or the test proves little.
  std::set<ConstraintType> types;
  bool warm_lambda = false;
  for (const RecordedProblem& r : problems) {
    ASSERT_TRUE(r.problem.check().empty());
    for (const Constraint& c : r.problem.constraints) types.insert(c.type);
    warm_lambda = warm_lambda || (r.warm_start.lambda.size() > 0 &&
                                  r.warm_start.lambda.cwiseAbs().maxCoeff() > 0.0);
  }
  EXPECT_TRUE(types.count(ConstraintType::Contact));
  EXPECT_TRUE(types.count(ConstraintType::Bilateral));
  EXPECT_TRUE(types.count(ConstraintType::Soft));
  EXPECT_TRUE(warm_lambda) << "no problem carries a non-zero warm-start lambda";

  TempFile file(problemPath());
  const ProblemFileInfo info{"granular:spheres=27 + pendulum + stack", "subadmm", 1.0 / 300.0};
  writeProblemFile(file.path, info, problems);
  const ProblemFile read = readProblemFile(file.path);

  EXPECT_EQ(read.info.scene, info.scene);
  EXPECT_EQ(read.info.source_solver, info.source_solver);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(read.info.dt), std::bit_cast<std::uint64_t>(info.dt));
  ASSERT_EQ(read.problems.size(), problems.size());
  for (std::size_t k = 0; k < problems.size(); ++k) {
    SCOPED_TRACE("problem " + std::to_string(k));
    expectBitIdentical(problems[k], read.problems[k]);
    // problemHash covers the step data (mass blocks, velocities, raw errors, frames) too.
    ASSERT_TRUE(problems[k].problem.has_step_data);
    EXPECT_TRUE(read.problems[k].problem.has_step_data);
    EXPECT_EQ(problemHash(read.problems[k].problem), problemHash(problems[k].problem));
    EXPECT_EQ(solutionHash(read.problems[k].warm_start), solutionHash(problems[k].warm_start));
  }
}

// A file written before the step data existed has only the NCP form: it reads as such, and the
// solvers see the same problem (ncpFormHash) as in a file with the step data.
TEST(ProblemFile, FileWithoutStepDataReadsAsNcpForm) {
  const std::vector<RecordedProblem>& problems = mixedProblems();
  TempFile file(problemPath());
  writeProblemFile(file.path, {"t", "t", 0.01}, {problems.front()});
  for (const char* name : {"mass_data", "velocity", "error", "bias", "constraint_stabilization",
                           "constraint_frame", "contact_frames"})
    detail::removeObjectForTesting(file.path, std::string("/problems/000000/") + name);
  detail::removeAttributeForTesting(file.path, "/problems/000000", "theta");
  detail::removeAttributeForTesting(file.path, "/problems/000000", "erp");
  const ProblemFile read = readProblemFile(file.path);
  const StepProblem& q = read.problems.at(0).problem;
  EXPECT_FALSE(q.has_step_data);
  EXPECT_EQ(ncpFormHash(q), ncpFormHash(problems.front().problem));
  EXPECT_NE(problemHash(q), problemHash(problems.front().problem));
}

/// Writes one recorded problem of `scene` to `path` and reads it back: the same bits and hash.
void expectOneProblemRoundTrips(const std::string& scene,
                                const std::vector<RecordedProblem>& problems,
                                const std::string& path) {
  ASSERT_EQ(problems.size(), 1u);
  writeProblemFile(path, {scene, "subadmm", problems[0].problem.dt}, problems);
  const ProblemFile read = readProblemFile(path);
  ASSERT_EQ(read.problems.size(), 1u);
  expectBitIdentical(problems[0], read.problems[0]);
  EXPECT_EQ(problemHash(read.problems[0].problem), problemHash(problems[0].problem));
}

TEST(ProblemFile, RoundTripKeepsARobotsTreeStructure) {
  const std::vector<RecordedProblem> problems = recordProblems("quadrupeds:robots=2", 40, 1);
  const StepProblem& p = problems[0].problem;
  ASSERT_FALSE(p.tree_bodies.empty());
  ASSERT_GT(std::count_if(p.attachments.begin(), p.attachments.end(),
                          [](const Attachment& a) { return a.body >= 0; }),
            0);
  TempFile file(problemPath());
  expectOneProblemRoundTrips("quadrupeds:robots=2", problems, file.path);
  // The hash sees the tree structure.
  StepProblem other = p;
  other.local_jacobian_data[0] = std::nextafter(other.local_jacobian_data[0], 1e300);
  EXPECT_NE(problemHash(other), problemHash(p));

  // A tree index out of range is an error naming it, not a crash.
  subsim::DoubleBuffer bodies;
  for (const TreeBody& b : p.tree_bodies)
    bodies.insert(bodies.end(), {double(b.subsystem), double(b.deepest_dof), double(b.j_offset)});
  bodies[2] = 1e8;  // j_offset of body 0
  detail::rewriteDatasetForTesting(file.path, "/problems/000000/tree_bodies", bodies, 3, true);
  try {
    readProblemFile(file.path);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("tree body 0: bad layout"), std::string::npos) << e.what();
  }
}

TEST(ProblemFile, RoundTripKeepsDeclaredSubstructures) {
  // The cranes declare theirs (each crane with its cable; the pipe undeclared).
  const std::vector<RecordedProblem> problems = recordProblems("cranes:cable_links=6", 2, 1);
  const StepProblem& p = problems[0].problem;
  int declared = 0, undeclared = 0;
  for (const Subsystem& s : p.subsystems) (s.substructure >= 0 ? declared : undeclared) += 1;
  ASSERT_EQ(declared, 2 * (2 + 6));  // base, boom and cable links, twice
  ASSERT_EQ(undeclared, 1);          // the pipe
  TempFile file(problemPath());
  expectOneProblemRoundTrips("cranes:cable_links=6", problems, file.path);
  StepProblem other = p;  // the hash sees them
  other.subsystems[0].substructure = 7;
  EXPECT_NE(problemHash(other), problemHash(p));
  other.subsystems[0].substructure = -2;  // and check() refuses what no scene declares
  EXPECT_NE(other.check().find("substructure -2"), std::string::npos) << other.check();
}

TEST(ProblemFile, EmptyProblemsRoundTrip) {
  // A default problem (nothing at all), a body in free flight (zero constraints, the spinner has
  // no gravity and nothing to touch), and one with an empty warm start.
  std::vector<RecordedProblem> problems(1);
  problems.push_back(recordProblems("spinner", 2, 1).front());
  ASSERT_GT(problems[1].problem.numDof(), 0);
  ASSERT_EQ(problems[1].problem.numConstraints(), 0);
  problems.push_back({problems[1].problem, StepSolution(), StepSolution()});

  TempFile file(problemPath());
  writeProblemFile(file.path, {"", "", 0.0}, problems);
  const ProblemFile read = readProblemFile(file.path);
  EXPECT_EQ(read.info.scene, "");
  ASSERT_EQ(read.problems.size(), problems.size());
  for (std::size_t k = 0; k < problems.size(); ++k) {
    SCOPED_TRACE("problem " + std::to_string(k));
    expectBitIdentical(problems[k], read.problems[k]);
  }

  // A file without problems is valid too.
  writeProblemFile(file.path, {"none", "none", 0.01}, {});
  EXPECT_TRUE(readProblemFile(file.path).problems.empty());
}

// ---------------------------------------------------------------------------------------------
// Hashes

// Applies `change` to a copy and expects problemHash to see it.
void expectProblemHashChanges(const StepProblem& p, const std::string& what,
                              const std::function<void(StepProblem&)>& change) {
  StepProblem q = p;
  change(q);
  EXPECT_NE(problemHash(q), problemHash(p)) << what;
}

double nextUp(double x) {
  return std::nextafter(x, std::numeric_limits<double>::infinity());
}

// A few indices (first, middle, last) of an array of n values: every value would make the test
// quadratic in the problem size without testing more of the hash.
std::vector<std::size_t> probeIndices(std::size_t n) {
  if (n == 0) return {};
  return {0, n / 2, n - 1};
}

TEST(ProblemHash, EqualForCopiesAndChangedByOneUlpInEveryField) {
  const std::vector<RecordedProblem>& problems = mixedProblems();
  for (std::size_t k = 0; k < problems.size(); ++k) {
    SCOPED_TRACE("problem " + std::to_string(k));
    const StepProblem& p = problems[k].problem;
    const StepProblem copy = p;
    EXPECT_EQ(problemHash(copy), problemHash(p));

    expectProblemHashChanges(p, "dt", [](StepProblem& q) { q.dt = nextUp(q.dt); });
    expectProblemHashChanges(p, "theta", [](StepProblem& q) { q.theta = nextUp(q.theta); });
    expectProblemHashChanges(p, "erp", [](StepProblem& q) { q.erp = nextUp(q.erp); });
    const struct {
      const char* name;
      subsim::DoubleBuffer StepProblem::*member;
    } arrays[] = {{"a_data", &StepProblem::a_data},
                  {"b", &StepProblem::b},
                  {"jacobian_data", &StepProblem::jacobian_data},
                  {"e", &StepProblem::e},
                  {"soft_k", &StepProblem::soft_k},
                  {"soft_c", &StepProblem::soft_c},
                  {"mass_data", &StepProblem::mass_data},
                  {"velocity", &StepProblem::velocity},
                  {"error", &StepProblem::error},
                  {"bias", &StepProblem::bias}};
    for (const auto& array : arrays)
      for (std::size_t i : probeIndices((p.*array.member).size()))
        expectProblemHashChanges(p, std::string(array.name) + "[" + std::to_string(i) + "]",
                                 [&](StepProblem& q) {
                                   double& v = (q.*array.member)[i];
                                   v = nextUp(v);
                                 });

    for (std::size_t i : probeIndices(p.subsystems.size())) {
      const std::string at = "[" + std::to_string(i) + "]";
      expectProblemHashChanges(p, "dof" + at, [&](StepProblem& q) { ++q.subsystems[i].dof; });
      expectProblemHashChanges(p, "dof_offset" + at,
                               [&](StepProblem& q) { ++q.subsystems[i].dof_offset; });
      expectProblemHashChanges(p, "a_offset" + at,
                               [&](StepProblem& q) { ++q.subsystems[i].a_offset; });
    }
    for (std::size_t j : probeIndices(p.constraints.size())) {
      const std::string at = "[" + std::to_string(j) + "]";
      expectProblemHashChanges(p, "type" + at, [&](StepProblem& q) {
        ConstraintType& t = q.constraints[j].type;
        t = t == ConstraintType::Contact ? ConstraintType::Bilateral : ConstraintType::Contact;
      });
      expectProblemHashChanges(p, "rows" + at, [&](StepProblem& q) { ++q.constraints[j].rows; });
      expectProblemHashChanges(p, "row_offset" + at,
                               [&](StepProblem& q) { ++q.constraints[j].row_offset; });
      expectProblemHashChanges(p, "first_attachment" + at,
                               [&](StepProblem& q) { ++q.constraints[j].first_attachment; });
      expectProblemHashChanges(p, "num_attachments" + at,
                               [&](StepProblem& q) { ++q.constraints[j].num_attachments; });
      expectProblemHashChanges(
          p, "mu" + at, [&](StepProblem& q) { q.constraints[j].mu = nextUp(q.constraints[j].mu); });
      expectProblemHashChanges(p, "key" + at, [&](StepProblem& q) { ++q.constraints[j].key; });
      expectProblemHashChanges(p, "stabilization" + at, [&](StepProblem& q) {
        Stabilization& s = q.constraints[j].stabilization;
        s = s == Stabilization::Position ? Stabilization::Velocity : Stabilization::Position;
      });
      expectProblemHashChanges(p, "frame" + at, [&](StepProblem& q) { ++q.constraints[j].frame; });
    }
    for (std::size_t f : probeIndices(p.frames.size())) {
      const std::string at = "[" + std::to_string(f) + "]";
      expectProblemHashChanges(p, "frame point" + at, [&](StepProblem& q) {
        q.frames[f].point.y() = nextUp(q.frames[f].point.y());
      });
      expectProblemHashChanges(p, "frame normal" + at, [&](StepProblem& q) {
        q.frames[f].normal.z() = nextUp(q.frames[f].normal.z());
      });
    }
    for (std::size_t a : probeIndices(p.attachments.size())) {
      const std::string at = "[" + std::to_string(a) + "]";
      expectProblemHashChanges(p, "subsystem" + at,
                               [&](StepProblem& q) { ++q.attachments[a].subsystem; });
      expectProblemHashChanges(p, "attachment rows" + at,
                               [&](StepProblem& q) { ++q.attachments[a].rows; });
      expectProblemHashChanges(p, "attachment dof" + at,
                               [&](StepProblem& q) { ++q.attachments[a].dof; });
      expectProblemHashChanges(p, "j_offset" + at,
                               [&](StepProblem& q) { ++q.attachments[a].j_offset; });
    }
  }
}

TEST(ProblemHash, SeesSignOfZeroAndArrayBoundaries) {
  StepProblem p, q;
  p.b = {0.0};
  q.b = {-0.0};
  EXPECT_NE(problemHash(p), problemHash(q));
  // The same values split differently between two arrays.
  p.b = {1.0, 2.0};
  p.e = {3.0};
  q.b = {1.0};
  q.e = {2.0, 3.0};
  EXPECT_NE(problemHash(p), problemHash(q));
  // An empty problem is not the same as a problem with one zero.
  EXPECT_NE(problemHash(StepProblem()), problemHash(p));
}

TEST(SolutionHash, SeesVhatAndLambdaOnlyButEveryValue) {
  const StepSolution& w = mixedProblems().front().warm_start;
  ASSERT_GT(w.vhat.size(), 0);
  ASSERT_GT(w.lambda.size(), 0);
  StepSolution copy = w;
  copy.stats.iterations = 99;
  copy.stats.residual = 1.0;
  EXPECT_EQ(solutionHash(copy), solutionHash(w)) << "stats are not part of the warm start";
  for (VecX StepSolution::*member : {&StepSolution::vhat, &StepSolution::lambda})
    for (std::size_t i : probeIndices(static_cast<std::size_t>((w.*member).size()))) {
      StepSolution changed = w;
      double& v = (changed.*member)[static_cast<Eigen::Index>(i)];
      v = nextUp(v);
      EXPECT_NE(solutionHash(changed), solutionHash(w)) << "index " << i;
    }
  // Moving the boundary between vhat and lambda changes the hash.
  StepSolution a, b;
  a.vhat = VecX::Ones(2);
  a.lambda = VecX::Ones(1);
  b.vhat = VecX::Ones(1);
  b.lambda = VecX::Ones(2);
  EXPECT_NE(solutionHash(a), solutionHash(b));
}

// ---------------------------------------------------------------------------------------------
// Errors

/// Expects readProblemFile to throw std::runtime_error whose message contains every fragment.
void expectReadError(const std::string& path, const std::vector<std::string>& fragments) {
  try {
    readProblemFile(path);
    ADD_FAILURE() << "no error reading " << path;
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    for (const std::string& f : fragments)
      EXPECT_NE(message.find(f), std::string::npos) << "'" << f << "' not in: " << message;
  }
}

// A valid file of a pendulum problem (bilateral rows) and a granular one (contacts, soft rows);
// corruptions target the second, so that the messages must name /problems/000001.
class CorruptProblemFile : public ::testing::Test {
 protected:
  void SetUp() override {
    problems_ = recordProblems("pendulum:links=2", 5, 1);
    problems_.push_back(mixedProblems().front());
    writeProblemFile(file_.path, {"test", "test", 0.01}, problems_);
    ASSERT_EQ(readProblemFile(file_.path).problems.size(), 2u);
  }
  const StepProblem& problem() const { return problems_[1].problem; }
  static subsim::DoubleBuffer ints(const std::vector<int>& v) { return {v.begin(), v.end()}; }
  subsim::DoubleBuffer rowOffsets() const {
    std::vector<int> v;
    for (const Constraint& c : problem().constraints) v.push_back(c.row_offset);
    return ints(v);
  }
  void rewrite(const std::string& name, const subsim::DoubleBuffer& values, std::size_t cols = 0,
               bool integers = false) {
    detail::rewriteDatasetForTesting(file_.path, std::string(kGroup) + name, values, cols,
                                     integers);
  }

  static constexpr const char* kGroup = "/problems/000001/";
  TempFile file_{problemPath()};
  std::vector<RecordedProblem> problems_;
};

/// The message of readProblemFile's std::runtime_error.
std::string problemReadError(const std::string& path) {
  try {
    readProblemFile(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error reading " << path;
  return "";
}

TEST(ProblemFileErrors, MissingFile) {
  const std::string path = problemPath("_does_not_exist");
  EXPECT_EQ(problemReadError(path),
            "cannot open problem file '" + path + "': No such file or directory");
}

// The seal (io/file_seal.hpp) is checked before HDF5 sees the file; each way it can fail says what
// happened and what to do.
class UnsealedProblemFile : public ::testing::Test {
 protected:
  void SetUp() override {
    writeProblemFile(file_.path, {"test", "test", 0.01}, recordProblems("pendulum:links=2", 5, 1));
    size_ = std::filesystem::file_size(file_.path);
  }
  TempFile file_{problemPath()};
  std::uintmax_t size_ = 0;
};

TEST_F(UnsealedProblemFile, WithoutSeal) {
  std::filesystem::resize_file(file_.path, size_ - kSealSize);
  EXPECT_EQ(problemReadError(file_.path),
            "'" + file_.path +
                "' is not a valid subsim problem file: it carries no subsim checksum (written by "
                "another program, changed after subsim wrote it, or cut short while being "
                "written): libhdf5 can crash on a damaged file, so subsim reads only files whose "
                "checksum it verifies; if you wrote or changed this file on purpose, run: subsim "
                "seal '" +
                file_.path + "'");
  // What the message advises.
  sealFile(file_.path);
  EXPECT_EQ(readProblemFile(file_.path).problems.size(), 1u);
}

TEST_F(UnsealedProblemFile, CutShort) {
  std::filesystem::resize_file(file_.path, size_ - 1);
  EXPECT_EQ(problemReadError(file_.path),
            "'" + file_.path + "' is not a valid subsim problem file: it is " +
                std::to_string(size_ - 1) + " bytes long, its checksum was made for " +
                std::to_string(size_) +
                " bytes: the file was cut short or extended after subsim wrote it (record it "
                "again; if you changed it on purpose, run: subsim seal '" +
                file_.path + "')");
}

TEST_F(UnsealedProblemFile, Extended) {
  std::ofstream(file_.path, std::ios::binary | std::ios::app) << '\n';
  expectReadError(file_.path,
                  {"' is not a valid subsim problem file: it is " + std::to_string(size_ + 1) +
                   " bytes long, its checksum was made for " + std::to_string(size_) + " bytes"});
}

TEST_F(UnsealedProblemFile, Damaged) {
  {
    std::fstream f(file_.path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(size_ / 2));
    f.put('\x5a');
  }
  EXPECT_EQ(problemReadError(file_.path),
            "'" + file_.path +
                "' is not a valid subsim problem file: its checksum does not match its contents: "
                "the file was damaged or changed after subsim wrote it (record it again; if you "
                "changed it on purpose, run: subsim seal '" +
                file_.path + "')");
}

TEST(ProblemFileErrors, TextFile) {
  TempFile file(problemPath());
  std::ofstream(file.path) << "not an HDF5 file, just text\n";
  EXPECT_EQ(problemReadError(file.path),
            "'" + file.path + "' is not a valid subsim problem file: not an HDF5 file");
}

TEST(ProblemFileErrors, WriterNamesAFileItCannotCreate) {
  const std::string path = ::testing::TempDir() + "no_such_directory_subsim/problems.h5";
  try {
    writeProblemFile(path, {}, {});
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create problem file '" + path + "'"),
              std::string::npos)
        << e.what();
  }
}

TEST(ProblemFileErrors, WriterRejectsAnInvalidProblemBeforeTouchingTheFile) {
  TempFile file(problemPath());
  std::vector<RecordedProblem> problems = recordProblems("pendulum:links=2", 5, 2);
  writeProblemFile(file.path, {"ok", "ok", 0.01}, problems);
  problems[1].problem.constraints[0].row_offset = problems[1].problem.numRows();
  try {
    writeProblemFile(file.path, {"bad", "bad", 0.01}, problems);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(
        message.find("writeProblemFile('" + file.path + "'): problem 1: constraint_row_offset: "),
        std::string::npos)
        << message;
  }
  EXPECT_EQ(readProblemFile(file.path).info.scene, "ok");
  // A warm start that fits neither way is refused too.
  problems = recordProblems("pendulum:links=2", 5, 1);
  problems[0].warm_start.vhat = VecX::Zero(problems[0].problem.numDof() + 1);
  EXPECT_THROW(writeProblemFile(file.path, {}, problems), std::invalid_argument);
}

TEST_F(CorruptProblemFile, ReadDatasetHelperGivesTheStoredValues) {
  std::size_t cols = 99;
  EXPECT_EQ(detail::readDatasetForTesting(file_.path, std::string(kGroup) + "b", cols),
            problem().b);
  EXPECT_EQ(cols, 0u);
  subsim::DoubleBuffer subsystems;
  for (const Subsystem& s : problem().subsystems)
    subsystems.insert(subsystems.end(), {double(s.dof), double(s.dof_offset), double(s.a_offset)});
  EXPECT_EQ(detail::readDatasetForTesting(file_.path, std::string(kGroup) + "subsystems", cols),
            subsystems);
  EXPECT_EQ(cols, 3u);
  EXPECT_THROW(detail::readDatasetForTesting(file_.path, std::string(kGroup) + "absent", cols),
               std::runtime_error);
}

TEST_F(CorruptProblemFile, NoSchemaVersion) {
  detail::removeAttributeForTesting(file_.path, "/", "schema_version");
  expectReadError(file_.path,
                  {"'" + file_.path +
                   "' is not a valid subsim problem file: missing attribute /schema_version"});
}

TEST_F(CorruptProblemFile, WrongSchemaVersion) {
  detail::setIntAttributeForTesting(file_.path, "/", "schema_version", 4);
  expectReadError(file_.path, {"'" + file_.path +
                               "' is not a valid subsim problem file: attribute /schema_version is "
                               "4, this reader knows 1..3"});
  detail::setIntAttributeForTesting(file_.path, "/", "schema_version", 0);
  expectReadError(file_.path, {"'" + file_.path +
                               "' is not a valid subsim problem file: attribute /schema_version is "
                               "0, this reader knows 1..3"});
}

// Version 1 files (before sparse subsystem blocks) hold dense blocks only: read as they were.
TEST_F(CorruptProblemFile, SchemaVersionOneIsStillRead) {
  detail::setIntAttributeForTesting(file_.path, "/", "schema_version", 1);
  const ProblemFile read = readProblemFile(file_.path);
  ASSERT_EQ(read.problems.size(), problems_.size());
  for (std::size_t k = 0; k < problems_.size(); ++k)
    EXPECT_EQ(problemHash(read.problems[k].problem), problemHash(problems_[k].problem));
}

TEST_F(CorruptProblemFile, SparseJacobianColumnsOutOfRange) {
  problems_[1].problem = withSparseBlocks(problem());
  ASSERT_FALSE(problems_[1].problem.jacobian_columns.empty());
  writeProblemFile(file_.path, {"test", "test", 0.01}, problems_);
  const int na = static_cast<int>(problem().attachments.size());
  std::vector<int> columns(2 * na, 0);
  columns[0] = 1;
  columns[1] = 1 << 20;
  rewrite("attachment_columns", ints(columns), 2, true);
  expectReadError(file_.path, {"attachment_columns", "attachment 0",
                               "stores 1 columns from 1048576", "jacobian_columns"});
}

TEST_F(CorruptProblemFile, SparseJacobianColumnsOutOfOrder) {
  problems_[1].problem = withSparseBlocks(problem());
  writeProblemFile(file_.path, {"test", "test", 0.01}, problems_);
  std::vector<int> columns = problems_[1].problem.jacobian_columns;
  ASSERT_GE(columns.size(), 2u);
  std::swap(columns[0], columns[1]);
  rewrite("jacobian_columns", ints(columns), 0, true);
  expectReadError(file_.path, {"attachment 0", "column 1 is", "expected increasing indices"});
}

TEST_F(CorruptProblemFile, SparsePatternOffsetOutOfRange) {
  problems_[1].problem = withSparseBlocks(problem());
  writeProblemFile(file_.path, {"test", "test", 0.01}, problems_);
  rewrite("subsystem_pattern_offset", ints(std::vector<int>(problem().numSubsystems(), 1 << 20)), 0,
          true);
  expectReadError(file_.path, {"subsystem_pattern_offset", "subsystem 0", "pattern offset 1048576",
                               "sparse_pattern"});
}

TEST_F(CorruptProblemFile, CountDisagreesWithGroups) {
  detail::setIntAttributeForTesting(file_.path, "/", "count", 3);
  expectReadError(file_.path, {"'" + file_.path +
                               "' is not a valid subsim problem file: group /problems has 2 "
                               "members, attribute /count says 3"});
}

TEST_F(CorruptProblemFile, MissingProblemsGroup) {
  detail::removeObjectForTesting(file_.path, "/problems");
  expectReadError(file_.path, {"'" + file_.path +
                               "' is not a valid subsim problem file: missing group /problems"});
}

TEST_F(CorruptProblemFile, MissingDataset) {
  detail::removeObjectForTesting(file_.path, std::string(kGroup) + "e");
  expectReadError(file_.path,
                  {"'" + file_.path +
                   "' is not a valid subsim problem file: missing dataset /problems/000001/e"});
}

TEST_F(CorruptProblemFile, MissingDtAttribute) {
  detail::removeAttributeForTesting(file_.path, kGroup, "dt");
  expectReadError(file_.path,
                  {"'" + file_.path +
                   "' is not a valid subsim problem file: missing attribute /problems/000001/dt"});
}

TEST_F(CorruptProblemFile, DatasetOfWrongLength) {
  subsim::DoubleBuffer mu;
  for (const Constraint& c : problem().constraints) mu.push_back(c.mu);
  mu.pop_back();
  rewrite("constraint_mu", mu);
  expectReadError(
      file_.path,
      {"'" + file_.path +
       "' is not a valid subsim problem file: dataset /problems/000001/constraint_mu has " +
       std::to_string(mu.size()) + " values, expected " + std::to_string(mu.size() + 1)});
}

TEST_F(CorruptProblemFile, SoftRowsOfWrongLength) {
  subsim::DoubleBuffer soft_c = problem().soft_c;
  soft_c.push_back(0.0);
  rewrite("soft_c", soft_c);
  expectReadError(file_.path, {file_.path, std::string(kGroup) + "soft_c"});
}

TEST_F(CorruptProblemFile, DatasetOfWrongType) {
  // Integers would lose the recorded bits of b.
  rewrite("b", problem().b, 0, true);
  expectReadError(file_.path, {"'" + file_.path +
                               "' is not a valid subsim problem file: dataset /problems/000001/b "
                               "does not hold 64-bit floats"});
}

TEST_F(CorruptProblemFile, DatasetOfWrongShape) {
  subsim::DoubleBuffer subsystems;
  for (const Subsystem& s : problem().subsystems)
    subsystems.insert(subsystems.end(), {double(s.dof), double(s.dof_offset), double(s.a_offset)});
  rewrite("subsystems", subsystems, 0, true);  // 1-D instead of n x 3
  expectReadError(file_.path, {"'" + file_.path +
                               "' is not a valid subsim problem file: dataset "
                               "/problems/000001/subsystems has rank 1, expected 2"});
}

TEST_F(CorruptProblemFile, RowOffsetOutOfRange) {
  subsim::DoubleBuffer offsets = rowOffsets();
  offsets.back() = problem().numRows();
  rewrite("constraint_row_offset", offsets, 0, true);
  const std::size_t last = offsets.size() - 1;
  const int rows = problem().constraints.back().rows;
  expectReadError(file_.path,
                  {"'" + file_.path +
                   "' is not a valid subsim problem file: dataset "
                   "/problems/000001/constraint_row_offset: constraint " +
                   std::to_string(last) + " has rows " + std::to_string(problem().numRows()) +
                   ".." + std::to_string(problem().numRows() + rows - 1) + ", outside the " +
                   std::to_string(problem().numRows()) + " rows of e"});
}

TEST_F(CorruptProblemFile, NegativeRowOffset) {
  subsim::DoubleBuffer offsets = rowOffsets();
  offsets.front() = -3;
  rewrite("constraint_row_offset", offsets, 0, true);
  expectReadError(file_.path, {file_.path, std::string(kGroup) + "constraint_row_offset"});
}

TEST_F(CorruptProblemFile, ConstraintTypeOutOfRange) {
  std::vector<int> types;
  for (const Constraint& c : problem().constraints) types.push_back(static_cast<int>(c.type));
  types[0] = 4;
  rewrite("constraint_type", ints(types), 0, true);
  expectReadError(file_.path,
                  {"'" + file_.path +
                   "' is not a valid subsim problem file: dataset "
                   "/problems/000001/constraint_type: constraint 0 has type 4, expected 0..3"});
  types[0] = 256;  // would wrap to Bilateral in the enum's uint8
  rewrite("constraint_type", ints(types), 0, true);
  expectReadError(file_.path, {file_.path, std::string(kGroup) + "constraint_type", "256"});
}

// e is built from the step data (formulation/ncp_form.hpp): a file that changes one without the
// other would pose different problems to the NCP solvers and to every other formulation.
TEST_F(CorruptProblemFile, EChangedWithoutItsStepData) {
  subsim::DoubleBuffer e = problem().e;
  e[0] += 0.5;
  rewrite("e", e);
  expectReadError(file_.path,
                  {"'" + file_.path +
                       "' is not a valid subsim problem file: dataset "
                       "/problems/000001/e: row 0 is ",
                   "but its step data (error, bias, ", "change e together with error and bias"});
}

TEST_F(CorruptProblemFile, StabilizationOutOfRange) {
  std::vector<int> rules;
  for (const Constraint& c : problem().constraints)
    rules.push_back(static_cast<int>(c.stabilization));
  rules[0] = 3;
  rewrite("constraint_stabilization", ints(rules), 0, true);
  expectReadError(file_.path, {"'" + file_.path +
                               "' is not a valid subsim problem file: dataset "
                               "/problems/000001/constraint_stabilization: constraint 0 has "
                               "3, expected 0..2"});
}

TEST_F(CorruptProblemFile, ContactFrameOutOfRange) {
  std::vector<int> frames;
  for (const Constraint& c : problem().constraints) frames.push_back(c.frame);
  const auto contact = std::find_if(frames.begin(), frames.end(), [](int f) { return f >= 0; });
  ASSERT_NE(contact, frames.end());
  *contact = static_cast<int>(problem().frames.size());
  rewrite("constraint_frame", ints(frames), 0, true);
  expectReadError(file_.path, {file_.path, std::string(kGroup) + "constraint_frame", "has frame"});
}

TEST_F(CorruptProblemFile, PartOfTheStepDataMissing) {
  detail::removeObjectForTesting(file_.path, std::string(kGroup) + "bias");
  expectReadError(file_.path, {file_.path, std::string(kGroup) + "bias"});
}

TEST_F(CorruptProblemFile, AttachmentOutOfRange) {
  std::vector<int> first;
  for (const Constraint& c : problem().constraints) first.push_back(c.first_attachment);
  first.back() = static_cast<int>(problem().attachments.size());
  rewrite("constraint_first_attachment", ints(first), 0, true);
  expectReadError(file_.path, {file_.path, std::string(kGroup) + "constraint_first_attachment"});
}

TEST_F(CorruptProblemFile, JacobianOffsetBeyondData) {
  std::vector<int> attachments;
  for (const Attachment& a : problem().attachments)
    attachments.insert(attachments.end(), {a.subsystem, a.rows, a.dof, a.j_offset});
  attachments.back() = static_cast<int>(problem().jacobian_data.size()) - 1;  // last j_offset
  rewrite("attachments", ints(attachments), 4, true);
  expectReadError(file_.path, {file_.path, std::string(kGroup) + "attachments"});
}

TEST_F(CorruptProblemFile, SubsystemBeyondAData) {
  std::vector<int> subsystems;
  for (const Subsystem& s : problem().subsystems)
    subsystems.insert(subsystems.end(), {s.dof, s.dof_offset, s.a_offset});
  subsystems.back() = static_cast<int>(problem().a_data.size());  // last a_offset
  rewrite("subsystems", ints(subsystems), 3, true);
  expectReadError(file_.path, {file_.path, std::string(kGroup) + "subsystems"});
}

TEST_F(CorruptProblemFile, NanInB) {
  subsim::DoubleBuffer b = problem().b;
  b[b.size() / 2] = std::numeric_limits<double>::quiet_NaN();
  rewrite("b", b);
  expectReadError(file_.path,
                  {"'" + file_.path +
                   "' is not a valid subsim problem file: dataset /problems/000001/b: value " +
                   std::to_string(b.size() / 2) + " is not finite (nan)"});
}

TEST_F(CorruptProblemFile, InfinityInSoftK) {
  subsim::DoubleBuffer soft_k = problem().soft_k;
  soft_k.back() = std::numeric_limits<double>::infinity();
  rewrite("soft_k", soft_k);
  expectReadError(file_.path, {file_.path, std::string(kGroup) + "soft_k", "not finite"});
}

TEST_F(CorruptProblemFile, WarmStartOfWrongSize) {
  rewrite("warm_start_lambda", subsim::DoubleBuffer(problem().e.size() + 1, 0.0));
  expectReadError(file_.path, {file_.path, std::string(kGroup) + "warm_start_lambda"});
}

TEST_F(CorruptProblemFile, SolutionOfWrongSize) {
  rewrite("solution_lambda", subsim::DoubleBuffer(problem().e.size() + 2, 0.0));
  rewrite("solution_vhat", subsim::DoubleBuffer(problem().b.size(), 0.0));
  expectReadError(file_.path, {file_.path, std::string(kGroup) + "solution_lambda"});
}

TEST_F(CorruptProblemFile, CheckFailureNamesTheProblem) {
  // Bounds and values all valid, but A no longer symmetric: only StepProblem::check() sees it.
  subsim::DoubleBuffer a_data = problem().a_data;
  ASSERT_GE(problem().subsystems.front().dof, 2);
  a_data[1] += 1.0;  // A_0(1, 0) of the first subsystem, not mirrored in A_0(0, 1)
  rewrite("a_data", a_data);
  expectReadError(file_.path, {"'" + file_.path +
                                   "' is not a valid subsim problem file: /problems/000001 "
                                   "(problem 1) is not a valid StepProblem: ",
                               "not symmetric"});
}

TEST_F(CorruptProblemFile, SharedAttachmentsAreRefused) {
  // In range for every index check, but constraint 1 reuses constraint 0's attachments: SubADMM
  // sizes its per-attachment workspaces by the layout and wrote past them (fuzz_problem_file).
  ASSERT_GE(problem().constraints.size(), 2u);
  subsim::DoubleBuffer first;
  for (const Constraint& c : problem().constraints) first.push_back(c.first_attachment);
  first[1] = first[0];
  rewrite("constraint_first_attachment", first, 0, true);
  expectReadError(file_.path,
                  {"is not a valid StepProblem: ", "constraint 1: inconsistent layout"});
}

// Every index field set to values around and beyond its valid range, and every dataset cut
// short or emptied: the reader must throw std::runtime_error (or, for the few values that are
// still consistent, succeed), never crash or throw anything else.  Each corruption starts from
// the valid file.
TEST_F(CorruptProblemFile, NeverCrashesOnCorruptIndices) {
  const StepProblem& p = problem();
  struct IntArray {
    const char* name;
    std::vector<int> values;
    std::size_t cols;
  };
  std::vector<IntArray> arrays;
  {
    std::vector<int> subsystems, attachments, type, rows, row_offset, first, num, rule, frame;
    for (const Subsystem& s : p.subsystems)
      subsystems.insert(subsystems.end(), {s.dof, s.dof_offset, s.a_offset});
    for (const Attachment& a : p.attachments)
      attachments.insert(attachments.end(), {a.subsystem, a.rows, a.dof, a.j_offset});
    for (const Constraint& c : p.constraints) {
      type.push_back(static_cast<int>(c.type));
      rows.push_back(c.rows);
      row_offset.push_back(c.row_offset);
      first.push_back(c.first_attachment);
      num.push_back(c.num_attachments);
      rule.push_back(static_cast<int>(c.stabilization));
      frame.push_back(c.frame);
    }
    arrays = {{"subsystems", subsystems, 3},
              {"attachments", attachments, 4},
              {"constraint_type", type, 0},
              {"constraint_rows", rows, 0},
              {"constraint_row_offset", row_offset, 0},
              {"constraint_first_attachment", first, 0},
              {"constraint_num_attachments", num, 0},
              {"constraint_stabilization", rule, 0},
              {"constraint_frame", frame, 0}};
  }
  const int big = std::numeric_limits<int>::max();
  const std::vector<int> bad = {-1, 0, 1, 2, 7, 1000000, big, big - 1, -big - 1};
  TempFile copy(problemPath("_copy"));
  int reads = 0, errors = 0;
  const auto attempt = [&](const std::function<void()>& corrupt, const std::string& what) {
    writeProblemFile(copy.path, {"t", "t", 0.01}, problems_);
    corrupt();
    ++reads;
    try {
      readProblemFile(copy.path);
    } catch (const std::runtime_error& e) {
      ++errors;
      EXPECT_NE(std::string(e.what()).find(copy.path), std::string::npos) << e.what();
    } catch (...) {
      ADD_FAILURE() << what << ": not a std::runtime_error";
    }
  };
  for (const IntArray& array : arrays) {
    const std::string full = std::string(kGroup) + array.name;
    const std::size_t n = array.values.size();
    const std::size_t stride = array.cols == 0 ? 1 : array.cols;
    // Every column of the first and last row, so every field is hit.
    std::set<std::size_t> positions;
    for (std::size_t c = 0; c < stride && c < n; ++c) {
      positions.insert(c);
      positions.insert(n - stride + c);
    }
    for (std::size_t i : positions)
      for (int v : bad) {
        std::vector<int> values = array.values;
        values[i] = v;
        attempt(
            [&] {
              detail::rewriteDatasetForTesting(copy.path, full, ints(values), array.cols, true);
            },
            full + "[" + std::to_string(i) + "] = " + std::to_string(v));
      }
  }
  for (const char* name : {"subsystems",
                           "a_data",
                           "b",
                           "constraint_type",
                           "constraint_rows",
                           "constraint_row_offset",
                           "constraint_first_attachment",
                           "constraint_num_attachments",
                           "constraint_mu",
                           "constraint_key",
                           "attachments",
                           "jacobian_data",
                           "e",
                           "soft_k",
                           "soft_c",
                           "warm_start_vhat",
                           "warm_start_lambda",
                           "solution_vhat",
                           "solution_lambda",
                           "mass_data",
                           "velocity",
                           "error",
                           "bias",
                           "constraint_stabilization",
                           "constraint_frame",
                           "contact_frames"}) {
    const std::string full = std::string(kGroup) + name;
    // Emptied with the right element type, so that the size checks (not the type check) answer.
    const std::string n(name);
    const bool integers =
        n == "subsystems" || n == "attachments" ||
        (n.starts_with("constraint_") && n != "constraint_mu" && n != "constraint_key");
    const std::size_t cols = n == "subsystems"       ? 3
                             : n == "attachments"    ? 4
                             : n == "contact_frames" ? 6
                                                     : 0;
    attempt([&] { detail::rewriteDatasetForTesting(copy.path, full, {}, cols, integers); },
            full + " emptied");
    attempt([&] { detail::removeObjectForTesting(copy.path, full); }, full + " removed");
  }
  // Nearly every corruption must have been caught: most values are out of range.
  EXPECT_GT(errors, reads * 3 / 4) << errors << " errors in " << reads << " reads";
}

}  // namespace
}  // namespace subsim
