#pragma once
// Contact queries between the boundary surface of a deformable (FEM) body and one rigid shape.
//
// Conventions, the same as the rigid narrow phase (contact_point.hpp) with the deformable body as
// object A and the rigid shape as object B:
//  - `normal` is the unit vector from the rigid shape towards the deformable body: moving the
//    deformable point along +normal separates the pair;
//  - `gap` is the signed distance along it, negative when penetrating;
//  - `point` lies midway between the two surfaces: with p_d = sum_i weights[i] * x[nodes[i]] the
//    deformable point and p_r the rigid surface point, p_d = p_r + gap * normal and
//    point = p_r + 0.5 * gap * normal (so p_r = point - 0.5 * gap * normal).
// Contacts are reported when gap < margin (speculative contacts, as collideShapes()).
//
// Three kinds of contact cover the closest-feature pairs of a shape against a triangle surface:
//  - NodeVsShape: every surface node against the shape (all shape types);
//  - ShapePointVsTriangle: a shape point feature (box vertex, sphere centre, capsule end centre,
//    with the shape's radius subtracted) against the nearest triangle, when the nearest point is
//    inside the triangle or on one of its edges (a nearest mesh vertex is a NodeVsShape contact);
//  - ShapeEdgeVsTriangleEdge: a box edge or the capsule segment against a surface edge when the
//    closest points are interior to both segments and the normal (the cross product of the two
//    edge directions) lies in both edges' normal cones (the edges form a face of the Minkowski
//    difference, as in the separating-axis test of convex polyhedra).  The cones are widened by
//    about 3 degrees so that a box edge lying on a (near) flat part of the surface keeps its
//    contacts with the edges it crosses under small rotations; a concave (valley) surface edge
//    has no cone, the shape's points against the valley's faces carry that contact.
// So a sharp box corner or edge, or a sphere smaller than the mesh spacing, cannot pass between
// nodes.  Planes and cylinders get NodeVsShape contacts only: a plane has no point or edge
// features, and a cylinder's rim against triangles is left for later (its caps and side are flat
// or convex against nodes; a rim pressing into a face between nodes is missed).  So do signed
// distance shapes (a node against the field; their surfaces' triangles are not searched yet).
//
// Inside detection: a shape feature inside the closed surface is found from its nearest triangle
// by unsigned distance, with the sign from the face normal (feature over the face) or from the
// edge's pseudo-normal, the sum of its two face normals (feature over an edge), which is the
// correct sign for a closed, consistently oriented surface (Baerentzen & Aanaes 2005).  Beyond
// some depth the nearest surface may be the far side of a thin body, so shape features deeper
// than `max_depth` below the surface (for edges: below the surface edge, along the normal) are
// ignored (nodes inside a rigid shape are always
// reported: rigid shapes are solid).  Choose max_depth below half the thinnest part of the body.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "subsim/geometry/shape.hpp"
#include "subsim/math/types.hpp"

namespace subsim {

enum class DeformableContactKind : std::uint8_t {
  NodeVsShape = 0,
  ShapePointVsTriangle = 1,
  ShapeEdgeVsTriangleEdge = 2,
};

struct DeformableContact {
  DeformableContactKind kind = DeformableContactKind::NodeVsShape;
  /// The deformable point is sum_i weights[i] * x[nodes[i]].  Unused slots hold -1 with weight 0:
  /// a node contact is {n, -1, -1} with weights (1, 0, 0), an edge contact {i, j, -1} with
  /// weights (1 - t, t, 0), a triangle contact the triangle's nodes (in its order) and the
  /// barycentric weights of the closest point (one is 0 when it lies on an edge).
  std::array<int, 3> nodes{-1, -1, -1};
  Vec3 weights = Vec3::Zero();
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();
  double gap = 0.0;
  /// Stable id of the feature pair for warm starting: see deformableFeatureId().
  std::uint32_t feature = 0;

  /// Nodes carrying the contact: 1 (NodeVsShape), 2 (edge-edge) or 3 (triangle).
  int numNodes() const {
    return kind == DeformableContactKind::NodeVsShape ? 1 : nodes[2] < 0 ? 2 : 3;
  }
};

/// Feature id: kind in bits 30-31, the shape feature in bits 25-29 (box vertex 0-7 or edge 0-11,
/// capsule end 0-1, else 0) and the deformable feature in bits 0-24 (node index, triangle index
/// or surface edge index, see DeformableSurfaceQuery::edges()).  Unique for surfaces of up to
/// 2^25 elements; larger indices wrap (ids then repeat, which only costs warm-start quality).
inline std::uint32_t deformableFeatureId(DeformableContactKind kind, int shape_feature,
                                         int deformable_feature) {
  return (static_cast<std::uint32_t>(kind) << 30) |
         ((static_cast<std::uint32_t>(shape_feature) & 0x1Fu) << 25) |
         (static_cast<std::uint32_t>(deformable_feature) & 0x1FFFFFFu);
}

/// Contact queries against one deformable surface.  Set the (fixed) triangles once, call
/// update() with the current node positions every step, then collide() with each rigid shape
/// near the body.  Buffers are owned and reused: after the first steps neither update() nor
/// collide() allocates (while the output vector has capacity).  Not thread safe: collide() uses
/// scratch buffers.
///
/// Mid phase: a uniform grid over the triangles' bounding boxes (cell about the mean triangle
/// size, at most ~2 cells per triangle), rebuilt by update() in O(triangles + cells).  A query
/// visits the cells overlapping the shape's box grown by max(margin, max_depth) and tests only
/// the triangles, edges and nodes found there: O(cells visited + candidates * shape features).
/// A plane skips the grid: it tests every surface node, O(surface nodes).
class DeformableSurfaceQuery {
 public:
  struct Edge {
    int a, b;        // node indices, a < b
    int tri0, tri1;  // adjacent triangles; tri1 = -1 on the border of an open surface
  };

  DeformableSurfaceQuery() = default;
  DeformableSurfaceQuery(std::vector<std::array<int, 3>> triangles, double max_depth) {
    setSurface(std::move(triangles), max_depth);
  }

  /// The surface triangles, outward oriented (right-hand normal out of the body, as
  /// boundaryTriangles() gives them), and the inside-detection depth limit (metres, >= 0):
  /// below half the body's thinnest part, so that a shape feature inside is never nearer the far
  /// side, and above the deepest penetration a step can produce (deeper features are missed;
  /// their nodes still collide).  A thin-walled body needs small steps.
  void setSurface(std::vector<std::array<int, 3>> triangles, double max_depth);
  /// Current node positions (all nodes of the body, indexed as the triangles; nodes not on the
  /// surface are ignored).  Either a vector of points or a flat vector (x0, y0, z0, x1, ...).
  void update(const std::vector<Vec3>& nodes);
  void update(const VecX& positions);
  /// Appends to `out` (never clears it) every contact between the surface and `shape` at `pose`
  /// with gap < margin.  Deterministic order: node contacts by node index, then shape features
  /// in order with their triangles or edges by index.
  void collide(const Shape& shape, const Pose& pose, double margin,
               std::vector<DeformableContact>& out);

  /// Self contact: the body's rest node positions and an exclusion radius.  collideNode() with one
  /// of this body's nodes then skips the triangles with a corner within `exclusion` of it at rest:
  /// its own neighbourhood, which it touches by construction.  Choose it above the contact margin
  /// and the mesh spacing, and below the rest distance of the parts that are to touch.
  void setSelfContact(std::vector<Vec3> rest_nodes, double exclusion);
  /// Appends the contact of point `p`, a node of another deformable (self_node = -1) or this
  /// body's node `self_node` (setSelfContact), against the nearest part of this surface, if its
  /// gap is below `margin`: a face or an edge (ShapePointVsTriangle, the triangle's feature) or a
  /// vertex (NodeVsShape on that node, signed by the vertex's pseudo-normal, the sum of its face
  /// normals).  The normal points from p towards this body, as for a rigid point.  Nodes inside
  /// deeper than max_depth are ignored.
  void collideNode(const Vec3& p, int self_node, double margin,
                   std::vector<DeformableContact>& out);

  /// Tests every triangle instead of the grid's candidates (same results; for tests and debugging).
  void setBruteForce(bool brute_force) { brute_force_ = brute_force; }

  const std::vector<std::array<int, 3>>& triangles() const { return triangles_; }
  /// Unique surface edges, sorted by (a, b); the index is the edge's feature id.
  const std::vector<Edge>& edges() const { return edges_; }
  /// Surface node indices, ascending.
  const std::vector<int>& surfaceNodes() const { return surface_nodes_; }
  double maxDepth() const { return max_depth_; }
  /// How many triangles the last collide() took as candidates (for tests and profiling).
  int lastCandidateCount() const { return static_cast<int>(cand_tris_.size()); }

 private:
  void rebuild();
  void cellRange(const Aabb& box, std::array<int, 3>& lo, std::array<int, 3>& hi) const {
    // Clamped in floating point before the conversion (a plane's box is +-1e300); truncation is
    // the floor once the value is non-negative.
    for (int k = 0; k < 3; ++k) {
      const double top = static_cast<double>(grid_dims_[k] - 1);
      lo[k] = static_cast<int>(std::clamp((box.lower[k] - grid_origin_[k]) * inv_cell_, 0.0, top));
      hi[k] = static_cast<int>(std::clamp((box.upper[k] - grid_origin_[k]) * inv_cell_, 0.0, top));
    }
  }
  std::size_t cellIndex(int x, int y, int z) const {
    return static_cast<std::size_t>(x) +
           static_cast<std::size_t>(grid_dims_[0]) *
               (static_cast<std::size_t>(y) + static_cast<std::size_t>(grid_dims_[1]) * z);
  }
  std::uint32_t nextStamp();
  Vec3 edgePseudoNormal(int e) const;
  void gatherTriangles(const Aabb& box);
  void nodeContacts(const Shape& shape, const Pose& pose, const Aabb& box, double margin,
                    std::vector<DeformableContact>& out);
  void pointContact(const Vec3& p, double radius, int shape_feature, double margin,
                    std::vector<DeformableContact>& out, int self_node = -1, bool vertices = false);
  void vertexContact(const Vec3& p, int vertex, double margin, std::vector<DeformableContact>& out);
  bool excluded(int self_node, int triangle) const;
  void edgeContacts(const Vec3& p0, const Vec3& p1, double radius, const Vec3* rigid_cone,
                    int shape_feature, double margin, std::vector<DeformableContact>& out);

  // Topology (setSurface).
  std::vector<std::array<int, 3>> triangles_;
  std::vector<std::array<int, 3>> triangle_edges_;  // edge k joins corners k and k+1
  std::vector<Edge> edges_;
  std::vector<int> surface_nodes_;
  double max_depth_ = 0.0;
  bool brute_force_ = false;

  // Geometry (update).
  std::vector<Vec3> x_;
  std::vector<Vec3> tri_normal_;     // unit outward normals
  std::vector<Vec3> vertex_normal_;  // sums of the incident faces' normals

  // Self contact (setSelfContact).
  std::vector<Vec3> rest_;
  double exclusion2_ = 0.0;
  std::vector<Aabb> tri_box_;

  // Uniform grid in compressed-row form: cell c holds cell_tris_[cell_start_[c], cell_start_[c+1]).
  Vec3 grid_origin_ = Vec3::Zero();
  double inv_cell_ = 1.0;
  std::array<int, 3> grid_dims_{1, 1, 1};
  std::vector<int> cell_start_;
  std::vector<int> cell_tris_;
  struct CellRange {
    std::array<int, 3> lo, hi;
  };
  std::vector<CellRange> tri_cells_;

  // Query scratch.  Stamps mark triangles, edges and nodes already gathered by the current query.
  std::vector<std::uint32_t> tri_stamp_, edge_stamp_, node_stamp_;
  std::uint32_t stamp_ = 0;
  std::vector<int> cand_tris_, cand_edges_, cand_nodes_;
};

}  // namespace subsim
