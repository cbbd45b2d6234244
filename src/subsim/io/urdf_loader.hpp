#pragma once
// URDF import: a robot description (http://wiki.ros.org/urdf/XML) to an Articulation plus its
// collision shapes, parsed by Debian's urdfdom (liburdfdom-dev).
//
// Mapping (conventions in articulation/articulation.hpp):
//   - links are stored in topological order, root first (depth first, children in the order their
//     joints appear in the file); the root link has parent -1 and a Fixed joint to the world at
//     the identity, or a Floating joint when `floating_base` is true;
//   - joints: revolute -> Revolute (limited), continuous -> Revolute (unlimited), prismatic ->
//     Prismatic (limited), fixed -> Fixed; floating and planar joints inside the tree are refused;
//   - <origin xyz rpy> -> joint_origin (rpy: fixed-axis roll, pitch, yaw, R = Rz(y) Ry(p) Rx(r));
//     <axis> normalised; <limit lower upper effort velocity>; <dynamics damping> (friction is
//     ignored, noted);
//   - <inertial>: mass, com = origin xyz, inertia rotated from the <origin rpy> frame into the link
//     frame; a link without <inertial> is massless;
//   - <collision>: box -> Shape::box (half extents = size / 2), sphere -> Shape::sphere, cylinder
//     -> Shape::cylinder (axis along local z in both URDF and subsim); a mesh is skipped with a
//     note (plain URDF gives no primitive to approximate it by); several per link are kept;
//   - <visual>, <material>, <transmission>, <gazebo>, safety controllers, calibration and mimic
//     joints are ignored.
// The loader does not call Articulation::finalize(): the caller does, e.g. after adding links.
#include <string>
#include <vector>

#include "subsim/articulation/articulation.hpp"
#include "subsim/geometry/shape.hpp"
#include "subsim/io/scene_file.hpp"  // SceneError
#include "subsim/math/pose.hpp"

namespace subsim {

struct UrdfCollision {
  int link = -1;  // index into UrdfRobot::articulation.links
  Shape shape;
  Pose origin;  // shape frame in the link frame
};

struct UrdfRobot {
  Articulation articulation;  // named after <robot name>; not finalized
  std::vector<UrdfCollision> collisions;
  /// Approximations made and elements ignored, one sentence each (e.g. a skipped mesh).
  std::vector<std::string> notes;
};

/// Reads and converts the URDF file at `path`.  Any bad input (missing file, not XML, a urdfdom
/// parse failure, no links, loops or several roots, joints naming unknown links, unsupported
/// joints, negative mass, an inertia that is not positive definite, lower > upper, non-finite
/// numbers) is a SceneError whose what() is "FILE: ELEMENT.PATH: what was expected, got ..."
/// (with the line when known), e.g.
/// "robot.urdf: joint[elbow].limit: expected lower <= upper, got lower 1 > upper -1 (line 12)".
UrdfRobot loadUrdfFile(const std::string& path, bool floating_base = false);

/// Converts URDF text; `source_name` names it in error messages.
UrdfRobot loadUrdfString(const std::string& xml, const std::string& source_name,
                         bool floating_base = false);

}  // namespace subsim
