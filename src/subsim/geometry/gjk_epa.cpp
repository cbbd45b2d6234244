// GJK distance + EPA penetration on fixed-size buffers (see gjk_epa.hpp for the design).
#include "subsim/geometry/gjk_epa.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "subsim/geometry/narrow_phase_pairs.hpp"

namespace subsim::detail {

ConvexSupport::ConvexSupport(const Shape& shape, const Pose& pose, double inflate)
    : shape_(shape),
      pose_(pose),
      rotation_(pose.orientation.toRotationMatrix()),
      inflate_(inflate) {}

Vec3 ConvexSupport::support(const Vec3& dir) const {
  const Vec3 d = rotation_.transpose() * dir;
  const auto sgn = [](double x) { return x >= 0.0 ? 1.0 : -1.0; };
  Vec3 local = Vec3::Zero();
  switch (shape_.type) {
    case ShapeType::Sphere:
      break;  // core is the centre
    case ShapeType::Capsule:
      local.z() = sgn(d.z()) * shape_.half_length;
      break;
    case ShapeType::Box:
      local = Vec3(sgn(d.x()) * shape_.half_extents.x(), sgn(d.y()) * shape_.half_extents.y(),
                   sgn(d.z()) * shape_.half_extents.z());
      break;
    case ShapeType::Cylinder: {
      const double rho = std::hypot(d.x(), d.y());
      // Along the axis the whole cap is extreme; its centre keeps witness points central.
      if (rho > 0.0) local.head<2>() = (shape_.radius / rho) * d.head<2>();
      local.z() = sgn(d.z()) * shape_.half_length;
      break;
    }
    case ShapeType::Plane:
    case ShapeType::SignedDistance:
      break;  // unbounded or not convex: callers never pass one
  }
  Vec3 p = pose_.position + rotation_ * local;
  const double len = dir.norm();
  if (inflate_ > 0.0 && len > 0.0) p += (inflate_ / len) * dir;
  return p;
}

double ConvexSupport::boundingRadius() const {
  double r = inflate_;
  switch (shape_.type) {
    case ShapeType::Sphere:
      break;
    case ShapeType::Capsule:
      r += shape_.half_length;
      break;
    case ShapeType::Box:
      r += shape_.half_extents.norm();
      break;
    case ShapeType::Cylinder:
      r += std::hypot(shape_.radius, shape_.half_length);
      break;
    case ShapeType::Plane:
    case ShapeType::SignedDistance:
      break;
  }
  return r;
}

double ConvexSupport::rounding() const {
  return shape_.type == ShapeType::Sphere || shape_.type == ShapeType::Capsule ? shape_.radius
                                                                               : 0.0;
}

namespace {

struct SupportPoint {
  Vec3 w = Vec3::Zero();  // a - b, a point of the Minkowski difference M = A - B
  Vec3 a = Vec3::Zero();
  Vec3 b = Vec3::Zero();
};

SupportPoint supportM(const ConvexSupport& A, const ConvexSupport& B, const Vec3& dir) {
  SupportPoint s;
  s.a = A.support(dir);
  s.b = B.support(-dir);
  s.w = s.a - s.b;
  return s;
}

// Vertices of the current GJK simplex and the barycentric weights of its point closest to the
// origin.
struct Simplex {
  std::array<SupportPoint, 4> p;
  std::array<double, 4> bary{};
  int n = 0;

  void set1(const SupportPoint& a) {
    p[0] = a;
    bary[0] = 1.0;
    n = 1;
  }
  void set2(const SupportPoint& a, const SupportPoint& b, double t) {
    p[0] = a;
    p[1] = b;
    bary[0] = 1.0 - t;
    bary[1] = t;
    n = 2;
  }
};

// Closest point to the origin of a segment / triangle / tetrahedron, reducing the simplex to
// the vertices whose hull contains it (Ericson, Real-Time Collision Detection 5.1.2, 5.1.5,
// 5.1.6, with the query point at the origin).
Vec3 closestSegment(const SupportPoint& A, const SupportPoint& B, Simplex& s) {
  const Vec3 ab = B.w - A.w;
  const double t = -A.w.dot(ab);
  const double denom = ab.squaredNorm();
  if (t <= 0.0) {
    s.set1(A);
    return A.w;
  }
  if (t >= denom) {
    s.set1(B);
    return B.w;
  }
  s.set2(A, B, t / denom);
  return A.w + (t / denom) * ab;
}

Vec3 closestTriangle(const SupportPoint& A, const SupportPoint& B, const SupportPoint& C,
                     Simplex& s) {
  const Vec3 a = A.w, b = B.w, c = C.w;
  const Vec3 ab = b - a, ac = c - a;
  const double d1 = -ab.dot(a), d2 = -ac.dot(a);
  if (d1 <= 0.0 && d2 <= 0.0) {
    s.set1(A);
    return a;
  }
  const double d3 = -ab.dot(b), d4 = -ac.dot(b);
  if (d3 >= 0.0 && d4 <= d3) {
    s.set1(B);
    return b;
  }
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    const double t = d1 / (d1 - d3);
    s.set2(A, B, t);
    return a + t * ab;
  }
  const double d5 = -ab.dot(c), d6 = -ac.dot(c);
  if (d6 >= 0.0 && d5 <= d6) {
    s.set1(C);
    return c;
  }
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    const double t = d2 / (d2 - d6);
    s.set2(A, C, t);
    return a + t * ac;
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
    const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    s.set2(B, C, t);
    return b + t * (c - b);
  }
  const double denom = 1.0 / (va + vb + vc);
  const double v = vb * denom, w = vc * denom;
  s.p[0] = A;
  s.p[1] = B;
  s.p[2] = C;
  s.bary = {1.0 - v - w, v, w, 0.0};
  s.n = 3;
  return a + v * ab + w * ac;
}

// True when the origin and d lie strictly on opposite sides of plane (a, b, c).
bool originOutside(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  const Vec3 n = (b - a).cross(c - a);
  return (-n.dot(a)) * n.dot(d - a) < 0.0;
}

// True when tetrahedron (a, b, c, d) is flat to round-off: its volume relative to the product of
// the edge lengths from a (the sine-like measure of how far d is off plane (a, b, c)) is below
// 1e-12, where the side tests of originOutside are noise.  Coplanar support points are common:
// every vertex of a polytope's face that is parallel to the closest face of M is a support point
// at the same distance.
bool flatTetrahedron(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  const Vec3 ab = b - a, ac = c - a, ad = d - a;
  const double volume = std::abs(ab.dot(ac.cross(ad)));
  return !(volume > 1e-12 * ab.norm() * ac.norm() * ad.norm());
}

Vec3 closestTetrahedron(Simplex& s) {
  const std::array<SupportPoint, 4> p = s.p;
  // The faces through the newest point p[3] first, the old triangle last.
  constexpr int faces[4][4] = {{0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}, {0, 1, 2, 3}};
  // A flat tetrahedron encloses nothing, and the side tests cannot tell which of its faces see
  // the origin: its closest point is that of the nearest face through p[3].  (GJK adds p[3] only
  // when it is nearer the origin along v than the old triangle's closest point, so the new one
  // involves p[3]; on a sliver triangle the old face could still win by round-off, and stall.)
  const bool flat = flatTetrahedron(p[0].w, p[1].w, p[2].w, p[3].w);
  double best = std::numeric_limits<double>::infinity();
  Vec3 closest = Vec3::Zero();
  bool inside = !flat;
  for (const auto& f : faces) {
    if (flat ? f[3] == 3 : !originOutside(p[f[0]].w, p[f[1]].w, p[f[2]].w, p[f[3]].w)) continue;
    inside = false;
    Simplex t;
    const Vec3 q = closestTriangle(p[f[0]], p[f[1]], p[f[2]], t);
    if (q.squaredNorm() < best) {
      best = q.squaredNorm();
      closest = q;
      s = t;
    }
  }
  if (inside) return Vec3::Zero();  // all four kept: the origin is enclosed
  return closest;
}

Vec3 closestOnSimplex(Simplex& s) {
  switch (s.n) {
    case 1:
      s.bary[0] = 1.0;
      return s.p[0].w;
    case 2:
      return closestSegment(s.p[0], s.p[1], s);
    case 3:
      return closestTriangle(s.p[0], s.p[1], s.p[2], s);
    default:
      return closestTetrahedron(s);
  }
}

enum class GjkStatus { kFar, kSeparated, kIntersecting };

// GJK distance (van den Bergen): on kSeparated, v is the point of M closest to the origin and
// s its simplex with weights; kFar when a separating plane proves the distance is at least
// `far`; kIntersecting when s encloses the origin (a tetrahedron, or a lower simplex through it).
// `eps` is the round-off length of the problem (1e-14 of its size).
//
// Stopping test: the upper bound |v| and the lower bound vw / |v| on the distance are within
// 1e-12 |v| + eps.  Without the absolute part, a support point on the closest face of M (another
// vertex of a face of M parallel to that of the simplex: the bounds are equal but for rounding)
// can fail a purely relative test by a rounding and be added.  Two safeguards make that, and any
// other step that rounding stalls, harmless: a flat tetrahedron is never taken to enclose the
// origin (the coplanar support point made one, which was reported as an overlap that EPA could
// not measure), and GJK stops on the best simplex so far after a few steps that do not bring v
// strictly closer (which near convergence may still turn it, so they are not undone at once).
GjkStatus gjk(const ConvexSupport& A, const ConvexSupport& B, double far, double eps, Simplex& s,
              Vec3& v) {
  v = A.centre() - B.centre();  // a point of M: the centres are in the cores
  if (v.squaredNorm() <= eps * eps) v = Vec3::UnitX();
  s.n = 0;
  constexpr int kMaxStalls = 4;
  Simplex best;
  Vec3 best_v = v;
  double best_vv = std::numeric_limits<double>::infinity();
  int stalls = 0;
  const auto keepBest = [&] {
    s = best;
    v = best_v;
    return GjkStatus::kSeparated;
  };
  double lower = 0.0;  // greatest lower bound on the distance so far
  for (int it = 0; it < 128; ++it) {
    const SupportPoint w = supportM(A, B, -v);
    const double vv = v.squaredNorm(), vw = v.dot(w.w), len = std::sqrt(vv);
    // w minimises v . x over M, so vw / |v| bounds the distance from below.
    if (vw > 0.0 && vw * vw >= far * far * vv) return GjkStatus::kFar;
    lower = std::max(lower, vw / len);
    if (s.n > 0) {
      if (vv - vw <= (1e-12 * len + eps) * len) return GjkStatus::kSeparated;
      for (int i = 0; i < s.n; ++i) {
        // A support point already in the simplex: no progress, converged.
        if ((s.p[i].w - w.w).squaredNorm() <= eps * eps) return keepBest();
      }
    }
    s.p[s.n++] = w;
    v = closestOnSimplex(s);
    if (s.n == 4 || v.squaredNorm() <= eps * eps) {
      // A plane v . x = vw > 0 has separated M from the origin: the simplex cannot enclose it,
      // whatever the side tests said (they fail on a sliver triangle, whose plane is noise).
      if (lower > eps && best.n > 0) return keepBest();
      return GjkStatus::kIntersecting;
    }
    if (v.squaredNorm() < best_vv) {
      best = s;
      best_v = v;
      best_vv = v.squaredNorm();
      stalls = 0;
    } else if (++stalls == kMaxStalls) {
      return keepBest();
    }
  }
  return keepBest();  // slow convergence on a curved surface: best bound so far
}

// One more support point off the line / plane of a degenerate simplex through the origin, so
// that EPA starts from a tetrahedron.  False when M is flat there (the origin on its boundary).
bool extendSimplex(const ConvexSupport& A, const ConvexSupport& B, double eps, Simplex& s) {
  if (s.n == 1) return false;
  if (s.n == 2) {
    const Vec3 axis = (s.p[1].w - s.p[0].w).normalized();
    const Vec3 d1 = anyPerpendicular(axis), d2 = axis.cross(d1);
    bool found = false;
    for (const Vec3& d : {d1, Vec3(-d1), d2, Vec3(-d2)}) {
      const SupportPoint w = supportM(A, B, d);
      if (w.w.dot(d) > eps) {
        s.p[s.n++] = w;
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  const Vec3 cross = (s.p[1].w - s.p[0].w).cross(s.p[2].w - s.p[0].w);
  if (!(cross.norm() > 0.0)) return false;
  const Vec3 n = cross.normalized();
  for (const Vec3& d : {n, Vec3(-n)}) {
    const SupportPoint w = supportM(A, B, d);
    if ((w.w - s.p[0].w).dot(d) > eps) {
      s.p[s.n++] = w;
      return true;
    }
  }
  return false;
}

struct EpaFace {
  std::array<int, 3> v;         // counter-clockwise seen from outside M
  std::array<int, 3> adj;       // face across edge e (v[e] -> v[e + 1])
  std::array<int, 3> adj_edge;  // index of that edge in the adjacent face
  Vec3 n;                       // outward unit normal
  double d;                     // plane distance from the origin
  int stamp;                    // last expansion that found it visible
};

constexpr int kMaxVertices = 128;
constexpr int kMaxFaces = 2 * kMaxVertices;
constexpr int kMaxHorizon = kMaxVertices;

// The EPA polytope with face adjacency, so that the faces seen from a new support point are
// collected by walking across edges from the closest face: the region removed is connected and
// its boundary is found in one piece even where round-off makes visibility tests disagree.
class Polytope {
 public:
  std::array<SupportPoint, kMaxVertices> vert;
  int nv = 0;
  std::array<EpaFace, kMaxFaces> face;
  std::array<bool, kMaxFaces> alive{};
  int nf = 0;  // slots used, alive or not

  bool makeFace(int i, int j, int k, EpaFace& f) const {
    const Vec3 n = (vert[j].w - vert[i].w).cross(vert[k].w - vert[i].w);
    const double len = n.norm();
    if (!(len > 0.0)) return false;
    f.v = {i, j, k};
    f.adj = {-1, -1, -1};
    f.adj_edge = {-1, -1, -1};
    f.n = n / len;
    f.d = f.n.dot(vert[i].w);
    f.stamp = -1;
    return true;
  }

  // The four vertices already stored, faces wound outwards and linked.
  bool initTetrahedron() {
    const Vec3 centroid = 0.25 * (vert[0].w + vert[1].w + vert[2].w + vert[3].w);
    constexpr int faces[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
    for (const auto& f : faces) {
      EpaFace e;
      if (!makeFace(f[0], f[1], f[2], e)) return false;
      if (e.n.dot(vert[f[0]].w - centroid) < 0.0 && !makeFace(f[0], f[2], f[1], e)) return false;
      face[nf] = e;
      alive[nf++] = true;
    }
    for (int f = 0; f < 4; ++f) {
      for (int e = 0; e < 3; ++e) {
        const int a = face[f].v[e], b = face[f].v[(e + 1) % 3];
        bool linked = false;
        for (int g = 0; g < 4 && !linked; ++g) {
          for (int k = 0; k < 3 && !linked; ++k) {
            if (face[g].v[k] == b && face[g].v[(k + 1) % 3] == a) {
              face[f].adj[e] = g;
              face[f].adj_edge[e] = k;
              linked = true;
            }
          }
        }
        if (!linked) return false;
      }
    }
    return true;
  }

  int closestFace() const {
    int best = -1;
    for (int i = 0; i < nf; ++i) {
      if (alive[i] && (best < 0 || face[i].d < face[best].d)) best = i;
    }
    return best;
  }

  // Replaces the faces that see w (the connected region around `start`) by a fan from w over
  // their boundary.  False, with the polytope unchanged, when that cannot be done consistently.
  bool expand(int start, const SupportPoint& w, int pass, double plane_eps, double tol) {
    if (nv == kMaxVertices) return false;
    visible_n_ = 0;
    horizon_n_ = 0;
    face[start].stamp = pass;
    visible_[visible_n_++] = start;
    for (int e = 0; e < 3; ++e) {
      if (!walk(face[start].adj[e], face[start].adj_edge[e], w, pass, plane_eps)) return false;
    }
    const int nh = horizon_n_;
    if (nh < 3) return false;
    // The boundary must be a single loop: each vertex starts one edge and ends one, and
    // following the edges from the first comes back after visiting all.
    for (int h = 0; h < nh; ++h) next_[horizonStart(h)] = next_[horizonEnd(h)] = -1;
    for (int h = 0; h < nh; ++h) {
      if (next_[horizonStart(h)] != -1) return false;
      next_[horizonStart(h)] = h;
    }
    int h = 0;
    for (int step = 0; step < nh; ++step) {
      const int nxt = next_[horizonEnd(h)];
      if (nxt < 0 || (nxt == 0) != (step == nh - 1)) return false;
      h = nxt;
    }
    const int nw = nv;
    vert[nw] = w;
    for (int k = 0; k < nh; ++k) {
      if (!makeFace(horizonStart(k), horizonEnd(k), nw, fresh_[k]) || fresh_[k].d < -tol) {
        return false;
      }
    }
    int free_slots = kMaxFaces - nf + visible_n_;
    for (int i = 0; i < nf; ++i) free_slots += alive[i] ? 0 : 1;
    if (free_slots < nh) return false;

    // Commit.
    nv = nw + 1;
    for (int i = 0; i < visible_n_; ++i) alive[visible_[i]] = false;
    int search = 0;
    for (int k = 0; k < nh; ++k) {
      while (search < nf && alive[search]) ++search;
      slot_[k] = search < nf ? search : nf++;
      alive[slot_[k]] = true;
      face[slot_[k]] = fresh_[k];
      const auto [g, eg] = horizon_[k];
      face[slot_[k]].adj[0] = g;
      face[slot_[k]].adj_edge[0] = eg;
      face[g].adj[eg] = slot_[k];
      face[g].adj_edge[eg] = 0;
    }
    for (int k = 0; k < nh; ++k) {
      // Edge 1 (end -> w) of fan face k meets edge 2 (w -> start) of the face starting there.
      const int j = next_[horizonEnd(k)];
      face[slot_[k]].adj[1] = slot_[j];
      face[slot_[k]].adj_edge[1] = 2;
      face[slot_[j]].adj[2] = slot_[k];
      face[slot_[j]].adj_edge[2] = 1;
    }
    return true;
  }

 private:
  // Horizon edge h, oriented as in the removed face: from horizonStart to horizonEnd.
  int horizonStart(int h) const { return face[horizon_[h][0]].v[(horizon_[h][1] + 1) % 3]; }
  int horizonEnd(int h) const { return face[horizon_[h][0]].v[horizon_[h][1]]; }

  // Arrives at face g across its edge eg from a visible face.
  bool walk(int g, int eg, const SupportPoint& w, int pass, double plane_eps) {
    if (face[g].stamp == pass) return true;
    if (face[g].n.dot(w.w - vert[face[g].v[0]].w) > plane_eps) {
      if (visible_n_ == kMaxFaces) return false;
      face[g].stamp = pass;
      visible_[visible_n_++] = g;
      for (int k = 1; k < 3; ++k) {
        const int e = (eg + k) % 3;
        if (!walk(face[g].adj[e], face[g].adj_edge[e], w, pass, plane_eps)) return false;
      }
      return true;
    }
    if (horizon_n_ == kMaxHorizon) return false;
    horizon_[horizon_n_++] = {g, eg};
    return true;
  }

  std::array<int, kMaxFaces> visible_;
  int visible_n_ = 0;
  std::array<std::array<int, 2>, kMaxHorizon> horizon_;
  int horizon_n_ = 0;
  std::array<EpaFace, kMaxHorizon> fresh_;
  std::array<int, kMaxHorizon> slot_;
  std::array<int, kMaxVertices> next_;
};

struct Penetration {
  double depth;
  Vec3 normal;  // outward normal of M at its boundary point closest to the origin (a towards b)
  Vec3 point_a;
  Vec3 point_b;
};

// EPA from a tetrahedron of M enclosing the origin: grows the polytope inside M towards the
// boundary point nearest the origin until the support along the closest face's normal is within
// `tol` of the face.  The depth is then known to within tol (the polytope lies inside M, and M
// inside the face's support plane); should the growth stop early on a degenerate update, the
// depth is bracketed by the closest face and the least support distance over the faces, and
// the upper bound is reported (a deeper contact errs on the safe side).
bool epa(const ConvexSupport& A, const ConvexSupport& B, const Simplex& s, double tol, double merge,
         Penetration& result) {
  Polytope poly;
  for (int i = 0; i < 4; ++i) poly.vert[i] = s.p[i];
  poly.nv = 4;
  if (!poly.initTetrahedron()) return false;

  int best = poly.closestFace();
  bool converged = false;
  for (int pass = 0; pass < kMaxVertices; ++pass) {
    const EpaFace& f = poly.face[best];
    const SupportPoint w = supportM(A, B, f.n);
    if (w.w.dot(f.n) - f.d <= tol) {
      converged = true;
      break;
    }
    // A support point on top of a vertex adds nothing but a sliver face whose normal is noise.
    bool duplicate = false;
    for (int i = 0; i < poly.nv && !duplicate; ++i) {
      duplicate = (poly.vert[i].w - w.w).squaredNorm() <= merge * merge;
    }
    if (duplicate || !poly.expand(best, w, pass, -0.1 * tol, tol)) break;
    best = poly.closestFace();
  }

  Vec3 normal = poly.face[best].n;
  double depth = poly.face[best].d;
  if (!converged) {
    depth = std::numeric_limits<double>::infinity();
    for (int i = 0; i < poly.nf; ++i) {
      if (!poly.alive[i]) continue;
      const double h = supportM(A, B, poly.face[i].n).w.dot(poly.face[i].n);
      if (h < depth) {
        depth = h;
        normal = poly.face[i].n;
      }
    }
  }
  // Witnesses: the point of the polytope's surface nearest the origin, as barycentric weights of
  // support points.  It is the projection on the face of least plane distance, but slivers
  // (nearly coincident support points on flat parts of M) make that projection ill-conditioned,
  // so the nearest point is taken over all faces with the clamped closest-point-on-triangle.
  double nearest = std::numeric_limits<double>::infinity();
  Simplex witness;
  for (int i = 0; i < poly.nf; ++i) {
    if (!poly.alive[i]) continue;
    const EpaFace& g = poly.face[i];
    Simplex t;
    const double q =
        closestTriangle(poly.vert[g.v[0]], poly.vert[g.v[1]], poly.vert[g.v[2]], t).squaredNorm();
    if (q < nearest) {
      nearest = q;
      witness = t;
    }
  }
  result.depth = depth;
  result.normal = normal;
  result.point_a = Vec3::Zero();
  result.point_b = Vec3::Zero();
  for (int i = 0; i < witness.n; ++i) {
    result.point_a += witness.bary[i] * witness.p[i].a;
    result.point_b += witness.bary[i] * witness.p[i].b;
  }
  return true;
}

}  // namespace

bool convexContact(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb, double max_gap,
                   ConvexContact& result) {
  const ConvexSupport A(a, pa, 0.0), B(b, pb, 0.0);
  const double ra = A.rounding(), rb = B.rounding();
  const double scale =
      A.boundingRadius() + B.boundingRadius() + ra + rb + (pa.position - pb.position).norm();
  const double eps = 1e-14 * scale;
  const double tol = 1e-13 * scale;   // EPA: support within this of the closest face
  const double merge = 1e-9 * scale;  // EPA: support points this close are the same point
  // Reports b's witness and a's placed from it, so that point_a - point_b == gap * normal holds
  // exactly whatever the round-off in the witnesses.
  const auto report = [&](double gap, const Vec3& normal, const Vec3& on_b) {
    if (!(gap < max_gap)) return false;
    result.gap = gap;
    result.normal = normal;
    result.point_b = on_b;
    result.point_a = on_b + gap * normal;
    return true;
  };

  // Separated by GJK (v closest to the origin, weights in sx) with cores `grown` apart more.
  const auto separated = [&](const Simplex& sx, const Vec3& vx, double grown) {
    const double d = vx.norm();
    Vec3 cb = Vec3::Zero();
    for (int i = 0; i < sx.n; ++i) cb += sx.bary[i] * sx.p[i].b;
    const Vec3 n = vx / d;
    return report(d + grown - ra - rb, n, cb + rb * n);
  };

  Simplex s;
  Vec3 v;
  const GjkStatus status = gjk(A, B, max_gap + ra + rb, eps, s, v);
  if (status == GjkStatus::kFar) return false;
  const double dist = v.norm();
  if (status == GjkStatus::kSeparated && dist > merge) return separated(s, v, 0.0);
  Penetration pen;
  if (status == GjkStatus::kIntersecting && s.n == 4 && epa(A, B, s, tol, merge, pen)) {
    // pen.normal points from a into b; a moves back along it to separate.
    return report(-pen.depth - ra - rb, -pen.normal, pen.point_b - rb * pen.normal);
  }

  // Touching cores (the normal v / dist is round-off), cores without volume (points, segments)
  // crossing (no tetrahedron to start EPA from), or a tetrahedron EPA could not use.  Growing a's
  // core by delta makes the overlap at least delta deep.
  const double delta = 1e-6 * scale;
  const ConvexSupport Ag(a, pa, delta);
  Simplex sg;
  Vec3 vg;
  const GjkStatus grown = gjk(Ag, B, std::numeric_limits<double>::infinity(), eps, sg, vg);
  if (grown == GjkStatus::kSeparated) {
    // The first pass was wrong about an overlap (or its distance nearly delta off): the grown
    // pass measures the distance between the cores less delta.
    return separated(sg, vg, delta);
  }
  if ((sg.n == 4 || extendSimplex(Ag, B, eps, sg)) && epa(Ag, B, sg, tol, merge, pen)) {
    return report(delta - pen.depth - ra - rb, -pen.normal, pen.point_b - rb * pen.normal);
  }
  // Nothing left to measure with: the cores touch to round-off.  Never "no contact" for that.
  if (status == GjkStatus::kSeparated) return separated(s, v, 0.0);
  const Vec3 centres = pa.position - pb.position;
  const Vec3 n = centres.norm() > 0.0 ? Vec3(centres.normalized()) : Vec3(Vec3::UnitZ());
  return report(-ra - rb, n, B.support(n) + rb * n);
}

}  // namespace subsim::detail
