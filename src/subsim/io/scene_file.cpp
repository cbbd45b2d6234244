#include "subsim/io/scene_file.hpp"

#include <yaml-cpp/yaml.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "subsim/io/urdf_loader.hpp"
#include "subsim/io/utf8_check.hpp"
#include "subsim/scenarios/panda_model.hpp"

namespace subsim {
namespace {

using YAML::Node;
using Keys = std::vector<std::string_view>;

// Further than this from unit length a quaternion is a typo, not rounding, so it is refused
// rather than silently normalised into a different orientation.
constexpr double kUnitQuaternionTolerance = 1e-6;
// Long scalars are cut in messages so that one bad line cannot flood a terminal.
constexpr std::size_t kMaxShownChars = 40;

std::string keyPath(const std::string& parent, std::string_view key) {
  std::string p = parent;
  if (!p.empty()) p += '.';
  p += key;
  return p;
}

std::string indexPath(const std::string& parent, std::size_t i) {
  return parent + "[" + std::to_string(i) + "]";
}

std::string joined(const Keys& keys) {
  std::string s;
  for (std::string_view k : keys) {
    if (!s.empty()) s += ", ";
    s += k;
  }
  return s;
}

// yaml-cpp tags quoted scalars "!" and plain ones "?": "1" in quotes is text, not a number.
bool isQuoted(const Node& n) {
  return n.Tag() == "!";
}

// Control characters are escaped: a stray byte from a binary file would otherwise be printed
// raw, invisibly or garbling the terminal.
std::string shown(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kMaxShownChars; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
      continue;
    }
    static const char* const kHex = "0123456789abcdef";
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  if (text.size() > kMaxShownChars) out += "...";
  return out;
}

// What a node is, for "got ...".  Never emits the node: an alias can make it refer to itself
// (&a [*a]) and emitting would then never end.
std::string describe(const Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Scalar:
      if (isQuoted(n)) return "the string \"" + shown(n.Scalar()) + "\"";
      return shown(n.Scalar());
    case YAML::NodeType::Sequence: {
      const std::size_t count = n.size();
      return "a list of " + std::to_string(count) + (count == 1 ? " item" : " items");
    }
    case YAML::NodeType::Map:
      return "a map";
  }
  return "an unknown YAML node";
}

enum class ParsedNumber { Ok, NotANumber, OutOfRange };

// YAML 1.2 core-schema floats.  std::from_chars rather than streams or strtod: it ignores the
// global locale and reports overflow instead of returning a silently clamped value.
ParsedNumber parseDouble(std::string_view s, double& out) {
  bool negative = false;
  std::string_view digits = s;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  if (digits == ".inf" || digits == ".Inf" || digits == ".INF") {
    out = negative ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::infinity();
    return ParsedNumber::Ok;
  }
  if (digits == ".nan" || digits == ".NaN" || digits == ".NAN") {
    out = std::numeric_limits<double>::quiet_NaN();
    return ParsedNumber::Ok;
  }
  if (digits.empty() || digits.front() == '+' || digits.front() == '-')
    return ParsedNumber::NotANumber;
  double value = 0.0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) return ParsedNumber::OutOfRange;
  if (ec != std::errc() || ptr != end) return ParsedNumber::NotANumber;
  out = negative ? -value : value;
  return ParsedNumber::Ok;
}

// Decimal, or hexadecimal with 0x (convenient for collision bit masks).
bool parseInteger(std::string_view s, long long& out) {
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty() || s.front() == '+' || s.front() == '-') return false;
  unsigned long long magnitude = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, magnitude, base);
  if (ec != std::errc() || ptr != end) return false;
  if (magnitude > static_cast<unsigned long long>(std::numeric_limits<long long>::max()))
    return false;
  out = negative ? -static_cast<long long>(magnitude) : static_cast<long long>(magnitude);
  return true;
}

enum class Range { Any, NonNegative, Positive };

bool inRange(double v, Range range) {
  switch (range) {
    case Range::Any:
      return true;
    case Range::NonNegative:
      return v >= 0.0;
    case Range::Positive:
      return v > 0.0;
  }
  return false;
}

// Builds the messages about fields, so that all of them share the "FILE: PATH: expected ..., got
// ..." shape and carry the line and column of the offending node.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }

  [[noreturn]] void fail(const std::string& path, const std::string& message,
                         const Node* where = nullptr) const {
    std::string text =
        source_ + ": " + (path.empty() ? std::string("top level") : path) + ": " + message;
    if (where != nullptr && where->IsDefined()) {
      const YAML::Mark mark = where->Mark();
      if (!mark.is_null())
        text += " (line " + std::to_string(mark.line + 1) + ", column " +
                std::to_string(mark.column + 1) + ")";
    }
    throw SceneError(text);
  }

  [[noreturn]] void expected(const std::string& path, const std::string& what,
                             const Node& got) const {
    fail(path, "expected " + what + ", got " + describe(got), &got);
  }

  double number(const Node& n, const std::string& path, const std::string& what,
                Range range = Range::Any) const {
    if (!n.IsScalar() || isQuoted(n)) expected(path, what, n);
    double value = 0.0;
    switch (parseDouble(n.Scalar(), value)) {
      case ParsedNumber::Ok:
        break;
      case ParsedNumber::NotANumber:
        expected(path, what, n);
      case ParsedNumber::OutOfRange:
        fail(path, "expected " + what + " within the range of a double, got " + describe(n), &n);
    }
    if (!std::isfinite(value))
      fail(path, "expected a finite number (" + what + "), got " + describe(n), &n);
    if (!inRange(value, range)) expected(path, what, n);
    return value;
  }

  long long integer(const Node& n, const std::string& path, const std::string& what,
                    long long lowest, long long highest) const {
    long long value = 0;
    if (!n.IsScalar() || isQuoted(n) || !parseInteger(n.Scalar(), value) || value < lowest ||
        value > highest)
      expected(path, what, n);
    return value;
  }

  bool boolean(const Node& n, const std::string& path) const {
    bool value = false;
    if (!n.IsScalar() || isQuoted(n) || !YAML::convert<bool>::decode(n, value))
      expected(path, "true or false", n);
    return value;
  }

  std::string text(const Node& n, const std::string& path, const std::string& what) const {
    if (!n.IsScalar() || n.Scalar().empty()) expected(path, what, n);
    return n.Scalar();
  }

  const Node& list(const Node& n, const std::string& path, const std::string& what) const {
    if (!n.IsSequence()) expected(path, what, n);
    return n;
  }

  /// A list of exactly `count` numbers.
  DoubleBuffer numbers(const Node& n, const std::string& path, std::size_t count,
                       const std::string& what, const std::string& element_what,
                       Range range = Range::Any) const {
    if (!n.IsSequence() || n.size() != count) expected(path, what, n);
    DoubleBuffer values(count);
    for (std::size_t i = 0; i < count; ++i)
      values[i] = number(n[i], indexPath(path, i), element_what, range);
    return values;
  }

  Vec3 vec3(const Node& n, const std::string& path, const std::string& unit,
            Range range = Range::Any) const {
    const std::string element = rangeWord(range) + "number" + (unit.empty() ? "" : " in " + unit);
    const std::string what = "a list of three " + rangeWord(range) + "numbers [x, y, z]" +
                             (unit.empty() ? "" : " in " + unit);
    const DoubleBuffer v = numbers(n, path, 3, what, "a " + element, range);
    return Vec3(v[0], v[1], v[2]);
  }

  Quat quaternion(const Node& n, const std::string& path) const {
    const std::string what = "a unit quaternion [w, x, y, z]";
    const DoubleBuffer v = numbers(n, path, 4, what, "a number (quaternion component)");
    const Quat q(v[0], v[1], v[2], v[3]);
    const double norm = q.norm();
    if (!(std::abs(norm - 1.0) <= kUnitQuaternionTolerance)) {
      std::ostringstream s;
      s.precision(9);
      s << "expected " << what << " with |q| = 1 within " << kUnitQuaternionTolerance
        << " (it is not normalised for you), got |q| = " << norm;
      fail(path, s.str(), &n);
    }
    return q;
  }

 private:
  static std::string rangeWord(Range range) {
    switch (range) {
      case Range::Any:
        return "";
      case Range::NonNegative:
        return "non-negative ";
      case Range::Positive:
        return "positive ";
    }
    return "";
  }

  std::string source_;
};

/// The entries of one YAML map, checked for text keys, duplicates and unknown keys.
class Fields {
 public:
  Fields(const Reader& reader, const Node& node, std::string path, const std::string& what)
      : reader_(reader), node_(node), path_(std::move(path)) {
    if (!node.IsMap()) reader.expected(path_, what, node);
    std::unordered_set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const Node key = it->first;
      if (!key.IsScalar())
        reader.fail(path_, "expected text keys, got " + describe(key) + " as a key", &key);
      if (!seen.insert(key.Scalar()).second)
        reader.fail(keyPath(path_, key.Scalar()), "duplicate key: expected each key at most once",
                    &key);
      entries_.push_back(Entry{key.Scalar(), key, it->second});
    }
  }

  const Node& node() const { return node_; }
  std::string at(std::string_view key) const { return keyPath(path_, key); }

  const Node* get(std::string_view key) const {
    for (const Entry& e : entries_)
      if (e.name == key) return &e.value;
    return nullptr;
  }

  const Node& required(std::string_view key, const std::string& what) const {
    const Node* n = get(key);
    if (n == nullptr) reader_.fail(at(key), "missing, expected " + what, &node_);
    return *n;
  }

  /// `context` says why the set is what it is, e.g. " for a sphere shape".
  void allowOnly(const Keys& allowed, const std::string& context = "") const {
    for (const Entry& e : entries_) {
      bool known = false;
      for (std::string_view k : allowed) known = known || k == e.name;
      if (!known)
        reader_.fail(at(e.name), "unknown key" + context + ", expected one of: " + joined(allowed),
                     &e.key);
    }
  }

 private:
  struct Entry {
    std::string name;
    Node key;
    Node value;
  };
  const Reader& reader_;
  Node node_;
  std::string path_;
  std::vector<Entry> entries_;
};

struct ParsedShape {
  Shape shape;
  Pose pose;
  double mu = 0.5;
  std::uint32_t group = 1;
  std::uint32_t mask = 0xffffffffu;
};

class SceneParser {
 public:
  explicit SceneParser(const Reader& reader) : r_(reader) {}

  SceneFile parse(const Node& root, const std::string& default_name) {
    SceneFile scene;
    Model& m = scene.model;
    const Fields top(r_, root, "",
                     "a map of scene settings with a bodies list (see docs/scene-format.md)");
    top.allowOnly({"name", "dt", "theta", "steps", "gravity", "contact", "bodies", "joints",
                   "springs", "friction", "robots", "solver"});
    m.name = default_name;
    if (const Node* n = top.get("name")) m.name = r_.text(*n, "name", "a non-empty scene name");
    if (const Node* n = top.get("dt"))
      m.dt = r_.number(*n, "dt", "a positive time step in s", Range::Positive);
    if (const Node* n = top.get("theta")) {
      const std::string what = "0 <= theta <= 0.5 (the weight of v_k in vhat)";
      m.theta = r_.number(*n, "theta", what);
      if (!(m.theta >= 0.0 && m.theta <= 0.5)) r_.expected("theta", what, *n);
    }
    if (const Node* n = top.get("steps"))
      scene.steps = static_cast<int>(r_.integer(*n, "steps", "a positive whole number of steps", 1,
                                                std::numeric_limits<int>::max()));
    if (const Node* n = top.get("gravity")) m.gravity = r_.vec3(*n, "gravity", "m/s^2");
    if (const Node* n = top.get("contact")) parseContact(*n, m.contact);
    if (const Node* n = top.get("solver")) scene.solver = parseSceneSolver(*n, r_.source());

    const Node& bodies =
        r_.list(top.required("bodies", "a list of bodies"), "bodies", "a non-empty list of bodies");
    if (bodies.size() == 0) r_.expected("bodies", "a non-empty list of bodies", bodies);
    for (std::size_t i = 0; i < bodies.size(); ++i) parseBody(bodies[i], indexPath("bodies", i), m);

    if (const Node* n = top.get("robots")) {
      r_.list(*n, "robots", "a list of robots");
      for (std::size_t i = 0; i < n->size(); ++i) parseRobot((*n)[i], indexPath("robots", i), m);
    }

    if (const Node* n = top.get("joints")) {
      r_.list(*n, "joints", "a list of joints");
      for (std::size_t i = 0; i < n->size(); ++i) parseJoint((*n)[i], indexPath("joints", i), m);
    }
    if (const Node* n = top.get("springs")) {
      r_.list(*n, "springs", "a list of springs");
      for (std::size_t i = 0; i < n->size(); ++i) parseSpring((*n)[i], indexPath("springs", i), m);
    }
    if (const Node* n = top.get("friction")) {
      r_.list(*n, "friction", "a list of friction pairs");
      for (std::size_t i = 0; i < n->size(); ++i)
        parseFriction((*n)[i], indexPath("friction", i), m);
    }
    return scene;
  }

 private:
  void parseContact(const Node& node, ContactSettings& contact) const {
    const Fields f(r_, node, "contact", "a map {margin: m, erp: 0..1}");
    f.allowOnly({"margin", "erp"});
    if (const Node* n = f.get("margin"))
      contact.margin =
          r_.number(*n, f.at("margin"), "a non-negative distance in m", Range::NonNegative);
    if (const Node* n = f.get("erp")) {
      const std::string what =
          "a number between 0 and 1 (fraction of penetration removed per step)";
      contact.erp = r_.number(*n, f.at("erp"), what);
      if (!(contact.erp >= 0.0 && contact.erp <= 1.0)) r_.expected(f.at("erp"), what, *n);
    }
  }

  void parseBody(const Node& node, const std::string& path, Model& m) {
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
                     "inertia", "velocity", "angular_velocity"},
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

  ParsedShape parseShape(const Node& node, const std::string& path, BodyKind kind) const {
    const Fields f(r_, node, path, "a map describing a shape");
    const Node& type_node =
        f.required("type", "a shape type: sphere, capsule, cylinder, box or plane");
    const std::string type =
        r_.text(type_node, f.at("type"), "a shape type: sphere, capsule, cylinder, box or plane");
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
    } else if (type == "plane") {
      if (kind == BodyKind::Dynamic)
        r_.fail(f.at("type"),
                "expected a bounded shape (sphere, capsule, cylinder or box) on a dynamic body, "
                "got plane: a plane is unbounded and may only belong to a static or kinematic body",
                &type_node);
      f.allowOnly(allowed, " for a plane shape");
      s.shape = Shape::plane();
    } else {
      r_.expected(f.at("type"), "a shape type: sphere, capsule, cylinder, box or plane", type_node);
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

  double radius(const Fields& f) const {
    return r_.number(f.required("radius", "a radius in m"), f.at("radius"),
                     "a positive radius in m", Range::Positive);
  }

  void massProperties(const Fields& f, const std::vector<ParsedShape>& shapes, Body& body) const {
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
              "missing, expected a mass in kg or a density in kg/m^3 for a dynamic body",
              &f.node());
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
    const ParsedShape& first = shapes.front();
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
  }

  Mat3 parseInertia(const Node& n, const std::string& path) const {
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

  void parseTrajectory(const Node& node, const Fields& body, KinematicTrajectory& t) const {
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
        t.descent =
            r_.number(*n, f.at("descent"), "a non-negative height in m", Range::NonNegative);
      if (const Node* n = f.get("descent_speed"))
        t.descent_speed =
            r_.number(*n, f.at("descent_speed"), "a non-negative speed in m/s", Range::NonNegative);
    } else {
      r_.expected(f.at("type"), what, type_node);
    }
  }

  /// A list of exactly `count` numbers, one per `coordinate` (configuration or velocity)
  /// coordinate of a robot.
  VecX vecX(const Node& n, const std::string& path, int count, const std::string& what,
            const std::string& coordinate, const std::string& element_what,
            Range range = Range::Any) const {
    const std::string list_what = "a list of " + std::to_string(count) + " " + what + " (one per " +
                                  coordinate + " coordinate of the robot)";
    const DoubleBuffer v =
        r_.numbers(n, path, static_cast<std::size_t>(count), list_what, element_what, range);
    return Eigen::Map<const VecX>(v.data(), count);
  }

  UrdfRobot loadRobotUrdf(const Node& n, const std::string& path, bool floating_base) const {
    const std::string what = "panda (the built-in Franka Panda) or a URDF file path";
    const std::string urdf = r_.text(n, path, what);
    std::filesystem::path file(urdf);
    if (urdf != "panda") {
      if (file.is_relative()) file = std::filesystem::path(r_.source()).parent_path() / file;
      std::error_code ec;
      if (!std::filesystem::is_regular_file(file, ec))
        r_.fail(path,
                "expected " + what + " relative to the scene file, got " + shown(urdf) +
                    (std::filesystem::exists(file, ec) ? ": " + file.string() + " is not a file"
                                                       : ": no such file " + file.string()),
                &n);
    }
    try {
      if (urdf == "panda") return loadUrdfString(pandaUrdf(), "built-in panda.urdf", floating_base);
      return loadUrdfFile(file.string(), floating_base);
    } catch (const SceneError& e) {
      r_.fail(path, "expected a valid URDF robot, got " + shown(urdf) + ": " + e.what(), &n);
    }
  }

  void parseRobot(const Node& node, const std::string& path, Model& m) {
    const Fields f(r_, node, path, "a map describing a robot");
    f.allowOnly({"name", "urdf", "floating_base", "position", "orientation", "mu", "q", "kp", "kd",
                 "gravity_compensation", "target"},
                " for a robot");
    Robot robot;
    robot.name =
        r_.text(f.required("name", "a unique robot name"), f.at("name"), "a non-empty robot name");
    if (const auto [it, inserted] = robot_paths_.emplace(robot.name, path); !inserted)
      r_.fail(f.at("name"),
              "expected a unique robot name, got " + shown(robot.name) + " which " + it->second +
                  " already uses",
              f.get("name"));
    bool floating_base = false;
    if (const Node* n = f.get("floating_base"))
      floating_base = r_.boolean(*n, f.at("floating_base"));
    const UrdfRobot urdf =
        loadRobotUrdf(f.required("urdf", "panda (the built-in Franka Panda) or a URDF file path"),
                      f.at("urdf"), floating_base);
    robot.articulation = urdf.articulation;
    try {
      robot.articulation.finalize();
    } catch (const std::invalid_argument& e) {
      r_.fail(f.at("urdf"), std::string("expected a valid articulation, got: ") + e.what(),
              f.get("urdf"));
    }
    const int nq = robot.articulation.nq(), nv = robot.articulation.nv();

    if (const Node* n = f.get("position")) robot.base.position = r_.vec3(*n, f.at("position"), "m");
    if (const Node* n = f.get("orientation"))
      robot.base.orientation = r_.quaternion(*n, f.at("orientation"));
    double mu = 0.5;
    if (const Node* n = f.get("mu"))
      mu = r_.number(*n, f.at("mu"), "a non-negative friction coefficient", Range::NonNegative);
    if (const Node* n = f.get("q"))
      robot.initial_q =
          vecX(*n, f.at("q"), nq, "joint positions", "configuration", "a joint position");
    if (const Node* n = f.get("kp"))
      robot.kp = vecX(*n, f.at("kp"), nv, "non-negative gains", "velocity", "a non-negative gain",
                      Range::NonNegative);
    if (const Node* n = f.get("kd"))
      robot.kd = vecX(*n, f.at("kd"), nv, "non-negative gains", "velocity", "a non-negative gain",
                      Range::NonNegative);
    if (const Node* n = f.get("gravity_compensation"))
      robot.gravity_compensation = r_.boolean(*n, f.at("gravity_compensation"));
    if (const Node* n = f.get("target")) parseJointTarget(*n, f.at("target"), nq, robot.target);

    // The link bodies are named ROBOT/LINK; a body of that name would make two bodies one name.
    for (const ArticulationLink& link : robot.articulation.links) {
      const std::string body = robot.name + "/" + link.name;
      if (const auto it = body_paths_.find(body); it != body_paths_.end())
        r_.fail(f.at("name"),
                "expected a robot name whose link bodies (ROBOT/LINK) do not clash with a body, "
                "got " +
                    shown(robot.name) + ": link " + shown(link.name) + " would be named " +
                    shown(body) + ", which " + it->second + " already uses",
                f.get("name"));
    }
    for (const ArticulationLink& link : robot.articulation.links)
      body_paths_.emplace(robot.name + "/" + link.name, path + "'s link " + link.name);
    int index = -1;
    try {
      index = m.addRobot(std::move(robot));
    } catch (const std::invalid_argument& e) {
      r_.fail(path, std::string("expected a robot the model accepts, got: ") + e.what(), &node);
    }
    for (const UrdfCollision& c : urdf.collisions) {
      try {
        m.addRobotShape(index, c.link, c.shape, c.origin, mu);
      } catch (const std::invalid_argument& e) {
        r_.fail(f.at("urdf"), std::string("expected valid collision shapes, got: ") + e.what(),
                f.get("urdf"));
      }
    }
  }

  void parseJointTarget(const Node& node, const std::string& path, int nq,
                        JointTrajectory& t) const {
    const Fields f(r_, node, path, "a map {times: [...], positions: [[...], ...]}");
    f.allowOnly({"times", "positions"}, " for a robot target");
    const std::string times_what = "a non-empty list of strictly increasing knot times in s";
    const Node& times = r_.list(f.required("times", times_what), f.at("times"), times_what);
    if (times.size() == 0) r_.expected(f.at("times"), times_what, times);
    for (std::size_t k = 0; k < times.size(); ++k) {
      const std::string at = indexPath(f.at("times"), k);
      const Node knot = times[k];
      const double time = r_.number(knot, at, "a time in s");
      if (k > 0 && !(time > t.times.back()))
        r_.fail(at,
                "expected strictly increasing times, got " + describe(knot) + " after " +
                    describe(times[k - 1]),
                &knot);
      t.times.push_back(time);
    }
    const std::string positions_what =
        "a list of " + std::to_string(times.size()) + " configurations (one per time)";
    const Node& positions =
        r_.list(f.required("positions", positions_what), f.at("positions"), positions_what);
    if (positions.size() != times.size()) r_.expected(f.at("positions"), positions_what, positions);
    for (std::size_t k = 0; k < positions.size(); ++k)
      t.positions.push_back(vecX(positions[k], indexPath(f.at("positions"), k), nq,
                                 "joint positions", "configuration", "a joint position"));
  }

  int bodyRef(const Node& n, const std::string& path, bool world_allowed) const {
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

  int modelBody(const std::string& name) const {
    const auto it = body_index_.find(name);
    return it == body_index_.end() ? -1 : it->second;
  }

  std::string bodyLabel(const Model& m, int b) const {
    if (b < 0) return "world";
    const Body& body = m.bodies[static_cast<std::size_t>(b)];
    return body.name + " (" + bodyKindName(body.kind) + ")";
  }

  bool isDynamic(const Model& m, int b) const {
    return b >= 0 && m.bodies[static_cast<std::size_t>(b)].kind == BodyKind::Dynamic;
  }

  // A joint or spring with no dynamic body could never move anything: almost surely a typo.
  void requireDynamic(const Model& m, int a, int b, const std::string& path, const Node& node,
                      const char* what) const {
    if (!isDynamic(m, a) && !isDynamic(m, b))
      r_.fail(path,
              std::string("expected a ") + what + " with at least one dynamic body, got " +
                  bodyLabel(m, a) + " and " + bodyLabel(m, b),
              &node);
  }

  void parseJoint(const Node& node, const std::string& path, Model& m) {
    const Fields f(r_, node, path, "a map describing a joint");
    const std::string what = "a joint type: ball, hinge or weld";
    const Node& type_node = f.required("type", what);
    const std::string type = r_.text(type_node, f.at("type"), what);
    JointType kind = JointType::Ball;
    if (type == "ball")
      kind = JointType::Ball;
    else if (type == "hinge")
      kind = JointType::Hinge;
    else if (type == "weld")
      kind = JointType::Weld;
    else
      r_.expected(f.at("type"), what, type_node);
    if (kind == JointType::Hinge)
      f.allowOnly({"name", "type", "a", "b", "anchor", "axis", "limits", "collide_connected",
                   "stiffness", "damping", "angular_stiffness", "angular_damping"},
                  " for a hinge joint");
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
    if (kind == JointType::Hinge) {
      const Node& axis_node = f.required("axis", "the hinge axis [x, y, z] in world coordinates");
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
        r_.fail(
            f.at("limits"),
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

  void parseSpring(const Node& node, const std::string& path, Model& m) {
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

  void parseFriction(const Node& node, const std::string& path, Model& m) {
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

  const Reader& r_;
  std::unordered_map<std::string, std::string> body_paths_;
  // Model::findBody is linear, which would make scenes with many joints quadratic to load.
  std::unordered_map<std::string, int> body_index_;
  std::unordered_map<std::string, std::string> joint_paths_;
  std::map<std::pair<int, int>, std::string> friction_paths_;
  std::unordered_map<std::string, std::string> robot_paths_;
};

std::string defaultName(const std::string& source_name) {
  const std::string stem = std::filesystem::path(source_name).stem().string();
  return stem.empty() ? std::string("unnamed") : stem;
}

// yaml-cpp 0.7 loops for ever, allocating, when a root that is not a block collection (a scalar,
// a flow collection, a tag or anchor) is followed by a ',' token: ",x", "'a' ,", "{a: 1} ,",
// "a #c\n," (found by fuzz/fuzz_scene_file).  A scene's root is a block map anyway, so the text
// is checked before yaml-cpp sees it: the first content must be a block map key or a block
// sequence (which yaml-cpp rejects with its own message), and one document only, since a second
// one can start with the same ','.  Returns without a verdict on anything else.
void checkYamlRoot(const Reader& reader, const std::string& text) {
  // YAML is printable Unicode text: control characters (NUL among them) and malformed UTF-8 are
  // refused here, since yaml-cpp reads a NUL inside a plain scalar as text and then loops on a
  // comma after it (found by fuzz/fuzz_scene_file).
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f) {
      throw SceneError(reader.source() + ": line " + std::to_string(lineOfOffset(text, i)) +
                       ": expected YAML text, got the control character " + hexByte(text[i]) +
                       " (a binary file?)");
    }
  }
  if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string::npos) {
    throw SceneError(reader.source() + ": line " + std::to_string(lineOfOffset(text, bad)) +
                     ": expected UTF-8 text, got the byte " + hexByte(text[bad]) +
                     " (save the file as UTF-8)");
  }
  std::size_t line_start = 0;
  int line_number = 0, documents = 0;
  bool content_seen = false, document_ended = false;
  while (line_start < text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    std::string line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const bool marker = (line.rfind("---", 0) == 0 || line.rfind("...", 0) == 0) &&
                        (line.size() == 3 || line[3] == ' ' || line[3] == '\t');
    std::size_t column_offset = 0;  // columns cut from the line (a marker's)
    if (marker) {
      column_offset = 3;
      // "---" after content starts a document; "..." ends one, and any content after it does.
      if (content_seen && line[0] == '-') ++documents;
      document_ended = content_seen && line[0] == '.';
      line = line.substr(3);
    } else if (!content_seen && !line.empty() && line[0] == '%') {
      continue;  // a directive
    }
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    if (content_seen) {
      if (document_ended) {
        ++documents;
        document_ended = false;
      }
      continue;
    }
    content_seen = true;
    const char c = line[first];
    const bool sequence = c == '-' && (first + 1 == line.size() || line[first + 1] == ' ');
    // A block map key: plain or quoted text, then ':' and a space or the line's end.
    std::size_t key_end = first;
    if (c == '\'' || c == '"') {
      key_end = line.find(c, first + 1);
      while (c == '\'' && key_end != std::string::npos && key_end + 1 < line.size() &&
             line[key_end + 1] == '\'')
        key_end = line.find(c, key_end + 2);  // '' is a quote inside single quotes
      if (key_end != std::string::npos) key_end = line.find_first_not_of(" \t", key_end + 1);
    } else if (std::string_view(",[]{}#&*!|>%@`?:-").find(c) == std::string_view::npos) {
      key_end = line.find(':', first);
      while (key_end != std::string::npos && key_end + 1 < line.size() &&
             line[key_end + 1] != ' ' && line[key_end + 1] != '\t')
        key_end = line.find(':', key_end + 1);
    } else {
      key_end = std::string::npos;
    }
    const bool key =
        key_end != std::string::npos && key_end < line.size() && line[key_end] == ':' &&
        (key_end + 1 == line.size() || line[key_end + 1] == ' ' || line[key_end + 1] == '\t');
    if (!sequence && !key)
      throw SceneError(reader.source() +
                       ": top level: expected a map of scene settings with a bodies list (see "
                       "docs/scene-format.md) as KEY: VALUE lines, got '" +
                       line.substr(first, 40) + "' (line " + std::to_string(line_number) +
                       ", column " + std::to_string(first + column_offset + 1) + ")");
  }
  if (documents > 0)
    throw SceneError(reader.source() + ": top level: expected a single YAML document, got " +
                     std::to_string(documents + 1) + " (separated by ---)");
}

// The other form of the same yaml-cpp loop: a ',' in block context where a node starts or right
// after one ends ("key: value\n   , other:" hung as well as a root "'a' ,").  Outside flow
// collections YAML allows a comma only inside a scalar, so such a comma is refused.  A small
// scanner tells node starts (a line's start, after ': ', '- ', '? ', after a tag or an anchor;
// in a flow collection after '[', '{', ',' and ':') from the inside of plain scalars, where '[',
// quotes and commas are ordinary text ("q' [[," is one scalar).
void checkBlockCommas(const Reader& reader, const std::string& text) {
  int depth = 0, line = 1, column = 0;
  char quote = 0;
  bool comment = false;
  bool node_start = true;   // a node may start at the next non-blank character
  bool after_node = false;  // a quoted scalar or flow collection has just ended
  bool in_property = false, in_plain = false;
  char previous = '\n';
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      comment = false;
      if (quote == 0) {
        node_start = true;
        after_node = in_property = in_plain = false;
        previous = '\n';
      }
      continue;
    }
    if (comment) continue;
    if (quote != 0) {
      if (quote == '"' && c == '\\') {
        ++i;  // an escaped character
        ++column;
      } else if (c == quote) {
        if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;  // '' inside single quotes
          ++column;
        } else {
          quote = 0;
          after_node = true;
        }
      }
      previous = c;
      continue;
    }
    const bool blank = c == ' ' || c == '\t';
    if (blank) {
      in_property = false;  // a tag or anchor ended: the node itself may follow
      previous = c;
      continue;
    }
    // A comment starts after a blank, and (as yaml-cpp reads it) right after a closing quote.
    if (c == '#' && (previous == ' ' || previous == '\t' || previous == '\n' ||
                     (after_node && (previous == '"' || previous == '\'')))) {
      comment = true;
      continue;
    }
    const bool next_blank =
        i + 1 >= text.size() || text[i + 1] == ' ' || text[i + 1] == '\t' || text[i + 1] == '\n';
    if (c == ',' && depth == 0 && (node_start || after_node))
      throw SceneError(reader.source() + ": line " + std::to_string(line) + ", column " +
                       std::to_string(column) +
                       ": YAML syntax error: a ',' outside [ ] or { } (write lists as [a, b], "
                       "or quote text that holds a comma)");
    if (in_plain && depth > 0 && (c == ',' || c == ']' || c == '}' || c == ':')) in_plain = false;
    if (!in_plain && !in_property) {
      if (node_start && (c == '\'' || c == '"')) {
        quote = c;
        node_start = false;
      } else if (node_start && (c == '[' || c == '{')) {
        ++depth;  // node_start stays: the collection's first entry may follow
      } else if ((c == ']' || c == '}') && depth > 0) {
        --depth;
        node_start = false;
        after_node = depth == 0;
      } else if (depth > 0 && (c == ',' || c == ':')) {
        node_start = true;
      } else if (depth == 0 && (c == ':' || c == '-' || c == '?') && next_blank) {
        node_start = true;
        after_node = false;
      } else if (node_start && (c == '!' || c == '&')) {
        in_property = true;  // node_start stays for the node after the property
      } else if (!after_node) {
        in_plain = true;  // a plain scalar or an alias
        node_start = false;
      }  // else text glued to a quoted scalar or collection ("a"b): still just after that node
    } else if (in_plain && depth == 0 && c == ':' && next_blank) {
      in_plain = false;  // "key: " ends the key; the value may follow
      node_start = true;
    }
    previous = c;
  }
}

SceneFile parseDocuments(const Reader& reader, const std::string& yaml_text,
                         const std::string& source_name) {
  checkYamlRoot(reader, yaml_text);
  checkBlockCommas(reader, yaml_text);
  std::vector<Node> documents;
  try {
    documents = YAML::LoadAll(yaml_text);
  } catch (const YAML::ParserException& e) {
    const std::string where = e.mark.is_null()
                                  ? std::string()
                                  : "line " + std::to_string(e.mark.line + 1) + ", column " +
                                        std::to_string(e.mark.column + 1) + ": ";
    throw SceneError(reader.source() + ": " + where + "YAML syntax error: " + e.msg);
  }
  if (documents.empty() || (documents.size() == 1 && documents.front().IsNull()))
    throw SceneError(reader.source() +
                     ": top level: expected a map of scene settings with a bodies list, got an "
                     "empty file");
  if (documents.size() > 1)
    throw SceneError(reader.source() + ": top level: expected a single YAML document, got " +
                     std::to_string(documents.size()) + " (separated by ---)");
  SceneParser parser(reader);
  SceneFile scene = parser.parse(documents.front(), defaultName(source_name));
  try {
    scene.model.validate();
  } catch (const std::invalid_argument& e) {
    throw SceneError(reader.source() + ": " + e.what());
  }
  return scene;
}

}  // namespace

SceneFile parseScene(const std::string& yaml_text, const std::string& source_name) {
  const Reader reader(source_name);
  // Every failure becomes a SceneError naming the file: callers catch one type, and no yaml-cpp
  // or standard library exception escapes from bad input.
  try {
    return parseDocuments(reader, yaml_text, source_name);
  } catch (const SceneError&) {
    throw;
  } catch (const YAML::Exception& e) {
    throw SceneError(source_name + ": YAML error: " + e.what());
  } catch (const std::exception& e) {
    throw SceneError(source_name + ": could not load the scene: " + e.what());
  }
}

SceneFile loadSceneFile(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw SceneError(path + ": cannot read the scene file: " +
                     (ec ? ec.message() : std::string("no such file")));
  if (std::filesystem::is_directory(status))
    throw SceneError(path + ": cannot read the scene file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path + ": cannot read the scene file: it could not be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SceneError(path + ": cannot read the scene file: read error");
  return parseScene(text.str(), path);
}

}  // namespace subsim
