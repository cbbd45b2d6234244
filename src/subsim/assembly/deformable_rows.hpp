#pragma once
// A deformable piece's subsystem block and the constraints that hold a deformable body together
// and to other bodies (model/deformable_body.hpp has the step's equations).
//
// Interfaces: the copies a and b of a node shared by two pieces, bilateral x_a - x_b = 0 with
// e = (x_a - x_b) / h, like a joint.  Attachments: a node welded to a point of a body (or the
// world), bilateral x_node - p = 0 with e = (x_node - p) / h.
#include <span>
#include <vector>

#include "subsim/assembly/body_rows.hpp"
#include "subsim/fem/corotational_fem.hpp"
#include "subsim/geometry/deformable_contact.hpp"

namespace subsim {

/// Up to 3 rows on a node's velocity.
using NodeRows = Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor, 3, 3>;

/// A piece's A_i pattern: the stiffness matrix's (FemWorkspace::stiffness, both triangles) with
/// every diagonal entry (a node no tet uses has none in K), and where K's entries and the
/// diagonal sit in it.
struct FemBlockPattern {
  std::vector<int> column_begin, row;
  std::vector<int> k_entry;   // per entry of K: its index in the pattern
  std::vector<int> diagonal;  // per DOF: the index of its diagonal entry
};

/// Per-step scratch of the deformable pieces (all deformables' pieces in order).
struct DeformableAssembly {
  std::vector<FemWorkspace> work;
  std::vector<FemBlockPattern> pattern;  // per piece, fixed for the model
  std::vector<VecX> force;               // per piece: the elastic forces f_el(x_k)
  void prepare(const Model& model);
};

/// Appends piece `piece` (global index) of deformable `d` to `problem` as a subsystem whose A_i
/// and M_i are stored sparse (A_i couples a node only with the nodes of its tets); returns it.
int addDeformablePieceBlock(const Model& model, int d, int piece, const State& state, double h,
                            DeformableAssembly& work, StepProblem& problem);
/// The interface and attachment constraints of deformable `d`.
void addDeformableConstraints(const AssemblyContext& ctx, int d, StepProblem& problem);

/// A node copy in a constraint: `node` of piece `piece` (a global piece index), its rows weighted.
struct NodeTerm {
  int piece = 0;
  int node = 0;
  double weight = 1.0;
};

/// Adds weight * G (rows x 3, on a node's velocity) for each of up to 4 node copies to the last
/// added constraint, one sparse J block (StepProblem's Attachment) per piece they are on, which
/// the constraint must not have yet.
void addNodeRows(StepProblem& problem, const AssemblyContext& ctx, std::span<const NodeTerm> terms,
                 const NodeRows& G);

/// A contact between deformable `deformable`'s surface (nodes are body nodes) and rigid shape
/// `shape`, or (shape = -1) node `node` of deformable `node_deformable`, which is `deformable`
/// itself in a self contact (geometry/deformable_contact.hpp: the normal points from the shape or
/// the node to the surface).
struct DeformableShapeContact {
  int deformable = 0;
  int shape = 0;
  DeformableContact geometry;
  int constraint = -1;  // filled by the assembler
  int node_deformable = -1;
  int node = -1;

  bool againstNode() const { return shape < 0; }
};

/// A contact constraint [n, t1, t2] on the velocity of the deformable point (the weighted nodes,
/// each through its home copy) relative to the shape's body or the other node; friction the
/// geometric mean of the two mu.  Returns the constraint index.
int addDeformableContactConstraint(const AssemblyContext& ctx, const DeformableShapeContact& c,
                                   StepProblem& problem);

std::uint64_t femInterfaceKey(int deformable, int interface);
std::uint64_t femContactKey(int deformable, int shape, std::uint32_t feature);
std::uint64_t femNodeContactKey(int deformable, int node_deformable, int node,
                                std::uint32_t feature);
std::uint64_t femAttachmentKey(int deformable, int attachment);

}  // namespace subsim
