#include "subsim/problem/step_problem.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <sstream>
#include <stdexcept>

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

const char* stabilizationName(Stabilization stabilization) {
  switch (stabilization) {
    case Stabilization::Velocity:
      return "velocity";
    case Stabilization::Speculative:
      return "speculative";
    case Stabilization::Position:
      return "position";
  }
  return "unknown";
}

int StepProblem::numContacts() const {
  int n = 0;
  for (const Constraint& c : constraints) n += c.type == ConstraintType::Contact ? 1 : 0;
  return n;
}

bool StepProblem::hasAnisotropicFriction() const {
  return std::any_of(constraints.begin(), constraints.end(), [](const Constraint& c) {
    return c.type == ConstraintType::Contact && c.anisotropic();
  });
}

bool StepProblem::hasSubcontacts() const {
  return std::any_of(constraints.begin(), constraints.end(),
                     [](const Constraint& c) { return c.subcontact_set >= 0; });
}

bool StepProblem::hasSparseJacobians() const {
  return std::any_of(attachments.begin(), attachments.end(),
                     [](const Attachment& a) { return isSparse(a); });
}

void StepProblem::clear() {
  subsystems.clear();
  has_step_data = false;
  a_data.clear();
  sparse_pattern.clear();
  b.clear();
  mass_data.clear();
  velocity.clear();
  constraints.clear();
  attachments.clear();
  jacobian_data.clear();
  jacobian_columns.clear();
  e.clear();
  error.clear();
  bias.clear();
  soft_k.clear();
  soft_c.clear();
  frames.clear();
  dof_parent.clear();
  tree_bodies.clear();
  tree_body_jacobian_data.clear();
  local_jacobian_data.clear();
  local_w.row_begin.clear();
  local_w.column.clear();
  local_w.value.clear();
}

int StepProblem::addSubsystem(int dof) {
  Subsystem s;
  s.dof = dof;
  s.dof_offset = numDof();
  s.a_offset = static_cast<int>(a_data.size());
  subsystems.push_back(s);
  a_data.resize(a_data.size() + static_cast<size_t>(dof) * dof, 0.0);
  b.resize(b.size() + dof, 0.0);
  mass_data.resize(a_data.size(), 0.0);
  velocity.resize(b.size(), 0.0);
  return numSubsystems() - 1;
}

int StepProblem::addSparseSubsystem(int dof, std::span<const int> column_begin,
                                    std::span<const int> row) {
  assert(static_cast<int>(column_begin.size()) == dof + 1);
  assert(column_begin[dof] == static_cast<int>(row.size()));
  Subsystem s;
  s.dof = dof;
  s.dof_offset = numDof();
  s.a_offset = static_cast<int>(a_data.size());
  s.pattern_offset = static_cast<int>(sparse_pattern.size());
  subsystems.push_back(s);
  sparse_pattern.insert(sparse_pattern.end(), column_begin.begin(), column_begin.end());
  sparse_pattern.insert(sparse_pattern.end(), row.begin(), row.end());
  a_data.resize(a_data.size() + row.size(), 0.0);
  b.resize(b.size() + dof, 0.0);
  mass_data.resize(a_data.size(), 0.0);
  velocity.resize(b.size(), 0.0);
  return numSubsystems() - 1;
}

int StepProblem::storedValues(int i) const {
  const Subsystem& s = subsystems[i];
  return s.pattern_offset >= 0 ? sparse_pattern[s.pattern_offset + s.dof] : s.dof * s.dof;
}

namespace {
// The sparse block of subsystem s over `values` (a_data or mass_data).
template <typename Matrix, typename Value>
Eigen::Map<Matrix> sparseBlock(const Subsystem& s, const std::vector<int>& pattern, Value* values) {
  assert(s.pattern_offset >= 0);
  // Eigen's writable Map takes mutable index pointers; the pattern is never written through it.
  int* columns = const_cast<int*>(pattern.data() + s.pattern_offset);
  return Eigen::Map<Matrix>(s.dof, s.dof, columns[s.dof], columns, columns + s.dof + 1,
                            values + s.a_offset);
}
}  // namespace

Eigen::Map<SparseColumnMatrix> StepProblem::sparseA(int i) {
  return sparseBlock<SparseColumnMatrix>(subsystems[i], sparse_pattern, a_data.data());
}
Eigen::Map<const SparseColumnMatrix> StepProblem::sparseA(int i) const {
  return sparseBlock<const SparseColumnMatrix>(subsystems[i], sparse_pattern, a_data.data());
}
Eigen::Map<SparseColumnMatrix> StepProblem::sparseM(int i) {
  return sparseBlock<SparseColumnMatrix>(subsystems[i], sparse_pattern, mass_data.data());
}
Eigen::Map<const SparseColumnMatrix> StepProblem::sparseM(int i) const {
  return sparseBlock<const SparseColumnMatrix>(subsystems[i], sparse_pattern, mass_data.data());
}

double StepProblem::traceA(int i) const {
  if (!isSparse(i)) return A(i).trace();
  double trace = 0.0;
  const auto Ai = sparseA(i);
  for (int c = 0; c < Ai.outerSize(); ++c) trace += Ai.coeff(c, c);
  return trace;
}

void StepProblem::multiplyA(int i, const double* x, double* y) const {
  const int n = subsystems[i].dof;
  const Eigen::Map<const VecX> xm(x, n);
  Eigen::Map<VecX> ym(y, n);
  if (isSparse(i))
    ym.noalias() = sparseA(i) * xm;
  else
    ym.noalias() = A(i) * xm;
}

MatX StepProblem::denseA(int i) const {
  if (!isSparse(i)) return A(i);
  requireDensifiable(*this, i, "a dense copy of A_i");
  return MatX(sparseA(i));
}

Eigen::Map<MatX> StepProblem::A(int i) {
  const Subsystem& s = subsystems[i];
  assert(s.pattern_offset < 0);
  return Eigen::Map<MatX>(a_data.data() + s.a_offset, s.dof, s.dof);
}
Eigen::Map<const MatX> StepProblem::A(int i) const {
  const Subsystem& s = subsystems[i];
  assert(s.pattern_offset < 0);
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

Eigen::Map<MatX> StepProblem::M(int i) {
  const Subsystem& s = subsystems[i];
  assert(s.pattern_offset < 0);
  return Eigen::Map<MatX>(mass_data.data() + s.a_offset, s.dof, s.dof);
}
Eigen::Map<const MatX> StepProblem::M(int i) const {
  const Subsystem& s = subsystems[i];
  assert(s.pattern_offset < 0);
  return Eigen::Map<const MatX>(mass_data.data() + s.a_offset, s.dof, s.dof);
}
Eigen::Map<VecX> StepProblem::velocityBlock(int i) {
  const Subsystem& s = subsystems[i];
  return Eigen::Map<VecX>(velocity.data() + s.dof_offset, s.dof);
}
Eigen::Map<const VecX> StepProblem::velocityBlock(int i) const {
  const Subsystem& s = subsystems[i];
  return Eigen::Map<const VecX>(velocity.data() + s.dof_offset, s.dof);
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
  error.resize(error.size() + rows, 0.0);
  bias.resize(bias.size() + rows, 0.0);
  soft_k.resize(soft_k.size() + rows, 0.0);
  soft_c.resize(soft_c.size() + rows, 0.0);
  return numConstraints() - 1;
}

void StepProblem::setContactFrame(const Vec3& point, const Vec3& normal) {
  Constraint& c = constraints.back();
  if (c.frame < 0) {
    c.frame = static_cast<int>(frames.size());
    frames.emplace_back();
  }
  frames[c.frame] = ContactFrame{point, normal};
}

void StepProblem::popConstraint() {
  const Constraint& c = constraints.back();
  const size_t rows = static_cast<size_t>(numRows() - c.rows);
  if (c.frame >= 0) frames.resize(c.frame);
  constraints.pop_back();
  e.resize(rows);
  error.resize(rows);
  bias.resize(rows);
  soft_k.resize(rows);
  soft_c.resize(rows);
}

int StepProblem::findAttachment(int constraint, int subsystem) const {
  const Constraint& c = constraints[static_cast<std::size_t>(constraint)];
  for (int k = 0; k < c.num_attachments; ++k) {
    if (attachments[c.first_attachment + k].subsystem == subsystem) return c.first_attachment + k;
  }
  return -1;
}

Attachment& StepProblem::newAttachment(int subsystem, int width) {
  Constraint& c = constraints.back();
  Attachment& a = attachments.emplace_back();
  a.subsystem = subsystem;
  a.rows = c.rows;
  a.dof = subsystems[subsystem].dof;
  a.width = width;
  a.j_offset = static_cast<int>(jacobian_data.size());
  jacobian_data.resize(jacobian_data.size() + static_cast<size_t>(c.rows) * storedColumns(a), 0.0);
  ++c.num_attachments;
  return a;
}

int StepProblem::attachmentFor(int subsystem, bool& created) {
  const int found = findAttachment(numConstraints() - 1, subsystem);
  created = found < 0;
  if (!created) {
    if (isSparse(attachments[found]))
      throw std::logic_error("the last constraint's J block on subsystem " +
                             std::to_string(subsystem) +
                             " is sparse: it is written once, by sparseJacobianFor");
    return found;
  }
  newAttachment(subsystem, 0);
  return static_cast<int>(attachments.size()) - 1;
}

Eigen::Map<RowMajorMatX> StepProblem::jacobianFor(int subsystem) {
  bool created = false;
  Attachment& a = attachments[attachmentFor(subsystem, created)];
  a.body = -1;
  return J(a);
}

Eigen::Map<RowMajorMatX> StepProblem::sparseJacobianFor(int subsystem,
                                                        std::span<const int> columns) {
  if (columns.empty())
    throw std::logic_error("sparseJacobianFor: no columns given for subsystem " +
                           std::to_string(subsystem));
  if (findAttachment(numConstraints() - 1, subsystem) >= 0)
    throw std::logic_error("sparseJacobianFor: the constraint already has a block on subsystem " +
                           std::to_string(subsystem));
  Attachment& a = newAttachment(subsystem, static_cast<int>(columns.size()));
  a.column_offset = static_cast<int>(jacobian_columns.size());
  jacobian_columns.insert(jacobian_columns.end(), columns.begin(), columns.end());
  return storedJ(a);
}

void StepProblem::setDofParents(int subsystem, const int* parent) {
  Subsystem& s = subsystems[subsystem];
  s.tree_offset = static_cast<int>(dof_parent.size());
  dof_parent.insert(dof_parent.end(), parent, parent + s.dof);
}

int StepProblem::addTreeBody(int subsystem, int deepest_dof) {
  TreeBody body;
  body.subsystem = subsystem;
  body.deepest_dof = deepest_dof;
  body.j_offset = static_cast<int>(tree_body_jacobian_data.size());
  tree_body_jacobian_data.resize(
      tree_body_jacobian_data.size() + static_cast<size_t>(6) * subsystems[subsystem].dof, 0.0);
  tree_bodies.push_back(body);
  return static_cast<int>(tree_bodies.size()) - 1;
}

Eigen::Map<RowMajorMatX> StepProblem::treeBodyJacobian(int body) {
  const TreeBody& tb = tree_bodies[body];
  return Eigen::Map<RowMajorMatX>(tree_body_jacobian_data.data() + tb.j_offset, 6,
                                  subsystems[tb.subsystem].dof);
}
Eigen::Map<const RowMajorMatX> StepProblem::treeBodyJacobian(int body) const {
  const TreeBody& tb = tree_bodies[body];
  return Eigen::Map<const RowMajorMatX>(tree_body_jacobian_data.data() + tb.j_offset, 6,
                                        subsystems[tb.subsystem].dof);
}

Eigen::Map<const RowMajorMatX> StepProblem::localJacobian(const Attachment& a) const {
  return Eigen::Map<const RowMajorMatX>(local_jacobian_data.data() + a.local_offset, a.rows, 6);
}

void StepProblem::addTreeBodyRows(int body, const TwistRows& local) {
  const int subsystem = tree_bodies[body].subsystem;
  bool created = false;
  const int index = attachmentFor(subsystem, created);
  Attachment& a = attachments[index];
  J(a).noalias() += local * treeBodyJacobian(body);
  if (created) {
    a.body = body;
    a.local_offset = static_cast<int>(local_jacobian_data.size());
    local_jacobian_data.resize(local_jacobian_data.size() + static_cast<size_t>(a.rows) * 6);
    Eigen::Map<RowMajorMatX>(local_jacobian_data.data() + a.local_offset, a.rows, 6) = local;
  } else if (a.body == body) {
    Eigen::Map<RowMajorMatX>(local_jacobian_data.data() + a.local_offset, a.rows, 6) += local;
  } else {
    a.body = -1;  // rows of two bodies (or of a block written directly): no single factor
  }
}

bool StepProblem::isDofAncestor(int subsystem, int ancestor, int k) const {
  const int* parent = dof_parent.data() + subsystems[subsystem].tree_offset;
  while (k > ancestor) k = parent[k];
  return k == ancestor;
}

Eigen::Map<const RowMajorMatX> StepProblem::J(const Attachment& a) const {
  assert(!isSparse(a));
  return storedJ(a);
}
Eigen::Map<RowMajorMatX> StepProblem::J(const Attachment& a) {
  assert(!isSparse(a));
  return storedJ(a);
}

Eigen::Map<const RowMajorMatX> StepProblem::storedJ(const Attachment& a) const {
  return Eigen::Map<const RowMajorMatX>(jacobian_data.data() + a.j_offset, a.rows,
                                        storedColumns(a));
}
Eigen::Map<RowMajorMatX> StepProblem::storedJ(const Attachment& a) {
  return Eigen::Map<RowMajorMatX>(jacobian_data.data() + a.j_offset, a.rows, storedColumns(a));
}

void StepProblem::multiplyJ(const Attachment& a, const double* v, double* out) const {
  if (!isSparse(a)) {
    Eigen::Map<VecX>(out, a.rows).noalias() = J(a) * Eigen::Map<const VecX>(v, a.dof);
    return;
  }
  for (int r = 0; r < a.rows; ++r) out[r] = 0.0;
  forEachEntryJ(a, [&](int r, int c, double value) { out[r] += value * v[c]; });
}

void StepProblem::addJTransposeTimes(const Attachment& a, const double* w, double* out) const {
  if (!isSparse(a)) {
    Eigen::Map<VecX>(out, a.dof).noalias() += J(a).transpose() * Eigen::Map<const VecX>(w, a.rows);
    return;
  }
  forEachEntryJ(a, [&](int r, int c, double value) { out[c] += value * w[r]; });
}

RowMajorMatX StepProblem::denseJ(const Attachment& a) const {
  if (!isSparse(a)) return J(a);
  RowMajorMatX dense = RowMajorMatX::Zero(a.rows, a.dof);
  forEachEntryJ(a, [&](int r, int c, double value) { dense(r, c) = value; });
  return dense;
}

std::string StepProblem::check() const {
  std::ostringstream err;
  int dof = 0;
  size_t a_size = 0, pattern_size = 0;
  for (int i = 0; i < numSubsystems(); ++i) {
    const Subsystem& s = subsystems[i];
    if (s.dof <= 0 || s.dof_offset != dof || s.a_offset != static_cast<int>(a_size)) {
      err << "subsystem " << i << ": inconsistent layout";
      return err.str();
    }
    if (s.substructure < -1) {
      err << "subsystem " << i << ": substructure " << s.substructure << ", expected -1 or more";
      return err.str();
    }
    if (s.pattern_offset >= 0) {
      const std::string defect = checkPattern(i, pattern_size);
      if (!defect.empty()) return defect;
    } else if (s.pattern_offset != -1) {
      err << "subsystem " << i << ": pattern_offset " << s.pattern_offset
          << ", expected -1 or more";
      return err.str();
    }
    dof += s.dof;
    a_size += static_cast<size_t>(storedValues(i));
    if (a_size > a_data.size() || dof > numDof()) return "subsystem sizes do not add up";
    const std::string defect = checkBlock(i, a_data.data(), "A");
    if (!defect.empty()) return defect;
    if (!bBlock(i).allFinite()) {
      err << "subsystem " << i << ": b not finite";
      return err.str();
    }
  }
  if (dof != numDof() || a_size != a_data.size() || pattern_size != sparse_pattern.size())
    return "subsystem sizes do not add up";
  int rows = 0;
  // Attachments follow their constraints in order, each owned by one (addConstraint's layout):
  // solvers size per-attachment workspaces by that, so a shared or skipped attachment (possible
  // in a problem file) would make them write past their buffers (found by fuzz_problem_file).
  long long next_attachment = 0;
  for (int j = 0; j < numConstraints(); ++j) {
    const Constraint& c = constraints[j];
    // A problem in local form has no subsystems: its constraints act through W alone.
    const bool attachments_ok = hasLocalForm() ? c.num_attachments == 0 : c.num_attachments > 0;
    if (c.rows <= 0 || c.row_offset != rows || !attachments_ok ||
        c.first_attachment != next_attachment ||
        next_attachment + c.num_attachments > static_cast<long long>(attachments.size())) {
      err << "constraint " << j << ": inconsistent layout";
      return err.str();
    }
    next_attachment += c.num_attachments;
    if (c.type == ConstraintType::Contact && (c.rows != 3 || !(c.mu >= 0.0))) {
      err << "constraint " << j << ": a contact needs 3 rows and mu >= 0";
      return err.str();
    }
    if (!(c.mu_t2 >= 0.0 || c.mu_t2 == -1.0) ||
        (c.anisotropic() && c.type != ConstraintType::Contact)) {
      err << "constraint " << j << ": mu_t2 " << c.mu_t2
          << ", expected -1 (isotropic) or a contact's mu_t2 >= 0";
      return err.str();
    }
    if (const std::string why = subcontactSetDefect(j); !why.empty()) {
      err << "constraint " << j << ": " << why;
      return err.str();
    }
    for (int k = 0; k < c.num_attachments; ++k) {
      const Attachment& a = attachments[c.first_attachment + k];
      if (a.subsystem < 0 || a.subsystem >= numSubsystems() || a.rows != c.rows ||
          a.dof != subsystems[a.subsystem].dof || a.width < 0 || a.width > a.dof ||
          a.j_offset < 0 ||
          static_cast<size_t>(a.j_offset) + static_cast<size_t>(a.rows) * storedColumns(a) >
              jacobian_data.size() ||
          !storedJ(a).allFinite()) {
        err << "constraint " << j << ": bad attachment " << k;
        return err.str();
      }
      if (isSparse(a)) {
        const std::string defect = checkSparseColumns(a);
        if (!defect.empty()) {
          err << "constraint " << j << ", attachment " << k << ": " << defect;
          return err.str();
        }
      }
    }
    rows += c.rows;
  }
  if (rows != numRows() || soft_k.size() != e.size() || soft_c.size() != e.size())
    return "constraint rows do not add up";
  if (next_attachment != static_cast<long long>(attachments.size()))
    return "attachments do not add up";
  for (double v : e)
    if (!std::isfinite(v)) return "e not finite";
  if (has_step_data) {
    const std::string defect = checkStepData();
    if (!defect.empty()) return defect;
  }
  if (hasLocalForm()) return checkLocalForm();
  return checkTreeStructure();
}

std::string StepProblem::subcontactSetDefect(int j) const {
  const int set = constraints[j].subcontact_set;
  if (set == -1) return "";
  const std::string what = "subcontact_set " + std::to_string(set);
  if (constraints[j].type != ConstraintType::Contact)
    return what + " on a constraint not a contact";
  if (set < 0 || set > j)
    return what + ", expected -1 or the index of a contact 0.." + std::to_string(j);
  if (constraints[set].subcontact_set != set)
    return what + ", but constraint " + std::to_string(set) + " (the set's first) is in set " +
           std::to_string(constraints[set].subcontact_set);
  return "";
}

std::string StepProblem::checkSparseColumns(const Attachment& a) const {
  if (a.column_offset < 0 ||
      static_cast<size_t>(a.column_offset) + static_cast<size_t>(a.width) > jacobian_columns.size())
    return "column_offset " + std::to_string(a.column_offset) + " and width " +
           std::to_string(a.width) + " beyond the " + std::to_string(jacobian_columns.size()) +
           " entries of jacobian_columns";
  const int* cols = jacobianColumns(a);
  for (int k = 0; k < a.width; ++k)
    if (cols[k] < 0 || cols[k] >= a.dof || (k > 0 && cols[k] <= cols[k - 1]))
      return "column " + std::to_string(k) + " is " + std::to_string(cols[k]) +
             ", expected increasing indices in 0.." + std::to_string(a.dof - 1);
  return {};
}

std::string StepProblem::checkPattern(int i, size_t& pattern_size) const {
  std::ostringstream err;
  const Subsystem& s = subsystems[i];
  const int n = s.dof;
  if (s.pattern_offset != static_cast<long long>(pattern_size) ||
      pattern_size + n + 1 > sparse_pattern.size()) {
    err << "subsystem " << i << ": pattern_offset " << s.pattern_offset << " inconsistent";
    return err.str();
  }
  if (s.tree_offset >= 0) {
    err << "subsystem " << i << ": a tree subsystem is stored sparse";
    return err.str();
  }
  const int* begin = sparse_pattern.data() + s.pattern_offset;
  const int nnz = begin[n];
  if (begin[0] != 0 || nnz < n || pattern_size + n + 1 + nnz > sparse_pattern.size() ||
      static_cast<size_t>(s.a_offset) + nnz > a_data.size()) {
    err << "subsystem " << i << ": sparse pattern's column starts do not add up";
    return err.str();
  }
  for (int c = 0; c < n; ++c)
    if (begin[c + 1] < begin[c] || begin[c + 1] > nnz) {
      err << "subsystem " << i << ": sparse column " << c << " has a bad start";
      return err.str();
    }
  const int* row = begin + n + 1;
  for (int c = 0; c < n; ++c) {
    bool diagonal = false;
    for (int k = begin[c]; k < begin[c + 1]; ++k) {
      if (row[k] < 0 || row[k] >= n || (k > begin[c] && row[k] <= row[k - 1])) {
        err << "subsystem " << i << ": sparse column " << c << ": row " << row[k]
            << " out of range or out of order";
        return err.str();
      }
      diagonal = diagonal || row[k] == c;
    }
    if (!diagonal) {
      err << "subsystem " << i << ": sparse pattern lacks diagonal entry " << c;
      return err.str();
    }
  }
  // Structural symmetry: (c, r) is stored with (r, c).
  for (int c = 0; c < n; ++c)
    for (int k = begin[c]; k < begin[c + 1]; ++k) {
      const int* mirror = std::lower_bound(row + begin[row[k]], row + begin[row[k] + 1], c);
      if (mirror == row + begin[row[k] + 1] || *mirror != c) {
        err << "subsystem " << i << ": sparse pattern not symmetric at (" << row[k] << ", " << c
            << ")";
        return err.str();
      }
    }
  pattern_size += n + 1 + nnz;
  return {};
}

std::string StepProblem::checkBlock(int i, const double* values, const char* name) const {
  std::ostringstream err;
  const Subsystem& s = subsystems[i];
  const int stored = storedValues(i);
  if (!Eigen::Map<const VecX>(values + s.a_offset, stored).allFinite()) {
    err << "subsystem " << i << ": " << name << " not finite";
    return err.str();
  }
  if (s.pattern_offset < 0) {
    const Eigen::Map<const MatX> B(values + s.a_offset, s.dof, s.dof);
    if ((B - B.transpose()).norm() > 1e-9 * (1.0 + B.norm())) {
      err << "subsystem " << i << ": " << name << " not symmetric";
      return err.str();
    }
    return {};
  }
  // Entry by entry against its mirror (the pattern is symmetric: checkPattern()).
  const int* begin = sparse_pattern.data() + s.pattern_offset;
  const int* row = begin + s.dof + 1;
  const double* v = values + s.a_offset;
  const double scale = 1.0 + Eigen::Map<const VecX>(v, stored).norm();
  for (int c = 0; c < s.dof; ++c)
    for (int k = begin[c]; k < begin[c + 1]; ++k) {
      const int* mirror = std::lower_bound(row + begin[row[k]], row + begin[row[k] + 1], c);
      if (std::abs(v[k] - v[mirror - row]) > 1e-9 * scale) {
        err << "subsystem " << i << ": " << name << " not symmetric at (" << row[k] << ", " << c
            << ")";
        return err.str();
      }
    }
  return {};
}

void requireIsotropicFriction(const StepProblem& p, std::string_view solver) {
  for (int j = 0; j < p.numConstraints(); ++j) {
    const Constraint& c = p.constraints[j];
    if (c.type != ConstraintType::Contact || !c.anisotropic()) continue;
    throw std::invalid_argument(
        "solver '" + std::string(solver) + "' takes isotropic friction only, and contact " +
        std::to_string(j) + " has anisotropic friction (mu " + std::to_string(c.mu) +
        " along t1, " + std::to_string(c.mu_t2) +
        " along t2): solve it with cond (cone=strict), subadmm or fadmm, whose strict operator "
        "projects onto the elliptic cone (maximal dissipation)");
  }
}

void requireDensifiable(const StepProblem& p, int i, std::string_view what) {
  const int n = p.subsystems[i].dof;
  if (p.isSparse(i) && n > kMaxDensifiedDof)
    throw std::invalid_argument(
        "subsystem " + std::to_string(i) + " has " + std::to_string(n) + " DOF stored sparse, " +
        std::string(what) + " needs it dense, which is allowed up to " +
        std::to_string(kMaxDensifiedDof) + " DOF (" +
        std::to_string(8.0 * n * n / 1e9).substr(0, 4) +
        " GB here): use a solver that takes sparse subsystem blocks (cond; subadmm where every "
        "constraint on it touches at most 8 nodes; fadmm, al-newton; the Delassus solvers pgs, "
        "pgs-cg, apgd, nnewton)");
}

std::string StepProblem::checkLocalForm() const {
  std::ostringstream err;
  if (numSubsystems() != 0 || has_step_data) return "a local-form problem has subsystems";
  const LocalDelassus& w = local_w;
  const int n = numRows();
  if (static_cast<int>(w.row_begin.size()) != n + 1 || w.row_begin[0] != 0 ||
      w.row_begin[n] != w.nonZeros() || w.column.size() != w.value.size())
    return "W's compressed rows do not add up";
  for (int r = 0; r < n; ++r) {
    if (w.row_begin[r + 1] < w.row_begin[r]) {
      err << "W row " << r << ": decreasing row start";
      return err.str();
    }
    for (int k = w.row_begin[r]; k < w.row_begin[r + 1]; ++k) {
      const int col = w.column[k];
      if (col < 0 || col >= n || (k > w.row_begin[r] && col <= w.column[k - 1])) {
        err << "W row " << r << ": column " << col << " out of range or out of order";
        return err.str();
      }
      if (!std::isfinite(w.value[k])) {
        err << "W(" << r << ", " << col << ") not finite";
        return err.str();
      }
    }
  }
  // Symmetry, entry by entry: W(r, c) against W(c, r) (binary search in row c).
  for (int r = 0; r < n; ++r)
    for (int k = w.row_begin[r]; k < w.row_begin[r + 1]; ++k) {
      const int col = w.column[k];
      const auto begin = w.column.begin() + w.row_begin[col];
      const auto end = w.column.begin() + w.row_begin[col + 1];
      const auto at = std::lower_bound(begin, end, r);
      const double mirror = at != end && *at == r ? w.value[at - w.column.begin()] : 0.0;
      if (std::abs(w.value[k] - mirror) > 1e-9 * (1.0 + std::abs(w.value[k]))) {
        err << "W not symmetric: W(" << r << ", " << col << ") = " << w.value[k] << ", W(" << col
            << ", " << r << ") = " << mirror;
        return err.str();
      }
    }
  return {};
}

void requireSubsystems(const StepProblem& problem, std::string_view solver) {
  if (problem.hasLocalForm())
    throw std::invalid_argument(
        "solver '" + std::string(solver) +
        "' works on the subsystems (A_i, b_i, J) of a problem, and this problem is given in its "
        "local form only (W, q, mu: an FCLib local problem); solve it with a dual solver (pgs, "
        "pgs-cg, pj, nnewton)");
}

std::string StepProblem::checkStepData() const {
  std::ostringstream err;
  if (!(theta >= 0.0 && theta < 1.0)) {
    err << "theta " << theta << " outside [0, 1)";
    return err.str();
  }
  if (!(erp >= 0.0 && erp <= 1.0)) {
    err << "erp " << erp << " outside [0, 1]";
    return err.str();
  }
  if (mass_data.size() != a_data.size() || velocity.size() != b.size())
    return "mass blocks or velocities do not add up";
  if (error.size() != e.size() || bias.size() != e.size())
    return "error or bias rows do not add up";
  for (int i = 0; i < numSubsystems(); ++i) {
    const std::string defect = checkBlock(i, mass_data.data(), "M");
    if (!defect.empty()) return defect;
    if (!velocityBlock(i).allFinite()) {
      err << "subsystem " << i << ": v not finite";
      return err.str();
    }
  }
  for (size_t r = 0; r < e.size(); ++r)
    if (!std::isfinite(error[r]) || !std::isfinite(bias[r])) {
      err << "row " << r << ": error or bias not finite";
      return err.str();
    }
  int next_frame = 0;
  for (int j = 0; j < numConstraints(); ++j) {
    const Constraint& c = constraints[j];
    if (static_cast<int>(c.stabilization) > static_cast<int>(Stabilization::Position)) {
      err << "constraint " << j << ": bad stabilisation rule " << static_cast<int>(c.stabilization);
      return err.str();
    }
    if (c.frame < 0) continue;
    if (c.frame != next_frame++ || c.type != ConstraintType::Contact ||
        c.frame >= static_cast<int>(frames.size()) || !frames[c.frame].point.allFinite() ||
        !frames[c.frame].normal.allFinite()) {
      err << "constraint " << j << ": bad contact frame " << c.frame;
      return err.str();
    }
  }
  if (next_frame != static_cast<int>(frames.size())) return "contact frames do not add up";
  return {};
}

std::string StepProblem::checkTreeStructure() const {
  std::ostringstream err;
  const auto in = [](long long offset, long long count, size_t size) {
    return offset >= 0 && count >= 0 && offset + count <= static_cast<long long>(size);
  };
  for (int i = 0; i < numSubsystems(); ++i) {
    const Subsystem& s = subsystems[i];
    if (s.tree_offset < 0) continue;
    if (!in(s.tree_offset, s.dof, dof_parent.size())) {
      err << "subsystem " << i << ": tree_offset " << s.tree_offset << " outside dof_parent";
      return err.str();
    }
    const int* parent = dof_parent.data() + s.tree_offset;
    for (int k = 0; k < s.dof; ++k) {
      if (parent[k] < -1 || parent[k] >= k) {
        err << "subsystem " << i << ": DOF " << k << " has parent " << parent[k]
            << ", expected -1.." << k - 1;
        return err.str();
      }
    }
    // Branch-induced sparsity: A_i(k, l) = 0 unless l is an ancestor of k (l < k).
    const auto Ai = A(i);
    const double zero = 1e-12 * Ai.cwiseAbs().maxCoeff();
    for (int k = 0; k < s.dof; ++k)
      for (int l = 0; l < k; ++l)
        if (std::abs(Ai(k, l)) > zero && !isDofAncestor(i, l, k)) {
          err << "subsystem " << i << ": A(" << k << ", " << l
              << ") is nonzero but neither DOF is an ancestor of the other";
          return err.str();
        }
  }
  for (size_t t = 0; t < tree_bodies.size(); ++t) {
    const TreeBody& body = tree_bodies[t];
    if (body.subsystem < 0 || body.subsystem >= numSubsystems() ||
        subsystems[body.subsystem].tree_offset < 0) {
      err << "tree body " << t << ": subsystem " << body.subsystem << " is not a tree";
      return err.str();
    }
    const int dof = subsystems[body.subsystem].dof;
    if (body.deepest_dof < 0 || body.deepest_dof >= dof ||
        !in(body.j_offset, 6LL * dof, tree_body_jacobian_data.size())) {
      err << "tree body " << t << ": bad layout";
      return err.str();
    }
    const auto Jb = treeBodyJacobian(static_cast<int>(t));
    if (!Jb.allFinite()) {
      err << "tree body " << t << ": Jacobian not finite";
      return err.str();
    }
    for (int col = 0; col < dof; ++col)
      if (!Jb.col(col).isZero(0.0) && !isDofAncestor(body.subsystem, col, body.deepest_dof)) {
        err << "tree body " << t << ": Jacobian column " << col << " is nonzero but DOF " << col
            << " is not an ancestor of its deepest DOF " << body.deepest_dof;
        return err.str();
      }
  }
  for (size_t k = 0; k < attachments.size(); ++k) {
    const Attachment& a = attachments[k];
    if (a.body < 0) continue;
    if (a.body >= static_cast<int>(tree_bodies.size()) ||
        tree_bodies[a.body].subsystem != a.subsystem ||
        !in(a.local_offset, 6LL * a.rows, local_jacobian_data.size())) {
      err << "attachment " << k << ": bad tree body factor (body " << a.body << ")";
      return err.str();
    }
    const auto Ja = J(a);
    // lazyProduct: coefficient-wise, so that checking a step (World asserts it) allocates nothing.
    if ((Ja - localJacobian(a).lazyProduct(treeBodyJacobian(a.body))).norm() >
        1e-9 * (1.0 + Ja.norm())) {
      err << "attachment " << k << ": J differs from its factor L J_b";
      return err.str();
    }
  }
  return {};
}

const char* solveStatusName(SolveStatus status) {
  switch (status) {
    case SolveStatus::Converged:
      return "converged";
    case SolveStatus::IterationCap:
      return "iteration-cap";
    case SolveStatus::FactorizationFailed:
      return "factorization-failed";
    case SolveStatus::NonFinite:
      return "non-finite";
    case SolveStatus::Stalled:
      return "stalled";
  }
  return "unknown";
}

}  // namespace subsim
