#pragma once
// Per-kind constraint builders used by the Assembler (one file each).
#include "subsim/assembly/assembler.hpp"
#include "subsim/assembly/body_rows.hpp"

namespace subsim {

void addJointConstraints(const AssemblyContext& ctx, int joint, double h, StepProblem& problem);
void addSpringConstraint(const AssemblyContext& ctx, int spring, double h, StepProblem& problem);
/// One Soft constraint of 6 rows per Cosserat coupling (model/rod_coupling.hpp), or, when both
/// segments belong to one rigid-body subsystem, the same rows folded into that A_i and b_i.
void addRodCouplingConstraint(const AssemblyContext& ctx, int coupling, double h,
                              StepProblem& problem);
/// A contact on shape `shape` against a material of friction `other_mu`, dirs[0] its normal: when
/// the shape has a grain (BodyShape::mu_across) in the tangent plane, turns dirs[1] along it and
/// dirs[2] across it and returns the coefficient across (Constraint::mu_t2); else returns -1 and
/// leaves dirs.
double grainFrame(const AssemblyContext& ctx, int shape, double other_mu, Vec3 dirs[3]);
/// Makes the last added constraint a contact's: Speculative stabilisation (StepProblem::erp), the
/// raw gap on its normal row, and its frame.
void setContactRows(StepProblem& problem, const Vec3& point, const Vec3& normal, double gap);
/// Returns the constraint index: reserveContactConstraint, then fillContactConstraint.
int addContactConstraint(const AssemblyContext& ctx, const AssembledContact& contact,
                         StepProblem& problem);
/// A contact's constraint in two parts, so that the second can run in parallel: the first
/// (serial: it grows the problem) adds the constraint with its stabilisation, gap and frame
/// (setContactRows) and a zero J block on each dynamic body's subsystem; the second computes the
/// rows and writes only constraint j's entries.  A contact on a robot link gets its blocks as its
/// rows are added: it must be filled right after it is reserved (contactOnRobot).
int reserveContactConstraint(const AssemblyContext& ctx, const AssembledContact& contact,
                             StepProblem& problem);
void fillContactConstraint(const AssemblyContext& ctx, const AssembledContact& contact, int j,
                           StepProblem& problem);
bool contactOnRobot(const AssemblyContext& ctx, const AssembledContact& contact);

/// A body's pose (the identity for the world, body -1).
Pose poseOf(const AssemblyContext& ctx, int body);
/// The pose half a step ahead at the last midpoint velocity.  Joint and rod Jacobians are
/// evaluated there: the chord x_{k+1} - x_k = h vhat of a body swinging on a joint is then
/// perpendicular to the lever at the chord's midpoint, so the joint drifts by O(h^3) per step
/// instead of O(h^2), and the stabilisation term e = C / h does correspondingly less
/// (energy-adding) work.
Pose midStepPoseOf(const AssemblyContext& ctx, int body, double h);

/// Sets a soft row's k' = h k and c' = h c + h^2 k / 2 (implicit midpoint on the elastic force).
void setSoftRow(StepProblem& problem, int row, double stiffness, double damping, double h);

}  // namespace subsim
