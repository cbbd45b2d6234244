#include "subsim/geometry/box_box_subcontacts.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "subsim/geometry/narrow_phase_pairs.hpp"

namespace subsim {

namespace {

// Feature ids, distinct within a pair: (side, vertex, face) and (edge of a, edge of b).
constexpr std::uint32_t kVertexFaceFeature = 1u << 16;
constexpr std::uint32_t kEdgeEdgeFeature = 1u << 17;
// Edges this close to parallel have no common normal; their contacts are the vertices'.
constexpr double kParallelSine = 1e-9;
// A vertex this close behind a plane (times 1 m plus the box's size: a micrometre on a metre box)
// counts as beyond it: a vertex that a solve, converged to 1e-6 or so, brought a hair past a
// face's plane beside the face keeps that face (the peg landing on the cubes' tops keeps their
// top faces).  Clearances below it are below the detector's resolution.
constexpr double kOnPlane = 1e-6;

struct BoxFrame {
  Vec3 c;
  Mat3 r;
  Vec3 h;

  /// Vertex i: bit k of i set means +h_k along axis k.
  Vec3 vertex(int i) const {
    const Vec3 s((i & 1) ? 1.0 : -1.0, (i & 2) ? 1.0 : -1.0, (i & 4) ? 1.0 : -1.0);
    return c + r * s.cwiseProduct(h);
  }
};

BoxFrame frameOf(const Shape& box, const Pose& pose) {
  return BoxFrame{pose.position, pose.orientation.toRotationMatrix(), box.half_extents};
}

/// The vertices of `from` against the faces of `onto`.  `normal_sign` is +1 when `onto` is box b
/// (its outward normals point from b towards a), -1 when it is box a.
void vertexFaceCandidates(const BoxFrame& from, const BoxFrame& onto, double margin,
                          double normal_sign, int side, int object_a, int object_b,
                          std::vector<ContactPoint>& out) {
  for (int v = 0; v < 8; ++v) {
    const Vec3 p = from.vertex(v);
    const Vec3 q = onto.r.transpose() * (p - onto.c);
    std::array<double, 3> psi{};
    std::array<int, 3> faces{};
    int count = 0;
    // Outside: the faces of the closest feature (a face, the two of an edge, the three of a
    // vertex: the axes along which q lies beyond the box), when it is within the margin.
    const double on_plane = kOnPlane * (1.0 + onto.h.maxCoeff());
    double d2 = 0.0;
    for (int k = 0; k < 3; ++k) {
      const double beyond = std::abs(q[k]) - onto.h[k];
      if (beyond <= -on_plane) continue;
      d2 += beyond > 0.0 ? beyond * beyond : 0.0;
      psi[count] = beyond;
      faces[count++] = 2 * k + (q[k] > 0.0 ? 1 : 0);
    }
    if (count > 0 && d2 >= margin * margin) continue;
    if (count == 0) {
      // Inside: the face of least penetration.
      double best = -1e300;
      for (int k = 0; k < 3; ++k) {
        const double plane = std::abs(q[k]) - onto.h[k];
        if (plane > best) {
          best = plane;
          psi[0] = plane;
          faces[0] = 2 * k + (q[k] > 0.0 ? 1 : 0);
        }
      }
      count = 1;
    }
    const int set = count > 1 ? 8 * side + v : -1;
    for (int i = 0; i < count; ++i) {
      const int k = faces[i] / 2;
      const Vec3 outward = onto.r.col(k) * ((faces[i] & 1) ? 1.0 : -1.0);
      ManifoldPoint m;
      m.point = p - 0.5 * psi[i] * outward;
      m.normal = normal_sign * outward;
      m.gap = psi[i];
      m.feature =
          kVertexFaceFeature | static_cast<std::uint32_t>((side << 8) | (v << 4) | faces[i]);
      m.subcontact_set = set;
      out.push_back(ContactPoint{object_a, object_b, m});
    }
  }
}

/// Edge e of a box: along axis e / 4, at signs (bits of e % 4) on the two other axes.
struct Edge {
  Vec3 centre, axis;
  double half;
  Vec3 outward[2];  // the adjacent faces' outward normals: the edge's normal cone
};

Edge edgeOf(const BoxFrame& b, int e) {
  const int k = e / 4, l1 = (k + 1) % 3, l2 = (k + 2) % 3;
  const double s1 = (e & 1) ? 1.0 : -1.0, s2 = (e & 2) ? 1.0 : -1.0;
  Edge edge;
  edge.centre = b.c + b.r.col(l1) * (s1 * b.h[l1]) + b.r.col(l2) * (s2 * b.h[l2]);
  edge.axis = b.r.col(k);
  edge.half = b.h[k];
  edge.outward[0] = b.r.col(l1) * s1;
  edge.outward[1] = b.r.col(l2) * s2;
  return edge;
}

bool inNormalCone(const Edge& e, const Vec3& n) {
  return n.dot(e.outward[0]) >= 0.0 && n.dot(e.outward[1]) >= 0.0;
}

void edgeEdgeCandidates(const BoxFrame& a, const BoxFrame& b, double margin, int object_a,
                        int object_b, std::vector<ContactPoint>& out) {
  // Crossing edges deeper than this are inside the other box: the vertices' contacts hold them.
  const double deepest = std::min(a.h.minCoeff(), b.h.minCoeff());
  for (int i = 0; i < 12; ++i) {
    const Edge ea = edgeOf(a, i);
    for (int j = 0; j < 12; ++j) {
      const Edge eb = edgeOf(b, j);
      Vec3 n = ea.axis.cross(eb.axis);
      const double sine = n.norm();
      if (sine < kParallelSine) continue;
      n /= sine;
      if (!inNormalCone(eb, n)) n = -n;
      if (!inNormalCone(eb, n) || !inNormalCone(ea, -n)) continue;
      double s = 0.0, t = 0.0;
      detail::closestParametersSegmentSegment(ea.centre, ea.axis, ea.half, eb.centre, eb.axis,
                                              eb.half, s, t);
      if (!(std::abs(s) < ea.half && std::abs(t) < eb.half)) continue;
      const Vec3 pa = ea.centre + s * ea.axis, pb = eb.centre + t * eb.axis;
      const double gap = n.dot(pa - pb);
      if (!(gap < margin && gap > -deepest)) continue;
      ManifoldPoint m;
      m.point = 0.5 * (pa + pb);
      m.normal = n;
      m.gap = gap;
      m.feature = kEdgeEdgeFeature | static_cast<std::uint32_t>((i << 4) | j);
      out.push_back(ContactPoint{object_a, object_b, m});
    }
  }
}

}  // namespace

void collideBoxBoxSubcontacts(const Shape& a, const Pose& pose_a, const Shape& b,
                              const Pose& pose_b, double margin, int object_a, int object_b,
                              std::vector<ContactPoint>& out) {
  const BoxFrame fa = frameOf(a, pose_a), fb = frameOf(b, pose_b);
  vertexFaceCandidates(fa, fb, margin, 1.0, 0, object_a, object_b, out);
  vertexFaceCandidates(fb, fa, margin, -1.0, 1, object_a, object_b, out);
  edgeEdgeCandidates(fa, fb, margin, object_a, object_b, out);
}

}  // namespace subsim
