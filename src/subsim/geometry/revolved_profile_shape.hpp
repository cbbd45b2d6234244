#pragma once
// A padded profile revolved about the shape's z axis: the AL paper's dish (Appendix B, eq. 45),
//   SDF3d(p) = SDF2d([sqrt(p1^2 + p2^2), p3]),  SDF2d(q) = min_k dist(q, segment k) - d,
// with the profile a polyline in the (r, z) half-plane (the paper's O-A-B is three points: a
// bowl or a plate; more points give pots and bottles).  Exact: the nearest point of a surface of
// revolution lies in the query's own half-plane.
#include <vector>

#include "subsim/geometry/signed_distance_shape.hpp"

namespace subsim {

class RevolvedProfileShape final : public SignedDistanceShape {
 public:
  /// `profile`: (r, z) points in m, the first on the axis (r = 0) and the second at its height
  /// (a flat bottom), the rest at r > 0; `padding`: d in m (half the wall thickness);
  /// `segments`: the surface's triangles around the axis; `max_edge`: the longest triangle side
  /// along the profile in m.  std::invalid_argument names the parameter that is wrong.
  RevolvedProfileShape(std::vector<Vec2> profile, double padding, int segments = 48,
                       double max_edge = 0.01);

  std::string kind() const override { return "revolved"; }
  double distance(const Vec3& p, Vec3& gradient) const override;
  /// One distance per padded segment; a segment whose nearest point is its start, shared with
  /// the segment before (which then has the same point), is left to that one.
  void pieceDistances(const Vec3& p, double limit, std::vector<PieceDistance>& out) const override;
  /// SDF2d and its gradient in the (r, z) half-plane.
  double profileDistance(const Vec2& q, Vec2& gradient) const;

  const std::vector<Vec2>& profile() const { return profile_; }
  double padding() const { return padding_; }

 private:
  struct Segment {
    Vec2 start, along, normal;  // along: end - start; normal: unit, left of `along`
    double inverse_length2;
  };
  std::vector<Vec2> profile_;
  std::vector<Segment> segments_;
  double padding_;
};

}  // namespace subsim
