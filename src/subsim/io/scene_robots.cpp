// Scene files: robots from URDF, their gains and joint targets (scene_builder.hpp).
#include "subsim/io/scene_builder.hpp"

#include <filesystem>
#include <system_error>

#include "subsim/io/builtin_robots.hpp"

namespace subsim::scene {

namespace {

// "panda (the built-in Franka Panda), allegro_hand (...) or a URDF file path".
std::string builtinRobotsOrPath() {
  std::string out;
  for (const BuiltinRobot& r : kBuiltinRobots)
    out += std::string(r.name) + " (" + r.description + "), ";
  out.resize(out.size() - 2);
  return out + " or a URDF file path";
}

}  // namespace

VecX SceneBuilder::vecX(const Node& n, const std::string& path, int count, const std::string& what,
                        const std::string& coordinate, const std::string& element_what,
                        Range range) const {
  const std::string list_what = "a list of " + std::to_string(count) + " " + what + " (one per " +
                                coordinate + " coordinate of the robot)";
  const DoubleBuffer v =
      r_.numbers(n, path, static_cast<std::size_t>(count), list_what, element_what, range);
  return Eigen::Map<const VecX>(v.data(), count);
}

UrdfRobot SceneBuilder::loadRobotUrdf(const Node& n, const std::string& path,
                                      bool floating_base) const {
  const std::string what = builtinRobotsOrPath();
  const std::string urdf = r_.text(n, path, what);
  std::filesystem::path file(urdf);
  const BuiltinRobot* builtin = findBuiltinRobot(urdf);
  if (builtin == nullptr) {
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
    if (builtin != nullptr)
      return loadUrdfString(builtin->urdf(), "built-in " + urdf + ".urdf", floating_base);
    return loadUrdfFile(file.string(), floating_base);
  } catch (const SceneError& e) {
    r_.fail(path, "expected a valid URDF robot, got " + shown(urdf) + ": " + e.what(), &n);
  }
}

void SceneBuilder::parseRobot(const Node& node, const std::string& path, Model& m) {
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
  if (const Node* n = f.get("floating_base")) floating_base = r_.boolean(*n, f.at("floating_base"));
  const UrdfRobot urdf =
      loadRobotUrdf(f.required("urdf", builtinRobotsOrPath()), f.at("urdf"), floating_base);
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

void SceneBuilder::parseJointTarget(const Node& node, const std::string& path, int nq,
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
    t.positions.push_back(vecX(positions[k], indexPath(f.at("positions"), k), nq, "joint positions",
                               "configuration", "a joint position"));
}

}  // namespace subsim::scene
