#include <cmath>

#include "subsim/assembly/constraint_rows.hpp"
#include "subsim/math/so3.hpp"

namespace subsim {

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
