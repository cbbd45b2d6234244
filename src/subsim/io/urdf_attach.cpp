#include "subsim/io/urdf_attach.hpp"

#include <stdexcept>
#include <string>

namespace subsim {

int attachUrdf(UrdfRobot& robot, int parent, const Pose& mount, const UrdfRobot& tool) {
  std::vector<ArticulationLink>& links = robot.articulation.links;
  const int offset = static_cast<int>(links.size());
  if (parent < 0 || parent >= offset)
    throw std::invalid_argument("attachUrdf: parent link " + std::to_string(parent) +
                                " is not a link of '" + robot.articulation.name + "' (" +
                                std::to_string(offset) + " links)");
  for (const ArticulationLink& link : tool.articulation.links)
    if (robot.articulation.findLink(link.name) >= 0)
      throw std::invalid_argument("attachUrdf: '" + robot.articulation.name +
                                  "' already has a link named '" + link.name + "' (of '" +
                                  tool.articulation.name + "')");
  for (const ArticulationLink& source : tool.articulation.links) {
    ArticulationLink link = source;
    if (link.parent < 0) {
      if (link.joint != ArticulationJointType::Fixed)
        throw std::invalid_argument("attachUrdf: the root link '" + link.name + "' of '" +
                                    tool.articulation.name +
                                    "' is not fixed to the world, so it cannot be mounted");
      link.parent = parent;
      link.joint_name = link.name + "_mount";
      link.joint_origin = mount * link.joint_origin;
    } else {
      link.parent += offset;
    }
    link.q_index = link.v_index = -1;
    links.push_back(std::move(link));
  }
  for (UrdfCollision c : tool.collisions) {
    c.link += offset;
    robot.collisions.push_back(std::move(c));
  }
  robot.notes.insert(robot.notes.end(), tool.notes.begin(), tool.notes.end());
  return offset;
}

}  // namespace subsim
