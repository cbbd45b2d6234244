// COND (solvers/cond_solver.hpp): the one-shot contact solve is the exact Signorini-Coulomb
// solution on a real node, the proximal one solves the per-contact QP, a converged fixed point
// satisfies the dynamics exactly, virtual nodes converge to the exact solution as 1 / k_v (the
// paper's Prop. 2 and its box test), FEM problems on real nodes agree with FADMM, and results are
// the same bits for any thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

#include "no_allocation.hpp"
#include "subsim/assembly/assembler.hpp"
#include "subsim/math/so3.hpp"
#include "subsim/solvers/cond_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

constexpr double kNodeMass = 0.3;

/// One FEM-like subsystem of 3 nodes (9 DOF, diagonal A = m I) whose node 1 touches the world
/// through a contact with frame R: J = R on the node's coordinates, the paper's S-contact on a
/// real node.  v_free = b / m is the node's velocity without contact.
StepProblem nodeContactProblem(const Vec3& v_free, double gap_velocity, double mu, const Mat3& R) {
  StepProblem p;
  p.dt = 0.01;
  const int s = p.addSubsystem(9);
  p.A(s) = kNodeMass * MatX::Identity(9, 9);
  p.M(s) = p.A(s);
  VecX b = VecX::Zero(9);
  b.segment<3>(3) = kNodeMass * v_free;
  p.bBlock(s) = b;
  const int c = p.addConstraint(ConstraintType::Contact, 3, mu, 1);
  p.setContactFrame(Vec3::Zero(), R.row(0).transpose());
  p.jacobianFor(s).block<3, 3>(0, 3) = R;
  p.e[p.constraints[c].row_offset] = gap_velocity;
  return p;
}

Mat3 someFrame() {
  return Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized())).toRotationMatrix();
}

StepSolution solveCond(const StepProblem& p, CondOptions options = CondOptions(),
                       double tolerance = 1e-12, int iterations = 100000, int threads = 1) {
  CondSolver solver(options);
  SolverSettings s;
  s.max_iterations = iterations;
  s.tolerance = tolerance;
  s.threads = threads;
  StepSolution sol;
  solver.solve(p, s, sol);
  return sol;
}

// Signorini-Coulomb at the node after the step, w = R vhat_node + e: the three cases.
enum class Regime { Open, Stick, Slide };

struct NodeContactCase {
  const char* name;
  Vec3 v_free;  // in the contact frame [n, t1, t2]
  double mu;
  Regime regime;  // the case the velocity puts the contact in
};

class NodeContact : public ::testing::TestWithParam<NodeContactCase> {};

TEST_P(NodeContact, OneShotSolveIsTheExactSignoriniCoulombSolution) {
  const NodeContactCase& cc = GetParam();
  const Mat3 R = someFrame();
  const StepProblem p = nodeContactProblem(R.transpose() * cc.v_free, 0.0, cc.mu, R);
  ASSERT_TRUE(p.check().empty()) << p.check();
  const StepSolution sol = solveCond(p);
  ASSERT_TRUE(sol.stats.converged()) << sol.stats.residual;
  // Diagonal A: the first iteration is exact, the second confirms it.
  EXPECT_LE(sol.stats.iterations, 2) << cc.name;
  ContactNodalization nodes;
  ASSERT_TRUE(nodes.build(p, NodalizationOptions(), 1));
  EXPECT_EQ(nodes.numNodeCoordinates(), 0);
  EXPECT_EQ(nodes.directDof(0), 3);
  const Vec3 w = R * sol.vhat.segment<3>(3);
  const Vec3 l = sol.lambda.head<3>();
  const double scale = 1e-12 * (1.0 + cc.v_free.norm());
  EXPECT_GE(l[0], -scale);
  EXPECT_GE(w[0], -scale);
  EXPECT_NEAR(l[0] * w[0], 0.0, scale);
  const double lt = l.tail<2>().norm(), wt = w.tail<2>().norm();
  EXPECT_LE(lt, cc.mu * l[0] + scale);
  switch (cc.regime) {
    case Regime::Open:
      EXPECT_EQ(l.norm(), 0.0);
      EXPECT_GT(w[0], 0.1);
      break;
    case Regime::Stick:
      EXPECT_LT(lt, cc.mu * l[0] - 1e-3);
      EXPECT_NEAR(wt, 0.0, scale);
      EXPECT_NEAR(w[0], 0.0, scale);
      break;
    case Regime::Slide:
      // Friction at the cone's edge opposes the sliding velocity.
      EXPECT_GT(l[0], 0.1);
      EXPECT_GT(wt, 0.1);
      EXPECT_LT((l.tail<2>() + cc.mu * l[0] * w.tail<2>() / wt).norm(), 1e-9) << cc.name;
      break;
  }
  // The other nodes move freely; the dynamics hold exactly.
  const MatX J = test::denseJacobian(p);
  const VecX r = test::denseA(p) * sol.vhat - Eigen::Map<const VecX>(p.b.data(), 9) -
                 J.transpose() * sol.lambda;
  EXPECT_LT(r.cwiseAbs().maxCoeff(), 1e-13);
}

const NodeContactCase kContactCases[] = {
    {"separating", Vec3(0.4, 0.3, -0.2), 0.5, Regime::Open},
    {"sticking", Vec3(-1.0, 0.2, 0.1), 0.5, Regime::Stick},
    {"sliding", Vec3(-1.0, 1.5, -0.8), 0.5, Regime::Slide},
    {"frictionless", Vec3(-1.0, 1.5, -0.8), 0.0, Regime::Slide},
};

INSTANTIATE_TEST_SUITE_P(Cases, NodeContact, ::testing::ValuesIn(kContactCases),
                         [](const ::testing::TestParamInfo<NodeContactCase>& case_info) {
                           return std::string(case_info.param.name);
                         });

TEST(Cond, ProximalOperatorSolvesThePerContactQp) {
  // min 1/2 lambda^T Gamma lambda + lambda^T (eta + e) over the cone ||lambda_t|| <= mu lambda_n
  // (Prop. 5): its KKT conditions are lambda in the cone, g = Gamma lambda + eta + e in the dual
  // cone ||g_t|| <= g_n / mu, and lambda^T g = 0.
  const Mat3 R = someFrame();
  const double mu = 0.6;
  for (const Vec3& v : {Vec3(-1.0, 1.5, -0.8), Vec3(-1.0, 0.1, 0.2), Vec3(0.3, 2.0, 0.0)}) {
    const StepProblem p = nodeContactProblem(R.transpose() * v, 0.0, mu, R);
    CondOptions o;
    o.cone = CondCone::Proximal;
    const StepSolution sol = solveCond(p, o);
    ASSERT_TRUE(sol.stats.converged());
    const Vec3 l = sol.lambda.head<3>();
    const Vec3 g = R * sol.vhat.segment<3>(3);  // Gamma lambda + eta + e at the fixed point
    EXPECT_LE(l.tail<2>().norm(), mu * l[0] + 1e-12);
    EXPECT_LE(mu * g.tail<2>().norm(), g[0] + 1e-12);
    EXPECT_NEAR(l.dot(g), 0.0, 1e-12);
  }
  // Where sliding, the proximal answer differs from the strict one: the relaxed Signorini
  // condition w_n = mu delta (Prop. 5) lifts the sliding node off the floor (the CCP's
  // "gliding", section III-D), with a larger normal impulse.
  const StepProblem p = nodeContactProblem(R.transpose() * Vec3(-1.0, 1.5, -0.8), 0.0, mu, R);
  CondOptions o;
  o.cone = CondCone::Proximal;
  const StepSolution prox = solveCond(p, o), strict = solveCond(p);
  EXPECT_GT(prox.lambda[0], strict.lambda[0] + 1e-3);
  EXPECT_GT((R * prox.vhat.segment<3>(3))[0], 1e-3);
  EXPECT_NEAR((R * strict.vhat.segment<3>(3))[0], 0.0, 1e-12);
}

TEST(Cond, ConvergedFixedPointSatisfiesTheDynamicsExactly) {
  // Remark 1: A vhat = b + J^T lambda at a fixed point, virtual nodes and all (a stack of boxes
  // and a sliding box: 40 and 4 contacts on rigid bodies).
  for (const char* spec : {"stack:boxes=4", "incline:angle=30,mu=0.3"}) {
    World w = test::worldAfter(spec, 20);
    const StepProblem& p = w.lastProblem();
    ASSERT_GT(p.numContacts(), 0) << spec;
    const StepSolution sol = solveCond(p, CondOptions(), 1e-11);
    ASSERT_TRUE(sol.stats.converged()) << spec << " " << sol.stats.residual;
    const VecX r = test::denseA(p) * sol.vhat - Eigen::Map<const VecX>(p.b.data(), p.numDof()) -
                   test::denseJacobian(p).transpose() * sol.lambda;
    EXPECT_LT(r.cwiseAbs().maxCoeff(), 1e-9) << spec;
  }
}

TEST(Cond, VirtualNodesConvergeToTheExactSolutionAsOneOverKv) {
  // Prop. 2: eliminating a virtual node leaves the constraint seen through a compliance 1 / k_v,
  // which vanishes as k_v grows.  Against FADMM's exact solution of the same step, the velocity
  // error falls tenfold per tenfold k_v.
  World w = test::worldAfter("incline:angle=10,mu=0.5", 20);
  const StepProblem& p = w.lastProblem();
  const StepSolution ref = test::solveTightly("fadmm", p);
  ASSERT_TRUE(ref.stats.converged());
  double previous = 0.0;
  for (double ratio : {1e1, 1e2, 1e3}) {
    CondOptions o;
    o.kv_ratio = ratio;
    const StepSolution sol = solveCond(p, o, 1e-12);
    ASSERT_TRUE(sol.stats.converged()) << ratio;
    const double error = (sol.vhat - ref.vhat).cwiseAbs().maxCoeff();
    EXPECT_GT(error, 0.0);
    if (previous > 0.0) {
      EXPECT_GT(previous / error, 5.0) << ratio;
      EXPECT_LT(previous / error, 20.0) << ratio;
    }
    previous = error;
  }
}

// The paper's virtual-node box test (section V-B, Table I): the box's position error against the
// analytic trajectory y = (F / m - mu g) t^2 / 2, z = 0.1 m scales as 1 / k_v, and at
// k_v = 1e5 N s/m it is below 0.01 mm (the paper: 0.0012 mm in y, 0.0061 mm in z).
TEST(Cond, PushedBoxFollowsTheAnalyticTrajectoryWithErrorsFallingAsOneOverKv) {
  const double a = 2.0 / 0.5 - 0.2 * 9.81;
  double previous_z = 0.0;
  for (double kv : {1e3, 1e4, 1e5}) {
    WorldSettings ws;
    ws.solver = "cond";
    ws.solver_options = {{"kv", std::to_string(kv)}};
    World w = test::makeWorld("pushedbox", 100000, 1e-9, 1, 0.0, ws);
    double error_y = 0.0, error_z = 0.0;
    const int steps = 100;
    for (int k = 1; k <= steps; ++k) {
      ASSERT_FALSE(w.step().diverged);
      const double t = k * w.model().dt;
      const Vec3 x = w.state().pose[1].position;
      error_y += std::abs(x.y() - 0.5 * a * t * t) / steps;
      error_z += std::abs(x.z() - 0.1) / steps;
    }
    EXPECT_LT(error_y, 1e-3) << kv;
    if (kv == 1e5) {
      EXPECT_LT(error_y, 1e-5);
      EXPECT_LT(error_z, 1e-5);
    }
    if (previous_z > 0.0) {
      EXPECT_GT(previous_z / error_z, 5.0) << kv;
      EXPECT_LT(previous_z / error_z, 20.0) << kv;
    }
    previous_z = error_z;
  }
}

/// A soft cube settling on the floor in `pieces` pieces: every contact is on a surface node and
/// every interface joins two nodes, so COND uses real nodes throughout.
StepProblem femCubeProblem(int pieces) {
  World w(test::softCubeModel(pieces, 0.4, 0.0, 0.1), WorldSettings());
  for (int k = 0; k < 15; ++k) EXPECT_FALSE(w.step().diverged);
  return w.lastProblem();
}

double femCubeError(const StepProblem& p, double kv_ratio) {
  const StepSolution ref = test::solveTightly("fadmm", p);
  EXPECT_TRUE(ref.stats.converged());
  CondOptions o;
  o.kv_ratio = kv_ratio;
  const StepSolution sol = solveCond(p, o, 1e-11, 1000000);
  EXPECT_TRUE(sol.stats.converged()) << sol.stats.residual;
  return (sol.vhat - ref.vhat).cwiseAbs().maxCoeff();
}

TEST(Cond, FemOnRealNodesAgreesWithFadmm) {
  // One piece: every contact is on a surface node, COND is exact.
  const StepProblem one = femCubeProblem(1);
  ASSERT_GT(one.numContacts(), 0);
  EXPECT_LT(femCubeError(one, 1e3), 1e-8);
  // Two pieces: the interface nodes that also touch the floor are in two constraints, and the
  // second gets a virtual node (Prop. 3 allows one constraint per node), whose compliance
  // 1 / k_v vanishes as k_v grows.
  const StepProblem two = femCubeProblem(2);
  const double coarse = femCubeError(two, 1e3), fine = femCubeError(two, 1e5);
  EXPECT_LT(fine, 1e-6);
  EXPECT_GT(coarse / fine, 20.0);
}

TEST(Cond, RealNodesTakeNoVirtualNodeAndTheAblationDoes) {
  for (int pieces : {1, 2}) {
    const StepProblem p = femCubeProblem(pieces);
    ContactNodalization direct, virtual_only;
    ASSERT_TRUE(direct.build(p, NodalizationOptions(), 1));
    NodalizationOptions o;
    o.direct_nodes = false;
    ASSERT_TRUE(virtual_only.build(p, o, 1));
    int rows = 0, claimed_again = 0;
    std::set<int> owned;
    for (int a = 0; a < static_cast<int>(p.attachments.size()); ++a) {
      const Attachment& at = p.attachments[a];
      rows += at.rows;
      for (int r = 0; r < at.rows; ++r) EXPECT_GT(virtual_only.coupling(a, r), 0.0);
      const int d = direct.directDof(a);
      if (d >= 0) {
        EXPECT_TRUE(owned.insert(d).second) << "node claimed twice";
        EXPECT_GT(direct.nodeWeight(a, 0), 0.0);
      } else {
        // Only a node already claimed by an earlier constraint takes a virtual node.
        ASSERT_TRUE(direct.jacobian().compact(a));
        const int first = p.subsystems[at.subsystem].dof_offset + direct.jacobian().columns(a)[0];
        EXPECT_EQ(owned.count(first), 1u) << "attachment " << a;
        ++claimed_again;
      }
    }
    EXPECT_EQ(virtual_only.numNodeCoordinates(), rows);
    EXPECT_EQ(direct.numNodeCoordinates(), 3 * claimed_again);
    if (pieces == 1) {
      EXPECT_EQ(claimed_again, 0);
    } else {
      EXPECT_GT(claimed_again, 0);
    }
  }
}

TEST(Cond, SoftBallOnRealNodesAgreesWithFadmmAndItsStepMatrixIsBounded) {
  // The paper's soft ball (coarse): one FEM subsystem whose contacts are on its nodes.  The
  // Frobenius W alone lets lambda_max(W A_x) reach 2 here (the plain iteration then grows), so
  // it is scaled down, and then the plain V-FPI and the accelerated one both converge to FADMM's
  // solution.
  World w = test::worldAfter("softball:cells=4", 20);
  const StepProblem& p = w.lastProblem();
  ASSERT_GT(p.numContacts(), 0);
  ASSERT_EQ(p.numSubsystems(), 1);
  const StepSolution ref = test::solveTightly("fadmm", p);
  ASSERT_TRUE(ref.stats.converged());
  SolverSettings s;
  s.max_iterations = 200000;
  for (bool chebyshev : {true, false}) {
    CondOptions o;
    o.chebyshev = chebyshev;
    CondSolver cond(o);
    s.tolerance = chebyshev ? 1e-10 : 1e-8;
    StepSolution sol;
    cond.solve(p, s, sol);
    ASSERT_TRUE(sol.stats.converged()) << chebyshev << " " << sol.stats.residual;
    EXPECT_LT((sol.vhat - ref.vhat).cwiseAbs().maxCoeff(), chebyshev ? 1e-7 : 1e-5);
    EXPECT_GT(cond.nodalization().stepEigenvalue(), ContactNodalization::kMaxStepEigenvalue);
    EXPECT_NEAR(cond.nodalization().stepScale() * cond.nodalization().stepEigenvalue(),
                ContactNodalization::kMaxStepEigenvalue, 1e-12);
  }
}

// The paper's gripping scene as a grip: the pads close for 0.3 s, then lift at 2 cm/s; friction
// alone carries the ball (0.27 kg) up with them, with COND as the solver.
TEST(Cond, SoftBallIsLiftedByItsGrip) {
  WorldSettings ws;
  ws.solver = "cond";
  World w = test::makeWorld("softball:cells=4", 1000, 1e-6, 1, 0.0, ws);
  const auto centreHeight = [&] {
    const VecX& x = w.state().fem_x[0];
    double z = 0.0;
    for (int k = 2; k < x.size(); k += 3) z += x[k];
    return z / (x.size() / 3);
  };
  const int pad = w.model().findBody("finger_left");
  const double z0 = centreHeight(), pad0 = w.state().pose[pad].position.z();
  for (int k = 0; k < 70; ++k) ASSERT_FALSE(w.step().diverged) << "step " << k;
  const double rise = centreHeight() - z0, pad_rise = w.state().pose[pad].position.z() - pad0;
  EXPECT_NEAR(pad_rise, 0.008, 1e-9);  // 0.4 s at 2 cm/s
  EXPECT_GT(rise, 0.8 * pad_rise) << "the ball slipped out of the grip";
  EXPECT_LT(rise, 1.2 * pad_rise);
}

// The paper's soft-gripper scene, coarse: the jaws press the two silicone pads on the rigid
// cube for 0.25 s, then lift for 0.4 s at 2 cm/s; friction alone carries the cube (79 g) up with
// them, its contacts on virtual nodes (a dynamic rigid body), with COND as the solver.
TEST(Cond, SoftGripperLiftsTheCube) {
  WorldSettings ws;
  ws.solver = "cond";
  World w = test::makeWorld("softgripper:cells=10", 1000, 1e-6, 1, 0.0, ws);
  ASSERT_EQ(w.partition().numSubsystems(), 2);  // the fingers as one body, and the cube
  const int cube = w.model().findBody("object"), jaw = w.model().findBody("jaw_left");
  const double z0 = w.state().pose[cube].position.z(), jaw0 = w.state().pose[jaw].position.z();
  double penetration = 0.0;
  for (int k = 0; k < 65; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << "step " << k << ": " << r.divergence;
    penetration = std::max(penetration, r.max_penetration);
  }
  const double rise = w.state().pose[cube].position.z() - z0;
  const double jaw_rise = w.state().pose[jaw].position.z() - jaw0;
  EXPECT_NEAR(jaw_rise, 0.008, 1e-9);
  EXPECT_GT(rise, 0.8 * jaw_rise) << "the cube slipped out of the grip";
  EXPECT_LT(rise, 1.2 * jaw_rise);
  EXPECT_LT(penetration, 1e-3);
}

// The paper's mat-folding scene, coarse: the Panda lifts the mat's +x edge over the middle and
// lays it on the -x half, where it rests on the other half's top face (z = 1 cm) through self
// contacts, the lower half staying on the floor where it was.
TEST(Cond, SoftMatIsFoldedOntoItself) {
  WorldSettings ws;
  ws.solver = "cond";
  World w = test::makeWorld("softmat:cells=8,duration=1.5", 1000, 1e-6, 1, 0.0, ws);
  const DeformableBody& mat = w.model().deformables[0];
  const std::vector<VecX> rest = placedPieces(mat, mat.initial_pose);
  int self_contacts = 0;
  double penetration = 0.0;
  for (int k = 0; k < 200; ++k) {
    const StepReport r = w.step();
    ASSERT_FALSE(r.diverged) << "step " << k << ": " << r.divergence;
    penetration = std::max(penetration, r.max_penetration);
    for (const DeformableShapeContact& c : w.lastDeformableContacts())
      self_contacts += c.againstNode() && c.node_deformable == c.deformable;
  }
  EXPECT_GT(self_contacts, 0);
  EXPECT_LT(penetration, 1e-3);
  for (int n = 0; n < mat.rest_mesh.numNodes(); ++n) {
    const auto [piece, local] = mat.node_home[n];
    const double x0 = rest[piece][3 * local];
    const Vec3 x = w.state().fem_x[piece].segment<3>(3 * local);
    if (x0 > 0.075) {  // the folded half: over the other one, on its top face
      EXPECT_LT(x.x(), 0.0) << "node " << n;
      EXPECT_GT(x.z(), 0.01 - 1e-3) << "node " << n;
    }
    if (x0 < -0.05) {  // the lower half: on the floor, dragged by less than 3 cm
      EXPECT_GT(x.z(), -1e-3) << "node " << n;
      EXPECT_LT(x.z(), 0.011) << "node " << n;
      EXPECT_LT(std::abs(x.x() - x0), 0.03) << "node " << n;
    }
  }
}

// A joint's rows keep their own virtual-node coupling.  The cable's grip is a compliant weld
// between a 9 mm link and the Panda's rod: its translation rows see the link's mass, its rotation
// rows the link's 1e-8 kg m^2, and its damper is stiffer than either.  One coupling per node (from
// the rows' mean inverse mass, as before) left the translation rows a compliance thousands of
// times the damper's, and COND's converged grip impulse was 1/130 of FADMM's; per row, and stiff
// against the damper, the two agree.
TEST(Cond, AJointsRowsKeepTheirOwnCoupling) {
  WorldSettings ws;
  ws.solver = "subadmm";
  World w = test::makeWorld("cablewind:segments=16,per_subsystem=0", 200, 0.0, 1, 0.0, ws);
  for (int k = 0; k < 40; ++k) ASSERT_FALSE(w.step().diverged);  // lifted and moving
  const StepProblem& p = w.lastProblem();
  int grip = -1;
  for (const Constraint& c : p.constraints)
    if (c.key == jointKey(0, 0)) grip = c.row_offset;
  ASSERT_GE(grip, 0);
  const StepSolution ref = test::solveTightly("fadmm", p);
  ASSERT_TRUE(ref.stats.converged());
  const StepSolution sol = solveCond(p, CondOptions(), 1e-10, 2000000);
  ASSERT_TRUE(sol.stats.converged()) << sol.stats.residual;
  const Vec3 expected = ref.lambda.segment<3>(grip), got = sol.lambda.segment<3>(grip);
  ASSERT_GT(expected.norm(), 1e-3);  // N s: the grip carries the lifted cable
  // The nodes' series compliance, 1e-3 of each row's own, is the whole difference.
  EXPECT_LT((got - expected).norm(), 0.02 * expected.norm())
      << got.transpose() << " vs " << expected.transpose();
}

TEST(Cond, EveryOptionVariantConvergesToTheSameStep) {
  World w = test::worldAfter("spherecube:side=2", 30);
  const StepProblem& p = w.lastProblem();
  const StepSolution base = solveCond(p, CondOptions(), 1e-11);
  ASSERT_TRUE(base.stats.converged());
  CondOptions bb, plain, relaxed;
  bb.step_matrix = CondStepMatrix::BarzilaiBorwein;
  plain.chebyshev = false;
  relaxed.relaxation = 0.8;
  for (const CondOptions& o : {bb, plain, relaxed}) {
    const StepSolution sol = solveCond(p, o, 1e-11, 1000000);
    ASSERT_TRUE(sol.stats.converged()) << sol.stats.residual;
    EXPECT_LT((sol.vhat - base.vhat).cwiseAbs().maxCoeff(), 1e-9);
  }
  // The invertible contact model: Omega softens every contact, so the impulses fall.
  CondOptions soft;
  soft.regularization = 1.0;
  const StepSolution sol = solveCond(p, soft, 1e-11);
  ASSERT_TRUE(sol.stats.converged());
  EXPECT_LT(sol.lambda.cwiseAbs().sum(), base.lambda.cwiseAbs().sum());
}

TEST(Cond, SameBitsForAnyThreadCount) {
  World w = test::worldAfter("granular:spheres=27", 40);
  const StepProblem& p = w.lastProblem();
  const StepSolution one = solveCond(p, CondOptions(), 0.0, 200, 1);
  for (int threads : {2, 3}) {
    const StepSolution many = solveCond(p, CondOptions(), 0.0, 200, threads);
    EXPECT_EQ((many.vhat - one.vhat).cwiseAbs().maxCoeff(), 0.0) << threads;
    EXPECT_EQ((many.lambda - one.lambda).cwiseAbs().maxCoeff(), 0.0) << threads;
  }
}

TEST(Cond, IterationsDoNotAllocate) {
  World w = test::worldAfter("stack:boxes=3", 10);
  CondSolver solver;
  SolverSettings s;
  s.max_iterations = 30;
  test::expectIterationsDoNotAllocate(solver, w.lastProblem(), s);
  CondSolver bb;
  bb.options().step_matrix = CondStepMatrix::BarzilaiBorwein;
  test::expectIterationsDoNotAllocate(bb, w.lastProblem(), s);
}

TEST(Cond, RefusesALocalFormProblemAndANonSpdMatrix) {
  StepProblem local;
  local.addConstraint(ConstraintType::Contact, 3, 0.5);
  local.local_w.row_begin = {0, 1, 2, 3};
  local.local_w.column = {0, 1, 2};
  local.local_w.value = {1.0, 1.0, 1.0};
  CondSolver solver;
  StepSolution sol;
  EXPECT_THROW(solver.solve(local, SolverSettings(), sol), std::invalid_argument);

  StepProblem p = nodeContactProblem(Vec3(0, 0, -1), 0.0, 0.5, Mat3::Identity());
  p.A(0)(4, 4) = 0.0;
  solver.solve(p, SolverSettings(), sol);
  EXPECT_EQ(sol.stats.status, SolveStatus::FactorizationFailed);
  EXPECT_EQ(sol.stats.iterations, 0);
}

}  // namespace
}  // namespace subsim
