#pragma once
// Tools on robots: a hand or gripper described by its own URDF mounted on an arm's flange, the
// two becoming one articulation (one subsystem, one joint-space mass matrix).
#include "subsim/io/urdf_loader.hpp"

namespace subsim {

/// Appends `tool`'s links to `robot`'s (their order kept, so parents still come first), its root
/// fixed to `robot`'s link `parent` with its frame at `mount` in the parent's frame; the joint is
/// named after the tool's root link plus "_mount".  Collisions and notes come along.  Returns
/// the index of the tool's root link in `robot`.  std::invalid_argument, `robot` unchanged, when
/// `parent` is not a link of `robot`, when a tool's link has the name of one of `robot`'s (two
/// identical hands: rename one first), or when the tool's root is not fixed to the world (a
/// floating tool).
int attachUrdf(UrdfRobot& robot, int parent, const Pose& mount, const UrdfRobot& tool);

}  // namespace subsim
