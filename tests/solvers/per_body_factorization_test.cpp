// SubADMM's per-body form of a tree subsystem (AL paper eqs. 40-41): the branch-sparse LTDL
// against a dense Cholesky, the per-body iteration against the dense one on robot scenes (the
// same iterates up to round-off: the two differ only in how A_j + beta sum J^T J is formed and
// factored), the tree structure's checks, and no allocation in the per-body iteration.
#include <gtest/gtest.h>

#include <random>

#include "solvers/no_allocation.hpp"
#include "subsim/solvers/branch_sparse_ldlt.hpp"
#include "subsim/solvers/subadmm_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

using test::worldAfter;

// A random tree of n DOFs and an SPD matrix with its branch-induced sparsity, built like eq. (40)
// from body Jacobians supported on root paths.
struct RandomTreeSystem {
  std::vector<int> parent;
  MatX H;
};

RandomTreeSystem randomTreeSystem(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  RandomTreeSystem s;
  s.parent.resize(n);
  for (int k = 0; k < n; ++k)
    s.parent[k] = k == 0 ? -1 : std::uniform_int_distribution<int>(-1, k - 1)(rng);
  s.H = MatX::Identity(n, n) * 0.5;
  for (int body = 0; body < n; ++body) {
    MatX Jb = MatX::Zero(6, n);
    for (int k = body; k >= 0; k = s.parent[k])
      for (int r = 0; r < 6; ++r) Jb(r, k) = u(rng);
    Mat6 G;
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 6; ++c) G(r, c) = u(rng);
    s.H += Jb.transpose() * (G * G.transpose()) * Jb;
  }
  return s;
}

TEST(BranchSparseLdlt, SolvesLikeADenseCholeskyOnRandomTrees) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    RandomTreeSystem s = randomTreeSystem(24, seed);
    // The construction must give the sparsity the factorisation relies on, and some zeros.
    int zeros = 0;
    for (int k = 0; k < 24; ++k)
      for (int l = 0; l < k; ++l) {
        bool ancestor = false;
        for (int a = s.parent[k]; a >= 0; a = s.parent[a]) ancestor = ancestor || a == l;
        if (!ancestor) {
          EXPECT_EQ(s.H(k, l), 0.0);
          ++zeros;
        }
      }
    EXPECT_GT(zeros, 50) << "seed " << seed;
    const VecX b = VecX::LinSpaced(24, -1.0, 2.0);
    const VecX expected = s.H.llt().solve(b);
    MatX factors = s.H;
    ASSERT_TRUE(branch_ldlt::factorize(factors.data(), 24, s.parent.data()));
    VecX x = b;
    branch_ldlt::solveInPlace(factors.data(), 24, s.parent.data(), x.data());
    EXPECT_LT((x - expected).norm(), 1e-10 * expected.norm()) << "seed " << seed;
  }
}

TEST(BranchSparseLdlt, ReportsANonPositivePivot) {
  const std::vector<int> chain = {-1, 0};
  MatX H(2, 2);
  H << 1.0, 2.0, 2.0, 1.0;  // indefinite
  EXPECT_FALSE(branch_ldlt::factorize(H.data(), 2, chain.data()));
}

int factoredAttachments(const StepProblem& p) {
  int n = 0;
  for (const Attachment& a : p.attachments) n += a.body >= 0 ? 1 : 0;
  return n;
}

// Whether the per-body form takes every tree subsystem of the problem.
bool perBodyFormTakesEveryTree(const StepProblem& p) {
  std::vector<int> begin(p.numSubsystems() + 1, 0), attachments;
  for (int i = 0; i < p.numSubsystems(); ++i) {
    begin[i] = static_cast<int>(attachments.size());
    for (int a = 0; a < static_cast<int>(p.attachments.size()); ++a)
      if (p.attachments[a].subsystem == i) attachments.push_back(a);
  }
  begin.back() = static_cast<int>(attachments.size());
  PerBodyFactorization form;
  form.prepare(p, begin, attachments);
  int trees = 0;
  for (int i = 0; i < p.numSubsystems(); ++i) {
    if (p.subsystems[i].tree_offset < 0) continue;
    ++trees;
    if (!form.uses(i)) return false;
  }
  return trees > 0;
}

// Per-body and dense SubADMM on the same problem: equal iterates up to round-off.
void expectPerBodyMatchesDense(const StepProblem& p, int iterations) {
  ASSERT_EQ(p.check(), "");
  EXPECT_TRUE(perBodyFormTakesEveryTree(p));
  SolverSettings s;
  s.max_iterations = iterations;
  s.tolerance = 0.0;
  SubadmmSolver per_body, dense;
  StepSolution a, b;
  per_body.solve(p, s, a);
  dense.options().factorization = SubadmmOptions::Factorization::Dense;
  dense.solve(p, s, b);
  EXPECT_LT((a.vhat - b.vhat).norm(), 1e-8 * (1.0 + b.vhat.norm()));
  EXPECT_LT((a.lambda - b.lambda).norm(), 1e-8 * (1.0 + b.lambda.norm()));
}

TEST(PerBodySubadmm, AgreesWithTheDenseFactorisationOnLandingQuadrupeds) {
  World w = worldAfter("quadrupeds:robots=2", 40, 100);
  const StepProblem& p = w.lastProblem();
  ASSERT_GE(p.numContacts(), 8);         // every foot down
  EXPECT_EQ(p.tree_bodies.size(), 26u);  // 13 moving links per robot
  EXPECT_GE(factoredAttachments(p), 8);  // the foot contacts carry their factor
  expectPerBodyMatchesDense(p, 100);
}

TEST(PerBodySubadmm, AgreesWithTheDenseFactorisationWithNoSlipAndLimitRows) {
  // The mobile manipulator: a no-slip row on the base's x and y DOFs (a root path) and joint
  // limits, both rows without a per-body factor, beside the arm's contacts.
  World w = worldAfter("mobile", 120, 60);
  const StepProblem& p = w.lastProblem();
  bool unfactored_robot_row = false;
  for (const Attachment& a : p.attachments)
    unfactored_robot_row =
        unfactored_robot_row || (a.body < 0 && p.subsystems[a.subsystem].tree_offset >= 0);
  EXPECT_TRUE(unfactored_robot_row);
  expectPerBodyMatchesDense(p, 60);
}

TEST(PerBodySubadmm, AgreesWithTheDenseFactorisationWhileStirring) {
  World w = worldAfter("stir:spheres=27", 60, 60);
  const StepProblem& p = w.lastProblem();
  EXPECT_GT(factoredAttachments(p), 0);  // the stirrer touches spheres
  expectPerBodyMatchesDense(p, 60);
}

TEST(PerBodySubadmm, IterationLoopDoesNotAllocate) {
  World w = worldAfter("quadrupeds:robots=2", 40, 100);
  ASSERT_GT(factoredAttachments(w.lastProblem()), 0);
  SubadmmSolver solver;
  SolverSettings s;
  s.max_iterations = 30;
  solver.options().adaptive_beta = true;  // refactors inside the loop
  s.threads = 2;
  test::expectIterationsDoNotAllocate(solver, w.lastProblem(), s);
}

TEST(TreeStructure, CheckFindsInconsistencies) {
  World w = worldAfter("quadrupeds:robots=2", 40, 60);
  const StepProblem& p = w.lastProblem();
  ASSERT_EQ(p.check(), "");
  const int tree = p.subsystems[0].tree_offset >= 0 ? 0 : 1;
  ASSERT_GE(p.subsystems[tree].tree_offset, 0);

  StepProblem bad_parent = p;
  bad_parent.dof_parent[p.subsystems[tree].tree_offset + 3] = 3;
  EXPECT_NE(bad_parent.check().find("has parent 3"), std::string::npos) << bad_parent.check();

  // Two legs' hip DOFs are in different branches: A may not couple them.
  StepProblem bad_sparsity = p;
  bad_sparsity.A(tree)(12, 9) = bad_sparsity.A(tree)(9, 12) = 1.0;
  EXPECT_NE(bad_sparsity.check().find("neither DOF is an ancestor"), std::string::npos)
      << bad_sparsity.check();

  StepProblem bad_body = p;
  const int leg_body = 4;  // a link of the first leg; column 17 is the last leg's knee
  bad_body.treeBodyJacobian(leg_body)(0, 17) = 1.0;
  EXPECT_NE(bad_body.check().find("is not an ancestor of its deepest DOF"), std::string::npos)
      << bad_body.check();

  StepProblem bad_factor = p;
  for (Attachment& a : bad_factor.attachments)
    if (a.body >= 0) {
      bad_factor.local_jacobian_data[a.local_offset] += 1.0;
      break;
    }
  EXPECT_NE(bad_factor.check().find("differs from its factor"), std::string::npos)
      << bad_factor.check();
}

TEST(TreeStructure, WritingABlockDirectlyDropsItsFactor) {
  StepProblem p;
  const int s = p.addSubsystem(2);
  p.A(s).setIdentity();
  const int parents[] = {-1, 0};
  p.setDofParents(s, parents);
  const int body = p.addTreeBody(s, 1);
  p.treeBodyJacobian(body).setOnes();
  p.addConstraint(ConstraintType::Bilateral, 1);
  TwistRows L = TwistRows::Zero(1, 6);
  L(0, 2) = 1.0;
  p.addTreeBodyRows(body, L);
  EXPECT_EQ(p.attachments[0].body, body);
  p.addTreeBodyRows(body, L);  // the same body again: the factor accumulates
  EXPECT_EQ(p.localJacobian(p.attachments[0])(0, 2), 2.0);
  EXPECT_EQ(p.check(), "");
  p.jacobianFor(s)(0, 0) += 1.0;  // anything may be written: no factor any more
  EXPECT_EQ(p.attachments[0].body, -1);
  EXPECT_EQ(p.check(), "");
}

}  // namespace
}  // namespace subsim
