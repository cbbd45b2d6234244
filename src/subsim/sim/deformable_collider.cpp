#include "subsim/sim/deformable_collider.hpp"

#include <algorithm>

namespace subsim {

DeformableCollider::DeformableCollider(const Model& model) {
  for (const DeformableBody& d : model.deformables) {
    Vec3 lower = Vec3::Constant(1e300), upper = Vec3::Constant(-1e300);
    for (const Vec3& x : d.rest_mesh.nodes) {
      lower = lower.cwiseMin(x);
      upper = upper.cwiseMax(x);
    }
    DeformableSurfaceQuery& query =
        queries_.emplace_back(d.surface, 0.25 * (upper - lower).minCoeff());
    if (d.self_contact) query.setSelfContact(d.rest_mesh.nodes, selfContactExclusion(d));
    std::vector<int> bodies;
    for (const FemNodeAttachment& a : d.attachments)
      if (a.body >= 0) bodies.push_back(a.body);
    std::sort(bodies.begin(), bodies.end());
    bodies.erase(std::unique(bodies.begin(), bodies.end()), bodies.end());
    attached_bodies_.push_back(std::move(bodies));
  }
  nodes_.resize(model.deformables.size());
  box_.resize(model.deformables.size());
  speed_.resize(model.deformables.size());
}

void DeformableCollider::collide(const Model& model, const State& state,
                                 const std::vector<CollisionObject>& objects, double h,
                                 std::vector<DeformableShapeContact>& out) {
  out.clear();
  for (size_t d = 0; d < model.deformables.size(); ++d) {
    const DeformableBody& body = model.deformables[d];
    // Body node positions and the fastest node, from each node's home copy.
    std::vector<Vec3>& nodes = nodes_[d];
    nodes.resize(body.rest_mesh.numNodes());
    double speed = 0.0;
    Aabb box;
    for (int n = 0; n < body.rest_mesh.numNodes(); ++n) {
      const auto [piece, local] = body.node_home[n];
      nodes[n] = state.fem_x[body.first_piece + piece].segment<3>(3 * local);
      speed = std::max(speed, state.fem_v[body.first_piece + piece].segment<3>(3 * local).norm());
      box.lower = box.lower.cwiseMin(nodes[n]);
      box.upper = box.upper.cwiseMax(nodes[n]);
    }
    box_[d] = box;
    speed_[d] = speed;
    DeformableSurfaceQuery& query = queries_[d];
    query.update(nodes);
    for (size_t s = 0; s < model.shapes.size(); ++s) {
      const BodyShape& shape = model.shapes[s];
      if (!(shape.group & body.mask) || !(body.group & shape.mask)) continue;
      if (std::binary_search(attached_bodies_[d].begin(), attached_bodies_[d].end(), shape.body))
        continue;
      const CollisionObject& o = objects[s];
      const double margin = o.margin + h * speed;
      const Aabb shape_box = computeAabb(o.shape, o.pose, margin);
      if (!shape_box.overlaps(box)) continue;
      scratch_.clear();
      query.collide(o.shape, o.pose, margin, scratch_);
      for (const DeformableContact& c : scratch_)
        out.push_back({static_cast<int>(d), static_cast<int>(s), c, -1});
    }
  }
  const int nd = static_cast<int>(model.deformables.size());
  for (int a = 0; a < nd; ++a) {
    const DeformableBody& A = model.deformables[a];
    for (int b = a; b < nd; ++b) {
      const DeformableBody& B = model.deformables[b];
      if (a == b ? !A.self_contact : !(A.group & B.mask) || !(B.group & A.mask)) continue;
      const double margin = model.contact.margin + h * (speed_[a] + (a == b ? 0.0 : speed_[b]));
      if (!box_[a].grown(margin).overlaps(box_[b])) continue;
      nodesAgainstSurface(a, b, margin, out);
      if (a != b) nodesAgainstSurface(b, a, margin, out);
    }
  }
}

void DeformableCollider::nodesAgainstSurface(int surface, int points, double margin,
                                             std::vector<DeformableShapeContact>& out) {
  DeformableSurfaceQuery& query = queries_[surface];
  const Aabb reach = box_[surface].grown(std::max(margin, query.maxDepth()));
  const bool self = surface == points;
  const std::vector<Vec3>& x = nodes_[points];
  for (const int n : queries_[points].surfaceNodes()) {
    if (!reach.contains(x[n])) continue;
    scratch_.clear();
    query.collideNode(x[n], self ? n : -1, margin, scratch_);
    for (const DeformableContact& c : scratch_) out.push_back({surface, -1, c, -1, points, n});
  }
}

}  // namespace subsim
