#pragma once
// The Model builder of scene files: what each entry of a scene file adds to the Model.  One class
// whose members are defined by concept: bodies and shapes (scene_bodies.cpp), robots
// (scene_robots.cpp), joints, springs and friction pairs (scene_joints.cpp); the top-level keys
// are read in scene_file.cpp.  The YAML reading and its messages are yaml_reader.hpp's.
//
// INTERNAL (yaml_reader.hpp): not installed.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "subsim/geometry/signed_distance_shape.hpp"
#include "subsim/io/urdf_loader.hpp"
#include "subsim/io/yaml_reader.hpp"
#include "subsim/model/model.hpp"

namespace subsim::scene {

// The reader's vocabulary (yaml_reader.hpp), in which the builder is written.
using yaml::describe;
using yaml::Fields;
using yaml::indexPath;
using yaml::Keys;
using yaml::Node;
using yaml::Range;
using yaml::Reader;

struct ParsedShape {
  Shape shape;
  Pose pose;
  double mu = 0.5;
  std::uint32_t group = 1;
  std::uint32_t mask = 0xffffffffu;
};

class SceneBuilder {
 public:
  explicit SceneBuilder(const Reader& reader) : r_(reader) {}

  // Bodies and shapes (scene_bodies.cpp).
  void parseBody(const Node& node, const std::string& path, Model& m);
  ParsedShape parseShape(const Node& node, const std::string& path, BodyKind kind) const;
  double radius(const Fields& f) const;
  std::shared_ptr<const SignedDistanceShape> revolvedShape(const Fields& f) const;
  std::shared_ptr<const SignedDistanceShape> meshShape(const Fields& f) const;
  std::shared_ptr<const SignedDistanceShape> threadShape(const Fields& f, bool internal) const;
  void massProperties(const Fields& f, std::vector<ParsedShape>& shapes, Body& body) const;
  Mat3 parseInertia(const Node& n, const std::string& path) const;
  void parseTrajectory(const Node& node, const Fields& body, KinematicTrajectory& t) const;

  // Robots (scene_robots.cpp).
  /// A list of exactly `count` numbers, one per `coordinate` (configuration or velocity)
  /// coordinate of a robot.
  VecX vecX(const Node& n, const std::string& path, int count, const std::string& what,
            const std::string& coordinate, const std::string& element_what,
            Range range = Range::Any) const;
  UrdfRobot loadRobotUrdf(const Node& n, const std::string& path, bool floating_base) const;
  void parseRobot(const Node& node, const std::string& path, Model& m);
  void parseJointTarget(const Node& node, const std::string& path, int nq,
                        JointTrajectory& t) const;

  // Joints, springs and friction pairs: what connects two bodies (scene_joints.cpp).
  int bodyRef(const Node& n, const std::string& path, bool world_allowed) const;
  int modelBody(const std::string& name) const;
  std::string bodyLabel(const Model& m, int b) const;
  bool isDynamic(const Model& m, int b) const;
  // A joint or spring with no dynamic body could never move anything: almost surely a typo.
  void requireDynamic(const Model& m, int a, int b, const std::string& path, const Node& node,
                      const char* what) const;
  void parseJoint(const Node& node, const std::string& path, Model& m);
  void parseSpring(const Node& node, const std::string& path, Model& m);
  void parseFriction(const Node& node, const std::string& path, Model& m);

 protected:
  const Reader& r_;
  std::unordered_map<std::string, std::string> body_paths_;
  // Model::findBody is linear, which would make scenes with many joints quadratic to load.
  std::unordered_map<std::string, int> body_index_;
  std::unordered_map<std::string, std::string> joint_paths_;
  std::unordered_map<std::string, int> substructure_index_;  // name -> Body::substructure
  std::map<std::pair<int, int>, std::string> friction_paths_;
  std::unordered_map<std::string, std::string> robot_paths_;
};

}  // namespace subsim::scene
