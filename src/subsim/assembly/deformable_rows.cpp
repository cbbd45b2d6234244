#include "subsim/assembly/deformable_rows.hpp"

#include <cmath>

#include "subsim/assembly/assembler.hpp"
#include "subsim/assembly/constraint_rows.hpp"
#include "subsim/math/so3.hpp"
#include "subsim/model/integrator.hpp"

namespace subsim {

std::uint64_t femInterfaceKey(int deformable, int interface) {
  return structuralKey(0xd000000000000000ull + (static_cast<std::uint64_t>(deformable) << 32) +
                       static_cast<std::uint64_t>(interface));
}
std::uint64_t femAttachmentKey(int deformable, int attachment) {
  return structuralKey(0xe000000000000000ull + (static_cast<std::uint64_t>(deformable) << 32) +
                       static_cast<std::uint64_t>(attachment));
}

std::uint64_t femContactKey(int deformable, int shape, std::uint32_t feature) {
  return structuralKey(0x9000000000000000ull + (static_cast<std::uint64_t>(deformable) << 48) +
                       (static_cast<std::uint64_t>(shape) << 32) + feature);
}

namespace {
FemBlockPattern femBlockPattern(const SparseColumnMatrix& K) {
  FemBlockPattern pattern;
  const int n = static_cast<int>(K.cols());
  const int* outer = K.outerIndexPtr();
  const int* inner = K.innerIndexPtr();
  pattern.column_begin.assign(1, 0);
  pattern.k_entry.resize(K.nonZeros());
  pattern.diagonal.resize(n);
  for (int c = 0; c < n; ++c) {
    bool diagonal = false;
    for (int e = outer[c]; e < outer[c + 1]; ++e) {
      if (!diagonal && inner[e] > c) {  // rows increase: the diagonal goes before this one
        pattern.diagonal[c] = static_cast<int>(pattern.row.size());
        pattern.row.push_back(c);
        diagonal = true;
      }
      if (inner[e] == c) {
        pattern.diagonal[c] = static_cast<int>(pattern.row.size());
        diagonal = true;
      }
      pattern.k_entry[e] = static_cast<int>(pattern.row.size());
      pattern.row.push_back(inner[e]);
    }
    if (!diagonal) {
      pattern.diagonal[c] = static_cast<int>(pattern.row.size());
      pattern.row.push_back(c);
    }
    pattern.column_begin.push_back(static_cast<int>(pattern.row.size()));
  }
  return pattern;
}
}  // namespace

void DeformableAssembly::prepare(const Model& model) {
  const int n = model.numDeformablePieces();
  if (static_cast<int>(work.size()) == n) return;
  work.clear();
  pattern.clear();
  force.assign(n, VecX());
  for (const DeformableBody& d : model.deformables)
    for (const FemPiece& p : d.piece) {
      work.push_back(p.fem.makeWorkspace());
      pattern.push_back(femBlockPattern(work.back().stiffness));
    }
}

int addDeformablePieceBlock(const Model& model, int d, int piece, const State& state, double h,
                            DeformableAssembly& work, StepProblem& problem) {
  const DeformableBody& body = model.deformables[d];
  const CorotationalFemModel& fem = body.piece[piece - body.first_piece].fem;
  const VecX& x = state.fem_x[piece];
  const VecX& v = state.fem_v[piece];
  FemWorkspace& ws = work.work[piece];
  VecX& f = work.force[piece];
  fem.updateRotations(x, ws);
  f.setZero(fem.numDof());
  fem.addElasticForces(x, ws, f);
  fem.assembleStiffness(ws);
  const double g = thetaFactor(model.theta);
  const double alpha = body.material.rayleigh_mass, beta = body.material.rayleigh_stiffness;
  const VecX& m = fem.lumpedMass();
  const FemBlockPattern& pattern = work.pattern[piece];
  const int subsystem = problem.addSparseSubsystem(fem.numDof(), pattern.column_begin, pattern.row);

  // deformable_body.hpp: A = g M + h^2 K + h g (alpha M + beta K), b = g M v + h (f_el + M
  // gravity) + h g theta (alpha M + beta K) v.
  double* A = problem.sparseA(subsystem).valuePtr();
  double* M = problem.sparseM(subsystem).valuePtr();
  const double* K = ws.stiffness.valuePtr();
  const double k_scale = h * h + h * g * beta;
  for (int e = 0; e < static_cast<int>(pattern.k_entry.size()); ++e)
    A[pattern.k_entry[e]] = k_scale * K[e];
  for (int k = 0; k < fem.numDof(); ++k) {
    A[pattern.diagonal[k]] += (g + h * g * alpha) * m[k];
    M[pattern.diagonal[k]] = m[k];
  }
  problem.velocityBlock(subsystem) = v;
  auto b = problem.bBlock(subsystem);
  b = (g + h * g * model.theta * alpha) * m.cwiseProduct(v) + h * f;
  for (int k = 0; k < fem.numNodes(); ++k) b.segment<3>(3 * k) += h * m[3 * k] * model.gravity;
  if (beta > 0.0) b += (h * g * model.theta * beta) * (ws.stiffness * v);
  return subsystem;
}

void addNodeRows(StepProblem& problem, const AssemblyContext& ctx, int piece, int node,
                 const NodeRows& G, double sign) {
  auto J = problem.jacobianFor(ctx.partition.piece_subsystem[piece]);
  J.block(0, 3 * node, G.rows(), 3) += sign * G;
}

void addDeformableConstraints(const AssemblyContext& ctx, int d, StepProblem& problem) {
  const DeformableBody& body = ctx.model.deformables[d];
  const NodeRows I = NodeRows::Identity(3, 3);
  const Vec3 axes[3] = {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()};
  for (int k = 0; k < static_cast<int>(body.interfaces.size()); ++k) {
    const FemInterface& c = body.interfaces[k];
    const int pa = body.first_piece + c.piece_a, pb = body.first_piece + c.piece_b;
    const int j = problem.addConstraint(ConstraintType::Bilateral, 3, 0.0, femInterfaceKey(d, k));
    addNodeRows(problem, ctx, pa, c.node_a, I, 1.0);
    addNodeRows(problem, ctx, pb, c.node_b, I, -1.0);
    const Vec3 error =
        ctx.state.fem_x[pa].segment<3>(3 * c.node_a) - ctx.state.fem_x[pb].segment<3>(3 * c.node_b);
    Eigen::Map<Vec3>(problem.error.data() + problem.constraints[j].row_offset) = error;
  }
  for (int k = 0; k < static_cast<int>(body.attachments.size()); ++k) {
    const FemNodeAttachment& a = body.attachments[k];
    const auto [local_piece, node] = body.node_home[a.node];
    const int piece = body.first_piece + local_piece;
    const int j = problem.addConstraint(ConstraintType::Bilateral, 3, 0.0, femAttachmentKey(d, k));
    addNodeRows(problem, ctx, piece, node, I, 1.0);
    Vec3 target = a.local_point;
    if (a.body >= 0) {
      const Pose& pose = ctx.state.pose[a.body];
      target = pose.transformPoint(a.local_point);
      addBodyRows(problem, ctx, a.body, pointVelocityRows(target - pose.position, axes, 3), -1.0);
    }
    const Vec3 error = ctx.state.fem_x[piece].segment<3>(3 * node) - target;
    Eigen::Map<Vec3>(problem.error.data() + problem.constraints[j].row_offset) = error;
  }
}

int addDeformableContactConstraint(const AssemblyContext& ctx, const DeformableShapeContact& c,
                                   StepProblem& problem) {
  const DeformableBody& body = ctx.model.deformables[c.deformable];
  const BodyShape& shape = ctx.model.shapes[c.shape];
  const double mu = std::sqrt(body.mu * shape.mu);
  const int j = problem.addConstraint(ConstraintType::Contact, 3, mu,
                                      femContactKey(c.deformable, c.shape, c.geometry.feature));
  Vec3 dirs[3];
  dirs[0] = c.geometry.normal;
  tangentBasis(dirs[0], dirs[1], dirs[2]);
  problem.constraints[j].mu_t2 = grainFrame(ctx, c.shape, body.mu, dirs);
  NodeRows D(3, 3);
  for (int k = 0; k < 3; ++k) D.row(k) = dirs[k].transpose();
  for (int k = 0; k < 3; ++k) {
    const int node = c.geometry.nodes[k];
    const double w = c.geometry.weights[k];
    if (node < 0 || w == 0.0) continue;
    const auto [piece, local] = body.node_home[node];
    addNodeRows(problem, ctx, body.first_piece + piece, local, D, w);
  }
  // The rigid surface point: point - gap / 2 n (deformable_contact.hpp).
  const Vec3 p_rigid = c.geometry.point - 0.5 * c.geometry.gap * c.geometry.normal;
  const Pose& pose = ctx.state.pose[shape.body];
  addBodyRows(problem, ctx, shape.body, pointVelocityRows(p_rigid - pose.position, dirs, 3), -1.0);
  setContactRows(problem, c.geometry.point, dirs[0], c.geometry.gap);
  return j;
}

}  // namespace subsim
