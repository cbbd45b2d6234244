#include "subsim/assembly/deformable_rows.hpp"

#include <algorithm>
#include <array>
#include <cassert>
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
std::uint64_t femNodeContactKey(int deformable, int node_deformable, int node,
                                std::uint32_t feature) {
  // Mixed twice: the four indices do not fit beside a prefix (a collision costs warm start only).
  const std::uint64_t bodies =
      (static_cast<std::uint64_t>(deformable) << 32) + static_cast<std::uint64_t>(node_deformable);
  return structuralKey(structuralKey(0x8000000000000000ull + bodies) ^
                       ((static_cast<std::uint64_t>(node) << 32) + feature));
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

void addNodeRows(StepProblem& problem, const AssemblyContext& ctx, std::span<const NodeTerm> terms,
                 const NodeRows& G) {
  assert(terms.size() <= 4);
  bool done[4] = {false, false, false, false};
  for (size_t first = 0; first < terms.size(); ++first) {
    if (done[first]) continue;
    // The terms on this piece, by node (a node named twice gets one column triple).
    const int piece = terms[first].piece;
    std::array<int, 4> nodes{};
    int count = 0;
    for (size_t k = first; k < terms.size(); ++k) {
      if (terms[k].piece != piece) continue;
      done[k] = true;
      if (std::find(nodes.begin(), nodes.begin() + count, terms[k].node) == nodes.begin() + count)
        nodes[count++] = terms[k].node;
    }
    for (int i = 1; i < count; ++i)  // insertion sort of up to 4
      for (int k = i; k > 0 && nodes[k - 1] > nodes[k]; --k) std::swap(nodes[k - 1], nodes[k]);
    std::array<int, 12> columns{};
    for (int n = 0; n < count; ++n)
      for (int c = 0; c < 3; ++c) columns[3 * n + c] = 3 * nodes[n] + c;
    auto J = problem.sparseJacobianFor(ctx.partition.piece_subsystem[piece],
                                       std::span<const int>(columns.data(), 3 * count));
    for (size_t k = first; k < terms.size(); ++k) {
      if (terms[k].piece != piece) continue;
      const int n = static_cast<int>(
          std::find(nodes.begin(), nodes.begin() + count, terms[k].node) - nodes.begin());
      J.block(0, 3 * n, G.rows(), 3) += terms[k].weight * G;
    }
  }
}

void addDeformableConstraints(const AssemblyContext& ctx, int d, StepProblem& problem) {
  const DeformableBody& body = ctx.model.deformables[d];
  const NodeRows I = NodeRows::Identity(3, 3);
  const Vec3 axes[3] = {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()};
  for (int k = 0; k < static_cast<int>(body.interfaces.size()); ++k) {
    const FemInterface& c = body.interfaces[k];
    const int pa = body.first_piece + c.piece_a, pb = body.first_piece + c.piece_b;
    const int j = problem.addConstraint(ConstraintType::Bilateral, 3, 0.0, femInterfaceKey(d, k));
    const NodeTerm terms[2] = {{pa, c.node_a, 1.0}, {pb, c.node_b, -1.0}};
    addNodeRows(problem, ctx, terms, I);
    const Vec3 error =
        ctx.state.fem_x[pa].segment<3>(3 * c.node_a) - ctx.state.fem_x[pb].segment<3>(3 * c.node_b);
    Eigen::Map<Vec3>(problem.error.data() + problem.constraints[j].row_offset) = error;
  }
  for (int k = 0; k < static_cast<int>(body.attachments.size()); ++k) {
    const FemNodeAttachment& a = body.attachments[k];
    const auto [local_piece, node] = body.node_home[a.node];
    const int piece = body.first_piece + local_piece;
    const int j = problem.addConstraint(ConstraintType::Bilateral, 3, 0.0, femAttachmentKey(d, k));
    const NodeTerm term{piece, node, 1.0};
    addNodeRows(problem, ctx, std::span<const NodeTerm>(&term, 1), I);
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
  const Model& model = ctx.model;
  const DeformableBody& body = model.deformables[c.deformable];
  const DeformableBody* other = c.againstNode() ? &model.deformables[c.node_deformable] : nullptr;
  const double other_mu = other ? other->mu : model.shapes[c.shape].mu;
  const std::uint64_t key =
      other ? femNodeContactKey(c.deformable, c.node_deformable, c.node, c.geometry.feature)
            : femContactKey(c.deformable, c.shape, c.geometry.feature);
  const int j =
      problem.addConstraint(ConstraintType::Contact, 3, std::sqrt(body.mu * other_mu), key);
  Vec3 dirs[3];
  dirs[0] = c.geometry.normal;
  tangentBasis(dirs[0], dirs[1], dirs[2]);
  if (!other) problem.constraints[j].mu_t2 = grainFrame(ctx, c.shape, body.mu, dirs);
  NodeRows D(3, 3);
  for (int k = 0; k < 3; ++k) D.row(k) = dirs[k].transpose();
  // The surface point's nodes, and the other deformable's node against them.
  NodeTerm terms[4];
  int count = 0;
  for (int k = 0; k < 3; ++k) {
    const int node = c.geometry.nodes[k];
    const double w = c.geometry.weights[k];
    if (node < 0 || w == 0.0) continue;
    const auto [piece, local] = body.node_home[node];
    terms[count++] = {body.first_piece + piece, local, w};
  }
  if (other) {
    const auto [piece, local] = other->node_home[c.node];
    terms[count++] = {other->first_piece + piece, local, -1.0};
  }
  addNodeRows(problem, ctx, std::span<const NodeTerm>(terms, count), D);
  if (!other) {
    // The rigid surface point: point - gap / 2 n (deformable_contact.hpp).
    const int rigid = model.shapes[c.shape].body;
    const Vec3 p_rigid = c.geometry.point - 0.5 * c.geometry.gap * c.geometry.normal;
    const Pose& pose = ctx.state.pose[rigid];
    addBodyRows(problem, ctx, rigid, pointVelocityRows(p_rigid - pose.position, dirs, 3), -1.0);
  }
  setContactRows(problem, c.geometry.point, dirs[0], c.geometry.gap);
  return j;
}

}  // namespace subsim
