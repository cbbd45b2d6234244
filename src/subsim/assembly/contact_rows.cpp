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

namespace {
// True when a friction pair of the model sets the coefficient of the bodies of two shapes.
bool frictionPairSets(const Model& m, int shape_a, int shape_b) {
  const int ba = m.shapes[shape_a].body, bb = m.shapes[shape_b].body;
  for (const FrictionPair& p : m.friction_pairs)
    if ((p.body_a == ba && p.body_b == bb) || (p.body_a == bb && p.body_b == ba)) return true;
  return false;
}
}  // namespace

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

int addContactConstraint(const AssemblyContext& ctx, const AssembledContact& c,
                         StepProblem& problem) {
  const double mu = ctx.model.frictionBetween(c.shape_a, c.shape_b);
  const int j = problem.addConstraint(ConstraintType::Contact, 3, mu,
                                      contactKey(c.shape_a, c.shape_b, c.geometry.feature));
  Vec3 dirs[3];
  dirs[0] = c.geometry.normal;
  tangentBasis(dirs[0], dirs[1], dirs[2]);
  // A surface with a grain: t1 along its friction axis, t2 across it, each with its own
  // coefficient (unless a friction pair of the model sets the pair's).
  for (const int shape : {c.shape_a, c.shape_b}) {
    const int other = shape == c.shape_a ? c.shape_b : c.shape_a;
    if (frictionPairSets(ctx.model, c.shape_a, c.shape_b)) break;
    const double mu_t2 = grainFrame(ctx, shape, ctx.model.shapes[other].mu, dirs);
    if (mu_t2 < 0.0) continue;
    problem.constraints[j].mu_t2 = mu_t2;
    break;
  }
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
