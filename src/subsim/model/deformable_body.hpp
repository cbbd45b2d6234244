#pragma once
// A deformable body: a corotational linear FEM solid (fem/corotational_fem.hpp) cut into pieces,
// each a subsystem of 3 DOF per node (ICRA SubADMM paper: "a deformable body is cut into pieces
// joined by hard constraints"; the beam scene uses 20).
//
// Splitting: the tets are ordered by their rest centroid along the mesh's longest axis and cut
// into `pieces` runs of equal tet count.  Every piece keeps its own copy of the nodes its tets
// use, with the mass and stiffness of its own tets only, so the pieces' energies and masses add
// up to the whole body's exactly; a node shared by several pieces is duplicated and its copies
// are joined by bilateral point constraints (FemInterface).  The solution therefore does not
// depend on the number of pieces beyond solver tolerance.
//
// The step (AL paper eq. 2 with g = 1 / (1 - theta), rotations R_e at x_k held fixed):
//   A = g M + h^2 K(x_k) + h g (alpha M + beta K),
//   b = g M v_k + h (f_el(x_k) + M gravity) + h g theta (alpha M + beta K) v_k,
// from M (v_{k+1} - v_k) = h (f_el(x_{k+1}) + M gravity - C v_{k+1}) + J^T lambda with
// f_el(x_{k+1}) ~ f_el(x_k) - K h vhat and C = alpha M + beta K (Rayleigh): the energy's SPD
// Gauss-Newton Hessian enters A_i (COND paper section 1), so stiff materials stay stable.
// Nodes move by x_{k+1} = x_k + h vhat.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "subsim/fem/corotational_fem.hpp"
#include "subsim/fem/tet_mesh.hpp"
#include "subsim/math/pose.hpp"

namespace subsim {

/// A piece: the FEM model of its tets and the body node of each of its nodes.
struct FemPiece {
  CorotationalFemModel fem;
  std::vector<int> body_node;
};

/// The copies of one body node in two pieces, held together by a bilateral point constraint.
struct FemInterface {
  int piece_a = 0, node_a = 0;
  int piece_b = 0, node_b = 0;
};

/// A body node welded to a point of a rigid body, a robot link or the world (body -1): a
/// bilateral point constraint (how a gripper holds a beam, or a cantilever is clamped).
struct FemNodeAttachment {
  int node = 0;
  int body = -1;
  Vec3 local_point = Vec3::Zero();  // in the body's centre-of-mass frame; world when body = -1
};

struct DeformableBody {
  std::string name;
  TetMesh rest_mesh;  // in the body frame
  FemMaterial material;
  Pose initial_pose;  // places the rest mesh at t = 0
  Vec3 initial_velocity = Vec3::Zero();
  int pieces = 1;
  double mu = 0.5;  // friction (the pair's is the geometric mean with the other side's)
  std::uint32_t group = 1;
  std::uint32_t mask = 0xffffffffu;
  /// Self contact (a folding mat touches itself): the surface's nodes collide with its own faces,
  /// except those with a corner within self_contact_exclusion of the node at rest (m; 0: 1.5
  /// times the longest surface edge, selfContactExclusion()).
  bool self_contact = false;
  double self_contact_exclusion = 0.0;
  std::vector<FemNodeAttachment> attachments;

  // Filled by Model::addDeformable.
  std::vector<FemPiece> piece;
  std::vector<FemInterface> interfaces;
  /// The copies of every node that several pieces hold, grouped by node: group g is
  /// shared_copies[shared_begin[g] .. shared_begin[g + 1]), {piece, node} each, the home first.
  std::vector<std::array<int, 2>> shared_copies;
  std::vector<int> shared_begin;
  std::vector<std::array<int, 3>> surface;  // outward boundary triangles, body nodes
  /// Per body node, the copy that stands for it in contacts and attachments: {piece, node}.
  std::vector<std::array<int, 2>> node_home;
  int first_piece = 0;  // index of piece 0 among all deformables' pieces (State::fem_x)

  int numPieces() const { return static_cast<int>(piece.size()); }
};

/// The body's pieces: tets cut into `pieces` runs along the longest axis (see above).  Throws
/// std::invalid_argument when pieces is not in [1, number of tets].
void splitDeformable(DeformableBody& body);

/// The rest distance within which a node does not collide with its own surface (self contact).
double selfContactExclusion(const DeformableBody& body);

/// Node positions of every piece at the rest mesh placed at `pose` (3 per node).
std::vector<VecX> placedPieces(const DeformableBody& body, const Pose& pose);

/// One node, one state: sets every copy of a shared node to the copies' mean position and
/// velocity weighted by their lumped masses (the pieces' own tets' shares of the node's mass).
/// fem_x and fem_v hold all deformables' pieces (State::fem_x, from body.first_piece on).
///
/// Why: a solver stopped after a fixed number of iterations leaves the copies apart by its
/// interface residual, and the next step's bilateral rows (e = error / h) then push them back
/// together, an impulse no physics asked for.  With SubADMM at tens of iterations on the
/// 20-piece beam those pushes grew from step to step until the run diverged (step 14 at 60
/// iterations).  The mean keeps the node's momentum and takes out only the kinetic energy of
/// the copies' relative motion (a perfectly inelastic merge); when the copies already agree,
/// as a converged solve leaves them, it changes nothing.  docs/deformables.md has the figures.
void unifyNodeCopies(const DeformableBody& body, std::vector<VecX>& fem_x,
                     std::vector<VecX>& fem_v);

}  // namespace subsim
