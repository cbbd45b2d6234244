// Box against box: separating-axis test over the 15 candidate axes, then a face manifold by
// clipping the incident face against the reference face (Sutherland-Hodgman), or a single point
// between two edges.  Where neither describes the closest features (edges that do not cross,
// corners off to the side within the margin) the exact GJK/EPA query gives one point.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "subsim/geometry/narrow_phase_pairs.hpp"

namespace subsim::detail {

namespace {

// An edge axis replaces the best face axis only when clearly better: a face manifold is what
// keeps resting boxes still, and near ties (parallel edges spanning a face normal) must not make
// the manifold flicker between four points and one.  The price is a gap up to this fraction too
// deep when an edge-edge contact is barely the shallowest.
constexpr double kEdgeRelBias = 0.01;
constexpr double kEdgeAbsBias = 1e-6;  // times the boxes' size
// Face axes this close to the best count as tied.
constexpr double kFaceTieRel = 1e-6;
constexpr double kFaceTieAbs = 1e-9;  // times the boxes' size
constexpr std::uint32_t kEdgeFeatureBase = 1u << 13;

struct Obb {
  Vec3 c;
  Mat3 R;
  Vec3 h;
};

struct ClipVertex {
  Vec3 p;
  // Incident-face vertex 0..3, or 8 + 4 * edge + plane for the crossing of a polygon edge with a
  // reference side plane (edges 0..3 are incident-face edges, 4..7 lie on side planes 0..3).
  std::uint32_t id;
  std::uint32_t out_edge;  // label of the polygon edge leaving this vertex
};

// Keeps the part of the polygon with normal . p <= offset.
int clipPolygon(const ClipVertex* in, int n, const Vec3& normal, double offset, std::uint32_t plane,
                ClipVertex* out) {
  int m = 0;
  for (int e = 0; e < n; ++e) {
    const ClipVertex& P = in[e];
    const ClipVertex& Q = in[(e + 1) % n];
    const double dp = normal.dot(P.p) - offset;
    const double dq = normal.dot(Q.p) - offset;
    const bool p_in = dp <= 0.0, q_in = dq <= 0.0;
    if (p_in && q_in) {
      out[m++] = Q;
    } else if (p_in != q_in) {
      const Vec3 x = P.p + (dp / (dp - dq)) * (Q.p - P.p);
      const std::uint32_t id = 8 + 4 * P.out_edge + plane;
      if (p_in) {
        out[m++] = ClipVertex{x, id, 4 + plane};
      } else {
        out[m++] = ClipVertex{x, id, P.out_edge};
        out[m++] = Q;
      }
    }
  }
  return m;
}

double separation(const Obb& A, const Obb& B, const Vec3& d, const Vec3& L) {
  return std::abs(d.dot(L)) - (A.R.transpose() * L).cwiseAbs().dot(A.h) -
         (B.R.transpose() * L).cwiseAbs().dot(B.h);
}

}  // namespace

void collideBoxBox(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, double margin,
                   ContactManifold& out) {
  const Obb A{pa.position, pa.orientation.toRotationMatrix(), a.half_extents};
  const Obb B{pb.position, pb.orientation.toRotationMatrix(), b.half_extents};
  const Vec3 d = B.c - A.c;
  const double scale = A.h.sum() + B.h.sum();

  // Face axes: 0..2 of A, 3..5 of B.  Any axis separating by at least the margin proves the
  // distance is at least the margin.
  std::array<double, 6> face_sep;
  for (int i = 0; i < 3; ++i) {
    face_sep[i] = separation(A, B, d, A.R.col(i));
    face_sep[3 + i] = separation(A, B, d, B.R.col(i));
  }
  double best_face = -std::numeric_limits<double>::infinity();
  for (const double s : face_sep) {
    if (s >= margin) return;
    best_face = std::max(best_face, s);
  }
  // Faces tied with the best (an aligned stack, where both boxes' axes coincide) are resolved
  // towards the larger face, which is the one any small tilt would select: the reference face
  // and its feature ids then do not flip between an exact and a slightly perturbed pose.
  const double tie = kFaceTieRel * std::abs(best_face) + kFaceTieAbs * scale;
  int face = -1;
  double face_area = -1.0;
  for (int k = 0; k < 6; ++k) {
    if (face_sep[k] < best_face - tie) continue;
    const Vec3& h = k < 3 ? A.h : B.h;
    const int i = k % 3;
    const double area = h[(i + 1) % 3] * h[(i + 2) % 3];
    if (area > face_area) {
      face_area = area;
      face = k;
    }
  }
  const bool ref_is_a = face < 3;
  best_face = face_sep[face];

  double best_edge = -std::numeric_limits<double>::infinity();
  int edge_i = -1, edge_j = -1;
  Vec3 edge_axis = Vec3::Zero();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      Vec3 L = A.R.col(i).cross(B.R.col(j));
      const double len = L.norm();
      if (len < 1e-6) continue;  // parallel edges: their axis is one of the face axes
      L /= len;
      const double s = separation(A, B, d, L);
      if (s >= margin) return;
      if (s > best_edge) {
        best_edge = s;
        edge_i = i;
        edge_j = j;
        edge_axis = L;
      }
    }
  }

  if (edge_i >= 0 &&
      best_edge > best_face + kEdgeRelBias * std::abs(best_face) + kEdgeAbsBias * scale) {
    // Edge-edge: the supporting edges of A along L and of B along -L, one point between them.
    const Vec3 L = edge_axis.dot(d) >= 0.0 ? edge_axis : Vec3(-edge_axis);
    const auto supportEdge = [](const Obb& box, int axis, const Vec3& dir, Vec3& centre) {
      centre = box.c;
      std::uint32_t bits = 0;
      for (int m = 1; m < 3; ++m) {
        const int k = (axis + m) % 3;
        const double sk = box.R.col(k).dot(dir) >= 0.0 ? 1.0 : -1.0;
        centre += sk * box.h[k] * box.R.col(k);
        if (sk > 0.0) bits |= 1u << (m - 1);
      }
      return static_cast<std::uint32_t>(4 * axis) + bits;
    };
    Vec3 ca, cb;
    const std::uint32_t ea = supportEdge(A, edge_i, L, ca);
    const std::uint32_t eb = supportEdge(B, edge_j, -L, cb);
    // Closest points of the two edge lines.  Only if they fall within both edges is the axis
    // realised by these edges (then its separation is the exact distance, or minus the depth);
    // otherwise the closest features are a vertex and something else, found exactly by GJK.
    const Vec3 ua = A.R.col(edge_i), ub = B.R.col(edge_j);
    const Vec3 r = ca - cb;
    const double bb = ua.dot(ub), c = ua.dot(r), f = ub.dot(r);
    const double s = (bb * f - c) / (1.0 - bb * bb);
    const double t = f + bb * s;
    const double slack = 1e-9 * scale;
    if (std::abs(s) > A.h[edge_i] + slack || std::abs(t) > B.h[edge_j] + slack) {
      collideConvexGjk(a, pa, b, pb, margin, out);
      return;
    }
    out.add(0.5 * ((ca + s * ua) + (cb + t * ub)), -L, best_edge, kEdgeFeatureBase + 12 * ea + eb);
    return;
  }

  // Face: reference face on the reference box facing the other, incident face on the other box
  // the most opposed to it.
  const Obb& ref = ref_is_a ? A : B;
  const Obb& inc = ref_is_a ? B : A;
  const int r = face % 3;
  Vec3 n_ref = ref.R.col(r);
  const bool ref_positive = n_ref.dot(inc.c - ref.c) >= 0.0;
  if (!ref_positive) n_ref = -n_ref;

  const Vec3 inc_dots = inc.R.transpose() * n_ref;
  int ia = 0;
  inc_dots.cwiseAbs().maxCoeff(&ia);
  const double inc_sign = inc_dots[ia] > 0.0 ? -1.0 : 1.0;
  const int ij = (ia + 1) % 3, ik = (ia + 2) % 3;
  const Vec3 fc = inc.c + inc_sign * inc.h[ia] * inc.R.col(ia);
  const Vec3 U = inc.h[ij] * inc.R.col(ij), V = inc.h[ik] * inc.R.col(ik);

  std::array<ClipVertex, 16> buf_a, buf_b;
  buf_a[0] = ClipVertex{fc + U + V, 0, 0};
  buf_a[1] = ClipVertex{fc - U + V, 1, 1};
  buf_a[2] = ClipVertex{fc - U - V, 2, 2};
  buf_a[3] = ClipVertex{fc + U - V, 3, 3};
  int n = 4;
  ClipVertex* src = buf_a.data();
  ClipVertex* dst = buf_b.data();
  for (std::uint32_t plane = 0; plane < 4 && n > 0; ++plane) {
    const int k = (r + 1 + static_cast<int>(plane / 2)) % 3;
    const Vec3 pn = (plane % 2 == 0 ? 1.0 : -1.0) * ref.R.col(k);
    n = clipPolygon(src, n, pn, pn.dot(ref.c) + ref.h[k], plane, dst);
    std::swap(src, dst);
  }

  const std::uint32_t ref_face = (ref_is_a ? 0u : 6u) + 2u * r + (ref_positive ? 0u : 1u);
  const std::uint32_t inc_face = 2u * ia + (inc_sign > 0.0 ? 0u : 1u);
  const std::uint32_t face_key = (ref_face * 6u + inc_face) * 64u;
  const Vec3 normal = ref_is_a ? Vec3(-n_ref) : n_ref;
  const int first = out.count;
  for (int i = 0; i < n; ++i) {
    const double gap = n_ref.dot(src[i].p - ref.c) - ref.h[r];
    if (gap < margin) out.add(src[i].p - (0.5 * gap) * n_ref, normal, gap, face_key + src[i].id);
  }
  if (out.count == first) {
    // Within the margin by the axis test, yet no incident point over the reference face: the
    // closest features are off to the side (e.g. corner to corner), which only an exact distance
    // query finds.
    collideConvexGjk(a, pa, b, pb, margin, out);
    return;
  }
  reduceManifold(out, first);
}

}  // namespace subsim::detail
