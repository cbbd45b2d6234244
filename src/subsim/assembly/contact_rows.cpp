#include <cmath>

#include "subsim/assembly/constraint_rows.hpp"

namespace subsim {

void tangentBasis(const Vec3& n, Vec3& t1, Vec3& t2) {
  // Cross with the world axis least aligned with n (ties broken by index: deterministic).
  int axis = 0;
  if (std::abs(n.y()) < std::abs(n[axis])) axis = 1;
  if (std::abs(n.z()) < std::abs(n[axis])) axis = 2;
  t1 = n.cross(Vec3::Unit(axis)).normalized();
  t2 = n.cross(t1);
}

void setContactRows(StepProblem& problem, const Vec3& point, const Vec3& normal, double gap) {
  Constraint& c = problem.constraints.back();
  c.stabilization = Stabilization::Speculative;
  problem.error[c.row_offset] = gap;
  problem.setContactFrame(point, normal);
}

int addContactConstraint(const AssemblyContext& ctx, const AssembledContact& c,
                         StepProblem& problem) {
  const double mu = ctx.model.frictionBetween(c.shape_a, c.shape_b);
  const int j = problem.addConstraint(ConstraintType::Contact, 3, mu,
                                      contactKey(c.shape_a, c.shape_b, c.geometry.feature));
  Vec3 dirs[3];
  dirs[0] = c.geometry.normal;
  tangentBasis(dirs[0], dirs[1], dirs[2]);
  const Vec3& p = c.geometry.point;
  // Rows [n, t1, t2] of the velocity of A relative to B at the contact point.
  addBodyRows(problem, ctx, c.body_a,
              pointVelocityRows(p - ctx.state.pose[c.body_a].position, dirs, 3), 1.0);
  addBodyRows(problem, ctx, c.body_b,
              pointVelocityRows(p - ctx.state.pose[c.body_b].position, dirs, 3), -1.0);
  setContactRows(problem, p, dirs[0], c.geometry.gap);
  return j;
}

}  // namespace subsim
