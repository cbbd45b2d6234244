#include "subsim/sim/recording_capture.hpp"

#include <stdexcept>
#include <string>

#include "subsim/geometry/signed_distance_shape.hpp"
#include "subsim/metrics/bilateral_error.hpp"

namespace subsim {

Recording recordingHeader(const Model& model, const RecordingInfo& info) {
  Recording rec;
  rec.scene = info.scene;
  rec.solver = info.solver;
  rec.dt = info.dt;
  rec.threads = info.threads;
  rec.iterations_cap = info.iterations_cap;
  rec.tolerance = info.tolerance;
  for (const Body& b : model.bodies) {
    rec.body_names.push_back(b.name);
    rec.body_kind.push_back(static_cast<int>(b.kind));
  }
  for (const BodyShape& s : model.shapes) {
    RecordedShape shape;
    shape.body = s.body;
    shape.type = s.shape.type;
    shape.size = s.shape.type == ShapeType::Box ? s.shape.half_extents
                                                : Vec3(s.shape.radius, s.shape.half_length, 0);
    shape.pose = s.local_pose;
    if (s.shape.type == ShapeType::SignedDistance) {
      shape.mesh_vertices = s.shape.field->surface().vertices;
      shape.mesh_triangles = s.shape.field->surface().triangles;
    }
    rec.shapes.push_back(shape);
  }
  int first_node = 0;
  for (const DeformableBody& d : model.deformables) {
    rec.deformable_names.push_back(d.name);
    rec.deformable_node_count.push_back(static_cast<int>(d.node_home.size()));
    rec.deformable_surface_count.push_back(static_cast<int>(d.surface.size()));
    for (const std::array<int, 3>& tri : d.surface)
      rec.deformable_surface.push_back(
          {first_node + tri[0], first_node + tri[1], first_node + tri[2]});
    first_node += static_cast<int>(d.node_home.size());
  }
  return rec;
}

void captureStep(const World& world, const StepReport& report, const StepMetrics& metrics,
                 RecordedStep& out) {
  const State& state = world.state();
  const std::vector<AssembledContact>& contacts = world.lastContacts();
  const StepProblem& problem = world.lastProblem();
  const VecX& lambda = world.lastSolution().lambda;

  out.time = state.time;
  out.iterations = report.iterations;
  out.residual = report.residual;
  out.solver_ms = report.solver_ms;
  out.step_ms = report.step_ms;
  out.constraint_residual = metrics.constraint_residual;
  out.contact_fb_residual = metrics.contact_fb_residual;
  out.max_penetration = report.max_penetration;
  out.solve_status = solveStatusName(report.solve_status);
  out.energy = world.kineticEnergy() + world.gravitationalEnergy();
  out.joint_error = maxBilateralError(problem);

  const std::size_t nb = static_cast<std::size_t>(state.numBodies());
  out.position.resize(nb);
  out.orientation.resize(nb);
  for (std::size_t b = 0; b < nb; ++b) {
    out.position[b] = state.pose[b].position;
    out.orientation[b] = state.pose[b].orientation;
  }

  const std::size_t nc = contacts.size();
  out.contact_point.resize(nc);
  out.contact_normal.resize(nc);
  out.contact_impulse.resize(nc);
  out.contact_gap.resize(nc);
  out.contact_bodies.resize(nc);
  for (std::size_t c = 0; c < nc; ++c) {
    const AssembledContact& contact = contacts[c];
    if (contact.constraint < 0 || contact.constraint >= problem.numConstraints() ||
        problem.constraints[contact.constraint].row_offset + 3 > lambda.size())
      throw std::logic_error("recording: contact " + std::to_string(c) +
                             " has no impulse in the world's last solution");
    const int row = problem.constraints[contact.constraint].row_offset;
    out.contact_point[c] = contact.geometry.point;
    out.contact_normal[c] = contact.geometry.normal;
    out.contact_impulse[c] = lambda.segment<3>(row);
    out.contact_gap[c] = contact.geometry.gap;
    out.contact_bodies[c] = {contact.body_a, contact.body_b};
  }

  // Every deformable's nodes in order, each from where State::fem_x holds it (its home copy).
  out.deformable_x.clear();
  for (const DeformableBody& d : world.model().deformables)
    for (const std::array<int, 2>& home : d.node_home)
      out.deformable_x.push_back(state.fem_x[d.first_piece + home[0]].segment<3>(3 * home[1]));
}

}  // namespace subsim
