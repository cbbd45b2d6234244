// The Cosserat cable (model/cosserat_cable.hpp) against beam theory, the catenary, its stiffness
// rules and conservation laws.
#include "subsim/model/cosserat_cable.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <numbers>

#include "subsim/solvers/subadmm_solver.hpp"
#include "test_support.hpp"

namespace subsim {
namespace {

constexpr double pi = std::numbers::pi;

World worldFor(Model m, const std::string& solver, int iterations, double tolerance,
               int group = 4) {
  WorldSettings ws;
  ws.solver = solver;
  ws.solver_settings.max_iterations = iterations;
  ws.solver_settings.tolerance = tolerance;
  ws.partitioner = makeGroupedPartitioner(group);
  return World(std::move(m), ws);
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(CosseratCable, StiffnessFollowsTheSectionFormulas) {
  CosseratCableSpec spec;  // the digest's cable: 1.2 m, r = 4 mm, 640 segments, 0.1 MPa, 0.49
  spec.damping_time = 0.02;
  const double L = 1.2 / 640, E = 1e5, G = E / (2.0 * 1.49), r = 0.004;
  const double A = pi * r * r, I = pi * std::pow(r, 4) / 4.0, J = pi * std::pow(r, 4) / 2.0;
  const double ks = 6.0 * 1.49 / (7.0 + 6.0 * 0.49);
  const RodCoupling c = cosseratCouplingFor(spec);
  const double expected[6] = {ks * G * A / L, ks * G * A / L, E * A / L,
                              E * I / L,      E * I / L,      G * J / L};
  for (int k = 0; k < 6; ++k) {
    EXPECT_NEAR(c.stiffness(k), expected[k], 1e-12 * expected[k]) << "row " << k;
    EXPECT_NEAR(c.damping(k), 0.02 * expected[k], 1e-12 * expected[k]) << "row " << k;
  }
  spec.shear_coefficient = 1.0;
  EXPECT_NEAR(cosseratCouplingFor(spec).shear_stiffness[0], G * A / L, 1e-12 * G * A / L);

  Model m;
  const CosseratCable cable = addCosseratCable(m, spec);
  EXPECT_EQ(cable.segments, 640);
  EXPECT_EQ(cable.couplings, 639);
  EXPECT_EQ(m.rod_couplings.size(), 639u);
  EXPECT_NEAR(m.bodies[0].mass, 1100.0 * A * L, 1e-15);
  EXPECT_NEAR(m.bodies[0].inertia(2, 2), 0.5 * m.bodies[0].mass * r * r, 1e-18);
  EXPECT_FALSE(m.jointsAllowCollision(cable.first_body + 3, cable.first_body + 4));
  const Vec3 junction = m.bodies[0].initial_pose.transformPoint(m.rod_couplings[0].anchor_a);
  EXPECT_LT(
      (junction - m.bodies[1].initial_pose.transformPoint(m.rod_couplings[0].anchor_b)).norm(),
      1e-15);
  EXPECT_NEAR(junction.x(), L, 1e-15);
  EXPECT_NO_THROW(m.validate());
}

TEST(CosseratCable, RejectsBadSpecsNamingTheField) {
  const auto message = [](auto edit) {
    CosseratCableSpec spec;
    spec.segments = 4;
    edit(spec);
    Model m;
    try {
      addCosseratCable(m, spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([](CosseratCableSpec& s) { s.radius = 0.0; }).rfind("cable.radius:", 0), 0u);
  EXPECT_EQ(message([](CosseratCableSpec& s) { s.segments = 0; }).rfind("cable.segments:", 0), 0u);
  EXPECT_EQ(message([](CosseratCableSpec& s) { s.poisson = 0.5; }).rfind("cable.poisson:", 0), 0u);
  EXPECT_EQ(message([](CosseratCableSpec& s) { s.young = -1.0; }).rfind("cable.young:", 0), 0u);
  EXPECT_EQ(message([](CosseratCableSpec& s) { s.density = 0.0; }).rfind("cable.density:", 0), 0u);
  EXPECT_EQ(
      message([](CosseratCableSpec& s) { s.damping_time = -1.0; }).rfind("cable.damping_time:", 0),
      0u);
  EXPECT_EQ(message([](CosseratCableSpec& s) {
              s.direction = Vec3(1, 1, 0);
            }).rfind("cable.direction:", 0),
            0u);

  Model m;
  CosseratCableSpec spec;
  spec.segments = 4;
  addCosseratCable(m, spec);
  m.rod_couplings[2].bend_stiffness[1] = -1.0;
  try {
    m.validate();
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "rod_couplings[2].bend_stiffness: expected >= 0");
  }
  m.rod_couplings[2].bend_stiffness[1] = 1.0;
  m.rod_couplings[1].body_b = 1;
  EXPECT_THROW(m.validate(), std::invalid_argument);  // a coupling of a body with itself
}

TEST(CosseratCable, ClampedRodBendsByTheBeamFormula) {
  // Euler-Bernoulli cantilever: a tip load P deflects the tip by P L^3 / (3 E I).  The first
  // segment is welded to the world, so the beam is clamped at its centre and L is the distance
  // between the first and last segment centres (the junction springs are then the midpoint rule
  // of the bending integral, exact to 1 / (4 (n-1)^2)); P acts at the last segment's centre.
  CosseratCableSpec spec;
  spec.length = 0.3;
  spec.segments = 30;
  spec.young = 1e7;
  // Critical damping of the first bending mode (w1 = 3.516 sqrt(EI / (rho A L^4)) = 8 rad/s):
  // damping_time = 2 / w1.  Every higher mode is then overdamped with time constant <= 0.25 s.
  spec.damping_time = 0.25;
  spec.collide = false;
  Model m;
  m.gravity = Vec3::Zero();
  const CosseratCable cable = addCosseratCable(m, spec);
  m.addJointAtWorld(JointType::Weld, cable.first_body, -1,
                    m.bodies[cable.first_body].initial_pose.position);
  const double r = spec.radius, EI = spec.young * pi * std::pow(r, 4) / 4.0;
  const double beam = (spec.segments - 1) * cable.segment_length;
  const double expected = 0.015 * spec.length;  // 1.5 % of the length: small deflection
  const double P = expected * 3.0 * EI / std::pow(beam, 3);
  const int tip = cable.first_body + cable.segments - 1;
  World w = worldFor(m, "subadmm", 500, 1e-12);
  w.setController(
      [&](const Model&, const State&, BodyForces& f) { f.force[tip] = -P * Vec3::UnitZ(); });
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < 300; ++k) ASSERT_FALSE(w.step().diverged);
  const double deflection = -w.state().pose[tip].position.z();
  const double ratio = deflection / expected;
  std::printf("[ cantilever ] deflection %.4g m, P L^3/(3EI) %.4g m, ratio %.4f, %.2f s\n",
              deflection, expected, ratio, secondsSince(t0));
  EXPECT_NEAR(ratio, 1.0, 0.1);
  EXPECT_LT(w.state().linear_velocity[tip].norm(), 1e-3 * expected);  // settled
}

/// Length parameter a of the catenary y = a cosh(x / a) of length S over span D:
/// S = 2 a sinh(D / (2 a)), by bisection (S / D grows monotonically as a falls).
double catenaryParameter(double S, double D) {
  double lo = 1e-3 * D, hi = 1e3 * D;
  for (int k = 0; k < 200; ++k) {
    const double a = std::sqrt(lo * hi);
    (2.0 * a * std::sinh(D / (2.0 * a)) > S ? lo : hi) = a;
  }
  return std::sqrt(lo * hi);
}

TEST(CosseratCable, HangingCableSagsLikeACatenary) {
  // A flexible cable pinned at both ends by ball joints, span D < length S.  Bending is
  // negligible: sqrt(EI / T) ~ 2 cm against a sag of ~0.4 m; stretch is ~0.5 %.
  const double S = 1.2, D = 0.9;
  CosseratCableSpec spec;
  spec.length = S;
  spec.radius = 0.002;
  spec.segments = 40;
  spec.young = 1e6;
  spec.collide = false;
  Model m;
  const CosseratCable cable = addCosseratCable(m, spec);
  // Start as a V between the supports (the straight rest shape does not fit the span).
  const double depth = std::sqrt(0.25 * S * S - 0.25 * D * D);
  const Vec3 left(-0.5 * D, 0.0, 0.0), bottom(0.0, 0.0, -depth);
  const Vec3 down = (bottom - left).normalized(), up = (Vec3(0.5 * D, 0, 0) - bottom).normalized();
  const int half = spec.segments / 2;
  for (int i = 0; i < spec.segments; ++i) {
    const bool first_half = i < half;
    const Vec3 u = first_half ? down : up;
    const double s = ((first_half ? i : i - half) + 0.5) * cable.segment_length;
    m.bodies[cable.first_body + i].initial_pose =
        Pose{(first_half ? left : bottom) + s * u, Quat::FromTwoVectors(Vec3::UnitZ(), u)};
  }
  const int last = cable.first_body + spec.segments - 1;
  m.addJointAtWorld(JointType::Ball, cable.first_body, -1, left);
  m.addJointAtWorld(JointType::Ball, last, -1, Vec3(0.5 * D, 0, 0));
  // Air drag settles the swing; it vanishes at rest and so does not move the equilibrium.
  const double drag = 5.0;  // 1/s
  World w = worldFor(m, "subadmm", 300, 1e-10);
  w.setController([&](const Model& model, const State& s, BodyForces& f) {
    for (int i = 0; i < spec.segments; ++i) {
      const int b = cable.first_body + i;
      f.force[b] = -drag * model.bodies[b].mass * s.linear_velocity[b];
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < 400; ++k) ASSERT_FALSE(w.step().diverged);
  const Vec3 middle = w.state().pose[cable.first_body + half - 1].transformPoint(
      Vec3(0, 0, 0.5 * cable.segment_length));
  const double sag = -middle.z();
  const double a = catenaryParameter(S, D);
  const double expected = a * (std::cosh(D / (2.0 * a)) - 1.0);
  std::printf("[ catenary ] sag %.4g m, catenary %.4g m (a = %.4g m), ratio %.4f, %.2f s\n", sag,
              expected, a, sag / expected, secondsSince(t0));
  EXPECT_NEAR(sag / expected, 1.0, 0.1);
  EXPECT_LT(std::abs(middle.x()), 1e-3);  // symmetric
}

Vec3 momentum(const World& w) {
  Vec3 p = Vec3::Zero();
  for (size_t b = 0; b < w.model().bodies.size(); ++b)
    p += w.model().bodies[b].mass * w.state().linear_velocity[b];
  return p;
}

TEST(CosseratCable, FreeCableKeepsItsShapeAndMomentum) {
  CosseratCableSpec spec;
  spec.length = 0.4;
  spec.segments = 16;
  spec.direction = Vec3(1, 2, 2).normalized();
  spec.initial_velocity = Vec3(0.3, -0.2, 0.1);
  Model m;
  m.gravity = Vec3::Zero();
  const CosseratCable cable = addCosseratCable(m, spec);
  World w = worldFor(m, "subadmm", 60, 1e-9);
  const Vec3 p0 = momentum(w);
  for (int k = 0; k < 100; ++k) ASSERT_FALSE(w.step().diverged);
  const double t = w.state().time;
  for (int i = 0; i < cable.segments; ++i) {
    const int b = cable.first_body + i;
    const Pose& start = m.bodies[b].initial_pose;
    EXPECT_LT((w.state().pose[b].position - (start.position + t * spec.initial_velocity)).norm(),
              1e-9);
    EXPECT_LT(w.state().pose[b].orientation.angularDistance(start.orientation), 1e-8);
  }
  EXPECT_LT((momentum(w) - p0).norm(), 1e-9 * p0.norm());

  // Kicked in the middle: the cable vibrates, but internal forces keep the momentum (to the
  // solver's tolerance: SubADMM balances the impulses between subsystems only at convergence)
  // and the damping only takes energy out.
  State s = w.state();
  s.linear_velocity[cable.first_body + 7] += Vec3(0.0, 0.0, 0.5);
  s.angular_velocity[cable.first_body + 3] += Vec3(2.0, 0.0, 0.0);
  w.setState(s);
  const Vec3 p1 = momentum(w);
  double energy = w.kineticEnergy();
  for (int k = 0; k < 100; ++k) {
    ASSERT_FALSE(w.step().diverged);
    EXPECT_LT(w.kineticEnergy(), energy * (1.0 + 1e-6) + 1e-12) << "step " << k;
    energy = std::max(energy, w.kineticEnergy());
  }
  EXPECT_LT((momentum(w) - p1).norm(), 1e-4 * p1.norm());
}

TEST(CosseratCable, CouplingsFoldedIntoASubsystemMatchConstraintRows) {
  // Couplings inside one subsystem enter A_i and b_i instead of the constraint rows: the same
  // step, solved exactly, with one segment per subsystem (all rows) and four (3 of 4 folded).
  CosseratCableSpec spec;
  spec.length = 0.2;
  spec.segments = 8;
  spec.young = 1e6;
  spec.collide = false;
  Model m;
  const CosseratCable cable = addCosseratCable(m, spec);
  m.addJointAtWorld(JointType::Ball, cable.first_body, -1, spec.start);
  for (int i = 0; i < cable.segments; ++i) {
    m.bodies[i].initial_linear_velocity = Vec3(0.1 * i, -0.05 * i * i, 0.2);
    m.bodies[i].initial_angular_velocity = Vec3(0.5, -1.0 * i, 0.3 * i);
  }
  World rows = worldFor(m, "canal", 100, 1e-13, 1), folded = worldFor(m, "canal", 100, 1e-13, 4);
  for (int k = 0; k < 3; ++k) {
    rows.step();
    folded.step();
  }
  EXPECT_EQ(rows.lastProblem().numConstraints(), 1 + cable.couplings);
  EXPECT_EQ(folded.lastProblem().numConstraints(), 1 + 1);  // the joint and the coupling 3-4
  for (int i = 0; i < cable.segments; ++i) {
    EXPECT_LT((rows.state().linear_velocity[i] - folded.state().linear_velocity[i]).norm(), 1e-9)
        << i;
    EXPECT_LT((rows.state().angular_velocity[i] - folded.state().angular_velocity[i]).norm(), 1e-8)
        << i;
  }
}

/// The digest's cable (640 segments, 4 per subsystem) falling from horizontal, pinned at one end,
/// for 0.5 s.  Reference (an exact solve with "canal", the same at dt = 10 ms and 1/240 s): the
/// free end falls freely to z = -1.227 m and the junctions open by 0.187 m in total (E = 0.1 MPa:
/// the cable whips and stretches), the widest by 0.44 mm.
struct FallResult {
  double tip_z = 0.0;
  double total_gap = 0.0;
  double worst_gap = 0.0;
};

FallResult dropPaperCable(double dt, int steps, int iterations, double beta_scale) {
  CosseratCableSpec spec;
  Model m;
  m.dt = dt;
  const CosseratCable cable = addCosseratCable(m, spec);
  m.addJointAtWorld(JointType::Ball, cable.first_body, -1, spec.start);
  WorldSettings ws;
  ws.solver_settings.max_iterations = iterations;
  ws.solver_settings.tolerance = 0.0;
  ws.solver_options = {{"beta_scale", option_text::formatDouble(beta_scale)}};
  ws.partitioner = makeGroupedPartitioner(4);
  World w(std::move(m), ws);
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < steps; ++k) {
    const StepReport report = w.step();
    EXPECT_FALSE(report.diverged) << "step " << k << ": " << report.divergence;
    if (report.diverged) return FallResult{};
  }
  FallResult result;
  for (int c = 0; c < cable.couplings; ++c) {
    const RodCoupling& rc = w.model().rod_couplings[cable.first_coupling + c];
    const double gap = (w.state().pose[rc.body_a].transformPoint(rc.anchor_a) -
                        w.state().pose[rc.body_b].transformPoint(rc.anchor_b))
                           .norm();
    result.worst_gap = std::max(result.worst_gap, gap);
    result.total_gap += gap;
  }
  result.tip_z = w.state().pose[cable.first_body + cable.segments - 1].position.z();
  std::printf(
      "[ paper cable ] dt %.4g s, %d iterations, beta_scale %g: %d steps in %.2f s; tip z %.3f "
      "m, junction gaps %.3g m total, %.3g m widest\n",
      dt, iterations, beta_scale, steps, secondsSince(t0), result.tip_z, result.total_gap,
      result.worst_gap);
  return result;
}

TEST(CosseratCable, PaperCableIsStableWithSubadmmAt10ms) {
  // At the default settings and 30 iterations SubADMM is far from converged on this cable and
  // errs on the stiff, slow side (measured: the free end at -0.62 m instead of -1.23 m, junctions
  // open by 0.12 m in total instead of 0.19 m), but it stays bounded.
  const FallResult coarse = dropPaperCable(0.01, 50, 30, SubadmmOptions().beta_scale);
  EXPECT_LT(coarse.tip_z, -0.3);
  EXPECT_LT(coarse.worst_gap, 0.012);
  // With 90 iterations and a 10 times smaller penalty it follows the exact solve (measured: tip
  // -1.227 m, gaps 0.187 m).
  const FallResult fine = dropPaperCable(0.01, 50, 90, 0.1);
  EXPECT_NEAR(fine.tip_z, -1.227, 0.05);
  EXPECT_NEAR(fine.total_gap, 0.187, 0.03);
}

TEST(CosseratCable, TautCableDoesNotSpinUpAt10ms) {
  // The digest's cable (160 segments here, for time) pinned at both ends at its rest length sags
  // by stretching (E = 0.1 MPa).  Its tension acts on each segment through the lever of its end,
  // a stiffness T l / 2 against the segment's tiny rotational inertia: (560 rad/s)^2 at T = 0.3 N.
  // Without the geometric-stiffness term in A_i (assembly/rod_rows.cpp) the segments spun at
  // 2000 rad/s by step 60 here and the 640-segment cable diverged at step 55, both measured
  // with this near-exact solve (300 iterations).
  CosseratCableSpec spec;
  spec.segments = 160;
  spec.collide = false;
  Model m;
  m.dt = 0.01;
  const CosseratCable cable = addCosseratCable(m, spec);
  m.addJointAtWorld(JointType::Ball, cable.first_body, -1, spec.start);
  m.addJointAtWorld(JointType::Ball, cable.first_body + cable.segments - 1, -1,
                    spec.start + spec.length * spec.direction);
  World w = worldFor(std::move(m), "subadmm", 300, 0.0);
  double max_spin = 0.0;
  for (int k = 0; k < 60; ++k) {
    const StepReport report = w.step();
    ASSERT_FALSE(report.diverged) << "step " << k << ": " << report.divergence;
    for (int i = 0; i < cable.segments; ++i)
      max_spin = std::max(max_spin, w.state().angular_velocity[cable.first_body + i].norm());
  }
  const double mid_z = w.state().pose[cable.first_body + cable.segments / 2].position.z();
  std::printf("[ taut cable ] sag %.3f m, max segment spin %.3g rad/s\n", -mid_z, max_spin);
  // Measured: sag 0.067 m, spin 10 rad/s (the ends of a sagging cable turn by ~1 rad in 0.1 s).
  EXPECT_LT(max_spin, 30.0);
  EXPECT_LT(mid_z, -0.05);
}

TEST(CosseratCable, PaperCableIsStableWithSubadmmAt240Hz) {
  const FallResult coarse = dropPaperCable(1.0 / 240.0, 120, 30, SubadmmOptions().beta_scale);
  EXPECT_LT(coarse.tip_z, -0.05);
  EXPECT_LT(coarse.worst_gap, 0.5 * 1.2 / 640);
}

}  // namespace
}  // namespace subsim
