// CorotationalFemModel: invariants of the element model and static physics checks.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "subsim/fem/box_tet_mesher.hpp"
#include "subsim/fem/corotational_fem.hpp"
#include "subsim/math/so3.hpp"

namespace subsim {
namespace {

FemMaterial rubber(double nu = 0.3) {
  FemMaterial m;
  m.young = 1e6;
  m.poisson = nu;
  m.density = 1000.0;
  return m;
}

VecX randomVector(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  VecX v(n);
  for (int i = 0; i < n; ++i) v[i] = u(rng);
  return v;
}

// x = Q X + t for every node.
VecX rigidlyMoved(const VecX& X, const Mat3& Q, const Vec3& t) {
  VecX x(X.size());
  for (int i = 0; i < X.size() / 3; ++i) x.segment<3>(3 * i) = Q * X.segment<3>(3 * i) + t;
  return x;
}

VecX forces(const CorotationalFemModel& m, const VecX& x, const FemWorkspace& ws) {
  VecX f = VecX::Zero(m.numDof());
  m.addElasticForces(x, ws, f);
  return f;
}

struct Fixture {
  explicit Fixture(const Vec3& size = Vec3(0.3, 0.2, 0.1), int nx = 3, int ny = 2, int nz = 2,
                   double nu = 0.3)
      : model(boxTetMesh(size, nx, ny, nz), rubber(nu)), ws(model.makeWorkspace()) {}
  CorotationalFemModel model;
  FemWorkspace ws;
};

TEST(CorotationalFem, RigidMotionHasNoForceOrEnergy) {
  Fixture fx;
  const VecX& X = fx.model.restPositions();
  const Mat3 Q = quatExp(Vec3(0.7, -1.9, 2.3)).toRotationMatrix();
  const VecX x = rigidlyMoved(X, Q, Vec3(0.4, -1.2, 3.0));
  fx.model.updateRotations(x, fx.ws);
  const VecX f = forces(fx.model, x, fx.ws);
  // Scale: the force of a 1 % strain, ~ ||K|| * 0.01 * ||X||.
  fx.model.assembleStiffness(fx.ws);
  const double k_norm = fx.ws.stiffness.norm();
  EXPECT_LE(f.norm(), 1e-9 * k_norm * 0.01 * X.norm());
  EXPECT_LE(fx.model.elasticEnergy(x, fx.ws), 1e-9 * k_norm * 1e-4 * X.squaredNorm());
  for (const Mat3& R : fx.ws.rotations) EXPECT_LT((R - Q).norm(), 1e-12);
}

TEST(CorotationalFem, ForceHasNoResultantOrTorque) {
  Fixture fx;
  const VecX& X = fx.model.restPositions();
  const VecX x = X + 0.03 * randomVector(fx.model.numDof(), 1);
  fx.model.updateRotations(x, fx.ws);
  const VecX f = forces(fx.model, x, fx.ws);
  Vec3 resultant = Vec3::Zero(), torque = Vec3::Zero();
  for (int i = 0; i < fx.model.numNodes(); ++i) {
    resultant += f.segment<3>(3 * i);
    torque += x.segment<3>(3 * i).cross(f.segment<3>(3 * i));
  }
  ASSERT_GT(f.norm(), 0.0);
  EXPECT_LT(resultant.norm(), 1e-12 * f.norm());
  // Polar rotations make R^T F symmetric, so the stress commutes with it: no net torque.
  EXPECT_LT(torque.norm(), 1e-11 * f.norm() * X.norm());
}

TEST(CorotationalFem, ForceIsMinusEnergyGradientAtFixedRotations) {
  Fixture fx(Vec3(0.2, 0.2, 0.2), 2, 2, 2);
  const VecX x = fx.model.restPositions() + 0.02 * randomVector(fx.model.numDof(), 2);
  fx.model.updateRotations(x, fx.ws);
  const VecX f = forces(fx.model, x, fx.ws);
  // The energy is quadratic in x at fixed rotations: central differences are exact up to
  // round-off.
  const double h = 1e-5;
  for (int i = 0; i < fx.model.numDof(); ++i) {
    VecX xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    const double grad =
        (fx.model.elasticEnergy(xp, fx.ws) - fx.model.elasticEnergy(xm, fx.ws)) / (2 * h);
    EXPECT_NEAR(-grad, f[i], 1e-6 * f.lpNorm<Eigen::Infinity>()) << "dof " << i;
  }
}

// With polar rotations R^T F = S is symmetric and psi_e = V (mu |S - I|^2 + lambda/2 tr(S - I)^2)
// is the corotated energy whose exact gradient is the corotational force: the dR/dx terms cancel,
// so finite differences with the rotations recomputed also match at a finite deformation.
TEST(CorotationalFem, ForceIsMinusEnergyGradientWithRotationsRecomputed) {
  Fixture fx(Vec3(0.2, 0.2, 0.2), 2, 2, 2);
  const VecX& X = fx.model.restPositions();
  const Mat3 Q = quatExp(Vec3(0.3, 0.5, -0.4)).toRotationMatrix();
  const VecX x = rigidlyMoved(X, Q, Vec3::Zero()) + 0.02 * randomVector(fx.model.numDof(), 3);
  fx.model.updateRotations(x, fx.ws);
  const VecX f = forces(fx.model, x, fx.ws);
  FemWorkspace probe = fx.model.makeWorkspace();
  auto energy = [&](const VecX& y) {
    fx.model.updateRotations(y, probe);
    return fx.model.elasticEnergy(y, probe);
  };
  const double h = 1e-6;
  for (int i = 0; i < fx.model.numDof(); ++i) {
    VecX xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    const double grad = (energy(xp) - energy(xm)) / (2 * h);
    EXPECT_NEAR(-grad, f[i], 1e-5 * f.lpNorm<Eigen::Infinity>()) << "dof " << i;
  }
}

TEST(CorotationalFem, StiffnessIsForceJacobianAtFixedRotations) {
  Fixture fx;
  const VecX x = fx.model.restPositions() + 0.02 * randomVector(fx.model.numDof(), 4);
  fx.model.updateRotations(x, fx.ws);
  fx.model.assembleStiffness(fx.ws);
  const VecX v = randomVector(fx.model.numDof(), 5);
  const double h = 1e-6;
  const VecX df =
      (forces(fx.model, x + h * v, fx.ws) - forces(fx.model, x - h * v, fx.ws)) / (2 * h);
  const VecX Kv = fx.ws.stiffness * v;
  EXPECT_LT((Kv + df).norm(), 1e-6 * Kv.norm());
}

TEST(CorotationalFem, StiffnessSymmetricPsdWithSixRigidModes) {
  Fixture fx;
  auto eigenvalues = [&] {
    fx.model.assembleStiffness(fx.ws);
    const MatX K = MatX(fx.ws.stiffness);
    EXPECT_LT((K - K.transpose()).norm(), 1e-12 * K.norm());
    return Eigen::SelfAdjointEigenSolver<MatX>(K).eigenvalues().eval();
  };
  const VecX rest_eigs = eigenvalues();  // makeWorkspace() starts at the rest rotations
  const double largest = rest_eigs.maxCoeff();
  EXPECT_GE(rest_eigs.minCoeff(), -1e-9 * largest);
  int zeros = 0;
  for (double e : rest_eigs) zeros += std::abs(e) < 1e-9 * largest;
  EXPECT_EQ(zeros, 6);
  EXPECT_GT(rest_eigs[6], 1e-6 * largest);

  fx.model.updateRotations(fx.model.restPositions() + 0.05 * randomVector(fx.model.numDof(), 6),
                           fx.ws);
  const VecX eigs = eigenvalues();
  EXPECT_GE(eigs.minCoeff(), -1e-9 * eigs.maxCoeff());
}

// The per-step evaluations run inside the engine's solver loop: no heap allocation once the
// workspace exists (Eigen checks this under EIGEN_RUNTIME_NO_MALLOC).
TEST(CorotationalFem, EvaluationsDoNotAllocate) {
  Fixture fx;
  const VecX x = fx.model.restPositions() + 0.02 * randomVector(fx.model.numDof(), 8);
  VecX f = VecX::Zero(fx.model.numDof());
  Eigen::internal::set_is_malloc_allowed(false);
  fx.model.updateRotations(x, fx.ws);
  fx.model.addElasticForces(x, fx.ws, f);
  const double energy = fx.model.elasticEnergy(x, fx.ws);
  fx.model.assembleStiffness(fx.ws);
  Eigen::internal::set_is_malloc_allowed(true);
  EXPECT_GT(energy, 0.0);
  EXPECT_GT(fx.ws.stiffness.norm(), 0.0);
}

TEST(CorotationalFem, LumpedMassSumsToBodyMass) {
  const Vec3 size(0.3, 0.2, 0.1);
  Fixture fx(size);
  const VecX& m = fx.model.lumpedMass();
  const double mass = 1000.0 * size.prod();
  EXPECT_NEAR(m.sum() / 3.0, mass, 1e-12 * mass);
  EXPECT_NEAR(fx.model.totalVolume(), size.prod(), 1e-12 * size.prod());
  for (int i = 0; i < fx.model.numNodes(); ++i) {
    EXPECT_GT(m[3 * i], 0.0);
    EXPECT_EQ(m[3 * i], m[3 * i + 1]);
    EXPECT_EQ(m[3 * i], m[3 * i + 2]);
  }
}

void expectMaterialError(const std::string& field, FemMaterial m) {
  try {
    validateFemMaterial(m);
    ADD_FAILURE() << "no throw for " << field;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
  EXPECT_THROW(CorotationalFemModel(boxTetMesh(Vec3(1, 1, 1), 1, 1, 1), m), std::invalid_argument);
}

TEST(CorotationalFem, MaterialValidation) {
  EXPECT_NO_THROW(validateFemMaterial(rubber(0.0)));
  FemMaterial m = rubber();
  m.young = 0.0;
  expectMaterialError("young", m);
  m = rubber(0.5);
  expectMaterialError("poisson", m);
  m = rubber(-0.1);
  expectMaterialError("poisson", m);
  m = rubber();
  m.density = -1.0;
  expectMaterialError("density", m);
  m = rubber();
  m.rayleigh_mass = -1e-3;
  expectMaterialError("rayleigh_mass", m);
  m = rubber();
  m.rayleigh_stiffness = std::nan("");
  expectMaterialError("rayleigh_stiffness", m);
  m = FemMaterial();
  expectMaterialError("young", m);  // the defaults are not a material
}

TEST(CorotationalFem, RejectsInvertedRestTets) {
  TetMesh mesh = boxTetMesh(Vec3(1, 1, 1), 1, 1, 1);
  std::swap(mesh.tets[2][1], mesh.tets[2][2]);
  EXPECT_THROW(CorotationalFemModel(mesh, rubber()), std::invalid_argument);
  mesh = boxTetMesh(Vec3(1, 1, 1), 1, 1, 1);
  mesh.tets[0][3] = 8;
  EXPECT_THROW(CorotationalFemModel(mesh, rubber()), std::invalid_argument);
}

// An inverted element gets a proper rotation, and its force pushes it back out of inversion.
TEST(CorotationalFem, InvertedElementRestoringForce) {
  TetMesh mesh;
  mesh.nodes = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
  mesh.tets = {{0, 1, 2, 3}};
  const CorotationalFemModel model(mesh, rubber());
  FemWorkspace ws = model.makeWorkspace();
  VecX x = model.restPositions();
  x[11] = -0.2;  // node 3 pushed through the base: det F = -0.2
  model.updateRotations(x, ws);
  EXPECT_NEAR(ws.rotations[0].determinant(), 1.0, 1e-12);
  EXPECT_LT((ws.rotations[0].transpose() * ws.rotations[0] - Mat3::Identity()).norm(), 1e-12);
  EXPECT_GT(forces(model, x, ws)[11], 0.0);
}

// ---------------------------------------------------------------------------------------------
// Static equilibrium f_int(x) + f_ext = 0 with some DOF prescribed, by the fixed point
// K(x_k) dx = f_ext + f_int(x_k) on the free DOF (K without the dR/dx terms, cond-digest 1).

struct StaticResult {
  int iterations = 0;
  bool converged = false;
};

StaticResult solveStatic(const CorotationalFemModel& model, FemWorkspace& ws,
                         const std::vector<char>& fixed, const VecX& f_ext, VecX& x,
                         double tolerance, bool corotate = true, int max_iterations = 100) {
  const int n = model.numDof();
  std::vector<int> free_index(n, -1);
  int num_free = 0;
  for (int i = 0; i < n; ++i)
    if (!fixed[i]) free_index[i] = num_free++;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt;
  Eigen::SparseMatrix<double> Kff(num_free, num_free);
  std::vector<Eigen::Triplet<double>> entries;
  StaticResult result;
  for (; result.iterations < max_iterations; ++result.iterations) {
    // corotate = false: the linear model, rotations held at identity.
    if (corotate) {
      model.updateRotations(x, ws);
    } else {
      std::fill(ws.rotations.begin(), ws.rotations.end(), Mat3::Identity());
    }
    model.assembleStiffness(ws);
    VecX r = f_ext;
    model.addElasticForces(x, ws, r);
    entries.clear();
    for (int c = 0; c < n; ++c)
      for (Eigen::SparseMatrix<double>::InnerIterator it(ws.stiffness, c); it; ++it)
        if (free_index[it.row()] >= 0 && free_index[c] >= 0)
          entries.emplace_back(free_index[it.row()], free_index[c], it.value());
    Kff.setFromTriplets(entries.begin(), entries.end());
    if (result.iterations == 0) ldlt.analyzePattern(Kff);
    ldlt.factorize(Kff);
    if (ldlt.info() != Eigen::Success) return result;
    VecX rf(num_free);
    for (int i = 0; i < n; ++i)
      if (free_index[i] >= 0) rf[free_index[i]] = r[i];
    const VecX dx = ldlt.solve(rf);
    for (int i = 0; i < n; ++i)
      if (free_index[i] >= 0) x[i] += dx[free_index[i]];
    if (dx.lpNorm<Eigen::Infinity>() < tolerance) {
      result.converged = true;
      ++result.iterations;
      return result;
    }
  }
  return result;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A beam along x, clamped at its x = -L/2 face, tip load P (total) spread equally over the
// nodes of its x = +L/2 face.
struct Cantilever {
  Cantilever(double length, double thickness, int n_along, int n_across)
      : L(length),
        h(thickness),
        nx(n_along),
        ny(n_across),
        model(boxTetMesh(Vec3(length, thickness, thickness), n_along, n_across, n_across),
              material()),
        ws(model.makeWorkspace()) {}

  static FemMaterial material() {
    FemMaterial m;
    m.young = 1e7;
    m.poisson = 0.0;  // no Poisson stiffening at the clamp: Euler-Bernoulli applies as is
    m.density = 1000.0;
    return m;
  }

  // Equilibrium with the clamped face at Q X and the load Q P: for Q = I the plain cantilever.
  VecX solve(const Vec3& load, const Mat3& Q, int load_steps, StaticResult* total = nullptr,
             bool corotate = true) {
    const VecX& X = model.restPositions();
    VecX x = rigidlyMoved(X, Q, Vec3::Zero());
    std::vector<char> fixed(model.numDof(), 0);
    VecX f_ext = VecX::Zero(model.numDof());
    const double face_nodes = (ny + 1.0) * (ny + 1.0);
    for (int k = 0; k <= ny; ++k)
      for (int j = 0; j <= ny; ++j) {
        const int clamp = boxNodeIndex(nx, ny, 0, j, k), tip = boxNodeIndex(nx, ny, nx, j, k);
        for (int c = 0; c < 3; ++c) fixed[3 * clamp + c] = 1;
        f_ext.segment<3>(3 * tip) = Q * load / face_nodes;
      }
    for (int s = 1; s <= load_steps; ++s) {
      const StaticResult r =
          solveStatic(model, ws, fixed, f_ext * s / load_steps, x, 1e-12 * L, corotate);
      EXPECT_TRUE(r.converged) << "load step " << s;
      if (total) total->iterations += r.iterations;
    }
    return x;
  }

  // Mean displacement of the tip face nodes.
  Vec3 tipDisplacement(const VecX& x) const {
    Vec3 sum = Vec3::Zero();
    for (int k = 0; k <= ny; ++k)
      for (int j = 0; j <= ny; ++j) {
        const int tip = boxNodeIndex(nx, ny, nx, j, k);
        sum += x.segment<3>(3 * tip) - model.restPositions().segment<3>(3 * tip);
      }
    return sum / ((ny + 1.0) * (ny + 1.0));
  }

  double eulerBernoulli(double P) const {
    return P * L * L * L / (3.0 * material().young * h * h * h * h / 12.0);
  }

  double L, h;
  int nx, ny;
  CorotationalFemModel model;
  FemWorkspace ws;
};

TEST(CorotationalFemPhysics, CantileverSmallLoadMatchesEulerBernoulli) {
  const auto start = std::chrono::steady_clock::now();
  Cantilever beam(0.5, 0.05, 120, 6);
  const double P = 0.01;  // N: deflection ~ 2e-4 L, the linear regime
  StaticResult stats;
  const VecX x = beam.solve(Vec3(0, 0, -P), Mat3::Identity(), 1, &stats);
  const double ratio = -beam.tipDisplacement(x).z() / beam.eulerBernoulli(P);
  std::printf(
      "cantilever %dx%dx%d: tip deflection / (P L^3 / 3 E I) = %.4f, %d iterations, %.2f s\n",
      beam.nx, beam.ny, beam.ny, ratio, stats.iterations, secondsSince(start));
  EXPECT_NEAR(ratio, 1.0, 0.1);
}

TEST(CorotationalFemPhysics, CantileverLargeDeflectionIsObjective) {
  const auto start = std::chrono::steady_clock::now();
  Cantilever beam(0.5, 0.05, 30, 3);
  const double P = 0.3 * beam.L / beam.eulerBernoulli(1.0);  // linear theory: 0.3 L
  StaticResult stats;
  const VecX x = beam.solve(Vec3(0, 0, -P), Mat3::Identity(), 4, &stats);
  const Vec3 tip = beam.tipDisplacement(x);
  const Mat3 Q = quatExp(0.5 * std::numbers::pi * Vec3(1, 2, 3).normalized()).toRotationMatrix();
  const VecX x_rot = beam.solve(Vec3(0, 0, -P), Q, 4, &stats);
  const VecX expected = rigidlyMoved(x, Q, Vec3::Zero());
  const double error = (x_rot - expected).lpNorm<Eigen::Infinity>();
  // Control: the linear model (no rotations) is not objective.
  const VecX x_linear = beam.solve(Vec3(0, 0, -P), Q, 1, nullptr, false);
  const double linear_error = (x_linear - expected).lpNorm<Eigen::Infinity>();
  std::printf(
      "large deflection: tip (%.4f, %.4f) L, rotated-solution error %.2e L (linear model %.2e L), "
      "%d iterations, %.2f s\n",
      tip.x() / beam.L, tip.z() / beam.L, error / beam.L, linear_error / beam.L, stats.iterations,
      secondsSince(start));
  EXPECT_LT(tip.z(), -0.15 * beam.L);  // a large rotation of the tip
  EXPECT_LT(tip.x(), -0.01 * beam.L);  // and the shortening a linear model would miss
  EXPECT_LT(error, 1e-8 * beam.L);
  EXPECT_GT(linear_error, 0.05 * beam.L);
}

// Uniaxial stress: with frictionless ends (normal displacement prescribed, tangential free) the
// exact solution is homogeneous, u = eps (x, -nu y, -nu z), which linear tets represent exactly.
void checkPoisson(double nu) {
  const int n = 6;
  const double a = 0.1;
  const CorotationalFemModel model(boxTetMesh(Vec3(a, a, a), n, n, n), rubber(nu));
  FemWorkspace ws = model.makeWorkspace();
  const double axial = -0.01;
  VecX x = model.restPositions();
  std::vector<char> fixed(model.numDof(), 0);
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i : {0, n}) {
        const int v = boxNodeIndex(n, n, i, j, k);
        fixed[3 * v] = 1;
        x[3 * v] *= 1.0 + axial;
      }
  // Against rigid motion: translation in y and z, and rotation about x.
  const int centre = boxNodeIndex(n, n, 0, n / 2, n / 2), top = boxNodeIndex(n, n, 0, n / 2, n);
  fixed[3 * centre + 1] = fixed[3 * centre + 2] = fixed[3 * top + 1] = 1;
  const StaticResult r = solveStatic(model, ws, fixed, VecX::Zero(model.numDof()), x, 1e-14);
  ASSERT_TRUE(r.converged);
  // Lateral strains from the mean displacement of opposite faces.
  double lateral[2] = {0, 0};
  for (int axis = 1; axis <= 2; ++axis) {
    double diff = 0;
    for (int p = 0; p <= n; ++p)
      for (int q = 0; q <= n; ++q) {
        const int lo = axis == 1 ? boxNodeIndex(n, n, p, 0, q) : boxNodeIndex(n, n, p, q, 0);
        const int hi = axis == 1 ? boxNodeIndex(n, n, p, n, q) : boxNodeIndex(n, n, p, q, n);
        diff += (x[3 * hi + axis] - x[3 * lo + axis]) - a;
      }
    lateral[axis - 1] = diff / ((n + 1.0) * (n + 1.0) * a);
  }
  std::printf(
      "poisson %.2f: axial strain %.4f, lateral strains %.6f %.6f (expected %.6f), %d iterations\n",
      nu, axial, lateral[0], lateral[1], -nu * axial, r.iterations);
  for (double e : lateral) EXPECT_NEAR(e, -nu * axial, 0.05 * nu * std::abs(axial));
}

TEST(CorotationalFemPhysics, UniaxialCompressionPoisson030) {
  checkPoisson(0.3);
}
TEST(CorotationalFemPhysics, UniaxialCompressionPoisson045) {
  checkPoisson(0.45);
}

}  // namespace
}  // namespace subsim
