// Deformable surface against rigid shapes: node, shape-point-vs-triangle and edge-edge contacts
// with a uniform-grid mid phase (conventions in deformable_contact.hpp).
#include "subsim/geometry/deformable_contact.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>

#include "subsim/geometry/narrow_phase_pairs.hpp"
#include "subsim/geometry/triangle_surface.hpp"

namespace subsim {
namespace {

using Kind = DeformableContactKind;

// Sine of the angle (about 3 degrees) by which a normal may leave an edge's normal cone and still
// count as inside.  A flat edge's cone is a single direction, so without slack a box edge lying on
// a face would lose its contact with the face's diagonals at the slightest tilt, and the
// deformation makes "flat" edges of a surface slightly concave (no cone at all) or convex at
// random; edges that are concave by less than this still count as flat.
constexpr double kConeTolerance = 0.05;

Aabb pointBox(const Vec3& p, double reach) {
  return Aabb{p, p}.grown(reach);
}

// Whether unit `m`, perpendicular to the edge direction `e`, lies in the normal cone of a convex
// edge whose faces have unit normals n0 (the face in which the edge runs along +e) and n1: the
// arc from n0 to n1.  A flat edge's cone is its face normal; a concave edge has none.
bool inEdgeCone(const Vec3& m, const Vec3& e, const Vec3& n0, const Vec3& n1) {
  if (n0.cross(n1).dot(e) < -kConeTolerance) return false;  // concave
  return n0.cross(m).dot(e) >= -kConeTolerance && m.cross(n1).dot(e) >= -kConeTolerance &&
         m.dot(n0 + n1) > 0.0;
}

}  // namespace

void DeformableSurfaceQuery::setSurface(std::vector<std::array<int, 3>> triangles,
                                        double max_depth) {
  if (!(max_depth >= 0.0)) throw std::invalid_argument("max_depth must be >= 0");
  triangles_ = std::move(triangles);
  max_depth_ = max_depth;
  const int num_tris = static_cast<int>(triangles_.size());

  // Unique edges from the sorted list of (a, b, triangle, corner) half-edges.
  struct HalfEdge {
    int a, b, tri, corner;
  };
  std::vector<HalfEdge> half;
  half.reserve(3 * triangles_.size());
  int max_node = -1;
  for (int t = 0; t < num_tris; ++t) {
    for (int k = 0; k < 3; ++k) {
      const int i = triangles_[t][k], j = triangles_[t][(k + 1) % 3];
      if (i < 0 || i == j) throw std::invalid_argument("degenerate surface triangle");
      half.push_back({std::min(i, j), std::max(i, j), t, k});
      max_node = std::max(max_node, i);
    }
  }
  std::sort(half.begin(), half.end(), [](const HalfEdge& l, const HalfEdge& r) {
    return l.a != r.a ? l.a < r.a : l.b != r.b ? l.b < r.b : l.tri < r.tri;
  });
  edges_.clear();
  triangle_edges_.assign(triangles_.size(), {-1, -1, -1});
  for (std::size_t h = 0; h < half.size(); ++h) {
    if (h == 0 || half[h].a != half[h - 1].a || half[h].b != half[h - 1].b) {
      edges_.push_back({half[h].a, half[h].b, half[h].tri, -1});
    } else if (edges_.back().tri1 < 0) {
      // A non-manifold edge (more than two faces) keeps its first two.
      edges_.back().tri1 = half[h].tri;
    }
    triangle_edges_[half[h].tri][half[h].corner] = static_cast<int>(edges_.size()) - 1;
  }

  surface_nodes_.clear();
  for (const auto& tri : triangles_)
    surface_nodes_.insert(surface_nodes_.end(), tri.begin(), tri.end());
  std::sort(surface_nodes_.begin(), surface_nodes_.end());
  surface_nodes_.erase(std::unique(surface_nodes_.begin(), surface_nodes_.end()),
                       surface_nodes_.end());

  tri_stamp_.assign(triangles_.size(), 0);
  edge_stamp_.assign(edges_.size(), 0);
  node_stamp_.assign(static_cast<std::size_t>(max_node + 1), 0);
  stamp_ = 0;
  x_.clear();
}

void DeformableSurfaceQuery::update(const std::vector<Vec3>& nodes) {
  if (nodes.size() < node_stamp_.size()) throw std::invalid_argument("too few node positions");
  x_.assign(nodes.begin(), nodes.end());
  rebuild();
}

void DeformableSurfaceQuery::update(const VecX& positions) {
  if (positions.size() % 3 != 0 ||
      static_cast<std::size_t>(positions.size() / 3) < node_stamp_.size()) {
    throw std::invalid_argument("positions must hold 3 coordinates per node");
  }
  x_.resize(static_cast<std::size_t>(positions.size() / 3));
  for (std::size_t i = 0; i < x_.size(); ++i)
    x_[i] = positions.segment<3>(3 * static_cast<Eigen::Index>(i));
  rebuild();
}

void DeformableSurfaceQuery::rebuild() {
  const std::size_t num_tris = triangles_.size();
  tri_normal_.resize(num_tris);
  tri_box_.resize(num_tris);
  vertex_normal_.assign(x_.size(), Vec3::Zero());
  Aabb all;
  double size_sum = 0.0;
  Vec3 coordinate_sum = Vec3::Zero();  // NaN-propagating (cwiseMin/Max below are not)
  for (std::size_t t = 0; t < num_tris; ++t) {
    const Vec3& a = x_[triangles_[t][0]];
    const Vec3& b = x_[triangles_[t][1]];
    const Vec3& c = x_[triangles_[t][2]];
    const Vec3 n = (b - a).cross(c - a);
    const double len = n.norm();
    // A collapsed triangle has no normal; zero keeps it out of face contacts (sd = 0 is harmless).
    tri_normal_[t] = len > 0.0 ? Vec3(n / len) : Vec3::Zero();
    for (const int corner : triangles_[t]) vertex_normal_[corner] += tri_normal_[t];
    Aabb& box = tri_box_[t];
    box.lower = a.cwiseMin(b).cwiseMin(c);
    box.upper = a.cwiseMax(b).cwiseMax(c);
    all.lower = all.lower.cwiseMin(box.lower);
    all.upper = all.upper.cwiseMax(box.upper);
    size_sum += (box.upper - box.lower).maxCoeff();
    coordinate_sum += a + b + c;
  }
  if (num_tris == 0) {
    cell_start_.assign(2, 0);
    grid_dims_ = {1, 1, 1};
    return;
  }
  // Cells about the mean triangle size keep a triangle in few cells and few triangles per cell;
  // the cell count is capped at ~2 per triangle so thin or sparse surfaces do not blow up memory.
  const Vec3 extent = all.upper - all.lower;
  // A diverged simulation (NaN or huge positions) would otherwise make the cell count loop below
  // spin forever or overflow the grid: fail loudly instead.
  if (!coordinate_sum.allFinite() || !extent.allFinite() || !(extent.maxCoeff() < 1e150)) {
    throw std::invalid_argument("DeformableSurfaceQuery::update: non-finite node positions");
  }
  double cell = std::max(size_sum / static_cast<double>(num_tris),
                         1e-9 * std::max(extent.maxCoeff(), 1e-300));
  const double max_cells = 2.0 * static_cast<double>(num_tris) + 8.0;
  for (;;) {
    double count = 1.0;
    for (int k = 0; k < 3; ++k) count *= std::floor(extent[k] / cell) + 1.0;
    if (count <= max_cells) break;
    cell *= 1.25;
  }
  inv_cell_ = 1.0 / cell;
  grid_origin_ = all.lower;
  for (int k = 0; k < 3; ++k) grid_dims_[k] = static_cast<int>(std::floor(extent[k] / cell)) + 1;
  const std::size_t num_cells =
      static_cast<std::size_t>(grid_dims_[0]) * grid_dims_[1] * grid_dims_[2];

  // Counting sort into compressed rows: counts, inclusive prefix sums (ends), then a reverse fill
  // that leaves each cell's start in cell_start_ and its triangles in ascending order.
  cell_start_.assign(num_cells + 1, 0);
  // Each triangle's cell range is computed once and used by both passes.
  tri_cells_.resize(num_tris);
  for (std::size_t t = 0; t < num_tris; ++t) {
    cellRange(tri_box_[t], tri_cells_[t].lo, tri_cells_[t].hi);
    const CellRange& r = tri_cells_[t];
    for (int z = r.lo[2]; z <= r.hi[2]; ++z)
      for (int y = r.lo[1]; y <= r.hi[1]; ++y)
        for (int x = r.lo[0]; x <= r.hi[0]; ++x) ++cell_start_[cellIndex(x, y, z)];
  }
  for (std::size_t c = 1; c <= num_cells; ++c) cell_start_[c] += cell_start_[c - 1];
  cell_tris_.resize(static_cast<std::size_t>(cell_start_[num_cells]));
  for (std::size_t t = num_tris; t-- > 0;) {
    const CellRange& r = tri_cells_[t];
    for (int z = r.lo[2]; z <= r.hi[2]; ++z)
      for (int y = r.lo[1]; y <= r.hi[1]; ++y)
        for (int x = r.lo[0]; x <= r.hi[0]; ++x)
          cell_tris_[--cell_start_[cellIndex(x, y, z)]] = static_cast<int>(t);
  }
}

std::uint32_t DeformableSurfaceQuery::nextStamp() {
  if (++stamp_ == 0) {  // wrapped after 2^32 queries: old marks would alias the new stamp
    std::fill(tri_stamp_.begin(), tri_stamp_.end(), 0u);
    std::fill(edge_stamp_.begin(), edge_stamp_.end(), 0u);
    std::fill(node_stamp_.begin(), node_stamp_.end(), 0u);
    stamp_ = 1;
  }
  return stamp_;
}

void DeformableSurfaceQuery::gatherTriangles(const Aabb& box) {
  cand_tris_.clear();
  const int num_tris = static_cast<int>(triangles_.size());
  if (brute_force_) {
    for (int t = 0; t < num_tris; ++t) {
      if (tri_box_[t].overlaps(box)) cand_tris_.push_back(t);
    }
    return;
  }
  if (num_tris == 0) return;
  const std::uint32_t stamp = nextStamp();
  std::array<int, 3> lo, hi;
  cellRange(box, lo, hi);
  // A box entirely outside the grid clamps onto its border cells; the overlap test rejects those.
  for (int z = lo[2]; z <= hi[2]; ++z) {
    for (int y = lo[1]; y <= hi[1]; ++y) {
      for (int x = lo[0]; x <= hi[0]; ++x) {
        const std::size_t c = cellIndex(x, y, z);
        for (int i = cell_start_[c]; i < cell_start_[c + 1]; ++i) {
          const int t = cell_tris_[i];
          if (tri_stamp_[t] == stamp) continue;
          tri_stamp_[t] = stamp;
          if (tri_box_[t].overlaps(box)) cand_tris_.push_back(t);
        }
      }
    }
  }
  // Index order makes the output independent of the grid (and equal to brute force).
  std::sort(cand_tris_.begin(), cand_tris_.end());
}

void DeformableSurfaceQuery::collide(const Shape& shape, const Pose& pose, double margin,
                                     std::vector<DeformableContact>& out) {
  if (x_.empty() || triangles_.empty()) return;
  // Shape features reach max_depth into the body and margin out of it.  A plane has no features
  // and an unbounded box: its nodes are all candidates, without the grid.
  if (shape.type == ShapeType::Plane) {
    cand_tris_.clear();
  } else {
    gatherTriangles(computeAabb(shape, pose, std::max(margin, max_depth_)));
  }
  nodeContacts(shape, pose, computeAabb(shape, pose, margin), margin, out);
  switch (shape.type) {
    case ShapeType::Sphere:
      pointContact(pose.position, shape.radius, 0, margin, out);
      break;
    case ShapeType::Capsule: {
      const Vec3 axis = pose.rotate(Vec3::UnitZ());
      const Vec3 p0 = pose.position - shape.half_length * axis;
      const Vec3 p1 = pose.position + shape.half_length * axis;
      pointContact(p0, shape.radius, 0, margin, out);
      pointContact(p1, shape.radius, 1, margin, out);
      edgeContacts(p0, p1, shape.radius, nullptr, 0, margin, out);
      break;
    }
    case ShapeType::Box: {
      const Mat3 R = pose.orientation.toRotationMatrix();
      const Vec3& h = shape.half_extents;
      // Vertex v has local coordinate k at +h_k when bit k of v is set.
      std::array<Vec3, 8> v;
      for (int i = 0; i < 8; ++i) {
        const Vec3 local((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(),
                         (i & 4) ? h.z() : -h.z());
        v[i] = pose.position + R * local;
        pointContact(v[i], 0.0, i, margin, out);
      }
      // Edge 4 a + c runs along axis a; bit 0 of c sets the sign of axis a+1, bit 1 of axis a+2.
      // Its normal cone is spanned by the normals of those two faces.
      for (int a = 0; a < 3; ++a) {
        const int b = (a + 1) % 3, d = (a + 2) % 3;
        for (int c = 0; c < 4; ++c) {
          const double sb = (c & 1) ? 1.0 : -1.0, sd = (c & 2) ? 1.0 : -1.0;
          const int base = ((c & 1) << b) | ((c & 2) ? (1 << d) : 0);
          const Vec3 cone[2] = {sb * R.col(b), sd * R.col(d)};
          edgeContacts(v[base], v[base | (1 << a)], 0.0, cone, 4 * a + c, margin, out);
        }
      }
      break;
    }
    case ShapeType::Cylinder:
    case ShapeType::SignedDistance:
    case ShapeType::Plane:
      break;  // node contacts only (deformable_contact.hpp)
  }
}

void DeformableSurfaceQuery::nodeContacts(const Shape& shape, const Pose& pose, const Aabb& box,
                                          double margin, std::vector<DeformableContact>& out) {
  cand_nodes_.clear();
  if (brute_force_ || shape.type == ShapeType::Plane) {
    cand_nodes_.assign(surface_nodes_.begin(), surface_nodes_.end());
  } else {
    // A node inside `box` lies in every one of its triangles' boxes, which then overlap the
    // (larger) gathering box: the candidates' corners include every node that can touch.
    const std::uint32_t stamp = nextStamp();
    for (const int t : cand_tris_) {
      for (const int n : triangles_[t]) {
        if (node_stamp_[n] == stamp) continue;
        node_stamp_[n] = stamp;
        cand_nodes_.push_back(n);
      }
    }
    std::sort(cand_nodes_.begin(), cand_nodes_.end());
  }
  for (const int n : cand_nodes_) {
    if (!box.contains(x_[n])) continue;
    const detail::SurfacePoint s = detail::closestOnShape(shape, pose, x_[n]);
    if (!(s.distance < margin)) continue;
    DeformableContact& c = out.emplace_back();
    c.kind = Kind::NodeVsShape;
    c.nodes = {n, -1, -1};
    c.weights = Vec3(1.0, 0.0, 0.0);
    c.normal = s.normal;
    c.gap = s.distance;
    c.point = s.point + (0.5 * s.distance) * s.normal;
    c.feature = deformableFeatureId(Kind::NodeVsShape, 0, n);
  }
}

Vec3 DeformableSurfaceQuery::edgePseudoNormal(int e) const {
  const Edge& edge = edges_[e];
  return edge.tri1 >= 0 ? Vec3(tri_normal_[edge.tri0] + tri_normal_[edge.tri1])
                        : tri_normal_[edge.tri0];
}

void DeformableSurfaceQuery::setSelfContact(std::vector<Vec3> rest_nodes, double exclusion) {
  rest_ = std::move(rest_nodes);
  exclusion2_ = exclusion * exclusion;
}

bool DeformableSurfaceQuery::excluded(int self_node, int triangle) const {
  if (self_node < 0) return false;
  for (const int n : triangles_[triangle])
    if ((rest_[n] - rest_[self_node]).squaredNorm() < exclusion2_) return true;
  return false;
}

void DeformableSurfaceQuery::vertexContact(const Vec3& p, int vertex, double margin,
                                           std::vector<DeformableContact>& out) {
  // As pointContact over an edge, with the vertex's pseudo-normal for the sign.
  const Vec3 offset = x_[vertex] - p;
  const double d = offset.norm();
  const double sd = offset.dot(vertex_normal_[vertex]) <= 0.0 ? d : -d;
  const Vec3 normal = d > 0.0 ? Vec3(offset / sd) : Vec3(-vertex_normal_[vertex].normalized());
  if (sd < -max_depth_ || !(sd < margin) || !normal.allFinite() || normal.squaredNorm() == 0.0)
    return;
  DeformableContact& c = out.emplace_back();
  c.kind = Kind::NodeVsShape;
  c.nodes = {vertex, -1, -1};
  c.weights = Vec3(1.0, 0.0, 0.0);
  c.normal = normal;
  c.gap = sd;
  c.point = p + (0.5 * sd) * normal;
  c.feature = deformableFeatureId(Kind::NodeVsShape, 0, vertex);
}

void DeformableSurfaceQuery::collideNode(const Vec3& p, int self_node, double margin,
                                         std::vector<DeformableContact>& out) {
  if (x_.empty() || triangles_.empty()) return;
  assert(self_node < 0 || self_node < static_cast<int>(rest_.size()));
  gatherTriangles(pointBox(p, std::max(margin, max_depth_)));
  pointContact(p, 0.0, 0, margin, out, self_node, true);
}

void DeformableSurfaceQuery::pointContact(const Vec3& p, double radius, int shape_feature,
                                          double margin, std::vector<DeformableContact>& out,
                                          int self_node, bool vertices) {
  // The nearest triangle by unsigned distance; candidates beyond `reach` cannot matter (too far
  // outside for the margin or too deep for max_depth), and the first of equals (lowest index)
  // wins so that the choice does not depend on the mid phase.
  const double reach = std::max(margin + radius, max_depth_);
  const Aabb box = pointBox(p, reach);
  int best = -1;
  double best_d2 = reach * reach;
  TriangleClosest best_c{};
  for (const int t : cand_tris_) {
    if (!tri_box_[t].overlaps(box) || excluded(self_node, t)) continue;
    const auto& tri = triangles_[t];
    const TriangleClosest c = closestOnTriangle(p, x_[tri[0]], x_[tri[1]], x_[tri[2]]);
    const double d2 = (p - c.point).squaredNorm();
    if (d2 <= best_d2 && (best < 0 || d2 < best_d2)) {
      best = t;
      best_d2 = d2;
      best_c = c;
    }
  }
  // Nothing near, or nearest at a mesh vertex: against a shape, that pair is the vertex's
  // NodeVsShape contact; against a point, the vertex's own.
  if (best < 0) return;
  if (best_c.region >= 4) {
    if (vertices) vertexContact(p, triangles_[best][best_c.region - 4], margin, out);
    return;
  }
  const auto& tri = triangles_[best];
  double sd;
  Vec3 normal;
  if (best_c.region == 0) {
    // Over the face: the plane distance is exact and the normal is the face's.
    sd = (p - x_[tri[0]]).dot(tri_normal_[best]);
    normal = -tri_normal_[best];
  } else {
    const Vec3 pseudo = edgePseudoNormal(triangle_edges_[best][best_c.region - 1]);
    const double d = std::sqrt(best_d2);
    sd = (p - best_c.point).dot(pseudo) >= 0.0 ? d : -d;
    normal = d > 0.0 ? Vec3((best_c.point - p) / sd) : Vec3(-pseudo.normalized());
  }
  if (sd < -max_depth_ || normal.squaredNorm() == 0.0) return;
  const double gap = sd - radius;
  if (!(gap < margin)) return;
  DeformableContact& c = out.emplace_back();
  c.kind = Kind::ShapePointVsTriangle;
  c.nodes = tri;
  c.weights = best_c.weights;
  c.normal = normal;
  c.gap = gap;
  // Rigid surface point p + radius * normal, then half the gap towards the deformable point.
  c.point = p + (radius + 0.5 * gap) * normal;
  c.feature = deformableFeatureId(Kind::ShapePointVsTriangle, shape_feature, best);
}

void DeformableSurfaceQuery::edgeContacts(const Vec3& p0, const Vec3& p1, double radius,
                                          const Vec3* rigid_cone, int shape_feature, double margin,
                                          std::vector<DeformableContact>& out) {
  const double reach = std::max(margin + radius, max_depth_);
  const Aabb box{p0.cwiseMin(p1) - Vec3::Constant(reach), p0.cwiseMax(p1) + Vec3::Constant(reach)};
  cand_edges_.clear();
  const std::uint32_t stamp = nextStamp();
  for (const int t : cand_tris_) {
    if (!tri_box_[t].overlaps(box)) continue;
    for (const int e : triangle_edges_[t]) {
      if (edge_stamp_[e] == stamp) continue;
      edge_stamp_[e] = stamp;
      cand_edges_.push_back(e);
    }
  }
  std::sort(cand_edges_.begin(), cand_edges_.end());

  const Vec3 dr = p1 - p0;
  const double aa = dr.squaredNorm();
  for (const int e : cand_edges_) {
    const Edge& edge = edges_[e];
    const Vec3& xa = x_[edge.a];
    const Vec3 dm = x_[edge.b] - xa;
    // Closest points of the two lines (Ericson 5.1.9); only interior points of both segments
    // make an edge-edge contact, the ends being vertex contacts.  Near-parallel edges (angle
    // below 1e-6) have no well-defined cross product: faces and vertices handle them.
    const Vec3 r = p0 - xa;
    const double ee = dm.squaredNorm(), b = dr.dot(dm), c = dr.dot(r), f = dm.dot(r);
    const double denom = aa * ee - b * b;
    if (!(denom > 1e-12 * aa * ee)) continue;
    const double s = (b * f - c * ee) / denom;
    const double t = (aa * f - b * c) / denom;
    if (!(s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0)) continue;
    Vec3 n = dr.cross(dm).normalized();
    const Vec3& n0 = tri_normal_[edge.tri0];
    const Vec3& n1 = edge.tri1 >= 0 ? tri_normal_[edge.tri1] : n0;
    // From rigid to deformable: against the deformable body's outward directions at the edge.
    if (n.dot(n0 + n1) > 0.0) n = -n;
    // The edge's direction as it runs in tri0 (counter-clockwise about n0) orients its cone.
    const auto& tri0 = triangles_[edge.tri0];
    const int k = triangle_edges_[edge.tri0][0] == e   ? 0
                  : triangle_edges_[edge.tri0][1] == e ? 1
                                                       : 2;
    const Vec3 dir = (tri0[k] == edge.a ? dm : Vec3(-dm)) / std::sqrt(ee);
    if (!inEdgeCone(-n, dir, n0, n1)) continue;
    if (rigid_cone != nullptr &&
        (n.dot(rigid_cone[0]) < -kConeTolerance || n.dot(rigid_cone[1]) < -kConeTolerance)) {
      continue;
    }
    const Vec3 pr = p0 + s * dr;
    const Vec3 qm = xa + t * dm;
    const double line_gap = (qm - pr).dot(n);
    if (line_gap < -max_depth_) continue;
    const double gap = line_gap - radius;
    if (!(gap < margin)) continue;
    DeformableContact& ct = out.emplace_back();
    ct.kind = Kind::ShapeEdgeVsTriangleEdge;
    ct.nodes = {edge.a, edge.b, -1};
    ct.weights = Vec3(1.0 - t, t, 0.0);
    ct.normal = n;
    ct.gap = gap;
    ct.point = pr + (radius + 0.5 * gap) * n;
    ct.feature = deformableFeatureId(Kind::ShapeEdgeVsTriangleEdge, shape_feature, e);
  }
}

}  // namespace subsim
