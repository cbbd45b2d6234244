// Corotational linear FEM (corotational_fem.hpp).
#include "subsim/fem/corotational_fem.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace subsim {

namespace {

void requireField(bool ok, const char* field, const char* expected) {
  if (!ok)
    throw std::invalid_argument(std::string("FemMaterial: ") + field + " must be " + expected);
}

Mat3 edgeMatrix(const VecX& x, const std::array<int, 4>& tet) {
  Mat3 D;
  const Vec3 x0 = x.segment<3>(3 * tet[0]);
  for (int c = 0; c < 3; ++c) D.col(c) = x.segment<3>(3 * tet[c + 1]) - x0;
  return D;
}

// Isotropic linear elasticity on a linear tet with constant shape-function gradients g_a:
// psi = V (mu eps:eps + lambda/2 tr(eps)^2), eps = sym(grad u), u = sum_a u_a N_a, so
//   K0_ab = V (lambda g_a g_b^T + mu g_b g_a^T + mu (g_a . g_b) I).
// With X = X0 + Dm xi, N_a = xi_a (a = 1..3): g_a = row a-1 of Dm^-1; g_0 = -(g_1 + g_2 + g_3).
Mat12 isotropicTetStiffness(const Mat3& dm_inv, double volume, double mu, double lambda) {
  std::array<Vec3, 4> g;
  for (int a = 1; a < 4; ++a) g[a] = dm_inv.row(a - 1).transpose();
  g[0] = -(g[1] + g[2] + g[3]);
  Mat12 K;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      K.block<3, 3>(3 * a, 3 * b) =
          volume * (lambda * g[a] * g[b].transpose() + mu * g[b] * g[a].transpose() +
                    mu * g[a].dot(g[b]) * Mat3::Identity());
  return K;
}

// u_e = R^T x_e - X_e: the element's displacement in its rotated (unrotated-back) frame.
Vec12 localDisplacement(const VecX& x, const VecX& rest, const std::array<int, 4>& tet,
                        const Mat3& R) {
  Vec12 u;
  for (int a = 0; a < 4; ++a)
    u.segment<3>(3 * a) = R.transpose() * x.segment<3>(3 * tet[a]) - rest.segment<3>(3 * tet[a]);
  return u;
}

}  // namespace

void validateFemMaterial(const FemMaterial& m) {
  requireField(std::isfinite(m.young) && m.young > 0.0, "young", "positive");
  requireField(std::isfinite(m.poisson) && m.poisson >= 0.0 && m.poisson < 0.5, "poisson",
               "in [0, 0.5)");
  requireField(std::isfinite(m.density) && m.density > 0.0, "density", "positive");
  requireField(std::isfinite(m.rayleigh_mass) && m.rayleigh_mass >= 0.0, "rayleigh_mass",
               "non-negative");
  requireField(std::isfinite(m.rayleigh_stiffness) && m.rayleigh_stiffness >= 0.0,
               "rayleigh_stiffness", "non-negative");
}

CorotationalFemModel::CorotationalFemModel(const TetMesh& mesh, const FemMaterial& material)
    : material_(material), tets_(mesh.tets) {
  validateFemMaterial(material);
  if (mesh.nodes.empty() || mesh.tets.empty())
    throw std::invalid_argument("CorotationalFemModel: mesh has no nodes or no tets");
  const double E = material.young, nu = material.poisson;
  mu_ = E / (2.0 * (1.0 + nu));
  lambda_ = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));

  const int n = mesh.numNodes();
  rest_.resize(3 * n);
  for (int i = 0; i < n; ++i) rest_.segment<3>(3 * i) = mesh.nodes[i];
  mass_ = VecX::Zero(3 * n);
  volume_.resize(tets_.size());
  dm_inv_.resize(tets_.size());
  k0_.resize(tets_.size());
  for (int t = 0; t < numTets(); ++t) {
    for (int v : tets_[t])
      if (v < 0 || v >= n)
        throw std::invalid_argument("CorotationalFemModel: tets[" + std::to_string(t) +
                                    "]: node index out of range");
    const Mat3 Dm = edgeMatrix(rest_, tets_[t]);
    volume_[t] = Dm.determinant() / 6.0;
    if (!(volume_[t] > 0.0))
      throw std::invalid_argument("CorotationalFemModel: tets[" + std::to_string(t) +
                                  "]: rest volume not positive");
    dm_inv_[t] = Dm.inverse();
    k0_[t] = isotropicTetStiffness(dm_inv_[t], volume_[t], mu_, lambda_);
    const double node_mass = 0.25 * material.density * volume_[t];
    for (int v : tets_[t]) mass_.segment<3>(3 * v).array() += node_mass;
  }
}

double CorotationalFemModel::totalVolume() const {
  return std::accumulate(volume_.begin(), volume_.end(), 0.0);
}

FemWorkspace CorotationalFemModel::makeWorkspace() const {
  FemWorkspace ws;
  ws.rotations.assign(tets_.size(), Mat3::Identity());
  // Pattern: a full 3x3 block for every pair of nodes sharing a tet.
  std::vector<Eigen::Triplet<double, int>> entries;
  entries.reserve(tets_.size() * 144);
  for (const auto& tet : tets_)
    for (int a : tet)
      for (int b : tet)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) entries.emplace_back(3 * a + i, 3 * b + j, 1.0);
  ws.stiffness.resize(numDof(), numDof());
  ws.stiffness.setFromTriplets(entries.begin(), entries.end());
  ws.stiffness.makeCompressed();

  const int* outer = ws.stiffness.outerIndexPtr();
  const int* inner = ws.stiffness.innerIndexPtr();
  ws.block_value_index.resize(tets_.size());
  for (int t = 0; t < numTets(); ++t)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 3; ++c) {
          const int col = 3 * tets_[t][b] + c;
          // Row indices are sorted within a column (compressed storage).
          const int* pos =
              std::lower_bound(inner + outer[col], inner + outer[col + 1], 3 * tets_[t][a]);
          ws.block_value_index[t][12 * a + 3 * b + c] = static_cast<int>(pos - inner);
        }
  assembleStiffness(ws);
  return ws;
}

void CorotationalFemModel::updateRotations(const VecX& x, FemWorkspace& ws) const {
  for (int t = 0; t < numTets(); ++t) {
    const Mat3 F = edgeMatrix(x, tets_[t]) * dm_inv_[t];
    // Polar decomposition F = R S through the SVD: robust for nearly degenerate F, where
    // iterative polar schemes lose accuracy, and it exposes the reflection when det F <= 0.
    const Eigen::JacobiSVD<Mat3> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
    Mat3 U = svd.matrixU();
    const Mat3& V = svd.matrixV();
    if ((U * V.transpose()).determinant() < 0.0) U.col(2) = -U.col(2);
    ws.rotations[t] = U * V.transpose();
  }
}

double CorotationalFemModel::elasticEnergy(const VecX& x, const FemWorkspace& ws) const {
  double energy = 0.0;
  for (int t = 0; t < numTets(); ++t) {
    const Vec12 u = localDisplacement(x, rest_, tets_[t], ws.rotations[t]);
    energy += 0.5 * u.dot(k0_[t] * u);
  }
  return energy;
}

void CorotationalFemModel::addElasticForces(const VecX& x, const FemWorkspace& ws, VecX& f) const {
  for (int t = 0; t < numTets(); ++t) {
    const Mat3& R = ws.rotations[t];
    // The linear stress of the unrotated displacement, rotated back to the world frame.
    const Vec12 g = k0_[t] * localDisplacement(x, rest_, tets_[t], R);
    for (int a = 0; a < 4; ++a) f.segment<3>(3 * tets_[t][a]) -= R * g.segment<3>(3 * a);
  }
}

Mat12 CorotationalFemModel::rotatedStiffness(int t, const Mat3& R) const {
  Mat12 K;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      K.block<3, 3>(3 * a, 3 * b) = R * k0_[t].block<3, 3>(3 * a, 3 * b) * R.transpose();
  return K;
}

void CorotationalFemModel::assembleStiffness(FemWorkspace& ws) const {
  double* values = ws.stiffness.valuePtr();
  std::fill(values, values + ws.stiffness.nonZeros(), 0.0);
  for (int t = 0; t < numTets(); ++t) {
    const Mat12 K = rotatedStiffness(t, ws.rotations[t]);
    const auto& index = ws.block_value_index[t];
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        for (int c = 0; c < 3; ++c) {
          double* column = values + index[12 * a + 3 * b + c];
          for (int r = 0; r < 3; ++r) column[r] += K(3 * a + r, 3 * b + c);
        }
  }
}

}  // namespace subsim
