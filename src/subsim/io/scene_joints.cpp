// Scene files: joints, springs and friction pairs, the entries that connect two bodies
// (scene_builder.hpp).
#include "subsim/io/scene_builder.hpp"

#include <algorithm>

namespace subsim::scene {

int SceneBuilder::bodyRef(const Node& n, const std::string& path, bool world_allowed) const {
  const std::string what = world_allowed ? "the name of a body or world" : "the name of a body";
  const std::string name = r_.text(n, path, what);
  if (name == "world") {
    if (world_allowed) return -1;
    r_.fail(path, "expected the name of a body (world is not allowed here), got world", &n);
  }
  const int index = modelBody(name);
  if (index < 0)
    r_.fail(
        path,
        "expected " + what + " listed under bodies, got " + shown(name) + " which is not a body",
        &n);
  return index;
}

int SceneBuilder::modelBody(const std::string& name) const {
  const auto it = body_index_.find(name);
  return it == body_index_.end() ? -1 : it->second;
}

std::string SceneBuilder::bodyLabel(const Model& m, int b) const {
  if (b < 0) return "world";
  const Body& body = m.bodies[static_cast<std::size_t>(b)];
  return body.name + " (" + bodyKindName(body.kind) + ")";
}

bool SceneBuilder::isDynamic(const Model& m, int b) const {
  return b >= 0 && m.bodies[static_cast<std::size_t>(b)].kind == BodyKind::Dynamic;
}

void SceneBuilder::requireDynamic(const Model& m, int a, int b, const std::string& path,
                                  const Node& node, const char* what) const {
  if (!isDynamic(m, a) && !isDynamic(m, b))
    r_.fail(path,
            std::string("expected a ") + what + " with at least one dynamic body, got " +
                bodyLabel(m, a) + " and " + bodyLabel(m, b),
            &node);
}

void SceneBuilder::parseJoint(const Node& node, const std::string& path, Model& m) {
  const Fields f(r_, node, path, "a map describing a joint");
  const std::string what = "a joint type: ball, universal, hinge or weld";
  const Node& type_node = f.required("type", what);
  const std::string type = r_.text(type_node, f.at("type"), what);
  JointType kind = JointType::Ball;
  if (type == "ball")
    kind = JointType::Ball;
  else if (type == "universal")
    kind = JointType::Universal;
  else if (type == "hinge")
    kind = JointType::Hinge;
  else if (type == "weld")
    kind = JointType::Weld;
  else
    r_.expected(f.at("type"), what, type_node);
  const bool has_axis = kind == JointType::Hinge || kind == JointType::Universal;
  if (kind == JointType::Hinge)
    f.allowOnly({"name", "type", "a", "b", "anchor", "axis", "limits", "collide_connected",
                 "stiffness", "damping", "angular_stiffness", "angular_damping"},
                " for a hinge joint");
  else if (kind == JointType::Universal)
    f.allowOnly({"name", "type", "a", "b", "anchor", "axis", "collide_connected", "stiffness",
                 "damping", "angular_stiffness", "angular_damping"},
                " for a universal joint");
  else
    f.allowOnly({"name", "type", "a", "b", "anchor", "collide_connected", "stiffness", "damping",
                 "angular_stiffness", "angular_damping"},
                " for a " + type + " joint");

  std::string name = "joint" + std::to_string(m.joints.size());
  if (const Node* n = f.get("name")) {
    name = r_.text(*n, f.at("name"), "a non-empty joint name");
    if (const auto [it, inserted] = joint_paths_.emplace(name, path); !inserted)
      r_.fail(f.at("name"),
              "expected a unique joint name, got " + shown(name) + " which " + it->second +
                  " already uses",
              n);
  }
  const Node& a_node = f.required("a", "the name of a body");
  const int a = bodyRef(a_node, f.at("a"), false);
  const Node& b_node = f.required("b", "the name of a body or world");
  const int b = bodyRef(b_node, f.at("b"), true);
  if (a == b)
    r_.fail(f.at("b"), "expected a body other than a, got " + shown(b_node.Scalar()), &b_node);
  requireDynamic(m, a, b, path, node, "joint");
  const Vec3 anchor = r_.vec3(f.required("anchor", "the anchor point [x, y, z] in world m"),
                              f.at("anchor"), "m (world, at the initial poses)");
  Vec3 axis = Vec3::UnitZ();
  if (has_axis) {
    const Node& axis_node =
        f.required("axis", kind == JointType::Hinge
                               ? "the hinge axis [x, y, z] in world coordinates"
                               : "the shaft axis [x, y, z] (the twist it blocks) in world "
                                 "coordinates");
    axis = r_.vec3(axis_node, f.at("axis"), "world coordinates");
    if (!(axis.norm() > 1e-12))
      r_.fail(f.at("axis"), "expected a non-zero axis, got [0, 0, 0]", &axis_node);
  }
  const int j = m.addJointAtWorld(kind, a, b, anchor, axis);
  Joint& joint = m.joints[static_cast<std::size_t>(j)];
  joint.name = name;
  if (const Node* n = f.get("limits")) {
    const std::string limits_what = "a list [lower, upper] of hinge angles in rad";
    const DoubleBuffer v = r_.numbers(*n, f.at("limits"), 2, limits_what, "an angle in rad");
    if (!(v[0] <= v[1]))
      r_.fail(f.at("limits"),
              "expected lower <= upper, got [" + describe((*n)[0]) + ", " + describe((*n)[1]) + "]",
              n);
    joint.limited = true;
    joint.lower = v[0];
    joint.upper = v[1];
  }
  if (const Node* n = f.get("collide_connected"))
    joint.collide_connected = r_.boolean(*n, f.at("collide_connected"));
  // Compliance (Joint::compliant): the joint becomes soft rows; Model::validate checks that a
  // compliant hinge or weld also has an angular stiffness and no limits.
  const std::pair<const char*, double Joint::*> compliance[] = {
      {"stiffness", &Joint::stiffness},
      {"damping", &Joint::damping},
      {"angular_stiffness", &Joint::angular_stiffness},
      {"angular_damping", &Joint::angular_damping}};
  for (const auto& [key, member] : compliance)
    if (const Node* n = f.get(key))
      joint.*member =
          r_.number(*n, f.at(key), "a non-negative number (N/m, N s/m, N m/rad or N m s/rad)",
                    Range::NonNegative);
  // Model::validate() refuses these too, but without the line and the value.
  if (joint.compliant() && kind != JointType::Ball && !(joint.angular_stiffness > 0.0)) {
    const Node* n = f.get("angular_stiffness");
    r_.fail(f.at("angular_stiffness"),
            "expected a positive angular stiffness in N m/rad for a compliant " + type +
                " (stiffness > 0 makes it compliant), got " +
                (n != nullptr ? describe(*n) : std::string("nothing")),
            n != nullptr ? n : &node);
  }
  if (joint.compliant() && joint.limited)
    r_.fail(f.at("limits"),
            "expected no limits on a compliant joint (stiffness > 0): limits are supported on "
            "rigid hinges only",
            f.get("limits"));
}

void SceneBuilder::parseSpring(const Node& node, const std::string& path, Model& m) {
  const Fields f(r_, node, path, "a map describing a spring");
  f.allowOnly({"name", "a", "b", "point_a", "point_b", "stiffness", "damping", "rest_length"});
  Spring s;
  s.name = "spring" + std::to_string(m.springs.size());
  if (const Node* n = f.get("name")) s.name = r_.text(*n, f.at("name"), "a non-empty name");
  s.body_a = bodyRef(f.required("a", "the name of a body or world"), f.at("a"), true);
  const Node& b_node = f.required("b", "the name of a body or world");
  s.body_b = bodyRef(b_node, f.at("b"), true);
  if (s.body_a == s.body_b)
    r_.fail(f.at("b"), "expected a body other than a, got " + shown(b_node.Scalar()), &b_node);
  requireDynamic(m, s.body_a, s.body_b, path, node, "spring");
  if (const Node* n = f.get("point_a"))
    s.point_a = r_.vec3(*n, f.at("point_a"), "m (in a's frame)");
  if (const Node* n = f.get("point_b"))
    s.point_b = r_.vec3(*n, f.at("point_b"), "m (in b's frame)");
  const Node& stiffness = f.required("stiffness", "a stiffness in N/m");
  s.stiffness = r_.number(stiffness, f.at("stiffness"), "a non-negative stiffness in N/m",
                          Range::NonNegative);
  for (const int b : {s.body_a, s.body_b})
    if (b >= 0 && m.bodies[static_cast<std::size_t>(b)].kind == BodyKind::Kinematic &&
        !(s.stiffness > 0.0))
      r_.fail(f.at("stiffness"),
              "expected a positive stiffness in N/m for a spring on kinematic body " +
                  shown(m.bodies[static_cast<std::size_t>(b)].name) +
                  " (its prescribed velocity enters through the damping), got " +
                  describe(stiffness),
              &stiffness);
  if (const Node* n = f.get("damping"))
    s.damping =
        r_.number(*n, f.at("damping"), "a non-negative damping in N s/m", Range::NonNegative);
  if (const Node* n = f.get("rest_length")) {
    s.rest_length =
        r_.number(*n, f.at("rest_length"), "a non-negative length in m", Range::NonNegative);
  } else {
    auto world = [&m](int b, const Vec3& p) {
      return b < 0 ? p : m.bodies[static_cast<std::size_t>(b)].initial_pose.transformPoint(p);
    };
    s.rest_length = (world(s.body_a, s.point_a) - world(s.body_b, s.point_b)).norm();
  }
  m.addSpring(std::move(s));
}

void SceneBuilder::parseFriction(const Node& node, const std::string& path, Model& m) {
  const Fields f(r_, node, path, "a map {a: body, b: body, mu: coefficient}");
  f.allowOnly({"a", "b", "mu"});
  FrictionPair p;
  // The world has no shapes, so a pair with it could never apply.
  p.body_a = bodyRef(f.required("a", "the name of a body"), f.at("a"), false);
  const Node& b_node = f.required("b", "the name of a body");
  p.body_b = bodyRef(b_node, f.at("b"), false);
  if (p.body_a == p.body_b)
    r_.fail(f.at("b"), "expected a body other than a, got " + shown(b_node.Scalar()), &b_node);
  p.mu = r_.number(f.required("mu", "a friction coefficient"), f.at("mu"),
                   "a non-negative friction coefficient", Range::NonNegative);
  const std::pair<int, int> key{std::min(p.body_a, p.body_b), std::max(p.body_a, p.body_b)};
  if (const auto [it, inserted] = friction_paths_.emplace(key, path); !inserted)
    r_.fail(path,
            "expected one friction entry per pair of bodies, got a second one for " +
                m.bodies[static_cast<std::size_t>(p.body_a)].name + " and " +
                m.bodies[static_cast<std::size_t>(p.body_b)].name + " (first in " + it->second +
                ")",
            &node);
  m.friction_pairs.push_back(p);
}

}  // namespace subsim::scene
