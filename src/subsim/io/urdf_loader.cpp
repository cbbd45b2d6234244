#include "subsim/io/urdf_loader.hpp"

#include <console_bridge/console.h>
#include <tinyxml.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "subsim/io/shown_text.hpp"
#include "subsim/io/utf8_check.hpp"
#include "subsim/math/so3.hpp"

namespace subsim {
namespace {

// Shortest text that reads back as x: 0.3, not 0.29999999999999999.
std::string number(double x) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), x);
  return ec == std::errc() ? std::string(buffer, end) : std::string("?");
}

// Numeric attributes checked before urdfdom sees them (urdfdom reports a bad number without
// saying where): element -> attribute -> number of values.
struct NumericAttribute {
  const char* element;
  const char* attribute;
  int count;
};
constexpr NumericAttribute kNumericAttributes[] = {
    {"origin", "xyz", 3},      {"origin", "rpy", 3},       {"axis", "xyz", 3},
    {"limit", "lower", 1},     {"limit", "upper", 1},      {"limit", "effort", 1},
    {"limit", "velocity", 1},  {"dynamics", "damping", 1}, {"dynamics", "friction", 1},
    {"mass", "value", 1},      {"inertia", "ixx", 1},      {"inertia", "ixy", 1},
    {"inertia", "ixz", 1},     {"inertia", "iyy", 1},      {"inertia", "iyz", 1},
    {"inertia", "izz", 1},     {"box", "size", 3},         {"sphere", "radius", 1},
    {"cylinder", "radius", 1}, {"cylinder", "length", 1},  {"mesh", "scale", 3},
};

// Collects urdfdom's console_bridge messages while it parses (it reports failures only there).
class CapturedLog : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char* /*filename*/,
           int /*line*/) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR)
      errors.push_back(text);
    else if (level == console_bridge::CONSOLE_BRIDGE_LOG_WARN)
      warnings.push_back(text);
  }
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
};

// console_bridge's handler is process-wide.
std::mutex& consoleMutex() {
  static std::mutex m;
  return m;
}

struct JointInfo {
  std::string name, type, parent, child;
  int row = 0;
};

class Loader {
 public:
  Loader(std::string source, bool floating_base)
      : source_(std::move(source)), floating_base_(floating_base) {}

  UrdfRobot load(const std::string& xml) {
    checkXml(xml);
    const urdf::ModelInterfaceSharedPtr model = parseWithUrdfdom(xml);
    convert(*model);
    return std::move(robot_);
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& message, int row = 0) const {
    std::string text = source_ + ": " + path + ": " + message;
    if (row > 0) text += " (line " + std::to_string(row) + ")";
    throw SceneError(text);
  }

  static std::string attribute(const TiXmlElement& e, const char* name) {
    const char* v = e.Attribute(name);
    return v == nullptr ? std::string() : std::string(v);
  }

  static std::string linkPath(const std::string& name) { return "link[" + name + "]"; }
  static std::string jointPath(const std::string& name) { return "joint[" + name + "]"; }

  // ---- Pass 1: the XML itself (TinyXML, the parser urdfdom uses), with element paths ----

  void checkXml(const std::string& xml) {
    if (xml.find('\0') != std::string::npos)
      fail("document", "expected XML text, got a NUL byte (a binary file?)");
    if (const std::size_t bad = firstInvalidUtf8(xml); bad != std::string::npos) {
      fail("document",
           "expected UTF-8 text, got the byte " + hexByte(xml[bad]) + " at offset " +
               std::to_string(bad) + " (save the file as UTF-8)",
           lineOfOffset(xml, bad));
    }
    checkNesting(xml);
    TiXmlDocument doc;
    doc.Parse(xml.c_str(), nullptr, TIXML_ENCODING_UTF8);
    if (doc.Error()) {
      std::string text =
          source_ + ": document: expected well-formed XML, got: " + std::string(doc.ErrorDesc());
      if (doc.ErrorRow() > 0)
        text += " (line " + std::to_string(doc.ErrorRow()) + ", column " +
                std::to_string(doc.ErrorCol()) + ")";
      throw SceneError(text);
    }
    const TiXmlElement* robot = doc.RootElement();
    if (robot == nullptr) fail("document", "expected a <robot> element, got no element");
    if (std::strcmp(robot->Value(), "robot") != 0)
      fail("document", "expected the root element <robot>, got <" + shown(robot->Value()) + ">",
           robot->Row());
    if (attribute(*robot, "name").empty())
      fail("robot.name", "expected the robot's name, got nothing", robot->Row());

    int link_index = 0;
    for (const TiXmlElement* e = robot->FirstChildElement("link"); e != nullptr;
         e = e->NextSiblingElement("link"), ++link_index) {
      const std::string name = attribute(*e, "name");
      if (name.empty())
        fail("link #" + std::to_string(link_index + 1) + ".name", "expected the link's name",
             e->Row());
      if (link_rows_.count(name) != 0)
        fail(linkPath(name),
             "expected unique link names, got a second link named " + inQuotes(name), e->Row());
      link_rows_[name] = e->Row();
      link_order_.push_back(name);
      checkInertial(*e, linkPath(name));
      checkCollisionGeometry(*e, linkPath(name));
      checkNumbers(*e, linkPath(name));
    }
    if (link_order_.empty()) fail("robot", "expected at least one <link>, got none", robot->Row());

    int joint_index = 0;
    for (const TiXmlElement* e = robot->FirstChildElement("joint"); e != nullptr;
         e = e->NextSiblingElement("joint"), ++joint_index) {
      JointInfo j;
      j.row = e->Row();
      j.name = attribute(*e, "name");
      if (j.name.empty())
        fail("joint #" + std::to_string(joint_index + 1) + ".name", "expected the joint's name",
             j.row);
      const std::string path = jointPath(j.name);
      if (joint_rows_.count(j.name) != 0)
        fail(path, "expected unique joint names, got a second joint named " + inQuotes(j.name),
             j.row);
      joint_rows_[j.name] = j.row;
      j.type = attribute(*e, "type");
      if (j.type == "floating" || j.type == "planar")
        fail(path + ".type",
             "a " + j.type +
                 " joint inside the tree is not supported (expected revolute, continuous, "
                 "prismatic or fixed; a floating root is requested with floating_base)",
             j.row);
      if (j.type != "revolute" && j.type != "continuous" && j.type != "prismatic" &&
          j.type != "fixed")
        fail(path + ".type",
             "expected revolute, continuous, prismatic or fixed, got " + inQuotes(j.type), j.row);
      for (const char* end : {"parent", "child"}) {
        const TiXmlElement* p = e->FirstChildElement(end);
        const std::string end_path = path + "." + end + ".link";
        if (p == nullptr || attribute(*p, "link").empty())
          fail(end_path, "expected the name of a link, got nothing", j.row);
        const std::string link = attribute(*p, "link");
        if (link_rows_.count(link) == 0)
          fail(end_path, "expected the name of a link, got the unknown link " + inQuotes(link),
               p->Row());
        (std::strcmp(end, "parent") == 0 ? j.parent : j.child) = link;
      }
      if (j.parent == j.child)
        fail(path,
             "expected different parent and child links, got " + inQuotes(j.parent) +
                 " for both (a loop)",
             j.row);
      if ((j.type == "revolute" || j.type == "prismatic") &&
          e->FirstChildElement("limit") == nullptr)
        fail(path + ".limit",
             "expected a <limit> element (required for " + j.type + " joints), got none", j.row);
      checkNumbers(*e, path);
      joints_.push_back(j);
    }
    checkTree();
  }

  // TinyXML parses recursively: deeply nested elements would overflow the stack, so they are
  // refused before it sees them.  A tag scan (comments, CDATA, declarations and quoted
  // attribute values skipped) that only has to bound the depth, not validate the XML.
  void checkNesting(const std::string& xml) const {
    constexpr int kMaxDepth = 64;
    int depth = 0;
    const std::size_t n = xml.size();
    auto skipPast = [&](std::size_t from, std::string_view end) {
      const std::size_t at = xml.find(end, from);
      return at == std::string::npos ? n : at + end.size();
    };
    for (std::size_t i = 0; i < n;) {
      if (xml[i] != '<' || i + 1 >= n) {
        ++i;
        continue;
      }
      const char next = xml[i + 1];
      if (xml.compare(i, 4, "<!--") == 0) {
        i = skipPast(i + 4, "-->");
      } else if (xml.compare(i, 9, "<![CDATA[") == 0) {
        i = skipPast(i + 9, "]]>");
      } else if (next == '?' || next == '!') {
        i = skipPast(i + 2, ">");
      } else if (next == '/') {
        --depth;
        i = skipPast(i + 2, ">");
      } else {
        // An opening tag: find its end outside quoted attribute values.
        std::size_t j = i + 1;
        char quote = 0;
        for (; j < n; ++j) {
          if (quote != 0) {
            if (xml[j] == quote) quote = 0;
          } else if (xml[j] == '"' || xml[j] == '\'') {
            quote = xml[j];
          } else if (xml[j] == '>') {
            break;
          }
        }
        if (j < n && xml[j - 1] != '/' && ++depth > kMaxDepth)
          fail(
              "document",
              "expected elements nested at most " + std::to_string(kMaxDepth) + " deep, got deeper",
              1 + static_cast<int>(std::count(xml.begin(), xml.begin() + i, '\n')));
        i = j + 1;
      }
    }
  }

  // urdfdom silently drops a <collision> whose geometry it cannot read: refuse it instead.
  void checkCollisionGeometry(const TiXmlElement& link, const std::string& link_path) {
    int i = 0;
    for (const TiXmlElement* c = link.FirstChildElement("collision"); c != nullptr;
         c = c->NextSiblingElement("collision"), ++i) {
      const std::string path = link_path + ".collision[" + std::to_string(i) + "].geometry";
      const char* expected = "expected one <box>, <sphere>, <cylinder> or <mesh>";
      const TiXmlElement* g = c->FirstChildElement("geometry");
      if (g == nullptr) fail(path, std::string(expected) + ", got no <geometry>", c->Row());
      const TiXmlElement* shape = g->FirstChildElement();
      if (shape == nullptr) fail(path, std::string(expected) + ", got nothing", g->Row());
      const std::string tag = shape->Value();
      if (tag != "box" && tag != "sphere" && tag != "cylinder" && tag != "mesh")
        fail(path, std::string(expected) + ", got <" + shown(tag) + ">", shape->Row());
      if (shape->NextSiblingElement() != nullptr)
        fail(path, std::string(expected) + ", got several", shape->Row());
      // Nor does it say when it drops one for a missing size.
      static const std::map<std::string, std::vector<const char*>> kRequired = {
          {"box", {"size"}},
          {"sphere", {"radius"}},
          {"cylinder", {"radius", "length"}},
          {"mesh", {"filename"}}};
      for (const char* a : kRequired.at(tag))
        if (shape->Attribute(a) == nullptr)
          fail(path + "." + tag + "." + a,
               "expected the " + tag + "'s " + a + (tag == "mesh" ? "" : " in m") + ", got nothing",
               shape->Row());
    }
  }

  // urdfdom reads an <inertial> without <mass value> as a massless link, silently.
  void checkInertial(const TiXmlElement& link, const std::string& link_path) {
    const TiXmlElement* inertial = link.FirstChildElement("inertial");
    if (inertial == nullptr) return;
    const TiXmlElement* mass = inertial->FirstChildElement("mass");
    if (mass == nullptr || mass->Attribute("value") == nullptr)
      fail(link_path + ".inertial.mass.value",
           "expected the link's mass in kg, got nothing (a link without <inertial> is massless)",
           (mass != nullptr ? mass : inertial)->Row());
  }

  // Every numeric attribute: the right count of numbers, all finite.
  void checkNumbers(const TiXmlElement& element, const std::string& path) {
    std::map<std::string, int> seen;  // repeated children get an index: collision[1]
    for (const TiXmlElement* c = element.FirstChildElement(); c != nullptr;
         c = c->NextSiblingElement()) {
      const std::string tag = c->Value();
      std::string child_path = path + "." + tag;
      if (tag == "collision" || tag == "visual")
        child_path += "[" + std::to_string(seen[tag]++) + "]";
      for (const NumericAttribute& a : kNumericAttributes) {
        if (tag != a.element) continue;
        const char* value = c->Attribute(a.attribute);
        if (value == nullptr) continue;
        const DoubleBuffer numbers =
            checkNumberList(value, a.count, child_path + "." + a.attribute, c->Row());
        if (tag == "origin" && std::strcmp(a.attribute, "rpy") == 0)
          origin_rpy_.emplace(child_path, Vec3(numbers[0], numbers[1], numbers[2]));
      }
      checkNumbers(*c, child_path);
    }
  }

  DoubleBuffer checkNumberList(const std::string& text, int count, const std::string& path,
                               int row) {
    const std::string what =
        count == 1 ? "a finite number" : std::to_string(count) + " finite numbers";
    std::istringstream tokens(text);
    std::string token;
    DoubleBuffer values;
    while (tokens >> token) {
      double value = 0.0;
      std::string_view digits = token;
      if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
      const char* end = digits.data() + digits.size();
      const auto [ptr, ec] = std::from_chars(digits.data(), end, value, std::chars_format::general);
      if (ec == std::errc::result_out_of_range ||
          (ec == std::errc() && ptr == end && !std::isfinite(value)))
        fail(path, "expected " + what + ", got the non-finite value " + inQuotes(token), row);
      if (ec != std::errc() || ptr != end)
        fail(path, "expected " + what + ", got " + inQuotes(text), row);
      values.push_back(value);
    }
    if (static_cast<int>(values.size()) != count)
      fail(path, "expected " + what + ", got " + inQuotes(text), row);
    return values;
  }

  // The joints must make the links one tree: one parent per link, one root, no loop.
  void checkTree() {
    std::map<std::string, const JointInfo*> parent_joint;
    for (const JointInfo& j : joints_) {
      const auto [it, inserted] = parent_joint.emplace(j.child, &j);
      if (!inserted)
        fail(jointPath(j.name) + ".child.link",
             "expected each link to have one parent joint, got link " + inQuotes(j.child) +
                 " already the child of joint " + inQuotes(it->second->name) +
                 " (a URDF is a tree: loops are not allowed)",
             j.row);
    }
    std::vector<std::string> roots;
    for (const std::string& link : link_order_)
      if (parent_joint.count(link) == 0) roots.push_back(link);
    if (roots.empty())
      fail("robot",
           "expected a tree with one root link, got a loop (every link has a parent joint)");
    if (roots.size() > 1) {
      std::string names;
      constexpr std::size_t kMaxNamed = 5;
      for (std::size_t i = 0; i < roots.size() && i < kMaxNamed; ++i)
        names += (i == 0 ? "" : ", ") + inQuotes(roots[i]);
      if (roots.size() > kMaxNamed)
        names += " and " + std::to_string(roots.size() - kMaxNamed) + " more";
      fail("robot",
           "expected one root link, got " + std::to_string(roots.size()) +
               " links that are no joint's child: " + names,
           link_rows_[roots[1]]);
    }
    // Depth first from the root, children in file order: parents come before children.
    std::vector<std::string> stack{roots.front()};
    std::set<std::string> visited;
    while (!stack.empty()) {
      const std::string link = stack.back();
      stack.pop_back();
      visited.insert(link);
      order_.push_back(link);
      for (auto it = joints_.rbegin(); it != joints_.rend(); ++it)
        if (it->parent == link) stack.push_back(it->child);
    }
    for (const std::string& link : link_order_)
      if (visited.count(link) == 0)
        fail(linkPath(link),
             "expected every link to be reachable from the root " + inQuotes(roots.front()) +
                 ", got a link on a loop of joints",
             link_rows_[link]);
  }

  // ---- Pass 2: urdfdom ----

  urdf::ModelInterfaceSharedPtr parseWithUrdfdom(const std::string& xml) {
    CapturedLog captured;
    urdf::ModelInterfaceSharedPtr model;
    std::string exception;
    {
      const std::lock_guard<std::mutex> lock(consoleMutex());
      console_bridge::useOutputHandler(&captured);
      try {
        model = urdf::parseURDF(xml);
      } catch (const std::exception& e) {
        exception = e.what();
      } catch (...) {
        exception = "an unknown exception";
      }
      console_bridge::restorePreviousOutputHandler();
    }
    for (const std::string& w : captured.warnings) robot_.notes.push_back("urdfdom: " + w);
    if (model == nullptr) {
      std::string why;
      for (const std::string& e : captured.errors) why += (why.empty() ? "" : "; ") + e;
      if (!exception.empty()) why += (why.empty() ? "" : "; ") + exception;
      if (why.empty()) why = "no reason given";
      fail("robot", "urdfdom could not parse the robot: " + why);
    }
    return model;
  }

  // ---- Pass 3: the Articulation ----

  void checkFinite(double x, const std::string& path, int row) const {
    if (!std::isfinite(x)) fail(path, "expected a finite number, got " + number(x), row);
  }

  Pose pose(const urdf::Pose& p, const std::string& path, int row) const {
    Pose out;
    out.position = Vec3(p.position.x, p.position.y, p.position.z);
    // The rotation from the rpy text itself, not urdfdom's quaternion: urdfdom forms that with
    // libm's sin and cos, whose bits differ between processors (math/portable_math.hpp).
    const auto rpy = origin_rpy_.find(path);
    const Quat q = rpy != origin_rpy_.end()
                       ? quatFromRpy(rpy->second.x(), rpy->second.y(), rpy->second.z())
                       : Quat(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z);
    for (int i = 0; i < 3; ++i) checkFinite(out.position[i], path + ".xyz", row);
    for (int i = 0; i < 4; ++i) checkFinite(q.coeffs()[i], path + ".rpy", row);
    if (q.norm() < 0.5) fail(path + ".rpy", "expected a rotation, got a degenerate one", row);
    out.orientation = q.normalized();
    return out;
  }

  void convert(const urdf::ModelInterface& model) {
    Articulation& art = robot_.articulation;
    art.name = model.getName();
    std::map<std::string, int> index;
    std::map<std::string, const JointInfo*> parent_joint;
    for (const JointInfo& j : joints_) parent_joint[j.child] = &j;

    for (const std::string& link_name : order_) {
      const urdf::LinkConstSharedPtr link = model.getLink(link_name);
      const int row = link_rows_[link_name];
      const std::string path = linkPath(link_name);
      if (link == nullptr) fail(path, "expected urdfdom to have read this link, got nothing", row);
      ArticulationLink out;
      out.name = link_name;
      const auto pj = parent_joint.find(link_name);
      if (pj == parent_joint.end()) {
        out.parent = -1;
        out.joint = floating_base_ ? ArticulationJointType::Floating : ArticulationJointType::Fixed;
      } else {
        convertJoint(model, *pj->second, index.at(pj->second->parent), out);
      }
      convertInertial(*link, path, row, out);
      const int link_index = static_cast<int>(art.links.size());
      index[link_name] = link_index;
      art.links.push_back(std::move(out));
      convertCollisions(*link, path, row, link_index);
    }
    for (const JointInfo& j : joints_) {
      const urdf::JointConstSharedPtr joint = model.getJoint(j.name);
      if (joint != nullptr && joint->dynamics != nullptr && joint->dynamics->friction != 0.0)
        robot_.notes.push_back(jointPath(j.name) +
                               ": dynamics friction ignored (subsim joints have viscous "
                               "damping only)");
      if (joint != nullptr && joint->mimic != nullptr)
        robot_.notes.push_back(jointPath(j.name) + ": mimic ignored (the joint moves freely)");
    }
  }

  void convertJoint(const urdf::ModelInterface& model, const JointInfo& info, int parent,
                    ArticulationLink& out) {
    const std::string path = jointPath(info.name);
    const urdf::JointConstSharedPtr joint = model.getJoint(info.name);
    if (joint == nullptr)
      fail(path, "expected urdfdom to have read this joint, got nothing", info.row);
    out.parent = parent;
    out.joint_name = info.name;
    out.joint_origin = pose(joint->parent_to_joint_origin_transform, path + ".origin", info.row);
    switch (joint->type) {
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS:
        out.joint = ArticulationJointType::Revolute;
        break;
      case urdf::Joint::PRISMATIC:
        out.joint = ArticulationJointType::Prismatic;
        break;
      case urdf::Joint::FIXED:
        out.joint = ArticulationJointType::Fixed;
        return;
      default:
        fail(path + ".type",
             "expected revolute, continuous, prismatic or fixed, got " + inQuotes(info.type),
             info.row);
    }
    const Vec3 axis(joint->axis.x, joint->axis.y, joint->axis.z);
    for (int i = 0; i < 3; ++i) checkFinite(axis[i], path + ".axis.xyz", info.row);
    if (axis.norm() < 1e-12)
      fail(path + ".axis.xyz", "expected a non-zero axis, got 0 0 0", info.row);
    out.axis = axis.normalized();
    if (joint->limits != nullptr) {
      const urdf::JointLimits& l = *joint->limits;
      checkFinite(l.lower, path + ".limit.lower", info.row);
      checkFinite(l.upper, path + ".limit.upper", info.row);
      checkFinite(l.effort, path + ".limit.effort", info.row);
      checkFinite(l.velocity, path + ".limit.velocity", info.row);
      if (l.effort < 0.0)
        fail(path + ".limit.effort", "expected a limit >= 0, got " + number(l.effort), info.row);
      if (l.velocity < 0.0)
        fail(path + ".limit.velocity", "expected a limit >= 0, got " + number(l.velocity),
             info.row);
      out.effort_limit = l.effort;
      out.velocity_limit = l.velocity;
      if (joint->type != urdf::Joint::CONTINUOUS) {
        if (l.lower > l.upper)
          fail(path + ".limit",
               "expected lower <= upper, got lower " + number(l.lower) + " > upper " +
                   number(l.upper),
               info.row);
        out.limited = true;
        out.lower = l.lower;
        out.upper = l.upper;
      }
    }
    if (joint->dynamics != nullptr) {
      checkFinite(joint->dynamics->damping, path + ".dynamics.damping", info.row);
      if (joint->dynamics->damping < 0.0)
        fail(path + ".dynamics.damping",
             "expected a damping >= 0, got " + number(joint->dynamics->damping), info.row);
      out.damping = joint->dynamics->damping;
    }
  }

  void convertInertial(const urdf::Link& link, const std::string& link_path, int row,
                       ArticulationLink& out) {
    if (link.inertial == nullptr) return;
    const urdf::Inertial& in = *link.inertial;
    const std::string path = link_path + ".inertial";
    checkFinite(in.mass, path + ".mass.value", row);
    if (in.mass < 0.0)
      fail(path + ".mass.value", "expected a mass >= 0 in kg, got " + number(in.mass), row);
    const Pose frame = pose(in.origin, path + ".origin", row);
    Mat3 inertia;
    inertia << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
    for (int i = 0; i < 9; ++i) checkFinite(inertia.data()[i], path + ".inertia", row);
    // The inertia is given about the centre of mass in the <origin rpy> frame's axes.
    const Mat3 R = frame.orientation.toRotationMatrix();
    const Mat3 in_link = R * inertia * R.transpose();
    if (in.mass > 0.0) {
      const Eigen::SelfAdjointEigenSolver<Mat3> eig(in_link, Eigen::EigenvaluesOnly);
      if (eig.info() != Eigen::Success || !(eig.eigenvalues().minCoeff() > 0.0))
        fail(path + ".inertia",
             "expected a positive-definite inertia (kg m^2) for mass " + number(in.mass) +
                 ", got principal moments " + number(eig.eigenvalues()[0]) + ", " +
                 number(eig.eigenvalues()[1]) + ", " + number(eig.eigenvalues()[2]),
             row);
    } else if (!in_link.isZero(0.0)) {
      robot_.notes.push_back(path + ": inertia of a massless link ignored");
    }
    out.mass = in.mass;
    out.com = frame.position;
    out.inertia = in.mass > 0.0 ? Mat3(0.5 * (in_link + in_link.transpose())) : Mat3::Zero();
  }

  void convertCollisions(const urdf::Link& link, const std::string& link_path, int row,
                         int link_index) {
    for (std::size_t i = 0; i < link.collision_array.size(); ++i) {
      const urdf::CollisionSharedPtr& c = link.collision_array[i];
      const std::string path = link_path + ".collision[" + std::to_string(i) + "]";
      if (c == nullptr || c->geometry == nullptr)
        fail(path + ".geometry", "expected a geometry, got none", row);
      UrdfCollision out;
      out.link = link_index;
      out.origin = pose(c->origin, path + ".origin", row);
      const urdf::Geometry& g = *c->geometry;
      auto positive = [&](double x, const std::string& p) {
        checkFinite(x, p, row);
        if (!(x > 0.0)) fail(p, "expected a positive size in m, got " + number(x), row);
        return x;
      };
      switch (g.type) {
        case urdf::Geometry::SPHERE:
          out.shape = Shape::sphere(positive(static_cast<const urdf::Sphere&>(g).radius,
                                             path + ".geometry.sphere.radius"));
          break;
        case urdf::Geometry::BOX: {
          const urdf::Vector3& d = static_cast<const urdf::Box&>(g).dim;
          const std::string p = path + ".geometry.box.size";
          out.shape = Shape::box(0.5 * Vec3(positive(d.x, p), positive(d.y, p), positive(d.z, p)));
          break;
        }
        case urdf::Geometry::CYLINDER: {
          // URDF's cylinder axis is its local z, as subsim's: no rotation needed.
          const auto& cyl = static_cast<const urdf::Cylinder&>(g);
          out.shape =
              Shape::cylinder(positive(cyl.radius, path + ".geometry.cylinder.radius"),
                              0.5 * positive(cyl.length, path + ".geometry.cylinder.length"));
          break;
        }
        case urdf::Geometry::MESH:
          robot_.notes.push_back(path + ": mesh " +
                                 inQuotes(static_cast<const urdf::Mesh&>(g).filename) +
                                 " skipped (meshes are not supported: give the link box, sphere "
                                 "or cylinder collision elements)");
          continue;
        default:
          fail(path + ".geometry", "expected a box, sphere, cylinder or mesh", row);
      }
      robot_.collisions.push_back(out);
    }
  }

  std::string source_;
  bool floating_base_;
  std::map<std::string, int> link_rows_, joint_rows_;
  std::map<std::string, Vec3> origin_rpy_;  // element path of an <origin> -> its rpy
  std::vector<std::string> link_order_;     // file order
  std::vector<JointInfo> joints_;           // file order
  std::vector<std::string> order_;          // topological (depth first from the root)
  UrdfRobot robot_;
};

}  // namespace

UrdfRobot loadUrdfString(const std::string& xml, const std::string& source_name,
                         bool floating_base) {
  return Loader(source_name, floating_base).load(xml);
}

UrdfRobot loadUrdfFile(const std::string& path, bool floating_base) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw SceneError(
        path + ": cannot read the URDF file: " + (ec ? ec.message() : std::string("no such file")));
  if (std::filesystem::is_directory(status))
    throw SceneError(path + ": cannot read the URDF file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path + ": cannot read the URDF file: it could not be opened");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SceneError(path + ": cannot read the URDF file: read error");
  return loadUrdfString(text.str(), path, floating_base);
}

}  // namespace subsim
