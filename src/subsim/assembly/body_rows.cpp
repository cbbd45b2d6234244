#include "subsim/assembly/body_rows.hpp"

#include <cassert>

#include "subsim/assembly/constraint_rows.hpp"
#include "subsim/assembly/robot_rows.hpp"

namespace subsim {

TwistRows pointVelocityRows(const Vec3& r, const Vec3* directions, int count) {
  TwistRows G(count, 6);
  for (int k = 0; k < count; ++k) {
    G.row(k).head<3>() = directions[k].transpose();
    G.row(k).tail<3>() = r.cross(directions[k]).transpose();
  }
  return G;
}

void addBodyRows(StepProblem& problem, const AssemblyContext& ctx, int body, const TwistRows& G,
                 double sign, int constraint) {
  if (body < 0) return;
  const BodyKind kind = ctx.model.bodies[body].kind;
  if (kind == BodyKind::Static) return;
  if (constraint < 0) constraint = problem.numConstraints() - 1;
  if (kind == BodyKind::Kinematic) {
    Vec6 twist;
    twist << ctx.state.linear_velocity[body], ctx.state.angular_velocity[body];
    const Constraint& c = problem.constraints[static_cast<std::size_t>(constraint)];
    for (int k = 0; k < G.rows(); ++k) {
      const int row = c.row_offset + k;
      // A soft row lambda = -k e - c (J_a v_a + J_b v_b) with v_b known is -k e' - c J_a v_a with
      // e' = e + (c / k) J_b v_b: exact, and why soft rows on kinematic bodies need k > 0.
      const double scale =
          c.type == ConstraintType::Soft ? problem.soft_c[row] / problem.soft_k[row] : 1.0;
      problem.bias[row] += scale * sign * G.row(k).dot(twist);
    }
    return;
  }
  const int subsystem = ctx.partition.subsystem_of_body[body];
  if (kind == BodyKind::Articulated) {
    assert(constraint == problem.numConstraints() - 1);
    const Body& b = ctx.model.bodies[body];
    problem.addTreeBodyRows(ctx.robots[b.robot].tree_body[b.link], sign * G);
    return;
  }
  // The constraint's block on the subsystem (reserved, or made by an earlier row), else a new
  // one, which only the last constraint can take.
  const int block = problem.findAttachment(constraint, subsystem);
  assert(block >= 0 || constraint == problem.numConstraints() - 1);
  auto J = block >= 0 ? problem.J(problem.attachments[static_cast<std::size_t>(block)])
                      : problem.jacobianFor(subsystem);
  J.block(0, ctx.partition.offset_in_subsystem[body], G.rows(), 6) += sign * G;
}

}  // namespace subsim
