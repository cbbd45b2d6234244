#include "subsim/problem/step_problem.hpp"

#include <cmath>
#include <sstream>

namespace subsim {

const char* constraintTypeName(ConstraintType type) {
  switch (type) {
    case ConstraintType::Bilateral:
      return "bilateral";
    case ConstraintType::Unilateral:
      return "unilateral";
    case ConstraintType::Soft:
      return "soft";
    case ConstraintType::Contact:
      return "contact";
  }
  return "unknown";
}

int StepProblem::numContacts() const {
  int n = 0;
  for (const Constraint& c : constraints) n += c.type == ConstraintType::Contact ? 1 : 0;
  return n;
}

void StepProblem::clear() {
  subsystems.clear();
  a_data.clear();
  b.clear();
  constraints.clear();
  attachments.clear();
  jacobian_data.clear();
  e.clear();
  soft_k.clear();
  soft_c.clear();
}

int StepProblem::addSubsystem(int dof) {
  Subsystem s;
  s.dof = dof;
  s.dof_offset = numDof();
  s.a_offset = static_cast<int>(a_data.size());
  subsystems.push_back(s);
  a_data.resize(a_data.size() + static_cast<size_t>(dof) * dof, 0.0);
  b.resize(b.size() + dof, 0.0);
  return numSubsystems() - 1;
}

Eigen::Map<MatX> StepProblem::A(int i) {
  const Subsystem& s = subsystems[i];
  return Eigen::Map<MatX>(a_data.data() + s.a_offset, s.dof, s.dof);
}
Eigen::Map<const MatX> StepProblem::A(int i) const {
  const Subsystem& s = subsystems[i];
  return Eigen::Map<const MatX>(a_data.data() + s.a_offset, s.dof, s.dof);
}
Eigen::Map<VecX> StepProblem::bBlock(int i) {
  const Subsystem& s = subsystems[i];
  return Eigen::Map<VecX>(b.data() + s.dof_offset, s.dof);
}
Eigen::Map<const VecX> StepProblem::bBlock(int i) const {
  const Subsystem& s = subsystems[i];
  return Eigen::Map<const VecX>(b.data() + s.dof_offset, s.dof);
}

int StepProblem::addConstraint(ConstraintType type, int rows, double mu, std::uint64_t key) {
  Constraint c;
  c.type = type;
  c.rows = rows;
  c.row_offset = numRows();
  c.first_attachment = static_cast<int>(attachments.size());
  c.num_attachments = 0;
  c.mu = mu;
  c.key = key;
  constraints.push_back(c);
  e.resize(e.size() + rows, 0.0);
  soft_k.resize(soft_k.size() + rows, 0.0);
  soft_c.resize(soft_c.size() + rows, 0.0);
  return numConstraints() - 1;
}

Eigen::Map<RowMajorMatX> StepProblem::jacobianFor(int subsystem) {
  Constraint& c = constraints.back();
  for (int k = 0; k < c.num_attachments; ++k) {
    Attachment& a = attachments[c.first_attachment + k];
    if (a.subsystem == subsystem) return J(a);
  }
  Attachment a;
  a.subsystem = subsystem;
  a.rows = c.rows;
  a.dof = subsystems[subsystem].dof;
  a.j_offset = static_cast<int>(jacobian_data.size());
  jacobian_data.resize(
      jacobian_data.size() + static_cast<size_t>(c.rows) * subsystems[subsystem].dof, 0.0);
  attachments.push_back(a);
  ++c.num_attachments;
  return J(attachments.back());
}

Eigen::Map<const RowMajorMatX> StepProblem::J(const Attachment& a) const {
  return Eigen::Map<const RowMajorMatX>(jacobian_data.data() + a.j_offset, a.rows, a.dof);
}
Eigen::Map<RowMajorMatX> StepProblem::J(const Attachment& a) {
  return Eigen::Map<RowMajorMatX>(jacobian_data.data() + a.j_offset, a.rows, a.dof);
}

std::string StepProblem::check() const {
  std::ostringstream err;
  int dof = 0;
  size_t a_size = 0;
  for (int i = 0; i < numSubsystems(); ++i) {
    const Subsystem& s = subsystems[i];
    if (s.dof <= 0 || s.dof_offset != dof || s.a_offset != static_cast<int>(a_size)) {
      err << "subsystem " << i << ": inconsistent layout";
      return err.str();
    }
    dof += s.dof;
    a_size += static_cast<size_t>(s.dof) * s.dof;
    const auto Ai = A(i);
    if (!Ai.allFinite() || !bBlock(i).allFinite()) {
      err << "subsystem " << i << ": A or b not finite";
      return err.str();
    }
    if ((Ai - Ai.transpose()).norm() > 1e-9 * (1.0 + Ai.norm())) {
      err << "subsystem " << i << ": A not symmetric";
      return err.str();
    }
  }
  if (dof != numDof() || a_size != a_data.size()) return "subsystem sizes do not add up";
  int rows = 0;
  for (int j = 0; j < numConstraints(); ++j) {
    const Constraint& c = constraints[j];
    if (c.rows <= 0 || c.row_offset != rows || c.num_attachments <= 0) {
      err << "constraint " << j << ": inconsistent layout";
      return err.str();
    }
    if (c.type == ConstraintType::Contact && (c.rows != 3 || !(c.mu >= 0.0))) {
      err << "constraint " << j << ": a contact needs 3 rows and mu >= 0";
      return err.str();
    }
    for (int k = 0; k < c.num_attachments; ++k) {
      const Attachment& a = attachments[c.first_attachment + k];
      if (a.subsystem < 0 || a.subsystem >= numSubsystems() || a.rows != c.rows ||
          a.dof != subsystems[a.subsystem].dof || !J(a).allFinite()) {
        err << "constraint " << j << ": bad attachment " << k;
        return err.str();
      }
    }
    rows += c.rows;
  }
  if (rows != numRows() || soft_k.size() != e.size() || soft_c.size() != e.size())
    return "constraint rows do not add up";
  for (double v : e)
    if (!std::isfinite(v)) return "e not finite";
  return {};
}

}  // namespace subsim
