// Articulated-body kinematics and dynamics against independent definitions: the Jacobian form of
// the mass matrix, the kinetic energy, Lagrange's (Hamel's, for the floating base) equations by
// finite differences, the potential energy's gradient, finite differences of forward kinematics,
// and a pendulum's small-angle period.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "subsim/articulation/articulation.hpp"
#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/math/so3.hpp"

namespace subsim {
namespace {

using Type = ArticulationJointType;
const Vec3 kGravity(0.0, 0.0, -9.81);

/// Inertia about the centre of mass of a solid box with half extents h, turned by `rot`.
Mat3 boxInertia(double m, const Vec3& h, const Quat& rot = Quat::Identity()) {
  const Vec3 d = m / 3.0 *
                 Vec3(h.y() * h.y() + h.z() * h.z(), h.x() * h.x() + h.z() * h.z(),
                      h.x() * h.x() + h.y() * h.y());
  const Mat3 R = rot.toRotationMatrix();
  return R * d.asDiagonal() * R.transpose();
}

ArticulationLink makeLink(const std::string& name, int parent, Type joint, const Vec3& origin,
                          const Vec3& axis, double mass, const Vec3& com) {
  ArticulationLink l;
  l.name = name;
  l.joint_name = name + "_joint";
  l.parent = parent;
  l.joint = joint;
  l.joint_origin.position = origin;
  l.axis = axis.normalized();
  l.mass = mass;
  l.com = com;
  l.inertia = boxInertia(mass, Vec3(0.05, 0.04, 0.5 * com.norm() + 0.03));
  return l;
}

/// Three links swinging about parallel y axes.
Articulation planarPendulum() {
  Articulation a;
  a.name = "pendulum3";
  a.links.push_back(
      makeLink("l1", -1, Type::Revolute, Vec3(0, 0, 1), Vec3::UnitY(), 1.0, Vec3(0, 0, -0.2)));
  a.links.push_back(makeLink("l2", 0, Type::Revolute, Vec3(0, 0, -0.4), Vec3::UnitY(), 0.8,
                             Vec3(0.01, 0, -0.15)));
  a.links.push_back(
      makeLink("l3", 1, Type::Revolute, Vec3(0, 0, -0.3), Vec3::UnitY(), 0.5, Vec3(0, 0, -0.12)));
  a.finalize();
  return a;
}

/// Seven joints with mixed (and skew) axes, one prismatic, turned joint frames, a fixed tool.
Articulation arm7() {
  Articulation a;
  a.name = "arm7";
  const Vec3 axes[7] = {Vec3::UnitZ(),     Vec3::UnitY(), Vec3::UnitX(), Vec3(1, 1, 0),
                        Vec3(0, 0.6, 0.8), Vec3::UnitZ(), Vec3(1, -2, 2)};
  const Type types[7] = {Type::Revolute, Type::Revolute, Type::Revolute, Type::Prismatic,
                         Type::Revolute, Type::Revolute, Type::Revolute};
  for (int i = 0; i < 7; ++i) {
    ArticulationLink l = makeLink("link" + std::to_string(i + 1), i - 1, types[i],
                                  i == 0 ? Vec3(0.1, -0.2, 0.3) : Vec3(0.02 * i, -0.03, 0.25),
                                  axes[i], 2.0 - 0.2 * i, Vec3(0.01 * i, 0.02, 0.1));
    l.joint_origin.orientation = Quat(Eigen::AngleAxisd(0.3 * (i + 1), Vec3(1, i, 2).normalized()));
    l.inertia = boxInertia(l.mass, Vec3(0.04, 0.06 + 0.01 * i, 0.12),
                           Quat(Eigen::AngleAxisd(0.7 * i, Vec3(1, 1, 1).normalized())));
    a.links.push_back(l);
  }
  a.links.push_back(makeLink("tool", 6, Type::Fixed, Vec3(0, 0.05, 0.1), Vec3::UnitZ(), 0.4,
                             Vec3(0.02, 0, 0.05)));
  a.finalize();
  return a;
}

/// A floating body (its joint frame off the world origin and turned) with two revolute branches.
Articulation floatingTree() {
  Articulation a;
  a.name = "floating";
  ArticulationLink base = makeLink("base", -1, Type::Floating, Vec3(0.1, 0, 0.2), Vec3::UnitZ(),
                                   3.0, Vec3(0.05, -0.02, 0.03));
  base.joint_origin.orientation = Quat(Eigen::AngleAxisd(0.3, Vec3::UnitX()));
  base.inertia = boxInertia(3.0, Vec3(0.2, 0.15, 0.1), Quat(Eigen::AngleAxisd(0.4, Vec3::UnitY())));
  a.links.push_back(base);
  a.links.push_back(makeLink("left", 0, Type::Revolute, Vec3(0.2, 0.1, 0), Vec3::UnitX(), 0.7,
                             Vec3(0, 0.15, 0.02)));
  a.links.push_back(makeLink("right", 0, Type::Revolute, Vec3(-0.2, 0.1, 0.05), Vec3(0, 0.6, 0.8),
                             0.9, Vec3(0.03, -0.1, 0.12)));
  a.finalize();
  return a;
}

std::vector<std::pair<std::string, Articulation>> models() {
  return {{"pendulum3", planarPendulum()}, {"arm7", arm7()}, {"floating", floatingTree()}};
}

VecX randomConfiguration(const Articulation& a, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  VecX q = a.neutralConfiguration();
  for (const ArticulationLink& l : a.links) {
    if (l.joint == Type::Revolute) q(l.q_index) = std::numbers::pi * u(rng);
    if (l.joint == Type::Prismatic) q(l.q_index) = 0.3 * u(rng);
    if (l.joint == Type::Floating) {
      q.segment<3>(l.q_index) = Vec3(u(rng), u(rng), u(rng));
      q.segment<4>(l.q_index + 3) = Vec4(u(rng), u(rng), u(rng), u(rng)).normalized();
    }
  }
  return q;
}

VecX randomVector(int n, std::mt19937& rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-scale, scale);
  VecX v(n);
  for (int i = 0; i < n; ++i) v(i) = u(rng);
  return v;
}

/// q (+) eps dir, the only way to move a floating joint's quaternion consistently with v.
VecX moved(const Articulation& a, const VecX& q, const VecX& dir, double eps) {
  VecX out;
  integrateConfiguration(a, q, dir, eps, out);
  return out;
}

MatX massMatrixAt(const Articulation& a, const VecX& q) {
  MatX M;
  massMatrix(a, q, M);
  return M;
}

double potentialEnergy(const Articulation& a, const VecX& q) {
  std::vector<Pose> poses;
  forwardKinematics(a, q, poses);
  double U = 0.0;
  for (std::size_t i = 0; i < a.links.size(); ++i)
    U -= a.links[i].mass * kGravity.dot(poses[i].transformPoint(a.links[i].com));
  return U;
}

/// Central difference of f along q (+) eps e_k for every velocity coordinate k.
template <class F>
VecX gradient(const Articulation& a, const VecX& q, F f, double eps = 1e-6) {
  VecX g(a.nv());
  for (int k = 0; k < a.nv(); ++k) {
    const VecX e = VecX::Unit(a.nv(), k);
    g(k) = (f(moved(a, q, e, eps)) - f(moved(a, q, e, -eps))) / (2.0 * eps);
  }
  return g;
}

double relativeError(const MatX& x, const MatX& reference) {
  return (x - reference).norm() / std::max(1.0, reference.norm());
}

TEST(Articulation, FinalizeAssignsCoordinates) {
  const Articulation arm = arm7();
  EXPECT_EQ(arm.nq(), 7);
  EXPECT_EQ(arm.nv(), 7);
  EXPECT_EQ(arm.links[3].q_index, 3);
  EXPECT_EQ(arm.links[7].q_index, -1);  // the fixed tool
  EXPECT_EQ(arm.findLink("tool"), 7);
  EXPECT_EQ(arm.findLink("nope"), -1);

  const Articulation tree = floatingTree();
  EXPECT_EQ(tree.nq(), 9);
  EXPECT_EQ(tree.nv(), 8);
  EXPECT_EQ(tree.links[1].q_index, 7);
  EXPECT_EQ(tree.links[1].v_index, 6);
  const VecX q0 = tree.neutralConfiguration();
  EXPECT_EQ(q0(6), 1.0);
  EXPECT_EQ(q0.norm(), 1.0);
  // At the neutral configuration every link frame is its joint frame.
  std::vector<Pose> poses;
  forwardKinematics(tree, q0, poses);
  EXPECT_TRUE(poses[0].position.isApprox(Vec3(0.1, 0, 0.2)));
  EXPECT_TRUE(poses[1].position.isApprox(Vec3(0.1, 0, 0.2) + poses[0].rotate(Vec3(0.2, 0.1, 0))));
  EXPECT_TRUE(poses[1].orientation.isApprox(tree.links[0].joint_origin.orientation));
}

TEST(Articulation, MassMatrixEqualsJacobianFormAndKineticEnergy) {
  std::mt19937 rng(1);
  for (const auto& [name, a] : models()) {
    SCOPED_TRACE(name);
    for (int trial = 0; trial < 5; ++trial) {
      const VecX q = randomConfiguration(a, rng);
      const VecX v = randomVector(a.nv(), rng);
      MatX M;
      massMatrix(a, q, M);
      std::vector<Pose> poses;
      forwardKinematics(a, q, poses);
      MatX expected = MatX::Zero(a.nv(), a.nv()), J;
      for (int i = 0; i < static_cast<int>(a.links.size()); ++i) {
        const ArticulationLink& l = a.links[i];
        linkJacobian(a, poses, i, poses[i].transformPoint(l.com), J);
        const Mat3 R = poses[i].orientation.toRotationMatrix();
        expected +=
            l.mass * J.topRows<3>().transpose() * J.topRows<3>() +
            J.bottomRows<3>().transpose() * (R * l.inertia * R.transpose()) * J.bottomRows<3>();
      }
      EXPECT_LT(relativeError(M, expected), 1e-12);
      EXPECT_EQ((M - M.transpose()).cwiseAbs().maxCoeff(), 0.0);
      EXPECT_GT(Eigen::SelfAdjointEigenSolver<MatX>(M).eigenvalues()(0), 0.0);
      EXPECT_NEAR(2.0 * kineticEnergy(a, q, v), v.dot(M * v), 1e-12 * v.dot(M * v));
    }
  }
}

TEST(Articulation, InverseDynamicsIsMassMatrixTimesAccelerationPlusBias) {
  std::mt19937 rng(2);
  for (const auto& [name, a] : models()) {
    SCOPED_TRACE(name);
    const VecX q = randomConfiguration(a, rng);
    const VecX v = randomVector(a.nv(), rng);
    const VecX acc = randomVector(a.nv(), rng, 3.0);
    VecX tau, tau0, bias;
    inverseDynamics(a, q, v, acc, kGravity, tau);
    inverseDynamics(a, q, v, VecX::Zero(a.nv()), kGravity, tau0);
    biasForces(a, q, v, kGravity, bias);
    EXPECT_LT(relativeError(tau - tau0, massMatrixAt(a, q) * acc), 1e-12);
    EXPECT_LT(relativeError(bias, tau0), 1e-14);
  }
}

TEST(Articulation, BiasForcesSatisfyLagrangesEquations) {
  // d/dt (dT/dv) - dT/dq + g = tau with v held fixed in dT/dq.  For the floating joint's angular
  // velocity (world frame, not the derivative of any coordinate) these are Hamel's equations: the
  // perturbations along q (+) eps e_k do not commute, which adds (dT/domega) x omega.
  std::mt19937 rng(3);
  const double eps = 1e-6;
  for (const auto& model : models()) {
    const std::string& name = model.first;
    const Articulation& a = model.second;  // a plain reference: lambdas capture it
    SCOPED_TRACE(name);
    for (int trial = 0; trial < 3; ++trial) {
      const VecX q = randomConfiguration(a, rng);
      const VecX v = randomVector(a.nv(), rng, 3.0);
      VecX bias, g;
      biasForces(a, q, v, kGravity, bias);
      biasForces(a, q, VecX::Zero(a.nv()), kGravity, g);
      const VecX Mdot_v =
          (massMatrixAt(a, moved(a, q, v, eps)) - massMatrixAt(a, moved(a, q, v, -eps))) * v /
          (2.0 * eps);
      const VecX dT_dq = gradient(a, q, [&](const VecX& x) { return kineticEnergy(a, x, v); });
      VecX hamel = VecX::Zero(a.nv());
      const VecX momentum = massMatrixAt(a, q) * v;
      for (const ArticulationLink& l : a.links)
        if (l.joint == Type::Floating)
          hamel.segment<3>(l.v_index + 3) =
              momentum.segment<3>(l.v_index + 3).cross(v.segment<3>(l.v_index + 3));
      const VecX expected = Mdot_v - dT_dq + hamel + g;
      // Relative to the velocity terms alone, which are what the finite differences check.
      EXPECT_LT((bias - expected).norm() / (expected - g).norm(), 1e-6)
          << "bias " << bias.transpose() << "\nexpected " << expected.transpose();
    }
  }
}

TEST(Articulation, GravityIsPotentialEnergyGradient) {
  std::mt19937 rng(4);
  for (const auto& model : models()) {
    const std::string& name = model.first;
    const Articulation& a = model.second;  // a plain reference: lambdas capture it
    SCOPED_TRACE(name);
    for (int trial = 0; trial < 3; ++trial) {
      const VecX q = randomConfiguration(a, rng);
      VecX g;
      biasForces(a, q, VecX::Zero(a.nv()), kGravity, g);
      const VecX dU = gradient(a, q, [&](const VecX& x) { return potentialEnergy(a, x); });
      EXPECT_LT(relativeError(g, dU), 1e-7) << g.transpose() << "\n" << dU.transpose();
    }
  }
}

TEST(Articulation, JacobiansMatchFiniteDifferencesOfForwardKinematics) {
  std::mt19937 rng(5);
  const double eps = 1e-6;
  const Vec3 offset(0.1, -0.05, 0.07);
  for (const auto& [name, a] : models()) {
    SCOPED_TRACE(name);
    for (int trial = 0; trial < 3; ++trial) {
      const VecX q = randomConfiguration(a, rng);
      const VecX v = randomVector(a.nv(), rng);
      std::vector<Pose> poses, plus, minus;
      forwardKinematics(a, q, poses);
      forwardKinematics(a, moved(a, q, v, eps), plus);
      forwardKinematics(a, moved(a, q, v, -eps), minus);
      MatX Jp, Jl;
      for (int i = 0; i < static_cast<int>(a.links.size()); ++i) {
        const Vec3 point = poses[i].transformPoint(offset);
        const Vec3 velocity_fd =
            (plus[i].transformPoint(offset) - minus[i].transformPoint(offset)) / (2.0 * eps);
        // World angular velocity: R(+eps) R(-eps)^T = exp(2 eps omega) to second order.
        const Vec3 omega_fd =
            quatLog(plus[i].orientation * minus[i].orientation.conjugate()) / (2.0 * eps);
        pointJacobian(a, poses, i, point, Jp);
        linkJacobian(a, poses, i, point, Jl);
        EXPECT_LT((Jp * v - velocity_fd).norm(), 1e-7 * std::max(1.0, velocity_fd.norm()));
        EXPECT_LT((Jl.topRows<3>() * v - velocity_fd).norm(),
                  1e-7 * std::max(1.0, velocity_fd.norm()));
        EXPECT_LT((Jl.bottomRows<3>() * v - omega_fd).norm(),
                  1e-7 * std::max(1.0, omega_fd.norm()));
      }
    }
  }
}

TEST(Articulation, IntegrateConfigurationRotatesAboutWorldAxes) {
  const Articulation a = floatingTree();
  std::mt19937 rng(6);
  const VecX q_start = randomConfiguration(a, rng);
  VecX q = q_start;
  std::vector<Pose> start, end;
  forwardKinematics(a, q, start);
  // Constant world twist of the base: origin velocity (0.3, -0.2, 0.1), omega = 2 rad/s about z.
  VecX v = VecX::Zero(a.nv());
  v.head<3>() = Vec3(0.3, -0.2, 0.1);
  v(5) = 2.0;
  v(6) = 0.5;  // the left joint
  const double h = 1e-3;
  const int steps = 1000;
  for (int k = 0; k < steps; ++k) integrateConfiguration(a, q, v, h, q);  // in place
  forwardKinematics(a, q, end);
  EXPECT_NEAR(q.segment<4>(3).norm(), 1.0, 1e-14);
  const Quat expected = Quat(Eigen::AngleAxisd(2.0, Vec3::UnitZ())) * start[0].orientation;
  EXPECT_LT(quatLog(end[0].orientation * expected.conjugate()).norm(), 1e-10);
  EXPECT_LT((end[0].position - start[0].position - Vec3(0.3, -0.2, 0.1)).norm(), 1e-12);
  EXPECT_NEAR(q(7) - q_start(7), 0.5, 1e-12);
}

TEST(Articulation, PendulumSwingsWithTheSmallAnglePeriod) {
  Articulation a;
  a.name = "pendulum";
  const double m = 1.0, L = 0.25;
  ArticulationLink l =
      makeLink("bob", -1, Type::Revolute, Vec3::Zero(), Vec3::UnitY(), m, Vec3(0, 0, -L));
  a.links.push_back(l);
  a.finalize();
  const double I_pivot = l.inertia(1, 1) + m * L * L;
  EXPECT_NEAR(massMatrixAt(a, VecX::Constant(1, 0.7))(0, 0), I_pivot, 1e-14);
  const double period = 2.0 * std::numbers::pi * std::sqrt(I_pivot / (m * 9.81 * L));

  // RK4 on (theta, omega); times of upward zero crossings of theta give the period.
  auto accel = [&](double th, double om) {
    VecX bias;
    biasForces(a, VecX::Constant(1, th), VecX::Constant(1, om), kGravity, bias);
    return -bias(0) / massMatrixAt(a, VecX::Constant(1, th))(0, 0);
  };
  double th = 0.01, om = 0.0, t = 0.0;
  const double dt = 1e-4;
  std::vector<double> crossings;
  while (t < 2.5 * period) {
    const double k1t = om, k1o = accel(th, om);
    const double k2t = om + 0.5 * dt * k1o, k2o = accel(th + 0.5 * dt * k1t, k2t);
    const double k3t = om + 0.5 * dt * k2o, k3o = accel(th + 0.5 * dt * k2t, k3t);
    const double k4t = om + dt * k3o, k4o = accel(th + dt * k3t, k4t);
    const double th_next = th + dt / 6.0 * (k1t + 2 * k2t + 2 * k3t + k4t);
    om += dt / 6.0 * (k1o + 2 * k2o + 2 * k3o + k4o);
    if (th < 0.0 && th_next >= 0.0) crossings.push_back(t + dt * th / (th - th_next));
    th = th_next;
    t += dt;
  }
  ASSERT_EQ(crossings.size(), 2u);
  // The finite amplitude lengthens the period by theta0^2 / 16 = 6e-6.
  EXPECT_NEAR(crossings[1] - crossings[0], period, 2e-5 * period);
}

/// dq/dt for velocity v: the floating joint's quaternion moves by 1/2 [omega; 0] * quat, with omega
/// and the origin velocity rotated into the (fixed) joint frame.
VecX configurationRate(const Articulation& a, const VecX& q, const VecX& v) {
  VecX qdot = VecX::Zero(a.nq());
  for (const ArticulationLink& l : a.links) {
    if (l.joint == Type::Revolute || l.joint == Type::Prismatic) qdot(l.q_index) = v(l.v_index);
    if (l.joint == Type::Floating) {
      const Quat R0 = l.joint_origin.orientation;
      qdot.segment<3>(l.q_index) = R0.conjugate() * v.segment<3>(l.v_index);
      const Vec3 w = R0.conjugate() * v.segment<3>(l.v_index + 3);
      const Quat r(q(l.q_index + 6), q(l.q_index + 3), q(l.q_index + 4), q(l.q_index + 5));
      qdot.segment<4>(l.q_index + 3) = 0.5 * (Quat(0.0, w.x(), w.y(), w.z()) * r).coeffs();
    }
  }
  return qdot;
}

TEST(Articulation, FreeMotionConservesEnergy) {
  // Classical RK4 on (q, v) (the quaternion as four numbers): mass matrix, bias forces and the
  // floating joint's conventions all have to agree for the energy to stay put to ~1e-9.
  std::mt19937 rng(7);
  for (const auto& model : models()) {
    const std::string& name = model.first;
    const Articulation& a = model.second;  // a plain reference: lambdas capture it
    SCOPED_TRACE(name);
    VecX q = randomConfiguration(a, rng);
    VecX v = randomVector(a.nv(), rng, 2.0);
    auto energy = [&] { return kineticEnergy(a, q, v) + potentialEnergy(a, q); };
    const double e0 = energy();
    const double scale = kineticEnergy(a, q, v);
    auto acceleration = [&](const VecX& qs, const VecX& vs) -> VecX {
      MatX M;
      VecX bias;
      massMatrix(a, qs, M);
      biasForces(a, qs, vs, kGravity, bias);
      return M.llt().solve(-bias);
    };
    const double dt = 1e-3;
    double max_kinetic = scale;
    for (int k = 0; k < int(1.0 / dt); ++k) {
      const VecX k1q = configurationRate(a, q, v), k1v = acceleration(q, v);
      const VecX q2 = q + 0.5 * dt * k1q, v2 = v + 0.5 * dt * k1v;
      const VecX k2q = configurationRate(a, q2, v2), k2v = acceleration(q2, v2);
      const VecX q3 = q + 0.5 * dt * k2q, v3 = v + 0.5 * dt * k2v;
      const VecX k3q = configurationRate(a, q3, v3), k3v = acceleration(q3, v3);
      const VecX q4 = q + dt * k3q, v4 = v + dt * k3v;
      const VecX k4q = configurationRate(a, q4, v4), k4v = acceleration(q4, v4);
      q += dt / 6.0 * (k1q + 2.0 * k2q + 2.0 * k3q + k4q);
      v += dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
      max_kinetic = std::max(max_kinetic, kineticEnergy(a, q, v));
    }
    // RK4's error: 1.4e-6 J on the triple pendulum at this step, 16 times less at half of it.
    EXPECT_LT(std::abs(energy() - e0), 1e-6 * max_kinetic) << energy() - e0;
    // The motion went somewhere: energy moved between kinetic and potential.
    EXPECT_GT(std::abs(kineticEnergy(a, q, v) - scale), 1e-3 * scale);
  }
}

TEST(Articulation, WorkspaceCallsDoNotAllocate) {
  const Articulation a = arm7();
  std::mt19937 rng(8);
  const VecX q = randomConfiguration(a, rng), v = randomVector(a.nv(), rng);
  ArticulationWorkspace ws;
  MatX M;
  VecX tau, bias;
  massMatrix(a, q, M, ws);
  inverseDynamics(a, q, v, v, kGravity, tau, ws);
  biasForces(a, q, v, kGravity, bias, ws);
  kineticEnergy(a, q, v);
#ifdef EIGEN_RUNTIME_NO_MALLOC
  Eigen::internal::set_is_malloc_allowed(false);
  massMatrix(a, q, M, ws);
  inverseDynamics(a, q, v, v, kGravity, tau, ws);
  biasForces(a, q, v, kGravity, bias, ws);
  EXPECT_GT(kineticEnergy(a, q, v), 0.0);  // uses the thread's workspace, warmed above
  Eigen::internal::set_is_malloc_allowed(true);
#endif
  EXPECT_EQ(M.rows(), a.nv());
}

// finalize() errors: one broken field each; the message names the articulation, link and field.
void expectFinalizeError(Articulation a, const std::string& fragment) {
  try {
    a.finalize();
    FAIL() << "no error, expected one mentioning: " << fragment;
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("articulation '" + a.name + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
  }
}

TEST(ArticulationFinalize, ParentAfterChild) {
  Articulation a = arm7();
  a.links[2].parent = 5;
  expectFinalizeError(a, "link 'link3': parent 5 is not before it");
}

TEST(ArticulationFinalize, ZeroAxis) {
  Articulation a = arm7();
  a.links[1].axis = Vec3::Zero();
  expectFinalizeError(a, "link 'link2': axis is zero");
}

TEST(ArticulationFinalize, NonUnitAxis) {
  Articulation a = arm7();
  a.links[3].axis = Vec3(0, 0, 2);
  expectFinalizeError(a, "link 'link4': axis is not a unit vector");
}

TEST(ArticulationFinalize, NegativeMass) {
  Articulation a = planarPendulum();
  a.links[1].mass = -1.0;
  expectFinalizeError(a, "link 'l2': mass -1.000000 is negative");
}

TEST(ArticulationFinalize, InertiaNotPositiveDefinite) {
  Articulation a = planarPendulum();
  a.links[2].inertia = Vec3(0.1, 0.1, -0.01).asDiagonal();
  expectFinalizeError(a, "link 'l3': inertia is not positive definite");
}

TEST(ArticulationFinalize, InertiaNotSymmetric) {
  Articulation a = planarPendulum();
  a.links[0].inertia(0, 1) += 0.01;
  expectFinalizeError(a, "link 'l1': inertia is not symmetric");
}

TEST(ArticulationFinalize, LowerAboveUpper) {
  Articulation a = planarPendulum();
  a.links[1].limited = true;
  a.links[1].lower = 1.0;
  a.links[1].upper = -1.0;
  expectFinalizeError(a, "link 'l2': lower limit 1.000000 > upper limit -1.000000");
}

TEST(ArticulationFinalize, FloatingJointNotOnRoot) {
  Articulation a = floatingTree();
  a.links[2].joint = Type::Floating;
  expectFinalizeError(a, "link 'right': floating joint 'right_joint' is not on a root link");
}

TEST(ArticulationFinalize, NonFiniteValue) {
  Articulation a = arm7();
  a.links[4].com.y() = std::numeric_limits<double>::quiet_NaN();
  expectFinalizeError(a, "link 'link5': com is not finite");
  Articulation b = arm7();
  b.links[0].joint_origin.position.x() = std::numeric_limits<double>::infinity();
  expectFinalizeError(b, "link 'link1': joint_origin position is not finite");
}

TEST(ArticulationFinalize, JointMovingNoMass) {
  Articulation a = planarPendulum();
  a.links[2].mass = 0.0;
  a.links[2].inertia.setZero();
  expectFinalizeError(a, "link 'l3': joint 'l3_joint' moves no mass");
  // A massless link is fine when its subtree carries mass.
  Articulation b = planarPendulum();
  b.links[1].mass = 0.0;
  b.links[1].inertia.setZero();
  EXPECT_NO_THROW(b.finalize());
}

TEST(ArticulationFinalize, DuplicateName) {
  Articulation a = planarPendulum();
  a.links[2].name = "l1";
  expectFinalizeError(a, "link 'l1': name is also used by link 0");
}

}  // namespace
}  // namespace subsim
