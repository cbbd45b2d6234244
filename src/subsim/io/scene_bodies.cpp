// Scene files: bodies and their shapes, mass properties and trajectories (scene_builder.hpp).
#include "subsim/io/scene_builder.hpp"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "subsim/geometry/helical_thread_shape.hpp"
#include "subsim/geometry/mesh_grid_shape.hpp"
#include "subsim/geometry/revolved_profile_shape.hpp"
#include "subsim/io/shown_text.hpp"
#include "subsim/io/surface_mesh_files.hpp"

namespace subsim::scene {

namespace {

/// A shape's constructor names its parameter first ("pitch: ..."): the error is reported at
/// that field of the scene file (at `fallback` when it names none).
[[noreturn]] void failAtNamedField(const Reader& r, const Fields& f, const std::invalid_argument& e,
                                   const std::string& fallback, const std::string& prefix) {
  const std::string message = e.what();
  const std::size_t colon = message.find(": ");
  const std::string key = colon == std::string::npos ? fallback : message.substr(0, colon);
  r.fail(f.at(key), prefix + (colon == std::string::npos ? message : message.substr(colon + 2)),
         f.get(key));
}

}  // namespace

void SceneBuilder::parseBody(const Node& node, const std::string& path, Model& m) {
  const Fields f(r_, node, path, "a map describing a body");
  Body body;
  body.name =
      r_.text(f.required("name", "a unique body name"), f.at("name"), "a non-empty body name");
  if (body.name == "world")
    r_.fail(f.at("name"),
            "expected a body name other than world (joints and springs use it for the fixed "
            "world frame), got world",
            f.get("name"));
  if (const auto [it, inserted] = body_paths_.emplace(body.name, path); !inserted)
    r_.fail(f.at("name"),
            "expected a unique body name, got " + shown(body.name) + " which " + it->second +
                " already uses",
            f.get("name"));

  if (const Node* n = f.get("type")) {
    const std::string what = "a body type: dynamic, static or kinematic";
    const std::string type = r_.text(*n, f.at("type"), what);
    if (type == "dynamic")
      body.kind = BodyKind::Dynamic;
    else if (type == "static")
      body.kind = BodyKind::Static;
    else if (type == "kinematic")
      body.kind = BodyKind::Kinematic;
    else
      r_.expected(f.at("type"), what, *n);
  }
  switch (body.kind) {
    case BodyKind::Dynamic:
      f.allowOnly({"name", "type", "position", "orientation", "shapes", "mass", "density",
                   "inertia", "velocity", "angular_velocity", "force", "torque", "substructure"},
                  " for a dynamic body");
      break;
    case BodyKind::Static:
      f.allowOnly({"name", "type", "position", "orientation", "shapes"}, " for a static body");
      break;
    case BodyKind::Kinematic:
      f.allowOnly({"name", "type", "position", "orientation", "shapes", "trajectory"},
                  " for a kinematic body");
      break;
    case BodyKind::Articulated:  // robot links come from robots, never from a body entry
      break;
  }

  if (const Node* n = f.get("position"))
    body.initial_pose.position = r_.vec3(*n, f.at("position"), "m");
  if (const Node* n = f.get("orientation"))
    body.initial_pose.orientation = r_.quaternion(*n, f.at("orientation"));
  if (const Node* n = f.get("velocity"))
    body.initial_linear_velocity = r_.vec3(*n, f.at("velocity"), "m/s");
  if (const Node* n = f.get("angular_velocity"))
    body.initial_angular_velocity = r_.vec3(*n, f.at("angular_velocity"), "rad/s");
  if (const Node* n = f.get("force")) body.applied_force = r_.vec3(*n, f.at("force"), "N");
  if (const Node* n = f.get("torque")) body.applied_torque = r_.vec3(*n, f.at("torque"), "N m");
  if (const Node* n = f.get("substructure")) {
    // Bodies naming the same substructure share one group of the semantic partition.
    const std::string label = r_.text(*n, f.at("substructure"), "a substructure name");
    const auto [it, inserted] =
        substructure_index_.emplace(label, static_cast<int>(substructure_index_.size()));
    body.substructure = it->second;
  }

  std::vector<ParsedShape> shapes;
  if (const Node* n = f.get("shapes")) {
    r_.list(*n, f.at("shapes"), "a list of shapes");
    for (std::size_t j = 0; j < n->size(); ++j)
      shapes.push_back(parseShape((*n)[j], indexPath(f.at("shapes"), j), body.kind));
  }

  if (body.kind == BodyKind::Dynamic) massProperties(f, shapes, body);
  if (body.kind == BodyKind::Kinematic) {
    body.trajectory.start = body.initial_pose;
    if (const Node* n = f.get("trajectory")) parseTrajectory(*n, f, body.trajectory);
    // Joint anchors and spring lengths are computed from initial_pose, so it must be where
    // the trajectory puts the body at t = 0.
    body.initial_pose = body.trajectory.pose(0.0);
  }

  const std::string name = body.name;
  const int b = m.addBody(std::move(body));
  body_index_.emplace(name, b);
  for (const ParsedShape& s : shapes) {
    const int index = m.addShape(b, s.shape, s.pose, s.mu);
    m.shapes[static_cast<std::size_t>(index)].group = s.group;
    m.shapes[static_cast<std::size_t>(index)].mask = s.mask;
  }
}

ParsedShape SceneBuilder::parseShape(const Node& node, const std::string& path,
                                     BodyKind kind) const {
  const Fields f(r_, node, path, "a map describing a shape");
  const Node& type_node = f.required(
      "type", "a shape type: sphere, capsule, cylinder, box, plane, revolved, mesh, bolt or nut");
  const std::string type =
      r_.text(type_node, f.at("type"),
              "a shape type: sphere, capsule, cylinder, box, plane, revolved, mesh, bolt or nut");
  ParsedShape s;
  Keys allowed{"type", "mu", "position", "orientation", "group", "mask"};
  if (type == "sphere") {
    allowed.push_back("radius");
    f.allowOnly(allowed, " for a sphere shape");
    s.shape = Shape::sphere(radius(f));
  } else if (type == "capsule" || type == "cylinder") {
    allowed.push_back("radius");
    allowed.push_back("length");
    f.allowOnly(allowed, " for a " + type + " shape");
    const double r = radius(f);
    const double half =
        0.5 * r_.number(f.required("length", "the length along local z in m"), f.at("length"),
                        "a positive length in m (full length along local z)", Range::Positive);
    s.shape = type == "capsule" ? Shape::capsule(r, half) : Shape::cylinder(r, half);
  } else if (type == "box") {
    allowed.push_back("size");
    f.allowOnly(allowed, " for a box shape");
    const Vec3 size = r_.vec3(f.required("size", "the full edge lengths [x, y, z] in m"),
                              f.at("size"), "m (full edge lengths)", Range::Positive);
    s.shape = Shape::box(0.5 * size);
  } else if (type == "revolved") {
    for (const char* key : {"profile", "padding", "segments", "max_edge"}) allowed.push_back(key);
    f.allowOnly(allowed, " for a revolved shape");
    s.shape = Shape::signedDistance(revolvedShape(f));
  } else if (type == "mesh") {
    for (const char* key : {"file", "cell", "scale"}) allowed.push_back(key);
    f.allowOnly(allowed, " for a mesh shape");
    s.shape = Shape::signedDistance(meshShape(f));
  } else if (type == "bolt" || type == "nut") {
    for (const char* key : {"major_diameter", "pitch", "length", "clearance", "segments"})
      allowed.push_back(key);
    if (type == "nut") allowed.push_back("outer_diameter");
    f.allowOnly(allowed, " for a " + type + " shape");
    s.shape = Shape::signedDistance(threadShape(f, type == "nut"));
  } else if (type == "plane") {
    if (kind == BodyKind::Dynamic)
      r_.fail(f.at("type"),
              "expected a bounded shape (sphere, capsule, cylinder, box, revolved, mesh, bolt or "
              "nut) on "
              "a "
              "dynamic body, "
              "got plane: a plane is unbounded and may only belong to a static or kinematic body",
              &type_node);
    f.allowOnly(allowed, " for a plane shape");
    s.shape = Shape::plane();
  } else {
    r_.expected(f.at("type"),
                "a shape type: sphere, capsule, cylinder, box, plane, revolved, mesh, bolt or nut",
                type_node);
  }
  if (const Node* n = f.get("mu"))
    s.mu = r_.number(*n, f.at("mu"), "a non-negative friction coefficient", Range::NonNegative);
  if (const Node* n = f.get("position")) s.pose.position = r_.vec3(*n, f.at("position"), "m");
  if (const Node* n = f.get("orientation"))
    s.pose.orientation = r_.quaternion(*n, f.at("orientation"));
  const std::string bits = "a 32-bit collision bit set: a whole number from 0 to 4294967295";
  if (const Node* n = f.get("group"))
    s.group = static_cast<std::uint32_t>(r_.integer(*n, f.at("group"), bits, 0, 0xffffffffLL));
  if (const Node* n = f.get("mask"))
    s.mask = static_cast<std::uint32_t>(r_.integer(*n, f.at("mask"), bits, 0, 0xffffffffLL));
  return s;
}

std::shared_ptr<const SignedDistanceShape> SceneBuilder::revolvedShape(const Fields& f) const {
  const std::string point_what = "an (r, z) point: a list of two numbers in m";
  const Node& profile_node =
      r_.list(f.required("profile", "the (r, z) points of the profile in m"), f.at("profile"),
              "a list of (r, z) points in m, the first on the axis: [[0, 0], [0.04, 0], ...]");
  std::vector<Vec2> profile;
  for (std::size_t k = 0; k < profile_node.size(); ++k) {
    const DoubleBuffer v =
        r_.numbers(profile_node[k], indexPath(f.at("profile"), k), 2, point_what, "a number in m");
    profile.emplace_back(v[0], v[1]);
  }
  const double padding =
      r_.number(f.required("padding", "half the wall thickness in m"), f.at("padding"),
                "a positive half wall thickness in m", Range::Positive);
  int segments = 48;
  if (const Node* n = f.get("segments"))
    segments = static_cast<int>(
        r_.integer(*n, f.at("segments"), "a whole number of triangles around the axis", 3, 4096));
  double max_edge = 0.01;
  if (const Node* n = f.get("max_edge"))
    max_edge = r_.number(*n, f.at("max_edge"), "a positive length in m", Range::Positive);
  try {
    return std::make_shared<RevolvedProfileShape>(std::move(profile), padding, segments, max_edge);
  } catch (const std::invalid_argument& e) {
    failAtNamedField(r_, f, e, "profile", "expected a valid revolved profile: ");
  }
}

std::shared_ptr<const SignedDistanceShape> SceneBuilder::meshShape(const Fields& f) const {
  const std::string what = "a Wavefront OBJ file of a closed surface";
  const Node& file_node = f.required("file", what + ", relative to the scene file");
  const std::string name = r_.text(file_node, f.at("file"), what);
  std::filesystem::path file(name);
  if (file.is_relative()) file = std::filesystem::path(r_.source()).parent_path() / file;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    r_.fail(f.at("file"),
            "expected " + what + " relative to the scene file, got " + shown(name) +
                (std::filesystem::exists(file, ec) ? ": " + file.string() + " is not a file"
                                                   : ": no such file " + file.string()),
            &file_node);
  const double cell = r_.number(f.required("cell", "the signed distance grid's spacing in m"),
                                f.at("cell"), "a positive grid spacing in m", Range::Positive);
  double scale = 1.0;
  if (const Node* n = f.get("scale"))
    scale =
        r_.number(*n, f.at("scale"), "a positive factor (the file's unit in m)", Range::Positive);
  try {
    return std::make_shared<MeshGridShape>(loadSurfaceMesh(file.string(), scale), cell);
  } catch (const std::runtime_error& e) {
    r_.fail(f.at("file"), std::string("expected ") + what + ": " + e.what(), &file_node);
  } catch (const std::invalid_argument& e) {
    // The shape names its parameter first ("surface: ...", "cell: ...").
    const std::string message = e.what();
    const bool cell_error = message.rfind("cell: ", 0) == 0;
    r_.fail(cell_error ? f.at("cell") : f.at("file"),
            "expected a closed mesh the grid can sample: " + message,
            cell_error ? f.get("cell") : &file_node);
  }
}

std::shared_ptr<const SignedDistanceShape> SceneBuilder::threadShape(const Fields& f,
                                                                     bool internal) const {
  ThreadSpec spec;
  spec.internal = internal;
  const auto length = [&](const char* key, const char* what) {
    return r_.number(f.required(key, what), f.at(key), "a positive length in m", Range::Positive);
  };
  spec.major_diameter = length("major_diameter", "the thread's major diameter in m (M48: 0.048)");
  spec.pitch = length("pitch", "the thread's pitch in m (M48: 0.005)");
  spec.length = length("length", "the threaded length along local z in m");
  if (internal) spec.outer_diameter = length("outer_diameter", "the nut's outer diameter in m");
  if (const Node* n = f.get("clearance"))
    spec.clearance =
        r_.number(*n, f.at("clearance"), "a radial clearance >= 0 in m", Range::NonNegative);
  if (const Node* n = f.get("segments"))
    spec.segments = static_cast<int>(
        r_.integer(*n, f.at("segments"), "a whole number of columns per turn", 8, 4096));
  try {
    return std::make_shared<HelicalThreadShape>(spec);
  } catch (const std::invalid_argument& e) {
    failAtNamedField(r_, f, e, "pitch", "expected a valid thread: ");
  }
}

double SceneBuilder::radius(const Fields& f) const {
  return r_.number(f.required("radius", "a radius in m"), f.at("radius"), "a positive radius in m",
                   Range::Positive);
}

void SceneBuilder::massProperties(const Fields& f, std::vector<ParsedShape>& shapes,
                                  Body& body) const {
  const Node* mass = f.get("mass");
  const Node* density = f.get("density");
  const Node* inertia = f.get("inertia");
  if (mass != nullptr && density != nullptr)
    r_.fail(f.at("density"),
            "expected either mass or density, not both (density with the first shape gives the "
            "mass)",
            density);
  if (mass == nullptr && density == nullptr)
    r_.fail(f.at("mass"),
            "missing, expected a mass in kg or a density in kg/m^3 for a dynamic body", &f.node());
  // Values first, then how they combine with the shapes, so that a bad number is reported as
  // such rather than hidden behind a missing inertia.
  double rho = 0.0;
  if (mass != nullptr)
    body.mass = r_.number(*mass, f.at("mass"), "a positive number in kg", Range::Positive);
  else
    rho = r_.number(*density, f.at("density"), "a positive number in kg/m^3", Range::Positive);
  if (shapes.empty()) {
    if (density != nullptr)
      r_.fail(f.at("density"),
              "expected a body with shapes: density is that of the first shape, and this body "
              "has none (give mass and inertia instead)",
              density);
    if (inertia == nullptr)
      r_.fail(f.at("inertia"),
              "missing, expected [ixx, iyy, izz] or a 3x3 list in kg m^2: a dynamic body "
              "without shapes needs an explicit inertia",
              &f.node());
  }
  if (density != nullptr) {
    body.mass = rho * shapes.front().shape.volume();
    if (!(body.mass > 0.0) || !std::isfinite(body.mass))
      r_.fail(f.at("density"),
              "expected a density giving a positive finite mass with the first shape, got " +
                  describe(*density),
              density);
  }
  if (inertia != nullptr) {
    body.inertia = parseInertia(*inertia, f.at("inertia"));
    return;
  }
  ParsedShape& first = shapes.front();
  // The body frame is the centre of mass frame, so an offset first shape would put the
  // computed inertia about the wrong point.
  if (!first.pose.position.isZero(0.0)) {
    const Node position = (*f.get("shapes"))[0]["position"];
    r_.fail(f.at("shapes") + "[0].position",
            "expected [0, 0, 0] when the inertia is computed from the first shape (the body "
            "origin is its centre of mass); give inertia explicitly to offset the first shape",
            &position);
  }
  const Mat3 rotation = first.pose.orientation.toRotationMatrix();
  body.inertia = rotation * first.shape.unitDensityInertia(body.mass) * rotation.transpose();
  // A revolved shape's centroid is off its frame's origin (on the axis, above the bottom): its
  // frame moves so that the centroid is the body's origin, which stays its centre of mass.
  first.pose.position = -(rotation * first.shape.centroid());
}

Mat3 SceneBuilder::parseInertia(const Node& n, const std::string& path) const {
  const std::string what = "[ixx, iyy, izz] or a 3x3 list of numbers in kg m^2";
  if (!n.IsSequence() || n.size() != 3) r_.expected(path, what, n);
  Mat3 inertia = Mat3::Zero();
  if (n[0].IsSequence()) {
    for (std::size_t row = 0; row < 3; ++row) {
      const DoubleBuffer v = r_.numbers(n[row], indexPath(path, row), 3,
                                        "a row of three numbers in kg m^2", "a number in kg m^2");
      for (std::size_t col = 0; col < 3; ++col)
        inertia(static_cast<Eigen::Index>(row), static_cast<Eigen::Index>(col)) = v[col];
    }
    if ((inertia - inertia.transpose()).norm() > 1e-12 * inertia.norm())
      r_.fail(path, "expected a symmetric 3x3 inertia matrix in kg m^2", &n);
    const Eigen::SelfAdjointEigenSolver<Mat3> eig(inertia);
    if (!(eig.eigenvalues().minCoeff() > 0.0))
      r_.fail(path, "expected a positive definite inertia matrix in kg m^2", &n);
  } else {
    const DoubleBuffer v =
        r_.numbers(n, path, 3, what, "a positive number in kg m^2", Range::Positive);
    inertia = Vec3(v[0], v[1], v[2]).asDiagonal();
  }
  return inertia;
}

void SceneBuilder::parseTrajectory(const Node& node, const Fields& body,
                                   KinematicTrajectory& t) const {
  const std::string path = body.at("trajectory");
  const Fields f(r_, node, path, "a map describing a trajectory");
  const std::string what = "a trajectory type: fixed, linear or circle";
  const Node& type_node = f.required("type", what);
  const std::string type = r_.text(type_node, f.at("type"), what);
  if (type == "fixed") {
    f.allowOnly({"type"}, " for a fixed trajectory");
    t.kind = KinematicTrajectory::Kind::Fixed;
  } else if (type == "linear") {
    f.allowOnly({"type", "velocity"}, " for a linear trajectory");
    t.kind = KinematicTrajectory::Kind::Linear;
    t.velocity =
        r_.vec3(f.required("velocity", "a velocity [x, y, z] in m/s"), f.at("velocity"), "m/s");
  } else if (type == "circle") {
    f.allowOnly({"type", "center", "radius", "frequency", "phase", "descent", "descent_speed"},
                " for a circle trajectory");
    if (const Node* p = body.get("position"))
      r_.fail(body.at("position"),
              "expected no position on a body with a circle trajectory (the circle's center, "
              "radius, phase and descent place it), got " +
                  describe(*p),
              p);
    t.kind = KinematicTrajectory::Kind::Circle;
    t.center =
        r_.vec3(f.required("center", "the circle's center [x, y, z] in m"), f.at("center"), "m");
    t.radius = r_.number(f.required("radius", "the circle's radius in m"), f.at("radius"),
                         "a non-negative radius in m", Range::NonNegative);
    t.frequency = r_.number(f.required("frequency", "revolutions per second"), f.at("frequency"),
                            "a number of revolutions per second");
    if (const Node* n = f.get("phase")) t.phase = r_.number(*n, f.at("phase"), "an angle in rad");
    if (const Node* n = f.get("descent"))
      t.descent = r_.number(*n, f.at("descent"), "a non-negative height in m", Range::NonNegative);
    if (const Node* n = f.get("descent_speed"))
      t.descent_speed =
          r_.number(*n, f.at("descent_speed"), "a non-negative speed in m/s", Range::NonNegative);
  } else {
    r_.expected(f.at("type"), what, type_node);
  }
}

}  // namespace subsim::scene
