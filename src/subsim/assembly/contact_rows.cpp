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

double grainFrame(const AssemblyContext& ctx, int shape, double other_mu, Vec3 dirs[3]) {
  const BodyShape& grain = ctx.model.shapes[shape];
  if (grain.mu_across < 0.0) return -1.0;
  const Pose& pose = ctx.state.pose[grain.body];
  const Vec3 axis = pose.orientation * (grain.local_pose.orientation * grain.friction_axis);
  const Vec3 along = axis - axis.dot(dirs[0]) * dirs[0];
  // A normal along the axis leaves no grain in the tangent plane: isotropic there.
  if (!(along.norm() > 1e-9 * axis.norm())) return -1.0;
  dirs[1] = along.normalized();
  dirs[2] = dirs[0].cross(dirs[1]);
  return std::sqrt(grain.mu_across * other_mu);
}

bool contactOnRobot(const AssemblyContext& ctx, const AssembledContact& c) {
  const auto articulated = [&](int body) {
    return body >= 0 && ctx.model.bodies[body].kind == BodyKind::Articulated;
  };
  return articulated(c.body_a) || articulated(c.body_b);
}

int reserveContactConstraint(const AssemblyContext& ctx, const AssembledContact& c,
                             StepProblem& problem) {
  const double mu = ctx.model.frictionBetween(c.shape_a, c.shape_b);
  const int j = problem.addConstraint(ConstraintType::Contact, 3, mu,
                                      contactKey(c.shape_a, c.shape_b, c.geometry.feature));
  setContactRows(problem, c.geometry.point, c.geometry.normal, c.geometry.gap);
  // A robot link's block is made as its rows are added (addTreeBodyRows), in the order of the
  // two bodies: such a contact is filled at once, and gets no block here.
  if (contactOnRobot(ctx, c)) return j;
  for (const int body : {c.body_a, c.body_b})
    if (body >= 0 && ctx.model.bodies[body].kind == BodyKind::Dynamic)
      problem.jacobianFor(ctx.partition.subsystem_of_body[body]);
  return j;
}

void fillContactConstraint(const AssemblyContext& ctx, const AssembledContact& c, int j,
                           StepProblem& problem) {
  Vec3 dirs[3];
  dirs[0] = c.geometry.normal;
  tangentBasis(dirs[0], dirs[1], dirs[2]);
  // A surface with a grain: t1 along its friction axis, t2 across it, each with its own
  // coefficient (unless a friction pair of the model sets the pair's).
  if (ctx.model.frictionPairOf(c.shape_a, c.shape_b) == nullptr) {
    // At most one of the two has a grain (it is on a static body; the other is not).
    const double mu_t2_a = grainFrame(ctx, c.shape_a, ctx.model.shapes[c.shape_b].mu, dirs);
    problem.constraints[j].mu_t2 =
        mu_t2_a >= 0.0 ? mu_t2_a : grainFrame(ctx, c.shape_b, ctx.model.shapes[c.shape_a].mu, dirs);
  }
  const Vec3& p = c.geometry.point;
  // Rows [n, t1, t2] of the velocity of A relative to B at the contact point (a contact on a
  // robot is filled as it is placed, the last constraint: its blocks are made here).
  addBodyRows(problem, ctx, c.body_a,
              pointVelocityRows(p - ctx.state.pose[c.body_a].position, dirs, 3), 1.0, j);
  addBodyRows(problem, ctx, c.body_b,
              pointVelocityRows(p - ctx.state.pose[c.body_b].position, dirs, 3), -1.0, j);
}

int addContactConstraint(const AssemblyContext& ctx, const AssembledContact& c,
                         StepProblem& problem) {
  const int j = reserveContactConstraint(ctx, c, problem);
  fillContactConstraint(ctx, c, j, problem);
  return j;
}

}  // namespace subsim
