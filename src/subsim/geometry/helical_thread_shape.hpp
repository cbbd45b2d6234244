#pragma once
// An ISO metric screw thread as a signed distance shape: the AL paper's M48 bolt and its nut
// (Sec. VII-A, the bolt-nut assembly).  The ISO 68-1 basic profile (60 degree flanks, a crest
// flat of P/8 and a root flat of P/4, depth 5 sqrt(3)/16 P) swept along a right-hand helix of
// pitch P about the shape's z axis, from z = 0 to z = length:
//   bolt:  r <= f(u) - c,   nut:  f(u) + c <= r <= outer radius,   u = z - P theta / (2 pi),
// with f the profile's radius (period P) and c the radial clearance each side gives up (the
// flanks then stand c apart, and the nut has 2 c / sqrt(3) of axial play each way).
// The field is the signed distance to the profile in the query's own half-plane (theta fixed):
// the helix's twist makes it exceed the Euclidean distance by at most a factor 1 / cos of the
// lead angle at the query's radius (1.0007 at an M48's root), and its slope by as much
// (lipschitz(): that factor at half the root radius, 1.003 for an M48).
#include "subsim/geometry/signed_distance_shape.hpp"

namespace subsim {

struct ThreadSpec {
  double major_diameter = 0.048;  // d in m (the basic profile's crests)
  double pitch = 0.005;           // P in m
  double length = 0.08;           // along z from 0, m
  double clearance = 1e-4;        // c in m, radial, per part
  bool internal = false;          // a nut: the threaded hole through a cylinder
  double outer_diameter = 0.0;    // a nut's cylinder, m (more than d + 2 c)
  int segments = 96;              // the surface's columns per turn
};

class HelicalThreadShape final : public SignedDistanceShape {
 public:
  /// std::invalid_argument names the field of `spec` that is wrong.
  explicit HelicalThreadShape(const ThreadSpec& spec);

  std::string kind() const override { return spec_.internal ? "nut" : "bolt"; }
  double distance(const Vec3& p, Vec3& gradient) const override;
  double lipschitz() const override { return lipschitz_; }
  /// A nut's field is not searched against a bolt's triangles: at its end faces it is the
  /// faces' planes, which do not follow the screw motion, so bolt points sliding past a face's
  /// rim along the thread read the face's normal and brake the nut (a frictionless nut under
  /// 0.05 N m lost 78 % of the work done on it at 25 rad/s, measured).  Its triangles in the
  /// bolt's field (invariant along the thread, the AL paper's way) find every contact.
  bool servesAsField() const override { return !spec_.internal; }

  /// The basic profile's thread depth, 5 sqrt(3) / 16 P.
  double depth() const;
  /// This part's crest radius: the basic profile's, moved by the clearance (inward on a bolt).
  double crestRadius() const;
  /// How far the surface's chords cut inside the true thread at the crests:
  /// major_diameter / 2 (1 - cos(pi / segments)).  A bolt and nut start apart only if it is
  /// below their clearance.
  double chordDepth() const;
  /// The radius of this part's threaded surface at profile coordinate u (m; period P).
  double surfaceRadius(double u) const;
  /// Signed distance in the (r, u) half-plane to the threaded surface alone (negative in the
  /// part's material), and its gradient (d/dr, d/du).
  double threadDistance(double r, double u, double& d_r, double& d_u) const;
  const ThreadSpec& spec() const { return spec_; }

 private:
  ThreadSpec spec_;
  double lipschitz_ = 1.0;
};

}  // namespace subsim
