#pragma once
// What narrow phase reports for one point of contact between two shapes.
#include <array>
#include <cstdint>

#include "subsim/math/types.hpp"

namespace subsim {

/// One contact point between shape A and shape B, in world coordinates.
/// Convention: `normal` is the unit vector from B towards A, so moving A along +normal separates
/// the pair; `gap` is the signed distance along it (negative when penetrating); `point` lies
/// midway between the two surfaces.  `feature` identifies the pair of features (vertex, edge,
/// face ids) that produced the point, stable while the configuration changes smoothly, so that
/// (shape A, shape B, feature) keys a contact across steps for warm starting.
/// `subcontact_set`: points of one pair with the same id >= 0 are the subcontacts of one contact
/// of polyhedral exact geometry (box_box_subcontacts.hpp): the pair is apart when it is apart
/// along at least one of them.  -1: a contact of its own.
struct ManifoldPoint {
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();
  double gap = 0.0;
  std::uint32_t feature = 0;
  int subcontact_set = -1;  // 0 .. kMaxSubcontactSets - 1, local to the pair
};

/// Subcontact sets one shape pair may report (a box pair: one per vertex of either box).
inline constexpr int kMaxSubcontactSets = 16;

/// Up to 8 points of one shape pair (box-box clipping may give 8 before reduction; narrow phase
/// reduces face manifolds to at most 4).
struct ContactManifold {
  static constexpr int kCapacity = 8;
  std::array<ManifoldPoint, kCapacity> points;
  int count = 0;
  void clear() { count = 0; }
  void add(const Vec3& point, const Vec3& normal, double gap, std::uint32_t feature) {
    if (count < kCapacity) points[count++] = ManifoldPoint{point, normal, gap, feature};
  }
};

/// A contact between two collision objects as the detector hands it to assembly.
struct ContactPoint {
  int object_a = -1;
  int object_b = -1;
  ManifoldPoint geometry;
};

}  // namespace subsim
