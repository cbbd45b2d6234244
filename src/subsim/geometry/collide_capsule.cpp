// Capsule against capsule, box and cylinder.  A capsule is a sphere swept along a segment, so each
// contact is a sphere on the segment against the other shape; what varies is which segment points
// are worth reporting: the closest one, plus the two ends of a flat stretch so that a capsule lying
// on a face or along another capsule is supported at both ends instead of pivoting, or of the
// shorter capsule where two cross.
#include <algorithm>
#include <array>
#include <cmath>

#include "subsim/geometry/narrow_phase_pairs.hpp"

namespace subsim::detail {

namespace {

// Segments closer to parallel than this (sine of the angle) are treated as lying along each
// other.  The exact closest point is still added when it is deeper than both ends, so the
// threshold trades nothing but the number of points.
constexpr double kParallelSin = 1e-2;

// Direction to separate two capsules whose axes intersect: across both axes, towards a.
Vec3 crossingNormal(const Vec3& ua, const Vec3& ub, const Vec3& a_minus_b) {
  const Vec3 c = ua.cross(ub);
  const double len = c.norm();
  Vec3 n = len > 1e-9 ? Vec3(c / len) : anyPerpendicular(ub);
  if (n.dot(a_minus_b) < 0.0) n = -n;
  return n;
}

// The point of capsule b's surface closest to p.
SurfacePoint capsuleSurfaceFrom(const Vec3& p, const Vec3& cb, const Vec3& ub, double hb, double rb,
                                const Vec3& fallback) {
  const Vec3 q = cb + closestParameterOnSegment(cb, ub, hb, p) * ub;
  return closestOnSphere(q, rb, p, fallback);
}

// Minimiser of a convex function on [lo, hi] by golden-section search: derivative-free and
// immune to the kinks and flat stretches of a box's signed distance along a line.
template <class F>
double goldenSectionMin(const F& f, double lo, double hi, double tol) {
  constexpr double g = 0.61803398874989485;
  const double a0 = lo, b0 = hi;
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
  double f1 = f(x1), f2 = f(x2);
  for (int it = 0; it < 200 && hi - lo > tol; ++it) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = f(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = f(x2);
    }
  }
  // The bracket never contains its own ends exactly; an end minimum is returned exactly.
  double best = 0.5 * (lo + hi), fbest = f(best);
  for (const double e : {a0, b0}) {
    const double fe = f(e);
    if (fe <= fbest) {
      best = e;
      fbest = fe;
    }
  }
  return best;
}

// Last point from `inside` towards `outside` where f <= level, given f(inside) <= level <
// f(outside); f convex so the sublevel set is an interval.
template <class F>
double sublevelBoundary(const F& f, double level, double inside, double outside, double tol) {
  for (int it = 0; it < 200 && std::abs(outside - inside) > tol; ++it) {
    const double mid = 0.5 * (inside + outside);
    (f(mid) <= level ? inside : outside) = mid;
  }
  return inside;
}

// Capsule a against a convex shape b given by its signed distance in b's frame (`distance_local`,
// convex along any line) and its closest surface point in the world (`closest`); `extent` bounds
// b's size (tolerances).  Candidates: the segment's two ends and the ends of the stretch where the
// distance is least (one point when that is isolated), each a sphere contact when below the
// margin.  The ends are what stops a capsule lying on a flat or curved surface from pivoting
// about a single point into it (a net link across a truck's tyre sank 7.6 cm in one step so).
template <class LocalDistance, class Closest>
void collideCapsuleConvex(const Shape& a, const Pose& pa, const Pose& pb, double extent,
                          double margin, const LocalDistance& distance_local,
                          const Closest& closest, ContactManifold& out) {
  const Vec3 ua = pa.rotate(Vec3::UnitZ());
  const double ha = a.half_length;
  const double scale = ha + a.radius + extent;
  if (ha <= 0.0) {
    addSphereContact(a.radius, closest(pa.position), margin, 0, out);
    return;
  }
  // The segment in b's frame: the signed distance to a convex shape is convex along it.
  const Vec3 c = pb.inverseTransformPoint(pa.position);
  const Vec3 u = pb.orientation.conjugate() * ua;
  const auto phi = [&](double s) { return distance_local(Vec3(c + s * u)); };
  const double tol = 1e-12 * scale;
  const double s_min = goldenSectionMin(phi, -ha, ha, tol);
  // Where the segment lies flat on (or in) b the minimum is a whole stretch; its two ends
  // are the support points that stop the capsule pivoting, and they reduce to the minimiser
  // itself when the minimum is isolated.
  const double level = phi(s_min) + 1e-14 * scale;  // above round-off of phi only
  const double merge = std::max(1e-3 * a.radius, 1e-9 * scale);
  const auto stretchEnd = [&](double end) {
    if (phi(end) <= level) return end;
    // An end within `merge` of the minimiser is merged with it anyway: no need to locate it.
    const double near = s_min + (end > s_min ? merge : -merge);
    if ((end - near) * (end - s_min) > 0.0 && phi(near) > level) return s_min;
    return sublevelBoundary(phi, level, s_min, end, tol);
  };
  const double s_lo = stretchEnd(-ha);
  const double s_hi = stretchEnd(ha);

  struct Candidate {
    double s;
    std::uint32_t feature;
  };
  std::array<Candidate, 4> cand{{{-ha, 0}, {ha, 1}}};
  int n = 2;
  const auto take = [&](double s, std::uint32_t feature) {
    // A point next to an endpoint is the endpoint: keep one contact there, at the deeper spot.
    for (int i = 0; i < 2; ++i) {
      if (std::abs(s - cand[i].s) <= merge) {
        if (phi(s) < phi(cand[i].s)) cand[i].s = s;
        return;
      }
    }
    cand[n++] = Candidate{s, feature};
  };
  if (s_hi - s_lo <= merge) {
    take(s_min, 2);
  } else {
    take(s_lo, 2);
    take(s_hi, 3);
  }
  for (int i = 0; i < n; ++i) {
    const Vec3 p = pa.position + cand[i].s * ua;
    addSphereContact(a.radius, closest(p), margin, cand[i].feature, out);
  }
}

}  // namespace

void collideCapsuleCapsule(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                           double margin, ContactManifold& out) {
  const Vec3 ua = pa.rotate(Vec3::UnitZ());
  const Vec3 ub = pb.rotate(Vec3::UnitZ());
  const Vec3& ca = pa.position;
  const Vec3& cb = pb.position;
  const double ha = a.half_length, hb = b.half_length;
  const Vec3 fallback = crossingNormal(ua, ub, ca - cb);
  const double scale = ha + hb + a.radius + b.radius;

  double s, t;
  closestParametersSegmentSegment(ca, ua, ha, cb, ub, hb, s, t);
  const SurfacePoint closest = closestOnSphere(cb + t * ub, b.radius, ca + s * ua, fallback);

  if (ua.cross(ub).norm() < kParallelSin) {
    // Overlap of b's segment projected on a's axis.
    const double mid = ua.dot(cb - ca);
    const double ext = std::abs(ua.dot(ub)) * hb;
    const double lo = std::max(-ha, mid - ext), hi = std::min(ha, mid + ext);
    if (hi - lo > 1e-9 * scale) {
      double end_gap = 1e300;
      for (std::uint32_t end = 0; end < 2; ++end) {
        const Vec3 p = ca + (end == 0 ? lo : hi) * ua;
        end_gap = std::min(
            end_gap,
            addSphereContact(a.radius, capsuleSurfaceFrom(p, cb, ub, hb, b.radius, fallback),
                             margin, 1 + end, out));
      }
      // Slightly crossing axes dip between the ends: keep the true minimum as well.
      if (closest.distance - a.radius < end_gap - 1e-9 * scale) {
        addSphereContact(a.radius, closest, margin, 0, out);
      }
      return;
    }
  }
  addSphereContact(a.radius, closest, margin, 0, out);
  // Crossing axes: the two ends of the shorter segment as well, when they are within the margin.
  // A single closest point lets a short capsule pivot about it and sink an end into the other (a
  // chain link wound on a bar, each link a chord touching at its middle).
  const bool a_shorter = ha <= hb;
  const Vec3& c_short = a_shorter ? ca : cb;
  const Vec3& u_short = a_shorter ? ua : ub;
  const double h_short = a_shorter ? ha : hb;
  const double s_closest = a_shorter ? s : t;
  const double merge = 1e-3 * std::min(a.radius, b.radius);
  for (std::uint32_t end = 0; end < 2; ++end) {
    const double at = end == 0 ? -h_short : h_short;
    if (std::abs(at - s_closest) <= merge) continue;  // the closest point is this end
    const Vec3 p = c_short + at * u_short;
    if (a_shorter) {
      addSphereContact(a.radius, capsuleSurfaceFrom(p, cb, ub, hb, b.radius, fallback), margin,
                       3 + end, out);
    } else {
      // b's end sphere against a: a's surface point, turned into the manifold's b-to-a normal
      // with the same midway point addSphereContact puts between the two surfaces.
      const SurfacePoint on_a = capsuleSurfaceFrom(p, ca, ua, ha, a.radius, -fallback);
      const double gap = on_a.distance - b.radius;
      addSphereContact(b.radius, {on_a.point + gap * on_a.normal, -on_a.normal, on_a.distance},
                       margin, 3 + end, out);
    }
  }
}

void collideCapsuleBox(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                       double margin, ContactManifold& out) {
  collideCapsuleConvex(
      a, pa, pb, b.half_extents.norm(), margin,
      [&](const Vec3& p_local) { return signedDistanceBoxLocal(b.half_extents, p_local); },
      [&](const Vec3& p) { return closestOnBox(b.half_extents, pb, p); }, out);
}

void collideCapsuleCylinder(const Shape& a, const Pose& pa, const Shape& b, const Pose& pb,
                            double margin, ContactManifold& out) {
  const Pose local;  // the cylinder's own frame
  collideCapsuleConvex(
      a, pa, pb, std::hypot(b.radius, b.half_length), margin,
      [&](const Vec3& p_local) {
        return closestOnCylinder(b.radius, b.half_length, local, p_local).distance;
      },
      [&](const Vec3& p) { return closestOnCylinder(b.radius, b.half_length, pb, p); }, out);
}

}  // namespace subsim::detail
