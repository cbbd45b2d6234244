#include "subsim/model/robot.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "subsim/articulation/articulation_dynamics.hpp"
#include "subsim/model/model.hpp"
#include "subsim/model/state.hpp"

namespace subsim {

namespace {

[[noreturn]] void failRobot(const std::string& robot, const std::string& field,
                            const std::string& expected) {
  throw std::invalid_argument("robot '" + robot + "': " + field + ": " + expected);
}

bool finiteSized(const VecX& x, int size) {
  return x.size() == size && x.allFinite();
}

/// Whether link l's joint has drivable scalar coordinates (revolute, prismatic).
bool scalarJoint(const ArticulationLink& link) {
  return link.joint == ArticulationJointType::Revolute ||
         link.joint == ArticulationJointType::Prismatic;
}

}  // namespace

void JointTrajectory::evaluate(const Articulation& art, double t, VecX& q_target,
                               VecX& v_target) const {
  q_target.setZero(art.nq());
  v_target.setZero(art.nv());
  if (times.empty()) return;
  // The segment [k, k + 1] holding t; before the first / after the last knot: hold.
  const auto it = std::upper_bound(times.begin(), times.end(), t);
  const int k1 = static_cast<int>(it - times.begin());
  const bool inside = k1 > 0 && k1 < static_cast<int>(times.size());
  const int k0 = inside ? k1 - 1 : (k1 == 0 ? 0 : static_cast<int>(times.size()) - 1);
  const double s = inside ? (t - times[k0]) / (times[k1] - times[k0]) : 0.0;
  for (const ArticulationLink& link : art.links) {
    if (!scalarJoint(link)) continue;
    const double a = positions[k0][link.q_index];
    const double b = inside ? positions[k1][link.q_index] : a;
    q_target[link.q_index] = a + s * (b - a);
    v_target[link.v_index] = inside ? (b - a) / (times[k1] - times[k0]) : 0.0;
  }
}

int Model::addRobot(Robot robot) {
  const std::string& robot_name = robot.name;
  try {
    robot.articulation.finalize();
  } catch (const std::invalid_argument& e) {
    failRobot(robot_name, "articulation", e.what());
  }
  const Articulation& art = robot.articulation;
  const int nq = art.nq(), nv = art.nv();
  if (robot.initial_q.size() == 0) robot.initial_q = art.neutralConfiguration();
  if (robot.initial_v.size() == 0) robot.initial_v = VecX::Zero(nv);
  if (robot.kp.size() == 0) robot.kp = VecX::Zero(nv);
  if (robot.kd.size() == 0) robot.kd = VecX::Zero(nv);
  if (!finiteSized(robot.initial_q, nq))
    failRobot(robot_name, "initial_q", "expected " + std::to_string(nq) + " finite numbers");
  if (!finiteSized(robot.initial_v, nv))
    failRobot(robot_name, "initial_v", "expected " + std::to_string(nv) + " finite numbers");
  if (!finiteSized(robot.kp, nv) || (robot.kp.array() < 0.0).any())
    failRobot(robot_name, "kp", "expected " + std::to_string(nv) + " non-negative gains");
  if (!finiteSized(robot.kd, nv) || (robot.kd.array() < 0.0).any())
    failRobot(robot_name, "kd", "expected " + std::to_string(nv) + " non-negative gains");
  const JointTrajectory& tr = robot.target;
  if (tr.times.size() != tr.positions.size())
    failRobot(robot_name, "target", "expected one configuration per knot time");
  for (size_t k = 0; k < tr.times.size(); ++k) {
    if (!std::isfinite(tr.times[k]) || (k > 0 && !(tr.times[k] > tr.times[k - 1])))
      failRobot(robot_name, "target.times[" + std::to_string(k) + "]",
                "expected finite, strictly increasing times");
    if (!finiteSized(tr.positions[k], nq))
      failRobot(robot_name, "target.positions[" + std::to_string(k) + "]",
                "expected " + std::to_string(nq) + " finite numbers");
  }
  if (!robot.base.position.allFinite() || std::abs(robot.base.orientation.norm() - 1.0) > 1e-6)
    failRobot(robot_name, "base", "expected a finite position and a unit quaternion");

  if (robot.no_slip_base.enabled()) {
    const Robot::PlanarBase& nb = robot.no_slip_base;
    const int count = static_cast<int>(art.links.size());
    const auto is = [&](int link, ArticulationJointType type, const Vec3& axis) {
      return link >= 0 && link < count && art.links[link].joint == type &&
             art.links[link].axis.isApprox(axis) &&
             art.links[link].joint_origin.orientation.isApprox(Quat::Identity());
    };
    if (!is(nb.x_link, ArticulationJointType::Prismatic, Vec3::UnitX()) ||
        !is(nb.y_link, ArticulationJointType::Prismatic, Vec3::UnitY()) ||
        !is(nb.yaw_link, ArticulationJointType::Revolute, Vec3::UnitZ()))
      failRobot(robot_name, "no_slip_base",
                "expected the links of a prismatic x, a prismatic y and a revolute z joint with "
                "unrotated joint frames");
  }
  for (const ArticulationLink& link : art.links)
    if (link.joint == ArticulationJointType::Floating &&
        (robot.base.position.norm() > 0.0 || !robot.base.orientation.isApprox(Quat::Identity())))
      failRobot(robot_name, "base",
                "a floating-base robot is placed by its initial_q: expected the identity base");

  if (nv == 0)
    failRobot(robot_name, "articulation",
              "expected at least one moving joint (a robot without any is a "
              "static body)");
  const int index = static_cast<int>(robots.size());
  robot.link_body.clear();
  // A link welded to the world through fixed joints only never moves: it is a static body (its
  // contacts have no velocity to act on).
  std::vector<bool> movable(art.links.size(), false);
  for (size_t l = 0; l < art.links.size(); ++l) {
    const ArticulationLink& link = art.links[l];
    movable[l] =
        link.joint != ArticulationJointType::Fixed || (link.parent >= 0 && movable[link.parent]);
  }
  for (size_t l = 0; l < art.links.size(); ++l) {
    const ArticulationLink& link = art.links[l];
    Body b;
    b.name = robot_name + "/" + link.name;
    b.kind = movable[l] ? BodyKind::Articulated : BodyKind::Static;
    b.mass = link.mass;
    b.inertia = link.inertia;
    b.robot = index;
    b.link = static_cast<int>(robot.link_body.size());
    robot.link_body.push_back(addBody(b));
  }
  robots.push_back(std::move(robot));
  setRobotInitialConfiguration(index, robots[index].initial_q);
  return index;
}

void Model::setRobotInitialConfiguration(int robot, const VecX& q) {
  Robot& r = robots.at(robot);
  if (q.size() != r.articulation.nq() || !q.allFinite())
    failRobot(r.name, "initial_q",
              "expected " + std::to_string(r.articulation.nq()) + " finite numbers");
  r.initial_q = q;
  // The link bodies' initial poses follow, so that joints and springs given in world coordinates
  // at the initial configuration (addJointAtWorld) attach where the links are.
  RobotKinematics kin;
  kin.update(*this, robot, q);
  for (size_t l = 0; l < r.link_body.size(); ++l) {
    const Pose& link = kin.link_pose[l];
    bodies[r.link_body[l]].initial_pose =
        Pose{link.transformPoint(r.articulation.links[l].com), link.orientation};
  }
}

int Model::addRobotShape(int robot, int link, const Shape& shape, const Pose& origin_in_link,
                         double mu) {
  if (robot < 0 || robot >= static_cast<int>(robots.size()))
    throw std::invalid_argument("addRobotShape: no robot " + std::to_string(robot));
  const Robot& r = robots[robot];
  if (link < 0 || link >= static_cast<int>(r.link_body.size()))
    throw std::invalid_argument("addRobotShape: robot '" + r.name + "' has no link " +
                                std::to_string(link));
  // The body frame is the link's centre-of-mass frame with the link's axes.
  Pose local = origin_in_link;
  local.position -= r.articulation.links[link].com;
  return addShape(r.link_body[link], shape, local, mu);
}

void RobotKinematics::update(const Model& model, int robot, const VecX& q) {
  const Robot& r = model.robots[robot];
  forwardKinematics(r.articulation, q, link_pose);
  for (Pose& p : link_pose) p = r.base * p;
}

void RobotKinematics::comJacobian(const Model& model, int robot, int link, MatX& J) const {
  const Robot& r = model.robots[robot];
  const Vec3 com_world = link_pose[link].transformPoint(r.articulation.links[link].com);
  linkJacobian(r.articulation, link_pose, link, com_world, J);
}

void setRobotBodies(const Model& model, int robot, const RobotKinematics& kin, const VecX& v,
                    const VecX& vhat, MatX& scratch, State& state) {
  const Robot& r = model.robots[robot];
  for (size_t l = 0; l < r.link_body.size(); ++l) {
    const int b = r.link_body[l];
    const Pose& link = kin.link_pose[l];
    state.pose[b] = Pose{link.transformPoint(r.articulation.links[l].com), link.orientation};
    kin.comJacobian(model, robot, static_cast<int>(l), scratch);
    state.linear_velocity[b] = scratch.topRows<3>() * v;
    state.angular_velocity[b] = scratch.bottomRows<3>() * v;
    state.midpoint_linear_velocity[b] = scratch.topRows<3>() * vhat;
    state.midpoint_angular_velocity[b] = scratch.bottomRows<3>() * vhat;
  }
}

}  // namespace subsim
