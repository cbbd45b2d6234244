#pragma once
// Corotational linear FEM on 4-node tets (Mueller & Gross 2004, "Interactive Virtual Materials":
// stiffness warping with a per-element rotation from the polar decomposition).
//
// A deformable body is a subsystem whose potential psi enters the SPD matrix A_i through a
// Gauss-Newton Hessian (cond-digest section 1): with the element rotations R_e held fixed,
//   psi(x)   = 1/2 sum_e (R_e^T x_e - X_e)^T K0_e (R_e^T x_e - X_e)          (energy)
//   f(x)     = -dpsi/dx = -sum_e R_e K0_e (R_e^T x_e - X_e)                   (elastic force)
//   K(x)     = sum_e R_e K0_e R_e^T                                           (symmetric PSD)
// where x_e, X_e are the element's 4 current / rest node positions (12-vectors), K0_e its
// 12x12 linear-elastic rest stiffness and R_e stands for blockdiag(R_e, R_e, R_e, R_e).
// K omits the derivative of R_e (the indefinite "geometric" part), which keeps it PSD.
//
// Split into an immutable CorotationalFemModel (part of the Model: rest shape, material,
// per-tet precomputation) and a FemWorkspace holding everything that depends on the current
// configuration, allocated once so that repeated evaluations do not allocate.
#include <array>
#include <vector>

#include <Eigen/SparseCore>

#include "subsim/fem/tet_mesh.hpp"
#include "subsim/math/types.hpp"

namespace subsim {

using Mat12 = Eigen::Matrix<double, 12, 12>;
using Vec12 = Eigen::Matrix<double, 12, 1>;

/// Isotropic linear-elastic material in SI units.  Rayleigh damping C = rayleigh_mass * M +
/// rayleigh_stiffness * K is stored for the integrator; the model itself applies no damping.
struct FemMaterial {
  double young = 0;               ///< Young's modulus E (Pa), > 0
  double poisson = 0;             ///< Poisson's ratio nu, 0 <= nu < 0.5
  double density = 0;             ///< kg/m^3, > 0
  double rayleigh_mass = 0;       ///< alpha (1/s), >= 0
  double rayleigh_stiffness = 0;  ///< beta (s), >= 0
};

/// Throws std::invalid_argument naming the first invalid field of `m`.
void validateFemMaterial(const FemMaterial& m);

/// Per-configuration state of one CorotationalFemModel (create with model.makeWorkspace()).
struct FemWorkspace {
  /// R_e of each tet for the configuration last passed to updateRotations().
  std::vector<Mat3> rotations;
  /// K(x) (3N x 3N, both triangles stored); pattern fixed at creation, values set by
  /// assembleStiffness().
  Eigen::SparseMatrix<double, Eigen::ColMajor, int> stiffness;
  /// For tet t, block (a, b) and column c of the block: the index in stiffness.valuePtr() of
  /// entry (3 n_a, 3 n_b + c); the block's 3 rows follow contiguously.  Entry 12 a + 3 b + c.
  std::vector<std::array<int, 48>> block_value_index;
};

class CorotationalFemModel {
 public:
  /// Precomputes the rest data of every tet.  Throws std::invalid_argument for an invalid
  /// material, an empty mesh, node indices out of range or a tet whose rest volume is not
  /// positive (the tet_mesh.hpp orientation convention).  Other mesh defects are left to
  /// checkTetMesh(): a node no tet uses gets zero mass and an empty row of K.
  CorotationalFemModel(const TetMesh& mesh, const FemMaterial& material);

  int numNodes() const { return static_cast<int>(rest_.size() / 3); }
  int numTets() const { return static_cast<int>(tets_.size()); }
  int numDof() const { return static_cast<int>(rest_.size()); }
  const FemMaterial& material() const { return material_; }
  /// Lame parameters: mu = E / (2 (1 + nu)), lambda = E nu / ((1 + nu)(1 - 2 nu)).
  double lameMu() const { return mu_; }
  double lameLambda() const { return lambda_; }
  const std::vector<std::array<int, 4>>& tets() const { return tets_; }
  /// Rest node positions X (3N, node n at 3n .. 3n+2).
  const VecX& restPositions() const { return rest_; }
  /// Lumped (diagonal) mass, 3N: each tet's mass density * V_e split equally over its 4 nodes,
  /// repeated on the node's 3 DOF.  Row sums of the consistent mass matrix give the same split
  /// for linear tets, and a diagonal M keeps A_i cheap to build and to invert.
  const VecX& lumpedMass() const { return mass_; }
  double restVolume(int t) const { return volume_[t]; }
  double totalVolume() const;
  /// Dm^-1, Dm = [X1 - X0, X2 - X0, X3 - X0].
  const Mat3& restShapeInverse(int t) const { return dm_inv_[t]; }
  /// K0_e, DOF order (node 0 xyz, node 1 xyz, ...).
  const Mat12& restStiffness(int t) const { return k0_[t]; }

  /// A workspace with the rotations set to identity (the rest state) and K's sparsity pattern.
  FemWorkspace makeWorkspace() const;

  /// R_e = polar rotation of F_e = Ds Dm^-1 for node positions `x` (3N).  Inverted or
  /// degenerate elements (det F <= 0) get R = U diag(1, 1, -1) V^T from the SVD F = U S V^T
  /// (singular values descending): the rotation closest to F once the direction of the smallest
  /// singular value is reflected, so the elastic force pushes the element back towards positive
  /// orientation instead of flipping R to a reflection (Irving et al. 2004, "Invertible FEM").
  void updateRotations(const VecX& x, FemWorkspace& ws) const;

  /// psi(x) with ws.rotations held fixed.
  double elasticEnergy(const VecX& x, const FemWorkspace& ws) const;
  /// f += -dpsi/dx with ws.rotations held fixed.  sum f = 0 for any x (K0 annihilates
  /// translations) and f = 0 for a rigid motion of the rest shape.
  void addElasticForces(const VecX& x, const FemWorkspace& ws, VecX& f) const;
  /// ws.stiffness = sum_e R_e K0_e R_e^T for ws.rotations; no allocation.
  void assembleStiffness(FemWorkspace& ws) const;

 private:
  Mat12 rotatedStiffness(int t, const Mat3& R) const;

  FemMaterial material_;
  double mu_ = 0;
  double lambda_ = 0;
  std::vector<std::array<int, 4>> tets_;
  VecX rest_;
  VecX mass_;
  DoubleBuffer volume_;
  std::vector<Mat3> dm_inv_;
  std::vector<Mat12> k0_;
};

}  // namespace subsim
