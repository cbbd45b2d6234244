#pragma once
// The built-in Franka Panda in the built-in scenes: its URDF text is io/builtin_robots.hpp's
// pandaUrdf() (compiled into the library, so that scenes need no data files at run time); the
// helpers below, which place it in a scene and drive it, are in panda_model.cpp.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "subsim/articulation/inverse_kinematics.hpp"
#include "subsim/io/builtin_robots.hpp"
#include "subsim/io/urdf_loader.hpp"
#include "subsim/model/model.hpp"

namespace subsim {

/// Franka's example joint impedance (franka_ros joint_impedance_example_controller) with gravity
/// compensation on the 7 arm joints, whose velocities start at index `first` (kp and kd must
/// already have the robot's size).
void setFrankaJointImpedance(Robot& robot, int first);

/// IK targets that put the stirring rod's end (link `tool`, panda_stirrer) at `tip` with the rod
/// pointing straight down: the end and a point 10 cm up the rod.
std::vector<IkTarget> rodDownTargets(int tool, const Vec3& tip);

struct PandaOnPath {
  int robot = -1;
  int tool_link = -1;  // panda_stirrer
};

/// A robot named "panda" with `art` as its articulation, finalized (its base, gains and targets
/// left for the scene).
Robot pandaRobot(const Articulation& art);

/// The built-in Panda with the Franka Hand in place of its stirring rod: the hand on the flange
/// (turned -45 degrees about z, as Franka mounts it) and its two fingers on prismatic joints along
/// the hand's +y and -y, 0 .. 4 cm each (closed at 0), 20 N each.  Dimensions and masses from
/// franka_description's panda_hand / panda_leftfinger / panda_rightfinger (hand 0.73 kg, fingers
/// 15 g), collision boxes in place of its meshes: the hand's body, and each finger's 2 x 1.2 x 4 cm
/// pad, whose inner face lies on the finger frame's y = 0 plane, so the pads meet at q = 0.  The
/// tool centre point, between the pads' centres, is 10.34 cm from the flange along the hand's z.
struct PandaHand {
  UrdfRobot urdf;  // the arm and hand, not finalized: 9 joint coordinates (7 arm, 2 fingers)
  int hand_link = -1;
  int finger_links[2] = {-1, -1};
};
PandaHand pandaWithHand();
/// The tool centre point in the hand's frame.
inline const Vec3 kFrankaHandTcp(0.0, 0.0, 0.1034);
/// Position IK for the Franka Hand of a PandaHand articulation `art` (finalized) on `base`: joint
/// angles putting the tool centre point at `tcp` with the hand's axes `axes` (columns: x; y, the
/// fingers' closing direction; z, the approach), the fingers held at `fingers`.  Tried from each
/// of `starts` (their finger values replaced) and, with `half_turn`, also with the hand turned
/// half a turn about its approach (the fingers are symmetric); kept: the first solution that no
/// later one beats by 1 um.  `miss` returns its largest distance to a target point (m).
VecX solveFrankaHandIk(const PandaHand& ph, const Articulation& art, const Pose& base,
                       const Vec3& tcp, const Mat3& axes, double fingers,
                       const std::vector<VecX>& starts, bool half_turn, double& miss);
/// The built-in Panda with the built-in 16-DOF Allegro hand (robots/allegro) in place of its
/// stirring rod: the palm's wrist face (its frame's z = -0.095 m) on the flange, the palm's axes
/// the flange's.  23 joint coordinates: the arm's 7, then the hand's 16 in its URDF's order
/// (index, middle, ring, thumb; four each).
struct PandaAllegro {
  UrdfRobot urdf;  // not finalized
  int palm_link = -1;
  /// The fingertip links (the centres of their tip spheres, radius kAllegroTipRadius): index,
  /// middle, ring, thumb.
  int tip_links[4] = {-1, -1, -1, -1};
  /// Each finger's links from its base to its tip, by the same order.
  std::vector<int> finger_links[4];
};
PandaAllegro pandaWithAllegroHand();
inline constexpr double kAllegroTipRadius = 0.012;
/// Adds `panda` (the articulation of a PandaAllegro, finalized, its targets set) with Franka's
/// joint impedance on the arm and kp 3 N m/rad, kd 0.5 N m s/rad on the hand's joints, and the
/// collision shapes with friction mu.  Returns the robot's index.  The gains were chosen on
/// `dishes:allegro=1` (SubADMM, 60 iterations; the carried bowl's largest tilt): kd 0.05 / 0.2 /
/// 0.5 / 1.0 at kp 3: 7.6 / 7.0 / 4.9 / 4.6 degrees (the bowl swings in a lightly damped grip
/// when the carry starts); at kd 0.05, kp 1 dropped it and kp 4 and 6 swung it 11.6 and 18.5
/// degrees.
int addPandaWithAllegroHand(Model& m, Robot panda, const PandaAllegro& pa, double mu);

/// A part held rigidly by link `parent` (a Fixed joint named NAME_weld at `origin` in the
/// parent's frame), with the mass properties of `shape` at uniform density and mass `mass`.
ArticulationLink weldedPartLink(const std::string& name, int parent, const Pose& origin,
                                const Shape& shape, double mass);
/// Adds `panda` (the articulation of a PandaHand, finalized, its targets set) with Franka's joint
/// impedance on the arm and kp 800 N/m, kd 10 N s/m on the fingers (not Franka's: its gripper is
/// force-controlled; on the fingers' last centimetres that squeezes with their 20 N effort
/// limit), and the hand's collision shapes with friction mu.  Returns the robot's index.
int addPandaWithHand(Model& m, Robot panda, const PandaHand& ph, double mu);

/// The built-in Panda on a fixed base whose rod end follows `tip(t)` pointing down: position IK
/// at each time of `times` (each solve from the previous knot, the first from elbow up, flange
/// down, facing +x) gives the joint targets, tracked by Franka's impedance; collision shapes with
/// friction mu in shape group `group`.  ScenarioError naming `scene`, the time and the shortfall
/// when a knot is out of reach.
PandaOnPath addPandaFollowingTip(Model& m, const std::string& scene, const Pose& base,
                                 const DoubleBuffer& times, const std::function<Vec3(double)>& tip,
                                 double mu, std::uint32_t group = 1);

}  // namespace subsim
