#pragma once
// The mutable state of a run: time, each body's pose and velocity, and the solver's warm start.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "subsim/math/pose.hpp"
#include "subsim/math/types.hpp"

namespace subsim {

struct Model;

/// The warm start of the next step's solve: the last step's impulse lambda of every constraint
/// with a persistent key (Constraint::key), which World maps onto the next step's constraints by
/// key.  Part of the State so that a state saved with World::state() and restored with
/// World::setState() (on the same World or another one of the same Model) steps bit for bit as the
/// original run did.  Empty at t = 0 and in a state put together by hand: the solve then starts
/// cold (lambda = 0).
struct WarmStart {
  std::vector<std::pair<std::uint64_t, int>> keys;  // sorted (key, row offset into lambda)
  VecX lambda;                                      // the last step's lambda, all rows

  /// The row offset into lambda of the last step's impulse of the constraint with `key` (`rows`
  /// rows), or -1 when it had none (a zero key is never kept).
  int offsetOf(std::uint64_t key, int rows) const {
    const auto it = std::lower_bound(keys.begin(), keys.end(),
                                     std::make_pair(key, std::numeric_limits<int>::min()));
    if (key == 0 || it == keys.end() || it->first != key || it->second + rows > lambda.size())
      return -1;
    return it->second;
  }
};

struct State {
  double time = 0.0;
  std::vector<Pose> pose;              // centre-of-mass frame, per body
  std::vector<Vec3> linear_velocity;   // of the centre of mass, world (m/s)
  std::vector<Vec3> angular_velocity;  // world (rad/s)
  /// The last step's midpoint twist vhat (the initial velocity before the first step).  Joint
  /// Jacobians are evaluated at the pose half a step ahead predicted with it: unlike v_k it is
  /// free of the midpoint rule's alternating mode v_{k+1} = 2 vhat - v_k in constrained directions.
  std::vector<Vec3> midpoint_linear_velocity;
  std::vector<Vec3> midpoint_angular_velocity;
  /// Per robot (Model::robots): generalised coordinates q (nq) and velocities v (nv); the link
  /// bodies' entries above follow them.
  std::vector<VecX> robot_q;
  std::vector<VecX> robot_v;
  /// Per deformable piece (all deformables' pieces in order, DeformableBody::first_piece): node
  /// positions and velocities, 3 per node of the piece (shared nodes have a copy per piece).
  std::vector<VecX> fem_x;
  std::vector<VecX> fem_v;
  /// What the next step's solve starts from (World fills it after every step).
  WarmStart warm_start;

  /// The state at t = 0 given by the model's initial poses and velocities.
  static State initial(const Model& model);
  int numBodies() const { return static_cast<int>(pose.size()); }
  /// FNV-1a hash of the raw bits of every number of the physical state (the warm start is left
  /// out): equal states hash equal, for determinism tests.
  std::uint64_t hash() const;
};

}  // namespace subsim
