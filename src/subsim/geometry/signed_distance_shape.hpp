#pragma once
// A rigid shape given by a signed distance function in its own frame, with a closed
// triangulation of its surface: the AL paper's geometry for concave parts (dishes, bottles;
// Sec. VII and Appendix B).  Another shape's contact with it is found by Frank-Wolfe over that
// shape's triangles against this function, and this shape's triangles against the other's
// (collide_sdf.hpp), so both roles need the function and the surface.
#include <cstdint>
#include <string>
#include <vector>

#include "subsim/geometry/shape.hpp"
#include "subsim/geometry/triangle_surface.hpp"

namespace subsim {

class SignedDistanceShape {
 public:
  virtual ~SignedDistanceShape() = default;
  /// What the shape is, for messages and recordings ("revolved").
  virtual std::string kind() const = 0;
  /// Signed distance of `p` (shape frame) to the surface, negative inside, and its gradient
  /// (unit, the outward normal of the nearest surface point; some unit vector where the nearest
  /// point is not unique).
  virtual double distance(const Vec3& p, Vec3& gradient) const = 0;
  /// A bound on the field's slope, for culling: 1 for an exact distance; more for an
  /// interpolated one.
  virtual double lipschitz() const { return 1.0; }
  /// Whether another signed distance shape's triangles are searched in this field (Frank-Wolfe,
  /// collide_sdf.hpp): false where the field is a distance only near part of the surface, so
  /// that the partner's field serves alone (a nut: see HelicalThreadShape).
  virtual bool servesAsField() const { return true; }
  /// A sphere's contact with the field: the signed distance of its centre `p` to each piece of
  /// the surface (shape frame), where below `limit`, in a fixed order.  The default is the one
  /// field's distance; a surface that is a union of pieces (a revolved profile's padded
  /// segments) gives one per piece, so that a sphere in a concave corner, a cup's floor meeting
  /// its wall, is held by both (one point let particles poured into a bottle sink 2.5 mm into
  /// its floor while its wall was the nearer).
  struct PieceDistance {
    double distance;
    Vec3 gradient;
    std::uint32_t piece;  // which piece: the contact's feature, for warm starts by key
  };
  virtual void pieceDistances(const Vec3& p, double limit, std::vector<PieceDistance>& out) const;

  const TriangleSurface& surface() const { return surface_; }
  /// Bounding box of the surface in the shape frame.
  const Aabb& bounds() const { return bounds_; }
  const SolidMassProperties& massProperties() const { return mass_; }
  /// The thinnest part of the solid (a dish's wall), for penetration limits.
  double thinnest() const { return thinnest_; }
  /// Mean edge length of the triangulation: how far apart its contact points can be told.
  double meanEdge() const { return mean_edge_; }
  struct Sphere {
    Vec3 centre = Vec3::Zero();
    double radius = 0.0;
  };
  /// Bounding spheres of triangle t and of the chunks of kChunk consecutive triangles, for
  /// culling against a distance field (derived shapes order triangles so that chunks are
  /// compact patches).
  static constexpr int kChunk = 16;
  const Sphere& triangleSphere(int t) const {
    return triangle_spheres_[static_cast<std::size_t>(t)];
  }
  int chunkCount() const { return static_cast<int>(chunk_spheres_.size()); }
  const Sphere& chunkSphere(int c) const { return chunk_spheres_[static_cast<std::size_t>(c)]; }

 protected:
  /// Derived constructors call this once with the surface they triangulated.
  void setSurface(TriangleSurface surface, double thinnest);

 private:
  TriangleSurface surface_;
  Aabb bounds_;
  SolidMassProperties mass_;
  double thinnest_ = 0.0;
  double mean_edge_ = 0.0;
  std::vector<Sphere> triangle_spheres_;
  std::vector<Sphere> chunk_spheres_;
};

}  // namespace subsim
