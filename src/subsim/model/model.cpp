#include "subsim/model/model.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "subsim/math/fnv1a_hash.hpp"
#include "subsim/math/so3.hpp"
#include "subsim/model/state.hpp"

namespace subsim {

const char* bodyKindName(BodyKind kind) {
  switch (kind) {
    case BodyKind::Dynamic:
      return "dynamic";
    case BodyKind::Static:
      return "static";
    case BodyKind::Kinematic:
      return "kinematic";
    case BodyKind::Articulated:
      return "articulated";
  }
  return "unknown";
}

const char* jointTypeName(JointType type) {
  switch (type) {
    case JointType::Ball:
      return "ball";
    case JointType::Universal:
      return "universal";
    case JointType::Hinge:
      return "hinge";
    case JointType::Weld:
      return "weld";
  }
  return "unknown";
}

Body namedBody(std::string name, BodyKind kind, double mass) {
  Body b;
  b.name = std::move(name);
  b.kind = kind;
  b.mass = mass;
  return b;
}

int Model::addBody(Body body) {
  body.shapes.clear();
  bodies.push_back(std::move(body));
  return static_cast<int>(bodies.size()) - 1;
}

int Model::addShape(int body, const Shape& shape, const Pose& local_pose, double mu) {
  BodyShape s;
  s.body = body;
  s.shape = shape;
  s.local_pose = local_pose;
  s.mu = mu;
  shapes.push_back(s);
  const int index = static_cast<int>(shapes.size()) - 1;
  bodies.at(body).shapes.push_back(index);
  return index;
}

namespace {
Pose initialPoseOf(const Model& m, int body) {
  return body < 0 ? Pose() : m.bodies.at(body).initial_pose;
}
}  // namespace

int Model::addJointAtWorld(JointType type, int body_a, int body_b, const Vec3& anchor_world,
                           const Vec3& axis_world) {
  const Pose pa = initialPoseOf(*this, body_a);
  const Pose pb = initialPoseOf(*this, body_b);
  Joint j;
  j.type = type;
  j.body_a = body_a;
  j.body_b = body_b;
  j.anchor_a = pa.inverseTransformPoint(anchor_world);
  j.anchor_b = pb.inverseTransformPoint(anchor_world);
  Vec3 pin_a = axis_world.normalized(), pin_b = pin_a;
  if (type == JointType::Universal) tangentBasis(axis_world.normalized(), pin_a, pin_b);
  j.axis_a = pa.orientation.conjugate() * pin_a;
  j.axis_b = pb.orientation.conjugate() * pin_b;
  j.rest_relative = (pb.orientation.conjugate() * pa.orientation).normalized();
  joints.push_back(j);
  return static_cast<int>(joints.size()) - 1;
}

int Model::addSpring(Spring spring) {
  springs.push_back(std::move(spring));
  return static_cast<int>(springs.size()) - 1;
}

int Model::findBody(const std::string& n) const {
  for (size_t i = 0; i < bodies.size(); ++i)
    if (bodies[i].name == n) return static_cast<int>(i);
  return -1;
}

const FrictionPair* Model::frictionPairOf(int shape_a, int shape_b) const {
  const int ba = shapes[shape_a].body, bb = shapes[shape_b].body;
  for (const FrictionPair& p : friction_pairs)
    if ((p.body_a == ba && p.body_b == bb) || (p.body_a == bb && p.body_b == ba)) return &p;
  return nullptr;
}

double Model::frictionBetween(int shape_a, int shape_b) const {
  if (const FrictionPair* pair = frictionPairOf(shape_a, shape_b)) return pair->mu;
  return std::sqrt(shapes[shape_a].mu * shapes[shape_b].mu);
}

bool Model::jointsAllowCollision(int body_a, int body_b) const {
  for (const Joint& j : joints) {
    const bool joins =
        (j.body_a == body_a && j.body_b == body_b) || (j.body_a == body_b && j.body_b == body_a);
    if (joins && !j.collide_connected) return false;
  }
  for (const RodCoupling& r : rod_couplings)
    if ((r.body_a == body_a && r.body_b == body_b) || (r.body_a == body_b && r.body_b == body_a))
      return false;
  return true;
}

namespace {

[[noreturn]] void fail(const std::string& field, const std::string& expected) {
  throw std::invalid_argument(field + ": " + expected);
}

std::string at(const char* list, size_t i, const char* field) {
  std::ostringstream s;
  s << list << "[" << i << "]." << field;
  return s.str();
}

bool finite(const Vec3& v) {
  return v.allFinite();
}

void checkBodyIndex(const Model& m, int body, const std::string& field, bool world_allowed) {
  if (body == -1 && world_allowed) return;
  if (body < 0 || body >= static_cast<int>(m.bodies.size()))
    fail(field, "expected the index of a body");
}

}  // namespace

void Model::validate() const {
  if (!(dt > 0.0) || !std::isfinite(dt)) fail("dt", "expected a positive time step in seconds");
  if (!(theta >= 0.0 && theta <= 0.5)) fail("theta", "expected 0 <= theta <= 0.5");
  if (!finite(gravity)) fail("gravity", "expected three finite numbers");
  if (!(contact.margin >= 0.0)) fail("contact.margin", "expected a non-negative distance");
  if (!(contact.erp >= 0.0 && contact.erp <= 1.0)) fail("contact.erp", "expected 0 <= erp <= 1");
  for (size_t i = 0; i < bodies.size(); ++i) {
    const Body& b = bodies[i];
    if (b.kind == BodyKind::Dynamic) {
      if (!(b.mass > 0.0) || !std::isfinite(b.mass))
        fail(at("bodies", i, "mass"), "expected a positive mass in kg");
      if (!b.inertia.allFinite() ||
          (b.inertia - b.inertia.transpose()).norm() > 1e-12 * b.inertia.norm())
        fail(at("bodies", i, "inertia"), "expected a finite symmetric matrix");
      Eigen::SelfAdjointEigenSolver<Mat3> eig(b.inertia);
      if (!(eig.eigenvalues().minCoeff() > 0.0))
        fail(at("bodies", i, "inertia"), "expected a positive definite inertia");
    }
    if (b.kind == BodyKind::Kinematic) {
      const std::string defect = b.trajectory.defect();
      if (!defect.empty()) fail(at("bodies", i, "trajectory"), "expected " + defect);
    }
    if (!finite(b.initial_pose.position))
      fail(at("bodies", i, "position"), "expected three finite numbers");
    if (!b.initial_pose.orientation.coeffs().allFinite() ||
        std::abs(b.initial_pose.orientation.norm() - 1.0) > 1e-6)
      fail(at("bodies", i, "orientation"), "expected a unit quaternion [w, x, y, z]");
    if (!finite(b.initial_linear_velocity))
      fail(at("bodies", i, "velocity"), "expected three finite numbers");
    if (!finite(b.initial_angular_velocity))
      fail(at("bodies", i, "angular_velocity"), "expected three finite numbers");
    if (!finite(b.applied_force)) fail(at("bodies", i, "force"), "expected three finite numbers");
    if (!finite(b.applied_torque)) fail(at("bodies", i, "torque"), "expected three finite numbers");
    if (b.kind != BodyKind::Dynamic && !(b.applied_force.isZero() && b.applied_torque.isZero()))
      fail(at("bodies", i, "force"),
           "expected no applied force or torque on a body that is not dynamic (" +
               std::string(bodyKindName(b.kind)) + ")");
    if (b.substructure < -1)
      fail(at("bodies", i, "substructure"), "expected a substructure index >= 0, or -1 for none");
  }
  for (size_t i = 0; i < shapes.size(); ++i) {
    const BodyShape& s = shapes[i];
    checkBodyIndex(*this, s.body, at("shapes", i, "body"), false);
    if (!(s.mu >= 0.0) || !std::isfinite(s.mu))
      fail(at("shapes", i, "mu"), "expected a friction coefficient >= 0");
    if (!((s.mu_across >= 0.0 && std::isfinite(s.mu_across)) || s.mu_across == -1.0))
      fail(at("shapes", i, "mu_across"),
           "expected a friction coefficient >= 0 across the friction axis, or -1 (isotropic)");
    if (s.mu_across >= 0.0) {
      if (!finite(s.friction_axis) || !(s.friction_axis.norm() > 0.0))
        fail(at("shapes", i, "friction_axis"), "expected a nonzero direction");
      if (s.body >= 0 && s.body < static_cast<int>(bodies.size()) &&
          bodies[s.body].kind != BodyKind::Static)
        fail(
            at("shapes", i, "mu_across"),
            "anisotropic friction is for a static body's surface; this shape's body is not static");
    }
    const Shape& g = s.shape;
    const bool round = g.type == ShapeType::Sphere || g.type == ShapeType::Capsule ||
                       g.type == ShapeType::Cylinder;
    if (round && !(g.radius > 0.0 && std::isfinite(g.radius)))
      fail(at("shapes", i, "radius"), "expected a positive radius in m");
    if ((g.type == ShapeType::Capsule || g.type == ShapeType::Cylinder) &&
        !(g.half_length > 0.0 && std::isfinite(g.half_length)))
      fail(at("shapes", i, "length"), "expected a positive length in m");
    if (g.type == ShapeType::Box &&
        !(g.half_extents.minCoeff() > 0.0 && g.half_extents.allFinite()))
      fail(at("shapes", i, "size"), "expected three positive lengths in m");
    if (g.type == ShapeType::SignedDistance && !g.field)
      fail(at("shapes", i, "field"), "expected a signed distance field (Shape::signedDistance)");
    if (g.type == ShapeType::Plane && bodies[s.body].kind == BodyKind::Dynamic)
      fail(at("shapes", i, "type"),
           "a plane is unbounded: it may only belong to a static or kinematic body");
  }
  for (size_t i = 0; i < joints.size(); ++i) {
    const Joint& j = joints[i];
    checkBodyIndex(*this, j.body_a, at("joints", i, "a"), false);
    checkBodyIndex(*this, j.body_b, at("joints", i, "b"), true);
    if (j.body_a == j.body_b) fail(at("joints", i, "b"), "expected two different bodies");
    if (j.limited && !(j.lower <= j.upper))
      fail(at("joints", i, "limits"), "expected lower <= upper");
    if (!(j.stiffness >= 0.0) || !(j.damping >= 0.0) || !(j.angular_stiffness >= 0.0) ||
        !(j.angular_damping >= 0.0) ||
        !std::isfinite(j.stiffness + j.damping + j.angular_stiffness + j.angular_damping))
      fail(at("joints", i, "stiffness"), "expected non-negative finite stiffness and damping");
    if (j.compliant() && j.type != JointType::Ball && !(j.angular_stiffness > 0.0))
      fail(at("joints", i, "angular_stiffness"),
           "expected a positive angular stiffness for a compliant universal, hinge or weld");
    if (j.compliant() && j.limited)
      fail(at("joints", i, "limits"), "limits are supported on rigid hinges only");
    const bool has_axes = j.type == JointType::Hinge || j.type == JointType::Universal;
    if (has_axes && (j.axis_a.norm() < 1e-9 || j.axis_b.norm() < 1e-9))
      fail(at("joints", i, "axis"), "expected a non-zero axis");
    if (j.type == JointType::Universal) {
      const Vec3 pin_a = initialPoseOf(*this, j.body_a).rotate(j.axis_a.normalized());
      const Vec3 pin_b = initialPoseOf(*this, j.body_b).rotate(j.axis_b.normalized());
      if (std::abs(pin_a.dot(pin_b)) > 1e-6)
        fail(at("joints", i, "axis"),
             "expected a universal joint's two pins perpendicular at the initial poses, got "
             "cos = " +
                 std::to_string(pin_a.dot(pin_b)));
    }
  }
  for (size_t i = 0; i < deformables.size(); ++i) {
    const DeformableBody& d = deformables[i];
    if (d.piece.empty())
      fail(at("deformables", i, "pieces"), "not split: add deformables with addDeformable()");
    if (!(d.mu >= 0.0)) fail(at("deformables", i, "mu"), "expected a non-negative friction");
    if (!(d.self_contact_exclusion >= 0.0 && d.self_contact_exclusion < 1e300))
      fail(at("deformables", i, "self_contact_exclusion"),
           "expected a non-negative distance in metres (0: from the mesh)");
    for (size_t k = 0; k < d.attachments.size(); ++k) {
      const FemNodeAttachment& a = d.attachments[k];
      const std::string field = at("deformables", i, "attachments") + "[" + std::to_string(k) + "]";
      if (a.node < 0 || a.node >= d.rest_mesh.numNodes())
        fail(field + ".node",
             "expected a node index below " + std::to_string(d.rest_mesh.numNodes()));
      checkBodyIndex(*this, a.body, field + ".body", true);
      if (!finite(a.local_point)) fail(field + ".point", "expected three finite numbers");
    }
  }
  for (size_t i = 0; i < springs.size(); ++i) {
    const Spring& s = springs[i];
    checkBodyIndex(*this, s.body_a, at("springs", i, "a"), true);
    checkBodyIndex(*this, s.body_b, at("springs", i, "b"), true);
    if (!(s.stiffness >= 0.0) || !(s.damping >= 0.0) || !(s.rest_length >= 0.0))
      fail(at("springs", i, "stiffness"),
           "expected non-negative stiffness, damping and rest length");
    for (int b : {s.body_a, s.body_b})
      if (b >= 0 && bodies[b].kind == BodyKind::Kinematic && !(s.stiffness > 0.0))
        fail(at("springs", i, "stiffness"),
             "a spring on a kinematic body needs a positive stiffness (its known velocity enters "
             "the damping through e)");
  }
  for (size_t i = 0; i < rod_couplings.size(); ++i) {
    const RodCoupling& r = rod_couplings[i];
    checkBodyIndex(*this, r.body_a, at("rod_couplings", i, "a"), false);
    checkBodyIndex(*this, r.body_b, at("rod_couplings", i, "b"), true);
    if (r.body_a == r.body_b) fail(at("rod_couplings", i, "b"), "expected two different bodies");
    if (!finite(r.anchor_a) || !finite(r.anchor_b))
      fail(at("rod_couplings", i, "anchor"), "expected three finite numbers");
    for (const Quat* q : {&r.rest_relative, &r.material_frame})
      if (!q->coeffs().allFinite() || std::abs(q->norm() - 1.0) > 1e-6)
        fail(at("rod_couplings", i, q == &r.rest_relative ? "rest_relative" : "material_frame"),
             "expected a unit quaternion");
    const char* names[6] = {"shear_stiffness", "shear_stiffness", "stretch_stiffness",
                            "bend_stiffness",  "bend_stiffness",  "twist_stiffness"};
    const char* damping_names[6] = {"shear_damping", "shear_damping", "stretch_damping",
                                    "bend_damping",  "bend_damping",  "twist_damping"};
    for (int k = 0; k < 6; ++k) {
      if (!(r.stiffness(k) >= 0.0) || !std::isfinite(r.stiffness(k)))
        fail(at("rod_couplings", i, names[k]), "expected >= 0");
      if (!(r.damping(k) >= 0.0) || !std::isfinite(r.damping(k)))
        fail(at("rod_couplings", i, damping_names[k]), "expected >= 0");
    }
    for (int b : {r.body_a, r.body_b})
      if (b >= 0 && bodies[b].kind == BodyKind::Kinematic)
        for (int k = 0; k < 6; ++k)
          if (!(r.stiffness(k) > 0.0))
            fail(at("rod_couplings", i, names[k]),
                 "a coupling to a kinematic body needs positive stiffnesses (its known velocity "
                 "enters the damping through e)");
  }
}

void massPropertiesOf(const Shape& shape, double density, double& mass, Mat3& inertia) {
  mass = density * shape.volume();
  inertia = shape.unitDensityInertia(mass);
}

State State::initial(const Model& model) {
  State s;
  const size_t n = model.bodies.size();
  s.pose.resize(n);
  s.linear_velocity.resize(n);
  s.angular_velocity.resize(n);
  s.midpoint_linear_velocity.resize(n);
  s.midpoint_angular_velocity.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Body& b = model.bodies[i];
    s.pose[i] = b.kind == BodyKind::Kinematic ? b.trajectory.pose(0.0) : b.initial_pose;
    s.linear_velocity[i] = b.initial_linear_velocity;
    s.angular_velocity[i] = b.initial_angular_velocity;
    s.midpoint_linear_velocity[i] = b.initial_linear_velocity;
    s.midpoint_angular_velocity[i] = b.initial_angular_velocity;
  }
  for (const DeformableBody& d : model.deformables)
    for (VecX& x : placedPieces(d, d.initial_pose)) {
      s.fem_v.push_back(d.initial_velocity.replicate(x.size() / 3, 1));
      s.fem_x.push_back(std::move(x));
    }
  RobotKinematics kin;
  MatX scratch;
  for (size_t r = 0; r < model.robots.size(); ++r) {
    const Robot& robot = model.robots[r];
    s.robot_q.push_back(robot.initial_q);
    s.robot_v.push_back(robot.initial_v);
    kin.update(model, static_cast<int>(r), robot.initial_q);
    setRobotBodies(model, static_cast<int>(r), kin, robot.initial_v, robot.initial_v, scratch, s);
  }
  return s;
}

std::uint64_t State::hash() const {
  Fnv1a64 h;
  h.add(time);
  for (size_t i = 0; i < pose.size(); ++i) {
    for (int k = 0; k < 3; ++k) h.add(pose[i].position[k]);
    for (int k = 0; k < 4; ++k) h.add(pose[i].orientation.coeffs()[k]);
    for (int k = 0; k < 3; ++k) h.add(linear_velocity[i][k]);
    for (int k = 0; k < 3; ++k) h.add(angular_velocity[i][k]);
    for (int k = 0; k < 3; ++k) h.add(midpoint_linear_velocity[i][k]);
    for (int k = 0; k < 3; ++k) h.add(midpoint_angular_velocity[i][k]);
  }
  for (size_t r = 0; r < robot_q.size(); ++r) {
    h.add(robot_q[r]);
    h.add(robot_v[r]);
  }
  for (size_t k = 0; k < fem_x.size(); ++k) {
    h.add(fem_x[k]);
    h.add(fem_v[k]);
  }
  return h.value();
}

}  // namespace subsim
