#include "subsim/problem/problem_hash.hpp"

#include "subsim/math/fnv1a_hash.hpp"

namespace subsim {

namespace {

void addNcpForm(Fnv1a64& h, const StepProblem& p) {
  h.add(p.dt);
  h.addSize(p.subsystems.size());
  for (const Subsystem& s : p.subsystems) {
    h.add(s.dof);
    h.add(s.dof_offset);
    h.add(s.a_offset);
  }
  h.add(p.a_data);
  h.add(p.b);
  h.addSize(p.constraints.size());
  for (const Constraint& c : p.constraints) {
    h.add(static_cast<int>(c.type));
    h.add(c.rows);
    h.add(c.row_offset);
    h.add(c.first_attachment);
    h.add(c.num_attachments);
    h.add(c.mu);
    h.add(c.key);
  }
  h.addSize(p.attachments.size());
  for (const Attachment& a : p.attachments) {
    h.add(a.subsystem);
    h.add(a.rows);
    h.add(a.dof);
    h.add(a.j_offset);
  }
  h.add(p.jacobian_data);
  // Sparse J blocks' columns only when some block is sparse, so dense problems keep their hashes.
  if (p.hasSparseJacobians()) {
    for (const Attachment& a : p.attachments) {
      h.add(a.width);
      h.add(a.column_offset);
    }
    h.add(p.jacobian_columns);
  }
  h.add(p.e);
  h.add(p.soft_k);
  h.add(p.soft_c);
  // Declared substructures and the tree structure only when present, so problems without them
  // keep their recorded hashes.
  for (const Subsystem& s : p.subsystems)
    if (s.substructure >= 0) {
      for (const Subsystem& t : p.subsystems) h.add(t.substructure);
      break;
    }
  if (!p.dof_parent.empty() || !p.tree_bodies.empty()) {
    for (const Subsystem& s : p.subsystems) h.add(s.tree_offset);
    h.add(p.dof_parent);
    h.addSize(p.tree_bodies.size());
    for (const TreeBody& b : p.tree_bodies) {
      h.add(b.subsystem);
      h.add(b.deepest_dof);
      h.add(b.j_offset);
    }
    h.add(p.tree_body_jacobian_data);
    for (const Attachment& a : p.attachments) {
      h.add(a.body);
      h.add(a.local_offset);
    }
    h.add(p.local_jacobian_data);
  }
  // Anisotropic friction only when present, likewise.
  if (p.hasAnisotropicFriction())
    for (const Constraint& c : p.constraints) h.add(c.mu_t2);
  // Subcontact sets only when present, likewise.
  if (p.hasSubcontacts())
    for (const Constraint& c : p.constraints) h.add(c.subcontact_set);
  // Sparse subsystem blocks only when present, likewise.
  if (!p.sparse_pattern.empty()) {
    for (const Subsystem& s : p.subsystems) h.add(s.pattern_offset);
    h.add(p.sparse_pattern);
  }
  // The local form's W only when present (an FCLib local problem), likewise.
  if (p.hasLocalForm()) {
    h.add(p.local_w.row_begin);
    h.add(p.local_w.column);
    h.add(p.local_w.value);
  }
}

}  // namespace

std::uint64_t ncpFormHash(const StepProblem& p) {
  Fnv1a64 h;
  addNcpForm(h, p);
  return h.value();
}

std::uint64_t problemHash(const StepProblem& p) {
  Fnv1a64 h;
  addNcpForm(h, p);
  // The step data only when present, so NCP-only problems keep their recorded hashes.
  if (p.has_step_data) {
    h.add(p.theta);
    h.add(p.erp);
    h.add(p.mass_data);
    h.add(p.velocity);
    h.add(p.error);
    h.add(p.bias);
    for (const Constraint& c : p.constraints) {
      h.add(static_cast<int>(c.stabilization));
      h.add(c.frame);
    }
    h.addSize(p.frames.size());
    for (const ContactFrame& f : p.frames)
      for (int k = 0; k < 3; ++k) {
        h.add(f.point[k]);
        h.add(f.normal[k]);
      }
  }
  return h.value();
}

std::uint64_t solutionHash(const StepSolution& warm_start) {
  Fnv1a64 h;
  h.add(warm_start.vhat);
  h.add(warm_start.lambda);
  return h.value();
}

}  // namespace subsim
