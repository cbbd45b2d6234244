#include "subsim/geometry/revolved_profile_shape.hpp"

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

#include "subsim/math/portable_math.hpp"

namespace subsim {

namespace {

constexpr double kPi = std::numbers::pi;
// Arcs of the outline (convex corners, the rim's end cap) are cut every 30 degrees: the chord
// then lies within 3.5 % of the padding of the true surface.
constexpr double kArcStep = kPi / 6.0;
// The sharpest turn of the profile: cos(150 degrees).
constexpr double kFoldBack = -0.8660254037844386;
// A bound on the triangulation, so that a tiny max_edge is an error rather than an exhausted
// memory.
constexpr double kMaxTriangles = 4e6;

Vec2 leftNormal(const Vec2& u) {
  return Vec2(-u.y(), u.x());
}

double cross2(const Vec2& a, const Vec2& b) {
  return a.x() * b.y() - a.y() * b.x();
}

/// Points of the arc of radius d about `centre` from direction `from` (unit) turning by `sweep`
/// radians (positive: counter-clockwise), both ends included.
void appendArc(const Vec2& centre, double d, const Vec2& from, double sweep,
               std::vector<Vec2>& out) {
  const int steps = std::max(1, static_cast<int>(std::ceil(std::abs(sweep) / kArcStep)));
  const double start = portableAtan2(from.y(), from.x());
  for (int i = 0; i <= steps; ++i) {
    double s = 0.0, c = 0.0;
    portableSinCos(start + sweep * i / steps, s, c);
    out.push_back(centre + d * Vec2(c, s));
  }
}

/// The outline of the padded profile on one side (+1 left of the profile's direction, -1 right),
/// from the axis to the last point's offset, in profile order: offset lines meet at concave
/// corners and are joined by arcs at convex ones.
std::vector<Vec2> sideOutline(const std::vector<Vec2>& p, double d, double side) {
  std::vector<Vec2> out;
  const std::size_t n = p.size();
  auto dir = [&](std::size_t k) { return Vec2((p[k + 1] - p[k]).normalized()); };
  out.push_back(p[0] + side * d * leftNormal(dir(0)));
  for (std::size_t k = 1; k + 1 < n; ++k) {
    const Vec2 ua = dir(k - 1), ub = dir(k);
    const Vec2 na = side * leftNormal(ua), nb = side * leftNormal(ub);
    const double turn = cross2(ua, ub);
    if (side * turn < 0.0) {
      appendArc(p[k], d, na, portableAtan2(cross2(na, nb), na.dot(nb)), out);
    } else {
      out.push_back(p[k] + d * (na + nb) / (1.0 + na.dot(nb)));
    }
  }
  out.push_back(p[n - 1] + side * d * leftNormal(dir(n - 2)));
  return out;
}

}  // namespace

RevolvedProfileShape::RevolvedProfileShape(std::vector<Vec2> profile, double padding, int segments,
                                           double max_edge)
    : profile_(std::move(profile)), padding_(padding) {
  const std::size_t n = profile_.size();
  if (n < 2) throw std::invalid_argument("profile: expected at least two (r, z) points");
  for (std::size_t k = 0; k < n; ++k)
    if (!profile_[k].allFinite())
      throw std::invalid_argument("profile: point " + std::to_string(k) + " is not finite");
  if (profile_[0].x() != 0.0)
    throw std::invalid_argument("profile: the first point must lie on the axis (r = 0)");
  if (!(profile_[1].x() > 0.0) || profile_[1].y() != profile_[0].y())
    throw std::invalid_argument(
        "profile: the second point must be at the first's height with r > 0 (a flat bottom)");
  for (std::size_t k = 1; k < n; ++k) {
    if (!(profile_[k].x() > 0.0))
      throw std::invalid_argument("profile: point " + std::to_string(k) +
                                  " must have r > 0 (only the first lies on the axis)");
    if (profile_[k] == profile_[k - 1])
      throw std::invalid_argument("profile: points " + std::to_string(k - 1) + " and " +
                                  std::to_string(k) + " coincide");
  }
  if (!(padding > 0.0) || !std::isfinite(padding))
    throw std::invalid_argument("padding: expected a positive half wall thickness in m");
  if (segments < 3 || segments > 4096)
    throw std::invalid_argument("segments: expected 3 to 4096 triangles around the axis");
  if (!(max_edge > 0.0) || !std::isfinite(max_edge))
    throw std::invalid_argument("max_edge: expected a positive length in m");
  for (std::size_t k = 0; k + 1 < n; ++k) {
    const Vec2 along = profile_[k + 1] - profile_[k];
    segments_.push_back(
        Segment{profile_[k], along, leftNormal(along.normalized()), 1.0 / along.squaredNorm()});
  }
  // A profile folding back on itself has no outline to revolve (its offset lines meet far away
  // or never).
  for (std::size_t k = 1; k + 1 < n; ++k)
    if (segments_[k - 1].along.normalized().dot(segments_[k].along.normalized()) < kFoldBack)
      throw std::invalid_argument("profile: it turns back by more than 150 degrees at point " +
                                  std::to_string(k));

  // The outline in the (r, z) half-plane: up the left side from the axis, around the last point,
  // back down the right side to the axis.  Revolved, its two ends (on the axis) become poles.
  std::vector<Vec2> outline = sideOutline(profile_, padding_, 1.0);
  outline.pop_back();
  const Vec2 last_dir = (profile_[n - 1] - profile_[n - 2]).normalized();
  appendArc(profile_[n - 1], padding_, leftNormal(last_dir), -kPi, outline);
  std::vector<Vec2> right = sideOutline(profile_, padding_, -1.0);
  right.pop_back();
  outline.insert(outline.end(), right.rbegin(), right.rend());
  outline.front().x() = 0.0;
  outline.back().x() = 0.0;

  double total_pieces = 0.0;
  for (std::size_t i = 1; i < outline.size(); ++i)
    total_pieces += std::ceil((outline[i] - outline[i - 1]).norm() / max_edge);
  if (!(total_pieces * segments <= kMaxTriangles / 2))
    throw std::invalid_argument(
        "max_edge: too small for the profile's length: the surface would have more than " +
        std::to_string(static_cast<long long>(kMaxTriangles)) + " triangles");
  std::vector<Vec2> fine{outline.front()};
  for (std::size_t i = 1; i < outline.size(); ++i) {
    const Vec2 a = outline[i - 1], b = outline[i];
    const int pieces = std::max(1, static_cast<int>(std::ceil((b - a).norm() / max_edge)));
    for (int k = 1; k <= pieces; ++k) fine.push_back(a + (b - a) * (double(k) / pieces));
  }
  for (std::size_t i = 1; i + 1 < fine.size(); ++i)
    if (!(fine[i].x() > 1e-9))
      throw std::invalid_argument(
          "profile: the wall comes within the padding of the axis (keep every point after the "
          "first at r > padding)");

  TriangleSurface s;
  const int rings = static_cast<int>(fine.size()) - 2;
  s.vertices.push_back(Vec3(0.0, 0.0, fine.front().y()));
  std::vector<double> sines(static_cast<std::size_t>(segments)), cosines(sines.size());
  for (int j = 0; j < segments; ++j)
    portableSinCos(2.0 * kPi * j / segments, sines[static_cast<std::size_t>(j)],
                   cosines[static_cast<std::size_t>(j)]);
  for (int i = 1; i <= rings; ++i)
    for (int j = 0; j < segments; ++j)
      s.vertices.push_back(Vec3(fine[static_cast<std::size_t>(i)].x() * cosines[j],
                                fine[static_cast<std::size_t>(i)].x() * sines[j],
                                fine[static_cast<std::size_t>(i)].y()));
  s.vertices.push_back(Vec3(0.0, 0.0, fine.back().y()));
  const int top_pole = 0, bottom_pole = static_cast<int>(s.vertices.size()) - 1;
  auto ring = [&](int i, int j) { return 1 + (i - 1) * segments + (j % segments); };
  // Band by band around the axis, so that consecutive triangles form compact patches (the
  // chunks SignedDistanceShape culls by).
  for (int j = 0; j < segments; ++j) s.triangles.push_back({top_pole, ring(1, j), ring(1, j + 1)});
  for (int i = 1; i < rings; ++i) {
    for (int j = 0; j < segments; ++j) {
      s.triangles.push_back({ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)});
      s.triangles.push_back({ring(i, j), ring(i + 1, j + 1), ring(i, j + 1)});
    }
  }
  for (int j = 0; j < segments; ++j)
    s.triangles.push_back({ring(rings, j), bottom_pole, ring(rings, j + 1)});
  // The winding follows the outline's direction; make it outward.
  if (solidMassProperties(s).volume < 0.0)
    for (auto& t : s.triangles) std::swap(t[1], t[2]);
  setSurface(std::move(s), 2.0 * padding_);
}

double RevolvedProfileShape::profileDistance(const Vec2& q, Vec2& gradient) const {
  double best2 = std::numeric_limits<double>::infinity();
  Vec2 best_offset = Vec2::Zero();
  const Segment* nearest = &segments_.front();
  for (const Segment& seg : segments_) {
    const double t = std::clamp((q - seg.start).dot(seg.along) * seg.inverse_length2, 0.0, 1.0);
    const Vec2 offset = q - (seg.start + t * seg.along);
    const double d2 = offset.squaredNorm();
    if (d2 < best2) {
      best2 = d2;
      best_offset = offset;
      nearest = &seg;
    }
  }
  const double dist = std::sqrt(best2);
  // On the profile itself the side is undecided: the segment's left normal.
  gradient = dist > 0.0 ? Vec2(best_offset / dist) : nearest->normal;
  return dist - padding_;
}

namespace {

/// The query's (r, z) and its half-plane's radial direction (on the axis every half-plane is
/// nearest: the x one).
Vec2 halfPlane(const Vec3& p, Vec2& radial) {
  const double r = std::sqrt(p.x() * p.x() + p.y() * p.y());
  radial = r > 0.0 ? Vec2(p.x() / r, p.y() / r) : Vec2(1.0, 0.0);
  return Vec2(r, p.z());
}

Vec3 revolve(const Vec2& g, const Vec2& radial) {
  return Vec3(g.x() * radial.x(), g.x() * radial.y(), g.y());
}

}  // namespace

double RevolvedProfileShape::distance(const Vec3& p, Vec3& gradient) const {
  Vec2 radial, g;
  const double d = profileDistance(halfPlane(p, radial), g);
  gradient = revolve(g, radial);
  return d;
}

void RevolvedProfileShape::pieceDistances(const Vec3& p, double limit,
                                          std::vector<PieceDistance>& out) const {
  out.clear();
  Vec2 radial;
  const Vec2 q = halfPlane(p, radial);
  for (std::size_t k = 0; k < segments_.size(); ++k) {
    const Segment& seg = segments_[k];
    const double t = (q - seg.start).dot(seg.along) * seg.inverse_length2;
    if (t <= 0.0 && k > 0) continue;
    const Vec2 offset = q - (seg.start + std::clamp(t, 0.0, 1.0) * seg.along);
    const double dist = offset.norm();
    if (dist - padding_ >= limit) continue;
    out.push_back({dist - padding_, revolve(dist > 0.0 ? Vec2(offset / dist) : seg.normal, radial),
                   static_cast<std::uint32_t>(k)});
  }
}

}  // namespace subsim
