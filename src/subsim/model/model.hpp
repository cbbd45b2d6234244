#pragma once
// The Model: everything that stays constant during a run (bodies, shapes, joints, springs,
// materials, settings).  All mutable data lives in State and in solver workspaces.
#include <cstdint>
#include <string>
#include <vector>

#include "subsim/geometry/shape.hpp"
#include "subsim/model/deformable_body.hpp"
#include "subsim/model/kinematic_trajectory.hpp"
#include "subsim/model/robot.hpp"
#include "subsim/model/rod_coupling.hpp"

namespace subsim {

/// Articulated: a link of a Robot; its pose and velocity follow the robot's generalised
/// coordinates (model/robot.hpp), and its rows enter the robot's subsystem through the link
/// Jacobian.
enum class BodyKind : std::uint8_t { Dynamic, Static, Kinematic, Articulated };

const char* bodyKindName(BodyKind kind);

struct Body {
  std::string name;
  BodyKind kind = BodyKind::Dynamic;
  double mass = 0.0;                             // kg (dynamic bodies)
  Mat3 inertia = Mat3::Zero();                   // kg m^2 about the centre of mass, body frame
  Pose initial_pose;                             // of the centre of mass frame
  Vec3 initial_linear_velocity = Vec3::Zero();   // m/s, world
  Vec3 initial_angular_velocity = Vec3::Zero();  // rad/s, world
  /// A constant external wrench on a dynamic body, beside gravity and a controller's
  /// (BodyForces): world frame, at the centre of mass, N and N m (a scene's driver: the torque
  /// that screws the bolt-nut scene's nut).
  Vec3 applied_force = Vec3::Zero();
  Vec3 applied_torque = Vec3::Zero();
  KinematicTrajectory trajectory;  // kinematic bodies
  std::vector<int> shapes;         // indices into Model::shapes (filled by addShape)
  int robot = -1;  // articulated bodies: the robot (Model::robots) and link they mirror
  int link = -1;
  /// Dynamic bodies with the same non-negative group share one subsystem under the default
  /// partition (the ICRA paper groups 4 cable segments per subsystem); -1: a subsystem of its own.
  int subsystem_group = -1;
  /// The substructure the scene puts this dynamic body in, for the schur solvers' semantic
  /// partition (`partition=semantic`, formulation/substructure_partition.hpp: a truck, one net
  /// section, one cable); -1: none (grouped in order, n_max at a time).
  int substructure = -1;
};

/// A body with a name, kind and mass; everything else at its default.
Body namedBody(std::string name, BodyKind kind, double mass = 0.0);

/// A shape attached to a body.  Two shapes may collide when
/// (a.group & b.mask) && (b.group & a.mask), their bodies are not joined by a joint (unless the
/// joint says so) and at least one of them is dynamic.
struct BodyShape {
  int body = -1;
  Shape shape;
  Pose local_pose;  // shape frame in the body frame
  double mu = 0.5;  // friction coefficient of this shape's material
  /// Anisotropic (elliptic) friction, the COND paper's eq. (12): the coefficient across
  /// `friction_axis` (mu is the one along it); negative: isotropic.  Only on a static body's
  /// shape (a surface with a grain), so that a contact always pairs it with an isotropic shape:
  /// the pair's coefficients are sqrt(mu mu_other) along the axis and sqrt(mu_across mu_other)
  /// across it, in the contact's tangent plane.
  double mu_across = -1.0;
  Vec3 friction_axis = Vec3::UnitX();  // in the shape frame
  std::uint32_t group = 1;
  std::uint32_t mask = 0xffffffffu;
};

/// Ball: the anchors coincide (3 rows).  Universal (Cardan): also a pin fixed in a stays
/// perpendicular to a pin fixed in b, which blocks the relative twist about the shaft axis and
/// leaves the two bending directions free (4 rows).  Hinge: the axes stay aligned (5 rows).
/// Weld: the relative pose is fixed (6 rows).
enum class JointType : std::uint8_t { Ball, Universal, Hinge, Weld };

const char* jointTypeName(JointType type);

/// A joint between body a and body b (b = -1: the world).  Anchors and axes are given in each
/// body's frame; at the initial poses they coincide in the world.
struct Joint {
  std::string name;
  JointType type = JointType::Ball;
  int body_a = -1;
  int body_b = -1;
  Vec3 anchor_a = Vec3::Zero();
  Vec3 anchor_b = Vec3::Zero();
  Vec3 axis_a = Vec3::UnitZ();            // hinge axis, or universal joint's pin, in a's frame
  Vec3 axis_b = Vec3::UnitZ();            // hinge axis, or universal joint's pin, in b's frame
  Quat rest_relative = Quat::Identity();  // q_b^-1 q_a at rest (hinge angle zero, weld)
  bool limited = false;                   // hinge angle limits
  double lower = 0.0, upper = 0.0;        // rad
  bool collide_connected = false;         // let the two joined bodies collide
  /// Compliance: a joint with stiffness > 0 is soft (lambda = -k e - c J vhat per row) instead of
  /// hard.  Linear rows use stiffness (N/m) and damping (N s/m), angular rows angular_stiffness
  /// (N m/rad) and angular_damping (N m s/rad); both stiffnesses must then be positive.  This is
  /// how an impedance-controlled drive or a flexible mount is modelled.
  double stiffness = 0.0;
  double damping = 0.0;
  double angular_stiffness = 0.0;
  double angular_damping = 0.0;
  bool compliant() const { return stiffness > 0.0; }
};

/// A linear spring-damper between a point of body a and a point of body b (b = -1: world).
struct Spring {
  std::string name;
  int body_a = -1;
  int body_b = -1;
  Vec3 point_a = Vec3::Zero();  // body frame (world frame when the body is -1)
  Vec3 point_b = Vec3::Zero();
  double stiffness = 0.0;    // N/m
  double damping = 0.0;      // N s/m
  double rest_length = 0.0;  // m
};

/// A friction coefficient for a pair of bodies that overrides the shapes' combination.
struct FrictionPair {
  int body_a = -1;
  int body_b = -1;
  double mu = 0.0;
};

struct ContactSettings {
  /// Contacts are generated while the gap is below margin + how far the pair can close in one step
  /// (speculative contacts), so the constraint J vhat + gap / h >= 0 prevents penetration.
  double margin = 5e-4;  // m
  /// Penetration that does occur is removed at rate erp per step: e = erp * gap / h for gap < 0.
  double erp = 0.2;
  /// Box pairs report the candidate subcontacts of polyhedral exact geometry (every vertex with
  /// each face near it, crossing edges: geometry/box_box_subcontacts.hpp) instead of the clipped
  /// face manifold: what the PEG formulation (formulation=peg of the LCP solvers) needs, and what
  /// shows the false blocking of the formulations that enforce every plane alone.
  bool subcontacts = false;
};

struct Model {
  std::string name = "unnamed";
  double dt = 0.01;
  /// The velocity the constraints act on: vhat = theta v_k + (1 - theta) v_{k+1} (AL paper eq. 2),
  /// so A = M / (1 - theta) and b = M v_k / (1 - theta) + h f.  1/2 is the papers' midpoint
  /// (A = 2 M); it leaves the mode v_{k+1} = 2 vhat - v_k undamped in every constrained direction
  /// (a velocity that flips sign each step and makes impacts perfectly elastic), which grows into
  /// an instability in jointed chains (a 5-link pendulum blows up after 3.5 s at dt = 10 ms even
  /// with converged solves).  0.49 damps that mode by 0.96 per step and keeps the chain's energy
  /// within 0.05 % over 5 s; it is the default, and 0.5 remains available.
  double theta = 0.49;
  /// Rigid joints add their geometric stiffness to the bodies they join (assembly/
  /// geometric_stiffness.hpp: Andrews et al. 2017's diagonal form, from the last step's impulse).
  /// Without it a light link between heavily loaded joints is unstable above a time step of about
  /// 2 sqrt(I / |K|) (a cable bridge at h = 1/60 s leaves rest after 13 steps); with it the link's
  /// rotations under load get O(h) extra inertia, which damps them: a swinging 5-link chain of
  /// 0.1 m links at h = 10 ms loses half its swing energy in 2 s (1 % without).  So it is off by
  /// default and on in the stiff scenes of the schur paper (cables, chains, cranes, nets).
  bool geometric_stiffness = false;
  Vec3 gravity = Vec3(0.0, 0.0, -9.81);
  ContactSettings contact;
  std::vector<Body> bodies;
  std::vector<BodyShape> shapes;
  std::vector<Joint> joints;
  std::vector<Spring> springs;
  std::vector<RodCoupling> rod_couplings;  // Cosserat rod segments (model/rod_coupling.hpp)
  std::vector<FrictionPair> friction_pairs;
  std::vector<Robot> robots;
  std::vector<DeformableBody> deformables;

  int addBody(Body body);
  /// Finalises the robot's articulation, checks its sizes and adds one Articulated body per link
  /// (named "robot/link"); returns the robot's index.  std::invalid_argument on a bad robot.
  int addRobot(Robot robot);
  /// Sets a robot's initial configuration and its link bodies' initial poses (which joints and
  /// springs given in world coordinates at the initial poses refer to).
  void setRobotInitialConfiguration(int robot, const VecX& q);
  /// A collision shape on a robot link, its pose given in the link frame (URDF <collision>).
  int addRobotShape(int robot, int link, const Shape& shape, const Pose& origin_in_link,
                    double mu = 0.5);
  /// Checks the mesh and material, splits the body into its pieces (model/deformable_body.hpp)
  /// and adds it; returns its index.  std::invalid_argument naming the body and field otherwise.
  int addDeformable(DeformableBody body);
  /// Total number of deformable pieces (each a subsystem).
  int numDeformablePieces() const;
  /// The deformable that piece `piece` (a global piece index) belongs to.
  int deformableOfPiece(int piece) const;
  int addShape(int body, const Shape& shape, const Pose& local_pose = Pose(), double mu = 0.5);
  /// A joint whose anchor (and axis) is given once in world coordinates at the initial poses.
  /// A hinge's axis is the hinge axis; a universal joint's is its shaft (the twist it blocks),
  /// and its two pins are the tangentBasis() directions normal to it, one fixed in each body.
  int addJointAtWorld(JointType type, int body_a, int body_b, const Vec3& anchor_world,
                      const Vec3& axis_world = Vec3::UnitZ());
  int addSpring(Spring spring);
  int findBody(const std::string& name) const;  // -1 if absent

  /// Friction coefficient of a contact between two shapes: a FrictionPair for their bodies if
  /// one exists, else the geometric mean of the shapes' coefficients.
  double frictionBetween(int shape_a, int shape_b) const;
  /// The FrictionPair for the bodies of two shapes, or nullptr.
  const FrictionPair* frictionPairOf(int shape_a, int shape_b) const;
  /// True when the model lets the two bodies' shapes collide (joint and rod-coupling filtering).
  bool jointsAllowCollision(int body_a, int body_b) const;

  /// Throws std::invalid_argument naming the first invalid field ("bodies[3].mass: ...").
  void validate() const;
};

/// Mass and body-frame inertia of a dynamic body of uniform density `density` made of `shape`.
void massPropertiesOf(const Shape& shape, double density, double& mass, Mat3& inertia);

}  // namespace subsim
