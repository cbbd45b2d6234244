#include "subsim/assembly/constraint_rows.hpp"

namespace subsim {

namespace {
Vec3 worldPoint(const AssemblyContext& ctx, int body, const Vec3& local) {
  return body < 0 ? local : ctx.state.pose[body].transformPoint(local);
}
}  // namespace

void addSpringConstraint(const AssemblyContext& ctx, int index, double h, StepProblem& problem) {
  const Spring& s = ctx.model.springs[index];
  const Vec3 pa = worldPoint(ctx, s.body_a, s.point_a);
  const Vec3 pb = worldPoint(ctx, s.body_b, s.point_b);
  const Vec3 d = pa - pb;
  const double length = d.norm();
  // A zero-length spring has no direction and, along any direction, no force at rest length 0.
  if (length < 1e-12) return;
  const Vec3 n = d / length;
  const int j = problem.addConstraint(ConstraintType::Soft, 1, 0.0, springKey(index));
  const int row = problem.constraints[j].row_offset;
  setSoftRow(problem, row, s.stiffness, s.damping, h);
  problem.constraints[j].stabilization = Stabilization::Position;
  problem.error[row] = length - s.rest_length;
  if (s.body_a >= 0)
    addBodyRows(problem, ctx, s.body_a,
                pointVelocityRows(pa - ctx.state.pose[s.body_a].position, &n, 1), 1.0);
  if (s.body_b >= 0)
    addBodyRows(problem, ctx, s.body_b,
                pointVelocityRows(pb - ctx.state.pose[s.body_b].position, &n, 1), -1.0);
  if (problem.constraints[j].num_attachments == 0)
    problem.popConstraint();  // both ends immovable: no impulse on any subsystem
}

void setSoftRow(StepProblem& problem, int row, double stiffness, double damping, double h) {
  // Impulse over the step with the elastic force at the implicit midpoint:
  // lambda = -h k (e + h/2 J vhat) - h c J vhat.
  problem.soft_k[row] = h * stiffness;
  problem.soft_c[row] = h * damping + 0.5 * h * h * stiffness;
}

}  // namespace subsim
