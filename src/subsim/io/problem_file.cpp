#include "subsim/io/problem_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "subsim/formulation/ncp_form.hpp"
#include "subsim/io/file_seal.hpp"
#include "subsim/io/hdf5_file.hpp"

namespace subsim {
namespace {

using namespace hdf5;

// 2: subsystems may store A_i and M_i sparse (a_data's values then follow a pattern); version 1
// files, which have no such subsystems, are read as before.
// 3: J blocks may be stored sparse (jacobian_data's values then follow attachment_columns);
// older files, which have none, are read as before.
constexpr int kSchemaVersion = 3;
constexpr int kOldestSchemaVersion = 1;
constexpr int kNumConstraintTypes = 4;  // ConstraintType::Bilateral .. Contact
constexpr int kNumStabilizations = 3;   // Stabilization::Velocity .. Position

// ---------------------------------------------------------------------------------------------
// Validation shared by the writer and the reader

// The first defect of a problem, named by the file object that holds the bad value.
struct Defect {
  std::string object;
  std::string what;
};

std::optional<Defect> nonFinite(const char* object, const double* values, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(values[i]))
      return Defect{object, "value " + std::to_string(i) + " is not finite (" +
                                std::to_string(values[i]) + ")"};
  return std::nullopt;
}

// Everything StepProblem::check() and the solvers index with but do not bound-check, plus the
// enum range and finite values (check() only looks at A, b, J and e).  Offsets are summed in 64
// bits: a corrupt file may hold values near INT_MAX.
/// The parts of a warm start or a stored solution (datasets PREFIX_vhat, PREFIX_lambda).  An
/// empty part means "none"; a part of any other size would be ignored by a solver, so it can only
/// be a recording error.
std::optional<Defect> partsDefect(const StepProblem& p, const StepSolution& s,
                                  const std::string& prefix) {
  const std::string vhat = prefix + "_vhat", lambda = prefix + "_lambda";
  if (s.vhat.size() != 0 && s.vhat.size() != p.numDof())
    return Defect{vhat, std::to_string(s.vhat.size()) + " values, expected 0 or the " +
                            std::to_string(p.numDof()) + " values of b"};
  if (s.lambda.size() != 0 && s.lambda.size() != p.numRows())
    return Defect{lambda, std::to_string(s.lambda.size()) + " values, expected 0 or the " +
                              std::to_string(p.numRows()) + " rows of e"};
  if (auto defect = nonFinite(vhat.c_str(), s.vhat.data(), static_cast<std::size_t>(s.vhat.size())))
    return defect;
  return nonFinite(lambda.c_str(), s.lambda.data(), static_cast<std::size_t>(s.lambda.size()));
}

std::optional<Defect> layoutDefect(const StepProblem& p, const StepSolution& warm_start,
                                   const StepSolution& solution) {
  using I64 = std::int64_t;
  const auto size = [](const auto& v) { return static_cast<I64>(v.size()); };
  if (!std::isfinite(p.dt)) return Defect{"dt", "not finite (" + std::to_string(p.dt) + ")"};
  for (std::size_t i = 0; i < p.subsystems.size(); ++i) {
    const Subsystem& s = p.subsystems[i];
    const std::string which = "subsystem " + std::to_string(i) + " (dof " + std::to_string(s.dof) +
                              ", dof_offset " + std::to_string(s.dof_offset) + ", a_offset " +
                              std::to_string(s.a_offset) + ")";
    if (s.dof < 0 || s.dof_offset < 0 || s.a_offset < 0)
      return Defect{"subsystems", which + " has a negative entry"};
    if (I64{s.dof_offset} + s.dof > size(p.b))
      return Defect{"subsystems",
                    which + " reaches beyond the " + std::to_string(p.b.size()) + " values of b"};
    if (s.pattern_offset < -1 ||
        (s.pattern_offset >= 0 && I64{s.pattern_offset} + s.dof + 1 > size(p.sparse_pattern)))
      return Defect{"subsystem_pattern_offset",
                    which + " has pattern offset " + std::to_string(s.pattern_offset) +
                        ", expected -1 or a start within the " +
                        std::to_string(p.sparse_pattern.size()) + " values of sparse_pattern"};
    const I64 stored = s.pattern_offset >= 0 ? I64{p.sparse_pattern[s.pattern_offset + s.dof]}
                                             : I64{s.dof} * s.dof;
    if (stored < 0 || I64{s.a_offset} + stored > size(p.a_data))
      return Defect{"subsystems", which + " reaches beyond the " + std::to_string(p.a_data.size()) +
                                      " values of a_data"};
  }
  for (std::size_t j = 0; j < p.constraints.size(); ++j) {
    const Constraint& c = p.constraints[j];
    const std::string which = "constraint " + std::to_string(j);
    const int type = static_cast<int>(c.type);
    if (type < 0 || type >= kNumConstraintTypes)
      return Defect{"constraint_type", which + " has type " + std::to_string(type) +
                                           ", expected 0.." +
                                           std::to_string(kNumConstraintTypes - 1)};
    if (c.rows <= 0)
      return Defect{"constraint_rows", which + " has " + std::to_string(c.rows) + " rows"};
    if (c.row_offset < 0 || I64{c.row_offset} + c.rows > size(p.e))
      return Defect{"constraint_row_offset",
                    which + " has rows " + std::to_string(c.row_offset) + ".." +
                        std::to_string(I64{c.row_offset} + c.rows - 1) + ", outside the " +
                        std::to_string(p.e.size()) + " rows of e"};
    if (c.num_attachments < 0)
      return Defect{"constraint_num_attachments",
                    which + " has " + std::to_string(c.num_attachments) + " attachments"};
    if (c.first_attachment < 0 || I64{c.first_attachment} + c.num_attachments > size(p.attachments))
      return Defect{"constraint_first_attachment",
                    which + " has attachments " + std::to_string(c.first_attachment) + ".." +
                        std::to_string(I64{c.first_attachment} + c.num_attachments - 1) +
                        ", outside the " + std::to_string(p.attachments.size()) + " attachments"};
    if (!std::isfinite(c.mu))
      return Defect{"constraint_mu", which + " has mu " + std::to_string(c.mu)};
    if (!std::isfinite(c.mu_t2))
      return Defect{"constraint_mu_t2", which + " has mu_t2 " + std::to_string(c.mu_t2)};
  }
  for (std::size_t k = 0; k < p.attachments.size(); ++k) {
    const Attachment& a = p.attachments[k];
    const std::string which = "attachment " + std::to_string(k) + " (subsystem " +
                              std::to_string(a.subsystem) + ", rows " + std::to_string(a.rows) +
                              ", dof " + std::to_string(a.dof) + ", j_offset " +
                              std::to_string(a.j_offset) + ")";
    if (a.subsystem < 0 || a.subsystem >= size(p.subsystems))
      return Defect{"attachments", which + " refers to a subsystem beyond the " +
                                       std::to_string(p.subsystems.size()) + " subsystems"};
    if (a.rows < 0 || a.dof < 0 || a.j_offset < 0)
      return Defect{"attachments", which + " has a negative entry"};
    if (a.width < 0 || a.width > a.dof || a.column_offset < 0 ||
        I64{a.column_offset} + a.width > size(p.jacobian_columns))
      return Defect{"attachment_columns",
                    which + " stores " + std::to_string(a.width) + " columns from " +
                        std::to_string(a.column_offset) + ", expected 0 (dense) or 1.." +
                        std::to_string(a.dof) + " columns within the " +
                        std::to_string(p.jacobian_columns.size()) + " of jacobian_columns"};
    if (I64{a.j_offset} + I64{a.rows} * StepProblem::storedColumns(a) > size(p.jacobian_data))
      return Defect{"attachments", which + " reaches beyond the " +
                                       std::to_string(p.jacobian_data.size()) +
                                       " values of jacobian_data"};
  }
  if (p.has_step_data) {
    if (p.mass_data.size() != p.a_data.size())
      return Defect{"mass_data", std::to_string(p.mass_data.size()) + " values for the " +
                                     std::to_string(p.a_data.size()) + " of a_data"};
    for (std::size_t j = 0; j < p.constraints.size(); ++j) {
      const Constraint& c = p.constraints[j];
      if (c.frame < -1 || c.frame >= size(p.frames))
        return Defect{"constraint_frame", "constraint " + std::to_string(j) + " has frame " +
                                              std::to_string(c.frame) + ", expected -1.." +
                                              std::to_string(p.frames.size() - 1)};
    }
    const struct {
      const char* object;
      const DoubleBuffer& values;
      std::size_t expected;
    } step_arrays[] = {{"velocity", p.velocity, p.b.size()},
                       {"error", p.error, p.e.size()},
                       {"bias", p.bias, p.e.size()}};
    for (const auto& array : step_arrays) {
      if (array.values.size() != array.expected)
        return Defect{array.object, std::to_string(array.values.size()) + " values, expected " +
                                        std::to_string(array.expected)};
      if (auto defect = nonFinite(array.object, array.values.data(), array.values.size()))
        return defect;
    }
    if (auto defect = nonFinite("mass_data", p.mass_data.data(), p.mass_data.size())) return defect;
  }
  if (!p.tree_bodies.empty() || !p.dof_parent.empty()) {
    // StepProblem::check() bounds every tree index before use; only the finite values are left.
    if (auto defect = nonFinite("tree_body_jacobian_data", p.tree_body_jacobian_data.data(),
                                p.tree_body_jacobian_data.size()))
      return defect;
    if (auto defect = nonFinite("local_jacobian_data", p.local_jacobian_data.data(),
                                p.local_jacobian_data.size()))
      return defect;
  }
  if (p.soft_k.size() != p.e.size())
    return Defect{"soft_k", std::to_string(p.soft_k.size()) + " values for the " +
                                std::to_string(p.e.size()) + " rows of e"};
  if (p.soft_c.size() != p.e.size())
    return Defect{"soft_c", std::to_string(p.soft_c.size()) + " values for the " +
                                std::to_string(p.e.size()) + " rows of e"};
  const struct {
    const char* object;
    const DoubleBuffer& values;
  } arrays[] = {{"a_data", p.a_data}, {"b", p.b},           {"jacobian_data", p.jacobian_data},
                {"e", p.e},           {"soft_k", p.soft_k}, {"soft_c", p.soft_c}};
  for (const auto& array : arrays)
    if (auto defect = nonFinite(array.object, array.values.data(), array.values.size()))
      return defect;
  if (auto defect = partsDefect(p, warm_start, "warm_start")) return defect;
  return partsDefect(p, solution, "solution");
}

// ---------------------------------------------------------------------------------------------
// Writing

template <typename Vector>
void writeVector(hid_t group, const char* name, const Vector& v, const std::string& context) {
  writeArray(group, name, v.data(), v.size(), 0, context);
}

// The declared substructures (Subsystem::substructure), written only when some subsystem has one.
bool hasSubstructures(const StepProblem& p) {
  return std::any_of(p.subsystems.begin(), p.subsystems.end(),
                     [](const Subsystem& s) { return s.substructure >= 0; });
}

bool hasSparseBlocks(const StepProblem& p) {
  return !p.sparse_pattern.empty();
}

bool hasTreeStructure(const StepProblem& p) {
  return !p.dof_parent.empty() || !p.tree_bodies.empty();
}

// The optional tree structure (StepProblem::dof_parent etc.): written only when present, so files
// of problems without it are unchanged.
void writeTreeStructure(hid_t g, const StepProblem& p, const std::string& context) {
  std::vector<int> tree_offset;
  tree_offset.reserve(p.subsystems.size());
  for (const Subsystem& s : p.subsystems) tree_offset.push_back(s.tree_offset);
  writeVector(g, "subsystem_tree_offset", tree_offset, context);
  writeVector(g, "dof_parent", p.dof_parent, context);
  std::vector<int> bodies;
  bodies.reserve(3 * p.tree_bodies.size());
  for (const TreeBody& b : p.tree_bodies)
    bodies.insert(bodies.end(), {b.subsystem, b.deepest_dof, b.j_offset});
  writeArray(g, "tree_bodies", bodies.data(), p.tree_bodies.size(), 3, context);
  writeVector(g, "tree_body_jacobian_data", p.tree_body_jacobian_data, context);
  std::vector<int> factors;
  factors.reserve(2 * p.attachments.size());
  for (const Attachment& a : p.attachments) factors.insert(factors.end(), {a.body, a.local_offset});
  writeArray(g, "attachment_body", factors.data(), p.attachments.size(), 2, context);
  writeVector(g, "local_jacobian_data", p.local_jacobian_data, context);
}

// The optional step data (StepProblem::has_step_data): written only when present, so that NCP-only
// problems give the files they always gave.
void writeStepData(hid_t g, const StepProblem& p, const std::string& context) {
  writeAttribute(g, "theta", p.theta, context);
  writeAttribute(g, "erp", p.erp, context);
  writeVector(g, "mass_data", p.mass_data, context);
  writeVector(g, "velocity", p.velocity, context);
  writeVector(g, "error", p.error, context);
  writeVector(g, "bias", p.bias, context);
  const std::size_t nc = p.constraints.size();
  std::vector<int> stabilization(nc), frame(nc);
  for (std::size_t j = 0; j < nc; ++j) {
    stabilization[j] = static_cast<int>(p.constraints[j].stabilization);
    frame[j] = p.constraints[j].frame;
  }
  writeVector(g, "constraint_stabilization", stabilization, context);
  writeVector(g, "constraint_frame", frame, context);
  DoubleBuffer frames;
  frames.reserve(6 * p.frames.size());
  for (const ContactFrame& f : p.frames)
    frames.insert(frames.end(), {f.point.x(), f.point.y(), f.point.z(), f.normal.x(), f.normal.y(),
                                 f.normal.z()});
  writeArray(g, "contact_frames", frames.data(), p.frames.size(), 6, context);
}

void writeProblem(hid_t g, const RecordedProblem& recorded, const std::string& context) {
  const StepProblem& p = recorded.problem;
  writeAttribute(g, "dt", p.dt, context);

  std::vector<int> subsystems;
  subsystems.reserve(3 * p.subsystems.size());
  for (const Subsystem& s : p.subsystems)
    subsystems.insert(subsystems.end(), {s.dof, s.dof_offset, s.a_offset});
  writeArray(g, "subsystems", subsystems.data(), p.subsystems.size(), 3, context);
  writeVector(g, "a_data", p.a_data, context);
  writeVector(g, "b", p.b, context);

  const std::size_t nc = p.constraints.size();
  std::vector<int> type(nc), rows(nc), row_offset(nc), first_attachment(nc), num_attachments(nc);
  DoubleBuffer mu(nc);
  std::vector<std::uint64_t> key(nc);
  for (std::size_t j = 0; j < nc; ++j) {
    const Constraint& c = p.constraints[j];
    type[j] = static_cast<int>(c.type);
    rows[j] = c.rows;
    row_offset[j] = c.row_offset;
    first_attachment[j] = c.first_attachment;
    num_attachments[j] = c.num_attachments;
    mu[j] = c.mu;
    key[j] = c.key;
  }
  writeVector(g, "constraint_type", type, context);
  writeVector(g, "constraint_rows", rows, context);
  writeVector(g, "constraint_row_offset", row_offset, context);
  writeVector(g, "constraint_first_attachment", first_attachment, context);
  writeVector(g, "constraint_num_attachments", num_attachments, context);
  writeVector(g, "constraint_mu", mu, context);
  writeVector(g, "constraint_key", key, context);
  if (p.hasAnisotropicFriction()) {
    DoubleBuffer mu_t2(nc);
    for (std::size_t j = 0; j < nc; ++j) mu_t2[j] = p.constraints[j].mu_t2;
    writeVector(g, "constraint_mu_t2", mu_t2, context);
  }
  if (p.hasSubcontacts()) {
    std::vector<int> set(nc);
    for (std::size_t j = 0; j < nc; ++j) set[j] = p.constraints[j].subcontact_set;
    writeVector(g, "constraint_subcontact_set", set, context);
  }

  std::vector<int> attachments;
  attachments.reserve(4 * p.attachments.size());
  for (const Attachment& a : p.attachments)
    attachments.insert(attachments.end(), {a.subsystem, a.rows, a.dof, a.j_offset});
  writeArray(g, "attachments", attachments.data(), p.attachments.size(), 4, context);
  writeVector(g, "jacobian_data", p.jacobian_data, context);
  if (p.hasSparseJacobians()) {
    std::vector<int> columns;
    columns.reserve(2 * p.attachments.size());
    for (const Attachment& a : p.attachments)
      columns.insert(columns.end(), {a.width, a.column_offset});
    writeArray(g, "attachment_columns", columns.data(), p.attachments.size(), 2, context);
    writeVector(g, "jacobian_columns", p.jacobian_columns, context);
  }
  writeVector(g, "e", p.e, context);
  writeVector(g, "soft_k", p.soft_k, context);
  writeVector(g, "soft_c", p.soft_c, context);
  if (hasTreeStructure(p)) writeTreeStructure(g, p, context);
  if (hasSparseBlocks(p)) {
    std::vector<int> pattern_offset;
    pattern_offset.reserve(p.subsystems.size());
    for (const Subsystem& s : p.subsystems) pattern_offset.push_back(s.pattern_offset);
    writeVector(g, "subsystem_pattern_offset", pattern_offset, context);
    writeVector(g, "sparse_pattern", p.sparse_pattern, context);
  }
  if (hasSubstructures(p)) {
    std::vector<int> substructure;
    substructure.reserve(p.subsystems.size());
    for (const Subsystem& s : p.subsystems) substructure.push_back(s.substructure);
    writeVector(g, "subsystem_substructure", substructure, context);
  }
  if (p.has_step_data) writeStepData(g, p, context);

  const VecX& vhat = recorded.warm_start.vhat;
  const VecX& lambda = recorded.warm_start.lambda;
  writeArray(g, "warm_start_vhat", vhat.data(), static_cast<hsize_t>(vhat.size()), 0, context);
  writeArray(g, "warm_start_lambda", lambda.data(), static_cast<hsize_t>(lambda.size()), 0,
             context);
  // The solution only when there is one: files without it read as before.
  const StepSolution& solution = recorded.solution;
  if (solution.vhat.size() > 0 || solution.lambda.size() > 0) {
    writeArray(g, "solution_vhat", solution.vhat.data(), static_cast<hsize_t>(solution.vhat.size()),
               0, context);
    writeArray(g, "solution_lambda", solution.lambda.data(),
               static_cast<hsize_t>(solution.lambda.size()), 0, context);
  }
}

}  // namespace

void writeProblemFile(const std::string& path, const ProblemFileInfo& info,
                      const std::vector<RecordedProblem>& problems) {
  // Validate everything first, so that a bad problem leaves an existing file untouched.
  for (std::size_t k = 0; k < problems.size(); ++k) {
    const RecordedProblem& r = problems[k];
    std::string defect;
    if (r.problem.hasLocalForm())
      defect =
          "a problem in local form (W, q; an FCLib local problem) has no place in a problem file "
          "(write it as FCLib: subsim export-fclib)";
    else if (const auto d = layoutDefect(r.problem, r.warm_start, r.solution))
      defect = d->object + ": " + d->what;
    else
      defect = r.problem.check();
    if (!defect.empty())
      throw std::invalid_argument("writeProblemFile('" + path + "'): problem " + std::to_string(k) +
                                  ": " + defect);
  }
  if (!std::isfinite(info.dt))
    throw std::invalid_argument("writeProblemFile('" + path + "'): dt is not finite");
  if (problems.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument("writeProblemFile('" + path + "'): too many problems");

  silenceHdf5();
  const std::string create_context = "cannot create problem file '" + path + "': ";
  // Closing the file closes anything still open in it, so an exception always releases it.
  Handle file = createFile(path, create_context);
  const hid_t root = file.get();

  const std::string context = "cannot write problem file '" + path + "': ";
  writeAttribute(root, "schema_version", kSchemaVersion, context);
  writeStringAttribute(root, "scene", info.scene, context);
  writeStringAttribute(root, "source_solver", info.source_solver, context);
  writeAttribute(root, "dt", info.dt, context);
  {
    Handle group = checked(H5Gcreate2(root, "problems", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                           H5Gclose, context, "group '/problems'");
    for (std::size_t k = 0; k < problems.size(); ++k) {
      const std::string name = numberedName(k);
      const std::string problem_context = context + "/problems/" + name + ": ";
      Handle g =
          checked(H5Gcreate2(group.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                  H5Gclose, problem_context, "group");
      writeProblem(g.get(), problems[k], problem_context);
    }
  }
  // Written last: a file cut short by an I/O error lacks it and so is rejected by the reader.
  writeAttribute(root, "count", static_cast<int>(problems.size()), context);
  checkStatus(file.close(), context, "closing");
  // Only a file that HDF5 completed is sealed; the readers refuse an unsealed one.
  sealFile(path);
}

// ---------------------------------------------------------------------------------------------
// Reading

namespace {

// Reads one problem file; every error names the file and the object at fault.
class ProblemFileReader : FileReader {
 public:
  explicit ProblemFileReader(std::string path) : FileReader(std::move(path), "problem file") {}

  ProblemFile read() {
    Handle file = openFile();
    const hid_t root = file.get();

    ProblemFile out;
    checkSchemaVersion(readInt(root, "/", "schema_version"), kSchemaVersion, kOldestSchemaVersion);
    out.info.scene = readStringAttribute(root, "/", "scene");
    out.info.source_solver = readStringAttribute(root, "/", "source_solver");
    out.info.dt = readDouble(root, "/", "dt");
    if (!std::isfinite(out.info.dt)) fail("attribute /dt is not finite");
    const int count = readInt(root, "/", "count");
    if (count < 0) fail("attribute /count is negative");

    Handle problems = openGroup(root, "problems", "/problems");
    const hsize_t members = memberCount(problems.get(), "/problems");
    // Compared before anything is allocated, so a corrupt count cannot ask for huge memory.
    if (members != static_cast<hsize_t>(count))
      fail("group /problems has " + std::to_string(members) + " members, attribute /count says " +
           std::to_string(count));
    out.problems.resize(static_cast<std::size_t>(count));
    for (std::size_t k = 0; k < out.problems.size(); ++k) {
      const std::string name = numberedName(k);
      const std::string where = "/problems/" + name;
      // Groups are numbered from 000000 without gaps; any other member means a foreign file.
      Handle group = openGroup(problems.get(), name, where);
      RecordedProblem& r = out.problems[k];
      readProblem(group.get(), where + "/", r);
      if (const auto defect = layoutDefect(r.problem, r.warm_start, r.solution)) {
        const bool attribute = defect->object == "dt";
        fail((attribute ? "attribute " : "dataset ") + where + "/" + defect->object + ": " +
             defect->what);
      }
      const std::string problem = r.problem.check();
      if (!problem.empty())
        fail(where + " (problem " + std::to_string(k) + ") is not a valid StepProblem: " + problem);
      if (r.problem.has_step_data) checkNcpErrors(where + "/", r.problem);
    }
    return out;
  }

 private:
  int readInt(hid_t object, const std::string& where, const char* name) const {
    const auto integer = [](hid_t type) { return H5Tget_class(type) == H5T_INTEGER; };
    return readScalarAttribute<int>(object, where, name, integer, "an integer", "an int");
  }

  // Only 64-bit floats: anything narrower would not give back the recorded bits.
  double readDouble(hid_t object, const std::string& where, const char* name) const {
    const auto float64 = [](hid_t type) {
      return H5Tget_class(type) == H5T_FLOAT && H5Tget_size(type) == 8;
    };
    return readScalarAttribute<double>(object, where, name, float64, "a 64-bit float", "a double");
  }

  /// Row-major contents of dataset `name` in `group` (`full` is its path for messages): 1-D when
  /// cols == 0, else rows x cols; `rows` rows unless `any_rows`.  The element type must be what
  /// T needs to come back unchanged: 64-bit floats for double, any integer for int (offsets and
  /// counts are range-checked afterwards), unsigned 64-bit integers for std::uint64_t.
  template <typename T>
  hdf5::Hdf5Array<T> readArray(hid_t group, const char* name, const std::string& full,
                               std::size_t rows, bool any_rows, std::size_t cols) const {
    Handle set = openDataset(group, name, full);
    Handle type = checked(H5Dget_type(set.get()), H5Tclose, prefix(), full);
    const H5T_class_t cls = H5Tget_class(type.get());
    const std::size_t size = H5Tget_size(type.get());
    bool type_ok = false;
    if constexpr (std::is_same_v<T, double>)
      type_ok = cls == H5T_FLOAT && size == 8;
    else if constexpr (std::is_same_v<T, int>)
      type_ok = cls == H5T_INTEGER;
    else
      type_ok = cls == H5T_INTEGER && size == 8 && H5Tget_sign(type.get()) == H5T_SGN_NONE;
    if (!type_ok) fail("dataset " + full + " does not hold " + Hdf5Type<T>::name);

    const hsize_t n = datasetRows(set.get(), full, cols);
    if (!any_rows && n != rows)
      fail("dataset " + full + " has " + std::to_string(n) +
           (cols == 0 ? " values, expected " : " rows, expected ") + std::to_string(rows));
    // Every offset into these arrays is an int, so no valid problem has longer ones; checking
    // first also keeps a corrupt extent from asking for an absurd allocation.
    if (n > static_cast<hsize_t>(std::numeric_limits<int>::max()))
      fail("dataset " + full + " has " + std::to_string(n) + " rows, more than any problem");
    return readValues<T>(set.get(), full, static_cast<std::size_t>(n) * (cols == 0 ? 1 : cols), "");
  }

  template <typename T>
  hdf5::Hdf5Array<T> readAny(hid_t g, const std::string& where, const char* name,
                             std::size_t cols = 0) const {
    return readArray<T>(g, name, where + name, 0, true, cols);
  }
  template <typename T>
  hdf5::Hdf5Array<T> readSized(hid_t g, const std::string& where, const char* name,
                               std::size_t rows) const {
    return readArray<T>(g, name, where + name, rows, false, 0);
  }

  // Ranges are checked by layoutDefect() and StepProblem::check() afterwards.
  void readTreeStructure(hid_t g, const std::string& where, StepProblem& p) const {
    const std::vector<int> tree_offset =
        readSized<int>(g, where, "subsystem_tree_offset", p.subsystems.size());
    for (std::size_t i = 0; i < p.subsystems.size(); ++i)
      p.subsystems[i].tree_offset = tree_offset[i];
    p.dof_parent = readAny<int>(g, where, "dof_parent");
    const std::vector<int> bodies = readAny<int>(g, where, "tree_bodies", 3);
    p.tree_bodies.resize(bodies.size() / 3);
    for (std::size_t b = 0; b < p.tree_bodies.size(); ++b)
      p.tree_bodies[b] = TreeBody{bodies[3 * b], bodies[3 * b + 1], bodies[3 * b + 2]};
    p.tree_body_jacobian_data = readAny<double>(g, where, "tree_body_jacobian_data");
    const std::vector<int> factors = readArray<int>(g, "attachment_body", where + "attachment_body",
                                                    p.attachments.size(), false, 2);
    for (std::size_t k = 0; k < p.attachments.size(); ++k) {
      p.attachments[k].body = factors[2 * k];
      p.attachments[k].local_offset = factors[2 * k + 1];
    }
    p.local_jacobian_data = readAny<double>(g, where, "local_jacobian_data");
  }

  // Sizes and finite values are checked by layoutDefect() and StepProblem::check() afterwards;
  // here what they cannot see: the enum range, and e agreeing with the data it is built from.
  void readStepData(hid_t g, const std::string& where, StepProblem& p) const {
    p.has_step_data = true;
    p.theta = readDouble(g, where, "theta");
    p.erp = readDouble(g, where, "erp");
    p.mass_data = readAny<double>(g, where, "mass_data");
    p.velocity = readAny<double>(g, where, "velocity");
    p.error = readAny<double>(g, where, "error");
    p.bias = readAny<double>(g, where, "bias");
    const std::size_t nc = p.constraints.size();
    const std::vector<int> stabilization = readSized<int>(g, where, "constraint_stabilization", nc);
    const std::vector<int> frame = readSized<int>(g, where, "constraint_frame", nc);
    for (std::size_t j = 0; j < nc; ++j) {
      if (stabilization[j] < 0 || stabilization[j] >= kNumStabilizations)
        fail("dataset " + where + "constraint_stabilization: constraint " + std::to_string(j) +
             " has " + std::to_string(stabilization[j]) + ", expected 0.." +
             std::to_string(kNumStabilizations - 1));
      Constraint& c = p.constraints[j];
      c.stabilization = static_cast<Stabilization>(stabilization[j]);
      c.frame = frame[j];
    }
    const DoubleBuffer frames = readAny<double>(g, where, "contact_frames", 6);
    p.frames.resize(frames.size() / 6);
    for (std::size_t f = 0; f < p.frames.size(); ++f)
      p.frames[f] = ContactFrame{Vec3(frames[6 * f], frames[6 * f + 1], frames[6 * f + 2]),
                                 Vec3(frames[6 * f + 3], frames[6 * f + 4], frames[6 * f + 5])};
  }

  // A file whose e was changed without the step data it is built from (or the other way round)
  // would pose one problem to the NCP solvers and another to every other formulation.
  void checkNcpErrors(const std::string& where, const StepProblem& p) const {
    for (const Constraint& c : p.constraints)
      for (int k = 0; k < c.rows; ++k) {
        const std::size_t row = static_cast<std::size_t>(c.row_offset + k);
        const double expected = ncpError(c, k, p.error[row], p.bias[row], p.dt, p.erp);
        if (!(expected == p.e[row]))
          fail("dataset " + where + "e: row " + std::to_string(row) + " is " +
               std::to_string(p.e[row]) + " but its step data (error, bias, " +
               stabilizationName(c.stabilization) + " stabilisation) give " +
               std::to_string(expected) +
               "; change e together with error and bias (formulation/ncp_form.hpp)");
      }
  }

  void readProblem(hid_t g, const std::string& where, RecordedProblem& r) const {
    StepProblem& p = r.problem;
    p.dt = readDouble(g, where, "dt");

    const std::vector<int> subsystems = readAny<int>(g, where, "subsystems", 3);
    p.subsystems.resize(subsystems.size() / 3);
    for (std::size_t i = 0; i < p.subsystems.size(); ++i) {
      Subsystem& s = p.subsystems[i];
      s.dof = subsystems[3 * i];
      s.dof_offset = subsystems[3 * i + 1];
      s.a_offset = subsystems[3 * i + 2];
    }
    p.a_data = readAny<double>(g, where, "a_data");
    p.b = readAny<double>(g, where, "b");

    const std::vector<int> type = readAny<int>(g, where, "constraint_type");
    const std::size_t nc = type.size();
    const std::vector<int> rows = readSized<int>(g, where, "constraint_rows", nc);
    const std::vector<int> row_offset = readSized<int>(g, where, "constraint_row_offset", nc);
    const std::vector<int> first = readSized<int>(g, where, "constraint_first_attachment", nc);
    const std::vector<int> num = readSized<int>(g, where, "constraint_num_attachments", nc);
    const DoubleBuffer mu = readSized<double>(g, where, "constraint_mu", nc);
    // Anisotropic friction, present when some contact has it (StepProblem::check() its values).
    const DoubleBuffer mu_t2 = H5Lexists(g, "constraint_mu_t2", H5P_DEFAULT) > 0
                                   ? readSized<double>(g, where, "constraint_mu_t2", nc)
                                   : DoubleBuffer();
    // Subcontact sets, present when some contact has one (StepProblem::check() their values).
    const std::vector<int> subcontact_set =
        H5Lexists(g, "constraint_subcontact_set", H5P_DEFAULT) > 0
            ? readSized<int>(g, where, "constraint_subcontact_set", nc)
            : std::vector<int>();
    const std::vector<std::uint64_t> key = readSized<std::uint64_t>(g, where, "constraint_key", nc);
    p.constraints.resize(nc);
    for (std::size_t j = 0; j < nc; ++j) {
      // Checked before the cast: the enum's uint8 storage would silently wrap e.g. 256 to 0.
      if (type[j] < 0 || type[j] >= kNumConstraintTypes)
        fail("dataset " + where + "constraint_type: constraint " + std::to_string(j) +
             " has type " + std::to_string(type[j]) + ", expected 0.." +
             std::to_string(kNumConstraintTypes - 1));
      Constraint& c = p.constraints[j];
      c.type = static_cast<ConstraintType>(type[j]);
      c.rows = rows[j];
      c.row_offset = row_offset[j];
      c.first_attachment = first[j];
      c.num_attachments = num[j];
      c.mu = mu[j];
      if (!mu_t2.empty()) c.mu_t2 = mu_t2[j];
      if (!subcontact_set.empty()) c.subcontact_set = subcontact_set[j];
      c.key = key[j];
    }

    const std::vector<int> attachments = readAny<int>(g, where, "attachments", 4);
    p.attachments.resize(attachments.size() / 4);
    for (std::size_t k = 0; k < p.attachments.size(); ++k) {
      Attachment& a = p.attachments[k];
      a.subsystem = attachments[4 * k];
      a.rows = attachments[4 * k + 1];
      a.dof = attachments[4 * k + 2];
      a.j_offset = attachments[4 * k + 3];
    }
    p.jacobian_data = readAny<double>(g, where, "jacobian_data");
    if (H5Lexists(g, "attachment_columns", H5P_DEFAULT) > 0) {
      const std::vector<int> columns = readArray<int>(
          g, "attachment_columns", where + "attachment_columns", p.attachments.size(), false, 2);
      for (std::size_t k = 0; k < p.attachments.size(); ++k) {
        p.attachments[k].width = columns[2 * k];
        p.attachments[k].column_offset = columns[2 * k + 1];
      }
      p.jacobian_columns = readAny<int>(g, where, "jacobian_columns");
    }
    p.e = readAny<double>(g, where, "e");
    p.soft_k = readSized<double>(g, where, "soft_k", p.e.size());
    p.soft_c = readSized<double>(g, where, "soft_c", p.e.size());
    if (H5Lexists(g, "dof_parent", H5P_DEFAULT) > 0) readTreeStructure(g, where, p);
    if (H5Lexists(g, "sparse_pattern", H5P_DEFAULT) > 0) {
      const std::vector<int> pattern_offset =
          readSized<int>(g, where, "subsystem_pattern_offset", p.subsystems.size());
      for (std::size_t i = 0; i < p.subsystems.size(); ++i)
        p.subsystems[i].pattern_offset = pattern_offset[i];
      p.sparse_pattern = readAny<int>(g, where, "sparse_pattern");
    }
    if (H5Lexists(g, "subsystem_substructure", H5P_DEFAULT) > 0) {
      const std::vector<int> substructure =
          readSized<int>(g, where, "subsystem_substructure", p.subsystems.size());
      for (std::size_t i = 0; i < p.subsystems.size(); ++i)
        p.subsystems[i].substructure = substructure[i];
    }
    if (H5Lexists(g, "mass_data", H5P_DEFAULT) > 0) {
      readStepData(g, where, p);
    } else {  // the NCP form only: e is the whole constraint term
      p.error.assign(p.e.size(), 0.0);
      p.bias.assign(p.e.size(), 0.0);
    }

    // The warm start's sizes (empty or fitting) are checked with the rest of the layout.
    const DoubleBuffer vhat = readAny<double>(g, where, "warm_start_vhat");
    const DoubleBuffer lambda = readAny<double>(g, where, "warm_start_lambda");
    r.warm_start.vhat = Eigen::Map<const VecX>(vhat.data(), static_cast<Eigen::Index>(vhat.size()));
    r.warm_start.lambda =
        Eigen::Map<const VecX>(lambda.data(), static_cast<Eigen::Index>(lambda.size()));
    if (H5Lexists(g, "solution_lambda", H5P_DEFAULT) > 0) {
      const DoubleBuffer sv = readAny<double>(g, where, "solution_vhat");
      const DoubleBuffer sl = readAny<double>(g, where, "solution_lambda");
      r.solution.vhat = Eigen::Map<const VecX>(sv.data(), static_cast<Eigen::Index>(sv.size()));
      r.solution.lambda = Eigen::Map<const VecX>(sl.data(), static_cast<Eigen::Index>(sl.size()));
    }
  }
};

}  // namespace

ProblemFile readProblemFile(const std::string& path) {
  silenceHdf5();
  return ProblemFileReader(path).read();
}

}  // namespace subsim
