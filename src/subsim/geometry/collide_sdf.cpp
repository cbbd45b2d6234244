#include "subsim/geometry/collide_sdf.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "subsim/geometry/narrow_phase_pairs.hpp"
#include "subsim/geometry/signed_distance_shape.hpp"

namespace subsim {

namespace {

constexpr int kFrankWolfeIterations = 16;
constexpr int kLineSearchHalvings = 6;
// Frank-Wolfe stops when its duality gap g . (x - s), which bounds how far the triangle's minimum
// is below f(x) where the field is convex, or its last step's decrease falls below a tenth of a
// micrometre: near parallel surfaces the method zigzags towards an interior minimum, and what
// it would still find there is far below the contact's resolution.
constexpr double kFrankWolfeTolerance = 1e-7;  // m
// The second search direction (b's triangles in a's field) marks its features with this bit.
constexpr std::uint32_t kReverseFeature = 1u << 31;
// Points closer than the clustering radius are one contact unless their normals differ by more
// than about 25 degrees.
constexpr double kSameNormal = 0.9;
// The clustering radius starts at this many mean triangle edges.  Nearly parallel contacts a
// triangle apart make the Delassus operator nearly singular on the contact set, which stalls
// the AL outer loop shared by CANAL, SSN and the dogleg (also without friction).  Measured on the
// dish-stack single-step problems (examples/python/single_step_study.py), CANAL to 1e-10: factor
// 1 (215 contacts, 100 problems): 43 % failures, 233 Newton iterations on average; 2 (143
// contacts, 20 problems): 10 %, 191; 3 (73 contacts, 20 problems): 0 %, 89.  The stack stays
// stacked with 3 under SubADMM, CANAL and PGS.
constexpr double kClusterSpacing = 3.0;
// ... but at most a sixth of the shape's largest extent, so that a coarse mesh (a box's twelve
// triangles) keeps its corners apart (the dishes' radius is the mean-edge one).
constexpr double kClusterFraction = 1.0 / 6.0;

double clusterRadius(const SignedDistanceShape& s) {
  const double extent = (s.bounds().upper - s.bounds().lower).maxCoeff();
  return std::min(kClusterSpacing * s.meanEdge(), kClusterFraction * extent);
}

/// The field's signed distance at `x` in the field shape's own frame (closestOnShape at the
/// identity pose: the pair's relative pose is applied once per point, not twice).
double fieldDistance(const Shape& field, const Vec3& x, Vec3& gradient) {
  if (field.type == ShapeType::SignedDistance) return field.field->distance(x, gradient);
  const detail::SurfacePoint s = detail::closestOnShape(field, Pose(), x);
  gradient = s.normal;
  return s.distance;
}

/// Frank-Wolfe over the triangles of `mesh` (a signed distance shape at `mesh_pose`) against
/// `field`: candidates with gap < margin, normals from the field's shape towards the mesh's,
/// flipped when `reverse` (the mesh is pair member b).  The search runs in the field's frame,
/// chunk by chunk on `threads` threads (the candidates' order then varies, their set does not:
/// cluster() orders them).
void searchTriangles(const Shape& mesh, const Pose& mesh_pose, const Shape& field,
                     const Pose& field_pose, double margin, bool reverse, int threads,
                     std::vector<ManifoldPoint>& out) {
  const SignedDistanceShape& m = *mesh.field;
  const TriangleSurface& surface = m.surface();
  // Mesh frame to field frame: x_field = R x_mesh + t.
  const Mat3 R = (field_pose.orientation.conjugate() * mesh_pose.orientation).toRotationMatrix();
  const Vec3 t = field_pose.orientation.conjugate() * (mesh_pose.position - field_pose.position);
  const Mat3 to_world = field_pose.orientation.toRotationMatrix();
  const int triangles = static_cast<int>(surface.triangles.size());
  // With slope at most L, a chunk (then a triangle) whose bounding sphere's centre is more than
  // margin + L radius away has no point within the margin.
  const double L = field.type == ShapeType::SignedDistance ? field.field->lipschitz() : 1.0;
  auto searchChunk = [&](int c, std::vector<ManifoldPoint>& into) {
    Vec3 gradient;
    const SignedDistanceShape::Sphere& chunk = m.chunkSphere(c);
    if (fieldDistance(field, R * chunk.centre + t, gradient) - L * chunk.radius >= margin) return;
    const int end = std::min(triangles, (c + 1) * SignedDistanceShape::kChunk);
    for (int k = c * SignedDistanceShape::kChunk; k < end; ++k) {
      const SignedDistanceShape::Sphere& bound = m.triangleSphere(k);
      if (fieldDistance(field, R * bound.centre + t, gradient) - L * bound.radius >= margin)
        continue;
      const auto& tri = surface.triangles[static_cast<std::size_t>(k)];
      Vec3 point;
      const double gap = frankWolfeTriangle(
          R * surface.vertices[static_cast<std::size_t>(tri[0])] + t,
          R * surface.vertices[static_cast<std::size_t>(tri[1])] + t,
          R * surface.vertices[static_cast<std::size_t>(tri[2])] + t, field, point, gradient);
      if (gap >= margin) continue;
      // `point` is on the mesh's surface, the field's surface is at point - gap * gradient.
      const Vec3 normal = to_world * gradient;
      ManifoldPoint p;
      p.point = field_pose.transformPoint(point) - (0.5 * gap) * normal;
      p.normal = reverse ? Vec3(-normal) : normal;
      p.gap = gap;
      p.feature = static_cast<std::uint32_t>(k) | (reverse ? kReverseFeature : 0u);
      into.push_back(p);
    }
  };
  const int chunks = m.chunkCount();
  if (threads == 1 || chunks < 2) {
    for (int c = 0; c < chunks; ++c) searchChunk(c, out);
    return;
  }
  // Kept by the calling thread; `buffers` names its copy inside the parallel region (where the
  // thread_local name would mean each thread's own).
  thread_local std::vector<std::vector<ManifoldPoint>> per_thread;
  std::vector<std::vector<ManifoldPoint>>& buffers = per_thread;
  if (buffers.size() < static_cast<std::size_t>(threads)) buffers.resize(threads);
  for (int i = 0; i < threads; ++i) buffers[static_cast<std::size_t>(i)].clear();
#pragma omp parallel num_threads(threads)
  {
    std::vector<ManifoldPoint>& mine = buffers[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(dynamic, 4)
    for (int c = 0; c < chunks; ++c) searchChunk(c, mine);
  }
  for (int i = 0; i < threads; ++i)
    out.insert(out.end(), buffers[static_cast<std::size_t>(i)].begin(),
               buffers[static_cast<std::size_t>(i)].end());
}

/// Keeps the deepest candidates at least `radius` apart (or with different normals), doubling
/// the radius until at most `cap` remain: a deterministic greedy clustering that keeps the
/// pair's spread (the support polygon) and its deepest point.  Once the radius spans all the
/// candidates only their normals tell them apart; if more than `cap` normals still differ, the
/// deepest `cap` of those are kept.
void cluster(std::vector<ManifoldPoint>& candidates, double radius, int cap,
             std::vector<ManifoldPoint>& out) {
  out.clear();
  if (cap <= 0 || candidates.empty()) return;
  std::sort(candidates.begin(), candidates.end(),
            [](const ManifoldPoint& x, const ManifoldPoint& y) {
              return x.gap != y.gap ? x.gap < y.gap : x.feature < y.feature;
            });
  Aabb spread;
  for (const ManifoldPoint& c : candidates) {
    spread.lower = spread.lower.cwiseMin(c.point);
    spread.upper = spread.upper.cwiseMax(c.point);
  }
  const double span = (spread.upper - spread.lower).norm();
  // A degenerate surface (every edge of length zero) must not stop the radius from growing.
  radius = std::max(radius, 1e-9);
  for (;;) {
    out.clear();
    const double r2 = radius * radius;
    bool over = false;
    for (const ManifoldPoint& c : candidates) {
      bool covered = false;
      for (const ManifoldPoint& k : out) {
        if ((c.point - k.point).squaredNorm() < r2 && c.normal.dot(k.normal) > kSameNormal) {
          covered = true;
          break;
        }
      }
      if (covered) continue;
      if (static_cast<int>(out.size()) == cap) {
        over = true;
        break;
      }
      out.push_back(c);
    }
    if (!over || radius > span) return;
    radius *= 2.0;
  }
}

}  // namespace

double frankWolfeTriangle(const Vec3& v0, const Vec3& v1, const Vec3& v2, const Shape& field,
                          Vec3& point, Vec3& gradient) {
  const Vec3* vertices[3] = {&v0, &v1, &v2};
  point = (v0 + v1 + v2) / 3.0;
  double f = fieldDistance(field, point, gradient);
  for (int it = 0; it < kFrankWolfeIterations; ++it) {
    // The vertex minimising the linearisation: the direction of steepest feasible descent.
    int best = 0;
    for (int i = 1; i < 3; ++i)
      if (gradient.dot(*vertices[i]) < gradient.dot(*vertices[best])) best = i;
    const Vec3 direction = *vertices[best] - point;
    if (-gradient.dot(direction) <= kFrankWolfeTolerance) break;
    double step = 1.0;
    bool moved = false;
    for (int h = 0; h < kLineSearchHalvings; ++h, step *= 0.5) {
      Vec3 g;
      const Vec3 trial = point + step * direction;
      const double ft = fieldDistance(field, trial, g);
      if (ft < f) {
        moved = f - ft > kFrankWolfeTolerance;
        point = trial;
        f = ft;
        gradient = g;
        break;
      }
    }
    if (!moved) break;
  }
  return f;
}

void collideSignedDistance(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                           double margin, int cap, std::vector<ManifoldPoint>& out, int threads) {
  const int team = threads > 0 ? threads : omp_get_max_threads();
  thread_local std::vector<ManifoldPoint> candidates;
  candidates.clear();
  out.clear();
  const bool a_field = a.type == ShapeType::SignedDistance;
  const bool b_field = b.type == ShapeType::SignedDistance;
  if (a.type == ShapeType::Sphere || b.type == ShapeType::Sphere) {
    // A sphere is its centre's distance less the radius: exact, one point per piece of the
    // field's surface (SignedDistanceShape::pieceDistances).
    const bool a_sphere = a.type == ShapeType::Sphere;
    const Shape& sphere = a_sphere ? a : b;
    const Shape& field = a_sphere ? b : a;
    const Pose& sphere_pose = a_sphere ? pose_a : pose_b;
    const Pose& field_pose = a_sphere ? pose_b : pose_a;
    const Vec3 centre = field_pose.inverseTransformPoint(sphere_pose.position);
    thread_local std::vector<SignedDistanceShape::PieceDistance> pieces;
    if (field.type == ShapeType::SignedDistance) {
      field.field->pieceDistances(centre, margin + sphere.radius, pieces);
    } else {
      pieces.clear();
      Vec3 gradient;
      const double d = fieldDistance(field, centre, gradient);
      if (d < margin + sphere.radius) pieces.push_back({d, gradient, 0});
    }
    for (const SignedDistanceShape::PieceDistance& piece : pieces) {
      const Vec3 gradient = field_pose.rotate(piece.gradient);
      ManifoldPoint p;
      p.gap = piece.distance - sphere.radius;
      p.point = sphere_pose.position - (sphere.radius + 0.5 * p.gap) * gradient;
      p.normal = a_sphere ? gradient : Vec3(-gradient);
      p.feature = piece.piece;
      out.push_back(p);
    }
    return;
  }
  // Two fields: each shape's triangles in the other's field, unless one field does not serve
  // (SignedDistanceShape::servesAsField), when the other alone does.
  bool search_a = a_field, search_b = b_field;
  if (a_field && b_field && a.field->servesAsField() != b.field->servesAsField()) {
    search_a = b.field->servesAsField();
    search_b = a.field->servesAsField();
  }
  double radius = 0.0;
  if (search_a) {
    searchTriangles(a, pose_a, b, pose_b, margin, false, team, candidates);
    radius = std::max(radius, clusterRadius(*a.field));
  }
  if (search_b) {
    searchTriangles(b, pose_b, a, pose_a, margin, true, team, candidates);
    radius = std::max(radius, clusterRadius(*b.field));
  }
  cluster(candidates, radius, cap, out);
}

}  // namespace subsim
