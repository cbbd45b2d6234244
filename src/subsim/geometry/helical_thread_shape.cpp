#include "subsim/geometry/helical_thread_shape.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "subsim/math/portable_math.hpp"

namespace subsim {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kSqrt3 = 1.7320508075688772;
// The basic profile's corners within one period, as fractions of P from a crest's middle: the
// crest flat ends, the flank reaches the root, the root flat ends, the next flank reaches the
// crest (ISO 68-1: crest flat P/8, root flat P/4, flanks 5P/16 long axially).
constexpr std::array<double, 4> kCorners = {1.0 / 16.0, 6.0 / 16.0, 10.0 / 16.0, 15.0 / 16.0};
// A bound on the triangulation, so that a bad spec is an error rather than an exhausted memory.
constexpr double kMaxTriangles = 4e6;

struct Column {
  std::vector<int> vertex;  // bottom (z = 0) to top (z = length)
  std::vector<double> u;    // their profile coordinates
};

/// Triangles between two neighbouring columns (b at the larger angle), merged by profile
/// coordinate so that every corner line of the profile is an edge; `u_shift` is added to b's
/// coordinates (the seam, where b is the first column again, one pitch on).  Wound outward for
/// a surface whose material is at smaller r (a bolt) unless `inward`.
void zip(const Column& a, const Column& b, double u_shift, bool inward,
         std::vector<std::array<int, 3>>& out) {
  std::size_t i = 0, j = 0;
  const std::size_t last_a = a.u.size() - 1, last_b = b.u.size() - 1;
  auto add = [&](int p, int q, int r) {
    out.push_back(inward ? std::array<int, 3>{p, r, q} : std::array<int, 3>{p, q, r});
  };
  while (i < last_a || j < last_b) {
    const bool advance_a = j == last_b || (i < last_a && a.u[i + 1] <= b.u[j + 1] + u_shift);
    if (advance_a) {
      add(a.vertex[i], b.vertex[j], a.vertex[i + 1]);
      ++i;
    } else {
      add(a.vertex[i], b.vertex[j], b.vertex[j + 1]);
      ++j;
    }
  }
}

}  // namespace

HelicalThreadShape::HelicalThreadShape(const ThreadSpec& spec) : spec_(spec) {
  const double P = spec.pitch, d = spec.major_diameter, c = spec.clearance, L = spec.length;
  if (!(P > 0.0) || !std::isfinite(P))
    throw std::invalid_argument("pitch: expected a positive length in m");
  if (!(d > 0.0) || !std::isfinite(d))
    throw std::invalid_argument("major_diameter: expected a positive length in m");
  if (!(c >= 0.0) || !std::isfinite(c))
    throw std::invalid_argument("clearance: expected a radial clearance >= 0 in m");
  if (!(L > 0.0) || !std::isfinite(L))
    throw std::invalid_argument("length: expected a positive length in m");
  if (spec.segments < 8 || spec.segments > 4096)
    throw std::invalid_argument("segments: expected 8 to 4096 columns per turn");
  const double root = crestRadius() - depth();
  // A root radius of more than two pitches keeps the helix's twist P / (2 pi r), and so the
  // field's slope, bounded wherever the field is met (down to half the root radius).
  if (!(root > 2.0 * P))
    throw std::invalid_argument(
        "major_diameter: expected more than 2 pitches plus the thread depth above the axis "
        "(the root radius must exceed twice the pitch)");
  const double outer = 0.5 * spec.outer_diameter;
  if (spec.internal && (!(outer > 0.5 * d + c + 0.5 * P) || !std::isfinite(outer)))
    throw std::invalid_argument(
        "outer_diameter: expected a nut's cylinder wider than its thread's major diameter plus "
        "the clearance and half a pitch each side");
  const int N = spec.segments;
  const double pieces = (L / P + 2.0) * (kCorners.size() + 1.0);
  if (!(2.0 * pieces * N <= kMaxTriangles))
    throw std::invalid_argument("length: too many pitches for the triangulation (more than " +
                                std::to_string(static_cast<long long>(kMaxTriangles)) +
                                " triangles)");
  // The field's slope: |grad u| = sqrt(1 + (P / (2 pi r))^2) at radius r, largest at the
  // smallest radius the field is met at (half the root's, the core of a bolt).
  const double twist = P / (2.0 * kPi * (0.5 * root));
  lipschitz_ = std::sqrt(1.0 + twist * twist);

  // Columns: the half-planes theta_i = 2 pi i / N, each from z = 0 to z = L at the profile's
  // corners between, u = z - P i / N.
  TriangleSurface s;
  std::vector<Column> columns(static_cast<std::size_t>(N));
  std::vector<double> sines(columns.size()), cosines(columns.size());
  const double eps = 1e-9 * P;
  for (int i = 0; i < N; ++i) {
    double sine = 0.0, cosine = 0.0;
    portableSinCos(2.0 * kPi * i / N, sine, cosine);
    sines[static_cast<std::size_t>(i)] = sine;
    cosines[static_cast<std::size_t>(i)] = cosine;
    const double shift = P * i / N;
    Column& col = columns[static_cast<std::size_t>(i)];
    col.u.push_back(-shift);
    for (long k = static_cast<long>(std::floor(-shift / P)) - 1;
         k <= static_cast<long>(std::ceil((L - shift) / P)); ++k)
      for (double corner : kCorners) {
        const double u = (static_cast<double>(k) + corner) * P;
        if (u > -shift + eps && u < L - shift - eps) col.u.push_back(u);
      }
    col.u.push_back(L - shift);
    for (double u : col.u) {
      col.vertex.push_back(static_cast<int>(s.vertices.size()));
      const double r = surfaceRadius(u);
      s.vertices.push_back(Vec3(r * cosine, r * sine, u + shift));
    }
  }
  // The threaded surface, strip by strip around the axis (consecutive triangles are compact
  // patches, the chunks SignedDistanceShape culls by).
  for (int i = 0; i < N; ++i) {
    const bool seam = i + 1 == N;
    zip(columns[static_cast<std::size_t>(i)], columns[seam ? 0 : static_cast<std::size_t>(i + 1)],
        seam ? -P : 0.0, spec.internal, s.triangles);
  }
  auto next = [N](int i) { return (i + 1) % N; };
  auto bottom = [&](int i) { return columns[static_cast<std::size_t>(i)].vertex.front(); };
  auto top = [&](int i) { return columns[static_cast<std::size_t>(i)].vertex.back(); };
  if (!spec.internal) {
    // End discs: fans about the axis.
    const int low = static_cast<int>(s.vertices.size());
    s.vertices.push_back(Vec3(0.0, 0.0, 0.0));
    s.vertices.push_back(Vec3(0.0, 0.0, L));
    for (int i = 0; i < N; ++i) s.triangles.push_back({low, bottom(next(i)), bottom(i)});
    for (int i = 0; i < N; ++i) s.triangles.push_back({low + 1, top(i), top(next(i))});
  } else {
    // The cylinder around the hole and the two annular faces between them.
    const int first = static_cast<int>(s.vertices.size());
    for (int i = 0; i < N; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      s.vertices.push_back(Vec3(outer * cosines[k], outer * sines[k], 0.0));
      s.vertices.push_back(Vec3(outer * cosines[k], outer * sines[k], L));
    }
    auto outer_bottom = [&](int i) { return first + 2 * i; };
    auto outer_top = [&](int i) { return first + 2 * i + 1; };
    for (int i = 0; i < N; ++i) {
      const int j = next(i);
      s.triangles.push_back({outer_bottom(i), outer_bottom(j), outer_top(j)});
      s.triangles.push_back({outer_bottom(i), outer_top(j), outer_top(i)});
    }
    for (int i = 0; i < N; ++i) {
      const int j = next(i);
      s.triangles.push_back({bottom(i), outer_bottom(j), outer_bottom(i)});
      s.triangles.push_back({bottom(i), bottom(j), outer_bottom(j)});
      s.triangles.push_back({top(i), outer_top(i), outer_top(j)});
      s.triangles.push_back({top(i), outer_top(j), top(j)});
    }
  }
  // The thinnest material: a thread's crest, about a flat and a half wide.
  setSurface(std::move(s), 0.25 * P);
}

double HelicalThreadShape::depth() const {
  return 5.0 * kSqrt3 / 16.0 * spec_.pitch;
}

double HelicalThreadShape::crestRadius() const {
  return 0.5 * spec_.major_diameter + (spec_.internal ? spec_.clearance : -spec_.clearance);
}

double HelicalThreadShape::chordDepth() const {
  return 0.5 * spec_.major_diameter * (1.0 - std::cos(kPi / spec_.segments));
}

double HelicalThreadShape::surfaceRadius(double u) const {
  const double P = spec_.pitch;
  const double w = u / P - std::floor(u / P);  // in [0, 1) periods from a crest's middle
  const double crest = crestRadius();
  const double root = crest - depth();
  if (w < kCorners[0] || w >= kCorners[3]) return crest;
  if (w < kCorners[1]) return crest - kSqrt3 * (w - kCorners[0]) * P;
  if (w < kCorners[2]) return root;
  return root + kSqrt3 * (w - kCorners[2]) * P;
}

double HelicalThreadShape::threadDistance(double r, double u, double& d_r, double& d_u) const {
  const double P = spec_.pitch;
  const double crest = crestRadius();
  const double root = crest - depth();
  // The profile's corners over the query's period and its neighbours: the nearest point of the
  // curve lies within a pitch of u axially (any point further is further than a crest or a root
  // flat within half a pitch).
  const double k = std::floor(u / P);
  std::array<Vec2, 12> corner;  // (u, r)
  for (int period = 0; period < 3; ++period)
    for (std::size_t j = 0; j < kCorners.size(); ++j)
      corner[static_cast<std::size_t>(period) * 4 + j] =
          Vec2((k - 1.0 + period + kCorners[j]) * P, j == 0 || j == 3 ? crest : root);
  const Vec2 q(u, r);
  double best2 = std::numeric_limits<double>::infinity();
  Vec2 offset = Vec2::Zero();
  for (std::size_t j = 0; j + 1 < corner.size(); ++j) {
    const Vec2 along = corner[j + 1] - corner[j];
    const double t = std::clamp((q - corner[j]).dot(along) / along.squaredNorm(), 0.0, 1.0);
    const Vec2 o = q - (corner[j] + t * along);
    if (o.squaredNorm() < best2) {
      best2 = o.squaredNorm();
      offset = o;
    }
  }
  const double dist = std::sqrt(best2);
  // Material below the curve (smaller r) for a bolt, above it for a nut.
  const bool above = r > surfaceRadius(u);
  const double sign = above == spec_.internal ? -1.0 : 1.0;
  if (dist > 0.0) {
    d_u = sign * offset.x() / dist;
    d_r = sign * offset.y() / dist;
  } else {
    // On the surface: the outward side of the material, radially.
    d_u = 0.0;
    d_r = spec_.internal ? -1.0 : 1.0;
  }
  return sign * dist;
}

double HelicalThreadShape::distance(const Vec3& p, Vec3& gradient) const {
  const double P = spec_.pitch, L = spec_.length;
  const double r = std::sqrt(p.x() * p.x() + p.y() * p.y());
  // On the axis every half-plane is the query's: take the x one.
  const Vec3 radial = r > 0.0 ? Vec3(p.x() / r, p.y() / r, 0.0) : Vec3(1.0, 0.0, 0.0);
  const double theta = r > 0.0 ? portableAtan2(p.y(), p.x()) : 0.0;
  double d_r = 0.0, d_u = 0.0;
  double value = threadDistance(r, p.z() - P * theta / (2.0 * kPi), d_r, d_u);
  // grad u = e_z - P / (2 pi r) e_theta.
  const Vec3 tangential = r > 0.0 ? Vec3(-radial.y(), radial.x(), 0.0) : Vec3::Zero();
  const double twist = r > 0.0 ? P / (2.0 * kPi * r) : 0.0;
  gradient = d_r * radial + d_u * (Vec3::UnitZ() - twist * tangential);
  gradient.normalize();
  // Intersections with the end planes (and a nut's cylinder): the largest field is the surface
  // nearest from inside and a bound from outside.
  auto cut = [&](double v, const Vec3& g) {
    if (v > value) {
      value = v;
      gradient = g;
    }
  };
  cut(-p.z(), -Vec3::UnitZ());
  cut(p.z() - L, Vec3::UnitZ());
  if (spec_.internal) cut(r - 0.5 * spec_.outer_diameter, radial);
  return value;
}

}  // namespace subsim
