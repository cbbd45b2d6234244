#pragma once
// Helpers shared by the test executables.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "subsim/fem/box_tet_mesher.hpp"
#include "subsim/problem/step_problem.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim::test {

/// True in the sanitizer and fuzzing builds (tests/CMakeLists.txt), where everything runs about
/// 20 times slower: the longest runs take fewer steps there, the portable build runs them whole.
inline constexpr bool kSanitized = SUBSIM_SANITIZED != 0;

/// Whether `subsim plot` can draw: the same search as it makes, python3 on PATH, then Debian's.
inline bool matplotlibAvailable() {
  for (const char* python : {"python3", "/usr/bin/python3"})
    if (std::system((std::string(python) + " -c 'import matplotlib' >/dev/null 2>&1").c_str()) == 0)
      return true;
  return false;
}

/// How many of the model's bodies are of `kind`.
inline int countKind(const Model& m, BodyKind kind) {
  int n = 0;
  for (const Body& b : m.bodies) n += b.kind == kind ? 1 : 0;
  return n;
}

/// A World on a built-in scene with the given solver settings.
inline World makeWorld(const std::string& spec, int iterations, double tolerance, int threads = 1,
                       double dt = 0.0, WorldSettings ws = WorldSettings()) {
  BuiltScene scene = buildScenario(spec);
  if (dt > 0.0) scene.model.dt = dt;
  ws.solver_settings.max_iterations = iterations;
  ws.solver_settings.tolerance = tolerance;
  ws.solver_settings.threads = threads;
  return World(std::move(scene.model), ws);
}

/// A world stepped `steps` times with a fixed iteration count, for problems from mid-simulation.
inline World worldAfter(const std::string& spec, int steps, int iterations = 60) {
  World w = makeWorld(spec, iterations, 0.0);
  for (int k = 0; k < steps; ++k) w.step();
  return w;
}

/// `name` run to a tight tolerance (1e-12; 400 iterations for Newton-type solvers, 200000 for
/// first-order ones): the reference solution of a small problem.
inline StepSolution solveTightly(const std::string& name, const StepProblem& p) {
  auto solver = makeSolver(name);
  SolverSettings s;
  s.max_iterations = isNewtonTypeSolver(name) ? 400 : 200000;
  s.tolerance = 1e-12;
  StepSolution sol;
  solver->solve(p, s, sol);
  return sol;
}

/// A soft FEM cube (10 cm, 2 x 2 x 2 cells, E 0.1 MPa) on a floor tilted by `slope` (rad) about
/// x, in `pieces` pieces, placed 0.5 mm above it and turned by `tilt` (rad) about x, so that a
/// few of its surface nodes touch first.  Its contacts are all on surface nodes.
inline Model softCubeModel(int pieces, double mu, double slope = 0.0, double tilt = 0.0) {
  Model m;
  m.dt = 0.01;
  Body ground = namedBody("ground", BodyKind::Static);
  ground.initial_pose.orientation = Quat(Eigen::AngleAxisd(slope, Vec3::UnitX()));
  m.addShape(m.addBody(ground), Shape::plane(), Pose(), mu);
  DeformableBody d;
  d.name = "cube";
  d.rest_mesh = boxTetMesh(Vec3(0.1, 0.1, 0.1), 2, 2, 2);
  d.material.young = 1e5;
  d.material.poisson = 0.3;
  d.material.density = 1000.0;
  d.initial_pose.orientation = Quat(Eigen::AngleAxisd(slope + tilt, Vec3::UnitX()));
  d.initial_pose.position = ground.initial_pose.orientation * Vec3(0.0, 0.0, 0.0505);
  d.pieces = pieces;
  d.mu = mu;
  m.addDeformable(d);
  return m;
}

/// Dense J (all rows x all DOF) of a problem.
inline MatX denseJacobian(const StepProblem& p) {
  MatX J = MatX::Zero(p.numRows(), p.numDof());
  for (const Constraint& c : p.constraints)
    for (int q = 0; q < c.num_attachments; ++q) {
      const Attachment& a = p.attachments[c.first_attachment + q];
      J.block(c.row_offset, p.subsystems[a.subsystem].dof_offset, c.rows, a.dof) += p.denseJ(a);
    }
  return J;
}

/// Dense block-diagonal A of a problem.
inline MatX denseA(const StepProblem& p) {
  MatX A = MatX::Zero(p.numDof(), p.numDof());
  for (int i = 0; i < p.numSubsystems(); ++i) {
    const Subsystem& s = p.subsystems[i];
    A.block(s.dof_offset, s.dof_offset, s.dof, s.dof) = p.denseA(i);
  }
  return A;
}

/// CANAL's default penalty mass (AlNewtonOptions::PenaltyRule::EffectiveMass) from dense A and
/// J: the geometric mean over the constraints of 1 / (J_r diag(A)^-1 J_r^T), r a contact's
/// normal row (any other constraint: its rows / the sum over them).
inline double effectiveMassScale(const StepProblem& p) {
  const MatX A = denseA(p), J = denseJacobian(p);
  double log_sum = 0.0;
  int count = 0;
  for (const Constraint& c : p.constraints) {
    const int rows = c.type == ConstraintType::Contact ? 1 : c.rows;
    double inverse_mass = 0.0;
    for (int r = 0; r < rows; ++r)
      for (int k = 0; k < p.numDof(); ++k)
        inverse_mass += J(c.row_offset + r, k) * J(c.row_offset + r, k) / A(k, k);
    if (inverse_mass <= 0.0) continue;
    log_sum += std::log(rows / inverse_mass);
    ++count;
  }
  return std::exp(log_sum / count);
}

/// The reference solution [vhat; lambda] of an equality-only problem: the dense KKT system
/// [A -J^T; J 0] [v; lambda] = [b; -e].
inline VecX denseKktSolution(const StepProblem& p) {
  const MatX A = denseA(p), J = denseJacobian(p);
  const int n = p.numDof(), m = p.numRows();
  MatX K = MatX::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = A;
  K.topRightCorner(n, m) = -J.transpose();
  K.bottomLeftCorner(m, n) = J;
  VecX rhs(n + m);
  rhs.head(n) = Eigen::Map<const VecX>(p.b.data(), n);
  rhs.tail(m) = -Eigen::Map<const VecX>(p.e.data(), m);
  return K.fullPivLu().solve(rhs);
}

/// The solution of an equality-only problem equals the dense KKT solve: vhat to 1e-8 and lambda
/// to 1e-7, each relative to 1 + the reference's largest entry.
inline void expectMatchesDenseKkt(const StepProblem& p, const StepSolution& sol,
                                  const std::string& who) {
  const int n = p.numDof(), m = p.numRows();
  const VecX ref = denseKktSolution(p);
  const double vscale = 1.0 + ref.head(n).cwiseAbs().maxCoeff();
  const double lscale = 1.0 + ref.tail(m).cwiseAbs().maxCoeff();
  EXPECT_LT((sol.vhat - ref.head(n)).cwiseAbs().maxCoeff(), 1e-8 * vscale) << who;
  EXPECT_LT((sol.lambda - ref.tail(m)).cwiseAbs().maxCoeff(), 1e-7 * lscale) << who;
}

}  // namespace subsim::test
