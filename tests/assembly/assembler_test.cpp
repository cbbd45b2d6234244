// The assemble stage against hand-derived values (assembly/assembler.hpp): a rigid body's block
// A = M / (1 - theta) and b = M v / (1 - theta) + h f, a contact's rows [n, t1, t2] and error
// e = gap / h (open) or erp * gap / h (penetrating), and a joint's rows and error e = C / h.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "subsim/assembly/assembler.hpp"
#include "subsim/model/integrator.hpp"
#include "subsim/model/model.hpp"
#include "subsim/model/state.hpp"
#include "subsim/partition/partition.hpp"

namespace subsim {
namespace {

constexpr double kTol = 1e-12;

/// A static ground plane (shape 0) and one dynamic box (body 1, shape 1), tilted and moving.
struct BoxOnPlane {
  Model model;
  int box = -1;
  int box_shape = -1;
  int plane_shape = -1;

  BoxOnPlane() {
    model.dt = 0.01;
    model.theta = 0.49;
    model.gravity = Vec3(0.5, -0.25, -9.81);
    model.contact.erp = 0.2;
    const int ground = model.addBody(namedBody("ground", BodyKind::Static));
    plane_shape = model.addShape(ground, Shape::plane());
    Body b = namedBody("box", BodyKind::Dynamic, 2.5);
    b.inertia = Vec3(0.01, 0.02, 0.03).asDiagonal();
    b.initial_pose.position = Vec3(0.1, -0.2, 0.06);
    b.initial_pose.orientation = Quat(Eigen::AngleAxisd(0.3, Vec3(1.0, 2.0, 3.0).normalized()));
    b.initial_linear_velocity = Vec3(0.3, -0.2, -0.5);
    b.initial_angular_velocity = Vec3(1.0, -2.0, 0.5);
    box = model.addBody(b);
    box_shape = model.addShape(box, Shape::box(Vec3(0.05, 0.05, 0.05)));
    model.validate();
  }

  StepProblem assemble(const std::vector<ContactPoint>& contacts,
                       const BodyForces* forces_in = nullptr) const {
    const Partition partition = makeOneBodyPerSubsystemPartitioner()->partition(model);
    const State state = State::initial(model);
    BodyForces forces;
    forces.reset(static_cast<int>(model.bodies.size()));
    if (forces_in != nullptr) forces = *forces_in;
    Assembler assembler;
    StepProblem problem;
    assembler.assemble(model, partition, state, forces, contacts, model.dt, problem);
    EXPECT_EQ(problem.check(), "");
    return problem;
  }

  /// A contact of the box (A) on the plane (B): normal from B to A.
  ContactPoint contact(const Vec3& point, double gap, std::uint32_t feature) const {
    ContactPoint c;
    c.object_a = box_shape;
    c.object_b = plane_shape;
    c.geometry = ManifoldPoint{point, Vec3::UnitZ(), gap, feature};
    return c;
  }
};

TEST(Assembler, RigidBodyBlockIsMassOverOneMinusThetaAndMomentumPlusImpulse) {
  const BoxOnPlane s;
  BodyForces forces;
  forces.reset(2);
  forces.force[s.box] = Vec3(1.0, 2.0, 3.0);
  forces.torque[s.box] = Vec3(-0.1, 0.2, 0.3);
  const StepProblem p = s.assemble({}, &forces);
  ASSERT_EQ(p.numSubsystems(), 1);
  ASSERT_EQ(p.numDof(), 6);
  EXPECT_EQ(p.numConstraints(), 0);

  const Body& body = s.model.bodies[s.box];
  const double h = s.model.dt, g = 1.0 / (1.0 - s.model.theta);
  const Mat3 R = body.initial_pose.orientation.toRotationMatrix();
  const Mat3 I_world = R * body.inertia * R.transpose();
  Mat6 M = Mat6::Zero();
  M.topLeftCorner<3, 3>() = body.mass * Mat3::Identity();
  M.bottomRightCorner<3, 3>() = I_world;
  Vec6 v, f;
  v << body.initial_linear_velocity, body.initial_angular_velocity;
  f << body.mass * s.model.gravity + forces.force[s.box], forces.torque[s.box];

  // The gyroscopic impulse I_k (w' - w_k) of the torque-free rotation (model/integrator.hpp).
  Vec6 gyroscopic = Vec6::Zero();
  const Vec3& w = body.initial_angular_velocity;
  gyroscopic.tail<3>() =
      I_world * (gyroscopicEndVelocity(body, body.initial_pose.orientation, w, h) - w);

  const MatX A = p.A(0);
  const VecX b = p.bBlock(0);
  EXPECT_LT((A - g * M).norm(), kTol * M.norm());
  EXPECT_GT(gyroscopic.norm(), 1e-6) << "the box's spin should have a gyroscopic impulse";
  EXPECT_LT((b - (g * M * v + h * f + gyroscopic)).norm(), kTol * b.norm());
  EXPECT_DOUBLE_EQ(thetaFactor(s.model.theta), g);
  // SPD, symmetric.
  EXPECT_LT((A - A.transpose()).norm(), kTol * A.norm());
}

// The model's constant wrench (Body::applied_force, applied_torque) enters exactly as a
// controller's does: the same problem either way, and both add up.
TEST(Assembler, AppliedWrenchIsTheSameImpulseAsAControllersForce) {
  BoxOnPlane with_wrench;
  with_wrench.model.bodies[with_wrench.box].applied_force = Vec3(1.0, 2.0, 3.0);
  with_wrench.model.bodies[with_wrench.box].applied_torque = Vec3(-0.1, 0.2, 0.3);
  const BoxOnPlane plain;
  BodyForces forces;
  forces.reset(2);
  forces.force[plain.box] = Vec3(1.0, 2.0, 3.0);
  forces.torque[plain.box] = Vec3(-0.1, 0.2, 0.3);
  const VecX b_model = with_wrench.assemble({}).bBlock(0);
  const VecX b_controller = plain.assemble({}, &forces).bBlock(0);
  EXPECT_LT((b_model - b_controller).norm(), kTol * b_model.norm());
  const VecX b_both = with_wrench.assemble({}, &forces).bBlock(0);
  const VecX b_none = plain.assemble({}).bBlock(0);
  EXPECT_LT((b_both - b_none - 2.0 * (b_controller - b_none)).norm(), kTol * b_both.norm());
  // Only on a dynamic body.
  Model m = plain.model;
  m.bodies[0].applied_torque = Vec3(0, 0, 1);
  EXPECT_THROW(m.validate(), std::invalid_argument);
  m.bodies[0].applied_torque = Vec3::Zero();
  m.bodies[plain.box].applied_force = Vec3(0, std::nan(""), 0);
  EXPECT_THROW(m.validate(), std::invalid_argument);
}

TEST(Assembler, ContactRowsAreTheRelativeVelocityAlongNormalAndTangents) {
  const BoxOnPlane s;
  const Vec3 point(0.12, -0.17, 0.0);
  const StepProblem p = s.assemble({s.contact(point, 0.002, 7)});
  ASSERT_EQ(p.numConstraints(), 1);
  const Constraint& c = p.constraints[0];
  EXPECT_EQ(c.type, ConstraintType::Contact);
  EXPECT_EQ(c.rows, 3);
  EXPECT_NE(c.key, 0u);
  EXPECT_EQ(c.key, contactKey(s.box_shape, s.plane_shape, 7));
  ASSERT_EQ(c.num_attachments, 1) << "the static plane has no subsystem";
  const Attachment& a = p.attachments[c.first_attachment];
  const MatX J = p.denseJ(a);

  // J twist = [n; t1; t2] . (v + w x r), r from the box's centre to the contact point; the
  // tangents complete an orthonormal frame.
  const Vec3 r = point - s.model.bodies[s.box].initial_pose.position;
  Vec6 twist;
  twist << 0.4, -1.1, 0.7, 2.0, 0.3, -0.9;
  const Vec3 point_velocity = twist.head<3>() + twist.tail<3>().cross(r);
  const VecX Jv = J * twist;
  EXPECT_NEAR(Jv[0], Vec3::UnitZ().dot(point_velocity), kTol);
  Mat3 frame;
  for (int k = 0; k < 3; ++k) frame.row(k) = J.row(k).head<3>();
  EXPECT_LT((frame * frame.transpose() - Mat3::Identity()).norm(), kTol);
  EXPECT_NEAR((frame.transpose() * Jv - point_velocity).norm(), 0.0, kTol);
}

TEST(Assembler, ContactErrorIsGapOverHOpenAndErpTimesGapOverHPenetrating) {
  const BoxOnPlane s;
  const double h = s.model.dt, erp = s.model.contact.erp;
  const double open = 0.002, penetrating = -0.003;
  const StepProblem p = s.assemble(
      {s.contact(Vec3(0.05, 0.0, 0.0), open, 1), s.contact(Vec3(-0.05, 0.0, 0.0), penetrating, 2)});
  ASSERT_EQ(p.numConstraints(), 2);
  const int r0 = p.constraints[0].row_offset, r1 = p.constraints[1].row_offset;
  EXPECT_DOUBLE_EQ(p.e[r0], open / h);
  EXPECT_DOUBLE_EQ(p.e[r1], erp * penetrating / h);
  for (int k = 1; k < 3; ++k) {
    EXPECT_EQ(p.e[r0 + k], 0.0) << "tangent row " << k;
    EXPECT_EQ(p.e[r1 + k], 0.0) << "tangent row " << k;
  }
}

/// A link hanging from a world pivot at the origin: body 0 at (0, 0, -0.5).
Model hangingLink(JointType type) {
  Model m;
  m.dt = 0.01;
  Body link = namedBody("link", BodyKind::Dynamic, 1.0);
  link.inertia = Vec3(0.02, 0.02, 0.001).asDiagonal();
  link.initial_pose.position = Vec3(0.0, 0.0, -0.5);
  const int b = m.addBody(link);
  m.addShape(b, Shape::capsule(0.02, 0.45));
  m.addJointAtWorld(type, b, -1, Vec3::Zero(), Vec3::UnitY());
  m.validate();
  return m;
}

StepProblem assembleJoint(const Model& m, const State& state) {
  const Partition partition = makeOneBodyPerSubsystemPartitioner()->partition(m);
  BodyForces forces;
  forces.reset(static_cast<int>(m.bodies.size()));
  Assembler assembler;
  StepProblem problem;
  assembler.assemble(m, partition, state, forces, {}, m.dt, problem);
  EXPECT_EQ(problem.check(), "");
  return problem;
}

TEST(Assembler, BallJointRowsAreTheAnchorVelocityAndErrorOverH) {
  const Model m = hangingLink(JointType::Ball);
  State state = State::initial(m);
  StepProblem p = assembleJoint(m, state);
  ASSERT_EQ(p.numConstraints(), 1);
  const Constraint& c = p.constraints[0];
  EXPECT_EQ(c.type, ConstraintType::Bilateral);
  EXPECT_EQ(c.rows, 3);
  EXPECT_EQ(c.key, jointKey(0, 0));
  ASSERT_EQ(c.num_attachments, 1);
  const MatX J = p.denseJ(p.attachments[c.first_attachment]);
  // J twist = v + w x r: the velocity of the anchor, r from the centre of mass to the pivot.
  const Vec3 r = Vec3::Zero() - m.bodies[0].initial_pose.position;
  Vec6 twist;
  twist << 0.4, -1.1, 0.7, 2.0, 0.3, -0.9;
  EXPECT_LT((J * twist - (twist.head<3>() + twist.tail<3>().cross(r))).norm(), kTol);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(p.e[c.row_offset + k], 0.0) << "at the initial pose";

  // Displaced by d, the anchor is off by C = d: e = C / h removes it within the step.
  const Vec3 d(0.003, -0.001, 0.002);
  state.pose[0].position += d;
  p = assembleJoint(m, state);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(p.e[p.constraints[0].row_offset + k], d[k] / m.dt, kTol);
}

TEST(Assembler, UniversalHingeAndWeldAddOneTwoAndThreeAngularRows) {
  for (const auto& [type, rows] : {std::pair{JointType::Universal, 4},
                                   std::pair{JointType::Hinge, 5}, std::pair{JointType::Weld, 6}}) {
    const Model m = hangingLink(type);
    const StepProblem p = assembleJoint(m, State::initial(m));
    ASSERT_EQ(p.numConstraints(), 1) << jointTypeName(type);
    const Constraint& c = p.constraints[0];
    EXPECT_EQ(c.type, ConstraintType::Bilateral) << jointTypeName(type);
    EXPECT_EQ(c.rows, rows) << jointTypeName(type);
    const MatX J = p.denseJ(p.attachments[c.first_attachment]);
    // The angular rows act on the angular velocity only, across the hinge axis (y) for a hinge.
    EXPECT_EQ(J.bottomRows(rows - 3).leftCols<3>().norm(), 0.0) << jointTypeName(type);
    if (type == JointType::Hinge) {
      EXPECT_LT((J.bottomRows(2).rightCols<3>() * Vec3::UnitY()).norm(), kTol);
    }
    if (type == JointType::Universal) {  // the twist about the shaft (y) and nothing else
      const Vec3 twist_row = J.row(3).tail<3>().transpose();
      EXPECT_NEAR(std::abs(twist_row.y()), 1.0, kTol);
      EXPECT_NEAR(twist_row.norm(), 1.0, kTol);
    }
    for (int k = 0; k < rows; ++k) EXPECT_EQ(p.e[c.row_offset + k], 0.0) << jointTypeName(type);
  }
}

}  // namespace
}  // namespace subsim
