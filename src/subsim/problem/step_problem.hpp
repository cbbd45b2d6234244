#pragma once
// The StepProblem: one time step, as data every formulation and solver reads (ARCHITECTURE.md).
//
// The step's data: per subsystem its mass block M_i, velocity v_k and step matrix A_i and
// vector b_i (below); per constraint its Jacobian blocks J_ij, the raw error of each row (a gap,
// a joint error, a spring's stretch), the known velocity term of kinematic bodies, how the error
// is to be stabilised, and for a contact its frame (point and normal).  From it the NCP form
//
//   A_i vhat_i = b_i + sum_j J_ij^T lambda_j      for every subsystem i (A_i SPD)
//   (J_j vhat + e_j, lambda_j) in S_j             for every constraint j
//
// is built by formulation/ncp_form.hpp (e from the raw errors), and the other formulations
// (local Delassus form, box MLCP, LCPs) read the same fields.  A_i and b_i are the body models'
// linearisation of the step (mass, FEM stiffness and Rayleigh damping, joint PD gains, folded
// rod couplings, geometric stiffness), which only assembly/ knows: they are data here, and
// M_i and v_k beside them say what part of them is inertia.
//
// Units: lambda is an impulse (N s); vhat is the theta-method velocity theta v_k + (1 - theta)
// v_{k+1} (AL paper eq. 2, Model::theta), so a rigid body's block is A = M / (1 - theta) and
// b = M v_k / (1 - theta) + h f_k.  Plain data: it knows neither the model nor the solvers.
// Storage is flat and reused across steps (clear() keeps capacity), so assembling a problem of
// the same size twice does not allocate.
#include <Eigen/SparseCore>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "subsim/math/types.hpp"

namespace subsim {

enum class ConstraintType : std::uint8_t {
  Bilateral,   // equality, lambda free: joints, welds, interfaces, no-slip
  Unilateral,  // 0 <= lambda  _|_  J vhat + e >= 0, per row: joint limits
  Soft,        // lambda = -k e - c J vhat, per row: springs, rods, compliant joints
  Contact,     // 3 rows [n, t1, t2], Signorini-Coulomb with friction mu
};

const char* constraintTypeName(ConstraintType type);

/// How a constraint's raw errors enter the NCP's e (formulation/ncp_form.hpp; the box MLCP and
/// LCP formulations state their own rule from the same data).  `bias` is added in every case.
enum class Stabilization : std::uint8_t {
  Velocity,     // e = error / h: the error is removed within the step (joints, hinge limits, FEM
                // interfaces and attachments)
  Speculative,  // first row e = (error >= 0 ? error : erp error) / h, other rows 0: a contact's
                // normal row closes an open gap exactly and pushes out erp (StepProblem::erp)
                // of a penetration per step; robot joint limits the same
  Position,     // e = error: soft rows, whose k' and c' turn it into an impulse
};

const char* stabilizationName(Stabilization stabilization);

/// Where a contact acts, world frame: the point and the normal of its first row (from body B to
/// body A, the direction in which the gap opens).  The tangent rows' directions are in J.
struct ContactFrame {
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitZ();
};

/// A subsystem: n DOF; b_i (and vhat_i in a solution) at dof_offset.  A_i (and M_i in mass_data,
/// laid out alike) is stored at a_offset in StepProblem::a_data, in one of two forms:
/// - dense (pattern_offset = -1): n x n column-major, n^2 values;
/// - sparse (pattern_offset >= 0): compressed columns over a symmetric pattern with both
///   triangles and every diagonal entry, rows increasing within a column; the pattern at
///   pattern_offset in StepProblem::sparse_pattern (n + 1 column starts from 0, then one row index
///   per stored value), the values at a_offset.  A large FEM body as one subsystem is stored so:
///   a 14681-DOF A_i would take 1.7 GB dense and about 10 MB here.
struct Subsystem {
  int dof = 0;
  int dof_offset = 0;
  int a_offset = 0;
  int pattern_offset = -1;
  /// Kinematic-tree structure (optional, -1: none): where the subsystem's DOF parents start in
  /// StepProblem::dof_parent.  With it, A_i has branch-induced sparsity (A_i(k, l) = 0 unless one
  /// of k, l is an ancestor of the other), as a joint-space mass matrix has.
  int tree_offset = -1;
  /// The substructure its model declares (Body::substructure) for the schur solvers' semantic
  /// partition; -1: none.
  int substructure = -1;
};

/// A rigid body of a tree subsystem (AL paper section 4, eq. 40): J_b (6 x dof, row-major at
/// j_offset in StepProblem::tree_body_jacobian_data) maps the subsystem's velocity to the body's
/// twist, and is nonzero only in the columns of `deepest_dof` and its ancestors.
struct TreeBody {
  int subsystem = 0;
  int deepest_dof = 0;
  int j_offset = 0;
};

/// J_ij: the rows of one constraint acting on one subsystem, at j_offset in
/// StepProblem::jacobian_data, in one of two forms:
/// - dense (width = 0): rows x dof, row-major;
/// - sparse (width > 0): only `width` columns are stored, their subsystem-local indices
///   (increasing) at column_offset in StepProblem::jacobian_columns, the values rows x width
///   row-major.  A constraint on an FEM body touches 1 to 3 of its nodes, 3 to 9 of thousands of
///   columns: dense, the blocks of a 14681-DOF body's hundreds of contacts would be tens of MB
///   per step and every product over them O(dof).
struct Attachment {
  int subsystem = 0;
  int rows = 0;  // the constraint's row count
  int dof = 0;   // the subsystem's DOF
  int j_offset = 0;
  int width = 0;  // sparse: the stored columns; 0: dense
  int column_offset = 0;
  /// The per-body factor J_ij = L J_b (eq. 40) when the rows act on one tree body only: the body
  /// (index into StepProblem::tree_bodies) and L (rows x 6, row-major at local_offset in
  /// StepProblem::local_jacobian_data); -1 when J_ij has no such factor.  J_ij stays the
  /// definition; the factor is the structure a solver may exploit.
  int body = -1;
  int local_offset = 0;
};

// Kept small (48 bytes): every solver walks the constraints in its inner loops.
struct Constraint {
  ConstraintType type = ConstraintType::Bilateral;
  Stabilization stabilization = Stabilization::Velocity;  // step data: how e is formed
  int rows = 0;                                           // 1..6; a contact has 3
  int row_offset = 0;                                     // into e, soft_k, soft_c and lambda
  int first_attachment = 0;
  int num_attachments = 0;
  int frame = -1;   // step data, contacts: index into StepProblem::frames (-1: none)
  double mu = 0.0;  // contact friction coefficient (along t1, the second row)
  /// Anisotropic (elliptic) friction (COND paper eq. 12): the coefficient along t2, the third
  /// row, so that the cone is lambda_n^2 >= (lambda_t1 / mu)^2 + (lambda_t2 / mu_t2)^2; negative:
  /// isotropic (mu along both).  Only the solvers whose registry entry takes it accept it
  /// (requireIsotropicFriction).
  double mu_t2 = -1.0;
  std::uint64_t key = 0;  // persistent identity across steps for warm start (0: none)
  /// Contacts: the subcontacts of one contact of polyhedral exact geometry share this value, the
  /// index of the set's first constraint (geometry/box_box_subcontacts.hpp; the PEG formulation of
  /// formulation/polyhedral_lcp_form.hpp enforces one of their planes, every other formulation
  /// each of them).  -1: a contact of its own.
  int subcontact_set = -1;

  bool anisotropic() const { return mu_t2 >= 0.0; }
};

using RowMajorMatX = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using SparseColumnMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
/// The largest sparse subsystem StepProblem::denseA() copies (4096 DOF: 128 MB); beyond it a
/// solver that works on dense blocks refuses the problem with a clear error.
inline constexpr int kMaxDensifiedDof = 4096;

/// The Delassus operator W of a problem given in its local form only (FCLib's local problems,
/// io/fclib_convert.hpp): numRows x numRows, symmetric positive semidefinite, in compressed rows
/// (row r's entries at row_begin[r] .. row_begin[r + 1], columns increasing).  Plain arrays, so
/// the problem stays plain data.
struct LocalDelassus {
  std::vector<int> row_begin;  // numRows + 1 entries; empty: the problem is not in local form
  std::vector<int> column;
  DoubleBuffer value;

  bool empty() const { return row_begin.empty(); }
  int nonZeros() const { return static_cast<int>(value.size()); }
};
/// Up to 6 rows, each acting on a body's world-frame twist [v (reference point); omega].
using TwistRows = Eigen::Matrix<double, Eigen::Dynamic, 6, Eigen::RowMajor, 6, 6>;

struct StepProblem {
  double dt = 0.0;
  /// The integration parameter of vhat = theta v_k + (1 - theta) v_{k+1} (v_{k+1} = (vhat -
  /// theta v_k) / (1 - theta)).
  double theta = 0.5;
  /// The fraction of a penetration that Speculative rows push out per step (Model's contact erp).
  double erp = 1.0;
  /// True when the step data below (mass blocks, velocities, raw errors, frames) describe the
  /// step: a problem assembled by subsim or read from a problem file that carries them
  /// (docs/problem-format.md, "Step data").  False for a problem given in its NCP form only (built
  /// by hand, read from an older file): e is then the only constraint term, and formulations that
  /// need the step data refuse it.
  bool has_step_data = false;
  std::vector<Subsystem> subsystems;
  DoubleBuffer a_data;              // all A_i blocks (Subsystem: dense or sparse values)
  std::vector<int> sparse_pattern;  // the sparse blocks' patterns (Subsystem::pattern_offset)
  DoubleBuffer b;                   // stacked b_i, length numDof()
  DoubleBuffer mass_data;           // all M_i blocks, laid out as a_data
  DoubleBuffer velocity;            // stacked v_k, laid out as b
  std::vector<Constraint> constraints;
  std::vector<Attachment> attachments;  // contiguous per constraint
  DoubleBuffer jacobian_data;
  std::vector<int> jacobian_columns;  // the sparse J blocks' column indices (Attachment)
  DoubleBuffer e;       // per row: the constraint error term of J vhat + e (the NCP form's)
  DoubleBuffer error;   // per row: the raw error (m, rad, or the row's own unit)
  DoubleBuffer bias;    // per row: the known velocity term (kinematic bodies), in e's units
  DoubleBuffer soft_k;  // per row, soft rows only (N s per m of e, already times h)
  DoubleBuffer soft_c;  // per row, soft rows only (N s per m/s of J vhat)
  std::vector<ContactFrame> frames;  // Constraint::frame
  // Optional tree structure (Subsystem::tree_offset, TreeBody, Attachment::body).
  std::vector<int> dof_parent;
  std::vector<TreeBody> tree_bodies;
  DoubleBuffer tree_body_jacobian_data;
  DoubleBuffer local_jacobian_data;
  /// A problem given in its local form only (an FCLib local problem: W, q, mu): W here, q as e,
  /// no subsystems and constraints without attachments.  The constraint velocity is then
  /// W lambda + e; the dual solvers (those whose registry entry says `local_form`) and the
  /// metrics take it, the primal ones refuse it (requireSubsystems).
  LocalDelassus local_w;

  /// True for a problem given in its local form only (local_w set).
  bool hasLocalForm() const { return !local_w.empty(); }

  int numDof() const { return static_cast<int>(b.size()); }
  int numRows() const { return static_cast<int>(e.size()); }
  int numSubsystems() const { return static_cast<int>(subsystems.size()); }
  int numConstraints() const { return static_cast<int>(constraints.size()); }
  int numContacts() const;
  /// True when some contact has anisotropic friction (Constraint::mu_t2).
  bool hasAnisotropicFriction() const;
  /// True when some contact belongs to a set of subcontacts (Constraint::subcontact_set).
  bool hasSubcontacts() const;

  /// Empties the problem, keeping every buffer's capacity.
  void clear();

  /// Appends a subsystem with A_i = 0 and b_i = 0; returns its index.
  int addSubsystem(int dof);
  /// Appends a subsystem whose A_i and M_i are stored sparse (Subsystem) on the given pattern:
  /// `column_begin` dof + 1 starts from 0, `row` the row index of each stored entry; values 0.
  /// check() verifies the pattern's rules.  Returns its index.
  int addSparseSubsystem(int dof, std::span<const int> column_begin, std::span<const int> row);
  bool isSparse(int subsystem) const { return subsystems[subsystem].pattern_offset >= 0; }
  /// The number of values A_i stores (n^2 dense, the pattern's entries sparse).
  int storedValues(int subsystem) const;
  /// A_i and M_i of a dense subsystem (asserted).
  Eigen::Map<MatX> A(int subsystem);
  Eigen::Map<const MatX> A(int subsystem) const;
  /// A_i and M_i of a sparse subsystem (asserted); the values may be written, the pattern not.
  Eigen::Map<SparseColumnMatrix> sparseA(int subsystem);
  Eigen::Map<const SparseColumnMatrix> sparseA(int subsystem) const;
  Eigen::Map<SparseColumnMatrix> sparseM(int subsystem);
  Eigen::Map<const SparseColumnMatrix> sparseM(int subsystem) const;
  /// Either storage: trace(A_i); y = A_i x (x and y the subsystem's DOF); A_i as a dense copy
  /// (throws std::invalid_argument for a sparse one beyond kMaxDensifiedDof DOF).
  double traceA(int subsystem) const;
  void multiplyA(int subsystem, const double* x, double* y) const;
  MatX denseA(int subsystem) const;
  /// Calls f(row, col, value) (subsystem-local indices) for every stored entry of A_i: a sparse
  /// block's pattern, a dense block's nonzeros and its whole diagonal; column by column.
  template <class F>
  void forEachEntryA(int subsystem, F&& f) const {
    const int n = subsystems[subsystem].dof;
    if (isSparse(subsystem)) {
      const auto Ai = sparseA(subsystem);
      for (int col = 0; col < n; ++col)
        for (Eigen::Map<const SparseColumnMatrix>::InnerIterator it(Ai, col); it; ++it)
          f(static_cast<int>(it.row()), col, it.value());
      return;
    }
    const auto Ai = A(subsystem);
    for (int col = 0; col < n; ++col)
      for (int row = 0; row < n; ++row)
        if (Ai(row, col) != 0.0 || row == col) f(row, col, Ai(row, col));
  }
  Eigen::Map<VecX> bBlock(int subsystem);
  Eigen::Map<const VecX> bBlock(int subsystem) const;
  Eigen::Map<MatX> M(int subsystem);
  Eigen::Map<const MatX> M(int subsystem) const;
  Eigen::Map<VecX> velocityBlock(int subsystem);
  Eigen::Map<const VecX> velocityBlock(int subsystem) const;

  /// Appends a constraint with e = error = bias = 0 (and k = c = 0); returns its index.
  int addConstraint(ConstraintType type, int rows, double mu = 0.0, std::uint64_t key = 0);
  /// Gives the last added constraint a contact frame.
  void setContactFrame(const Vec3& point, const Vec3& normal);
  /// Removes the last added constraint, which has no attachments (rows and frame go with it).
  void popConstraint();
  /// The J block of the last added constraint on `subsystem`, created zero on first use (a
  /// constraint touching one subsystem twice, e.g. two bodies of one subsystem, gets one block).
  Eigen::Map<RowMajorMatX> jacobianFor(int subsystem);
  /// A sparse J block (Attachment) of the last added constraint on `subsystem`, storing only
  /// `columns` (subsystem-local, increasing, at least one): rows x columns.size(), zero.  The
  /// constraint must not have a block on the subsystem yet, and jacobianFor() and
  /// addTreeBodyRows() do not write into a sparse one (std::logic_error).
  Eigen::Map<RowMajorMatX> sparseJacobianFor(int subsystem, std::span<const int> columns);
  /// J_ij of a dense block (asserted).
  Eigen::Map<const RowMajorMatX> J(const Attachment& attachment) const;
  Eigen::Map<RowMajorMatX> J(const Attachment& attachment);
  /// Constraint `constraint`'s block on `subsystem` (an index into attachments), or -1.
  int findAttachment(int constraint, int subsystem) const;
  static bool isSparse(const Attachment& a) { return a.width > 0; }
  /// True when some J block is stored sparse.
  bool hasSparseJacobians() const;
  /// The columns a block stores (dof when dense) and, for a sparse one, their indices (nullptr
  /// when dense).
  static int storedColumns(const Attachment& a) { return isSparse(a) ? a.width : a.dof; }
  const int* jacobianColumns(const Attachment& a) const {
    return isSparse(a) ? jacobian_columns.data() + a.column_offset : nullptr;
  }
  /// Either storage: the stored values, rows x storedColumns row-major; out = J_ij v (v the
  /// subsystem's velocity); out += J_ij^T w (out the subsystem's DOF); a dense rows x dof copy.
  Eigen::Map<const RowMajorMatX> storedJ(const Attachment& a) const;
  Eigen::Map<RowMajorMatX> storedJ(const Attachment& a);
  void multiplyJ(const Attachment& a, const double* v, double* out) const;
  void addJTransposeTimes(const Attachment& a, const double* w, double* out) const;
  RowMajorMatX denseJ(const Attachment& a) const;
  /// Calls f(row, col, value) (col subsystem-local) for every stored entry of J_ij, row by row.
  template <class F>
  void forEachEntryJ(const Attachment& a, F&& f) const {
    const int width = storedColumns(a);
    const int* cols = jacobianColumns(a);
    const double* values = jacobian_data.data() + a.j_offset;
    for (int r = 0; r < a.rows; ++r)
      for (int k = 0; k < width; ++k)
        f(r, cols ? cols[k] : k, values[static_cast<size_t>(r) * width + k]);
  }

  /// Declares subsystem `subsystem` a kinematic tree: parent[k] < k is the parent DOF of DOF k
  /// (-1 for a root), `parent` has the subsystem's DOF count of entries.
  void setDofParents(int subsystem, const int* parent);
  /// Adds a body to a tree subsystem; its Jacobian is zero until written through
  /// treeBodyJacobian().  Returns the body's index.
  int addTreeBody(int subsystem, int deepest_dof);
  Eigen::Map<RowMajorMatX> treeBodyJacobian(int body);
  Eigen::Map<const RowMajorMatX> treeBodyJacobian(int body) const;
  /// Adds rows L J_b (L: the last constraint's rows x 6) to the last constraint's J block on the
  /// body's subsystem, keeping the per-body factor while every row added to the block comes from
  /// this body.  (jacobianFor() on a block drops its factor: the caller may write anything.)
  void addTreeBodyRows(int body, const TwistRows& local);
  Eigen::Map<const RowMajorMatX> localJacobian(const Attachment& attachment) const;
  /// True when DOF `ancestor` is DOF k or one of its ancestors in its tree subsystem `subsystem`.
  bool isDofAncestor(int subsystem, int ancestor, int k) const;

  /// Checks internal consistency (sizes, offsets, symmetry/finite values, and the tree structure:
  /// parents, branch-induced sparsity of A_i and of every J_b, J_ij = L J_b where a factor is
  /// given); returns an empty string when valid, else a description of the first defect.
  std::string check() const;

 private:
  Attachment& newAttachment(int subsystem, int width);
  int attachmentFor(int subsystem, bool& created);
  std::string checkSparseColumns(const Attachment& a) const;
  std::string subcontactSetDefect(int j) const;
  std::string checkTreeStructure() const;
  std::string checkPattern(int subsystem, size_t& pattern_size) const;
  std::string checkBlock(int subsystem, const double* values, const char* name) const;
  std::string checkStepData() const;
  std::string checkLocalForm() const;
};

/// Throws std::invalid_argument when `problem` is given in its local form only: `solver` works on
/// the subsystems (A_i, b_i, J) that such a problem does not have.  Primal solvers call it first.
void requireSubsystems(const StepProblem& problem, std::string_view solver);

/// Throws std::invalid_argument when a contact of `problem` has anisotropic friction: `solver`
/// (whose cone projection or linearisation is isotropic) cannot solve it.
void requireIsotropicFriction(const StepProblem& problem, std::string_view solver);

/// Throws std::invalid_argument when subsystem `subsystem` is stored sparse with more than
/// kMaxDensifiedDof DOF: `what` (a solver, "a dense copy") needs it dense.
void requireDensifiable(const StepProblem& problem, int subsystem, std::string_view what);

/// How a solve ended, the same way for every solver (ARCHITECTURE.md, "Formulations").
enum class SolveStatus : std::uint8_t {
  Converged,            // the solver's own residual fell below a positive tolerance
  IterationCap,         // the iterations ran out first (always so with tolerance 0)
  FactorizationFailed,  // a matrix the solver factors was not positive definite (or singular)
  NonFinite,            // the residual, vhat or lambda holds a NaN or an infinity
  Stalled,              // the solver's own stall test fired and the cap was reached
};

/// "converged", "iteration-cap", "factorization-failed", "non-finite", "stalled": the names in
/// `subsim run --json`, bench tables and recordings.
const char* solveStatusName(SolveStatus status);
inline constexpr int kSolveStatusCount = 5;

/// What a solver returns besides vhat and lambda.
struct SolveStats {
  int iterations = 0;
  /// Iterations of an outer loop around `iterations`: the augmented Lagrangian loops of canal,
  /// ssn and tr-dogleg (the AL paper counts those); 0 for solvers with one loop.
  int outer_iterations = 0;
  /// Outer loops whose inner solve stopped at its own cap above its threshold (canal, ssn and
  /// tr-dogleg: a Newton solve that ran to AlNewtonOptions::max_inner; the AL paper's Table II
  /// counts such solves as failures); 0 for solvers with one loop.
  int inner_unconverged = 0;
  double residual = 0.0;  // the solver's own stopping residual (see residual_name)
  const char* residual_name = "";
  SolveStatus status = SolveStatus::IterationCap;
  double solve_ms = 0.0;
  /// The part of solve_ms spent forming the solver's operator before it iterates (the Delassus
  /// assembly with its factorisations, COND's nodalization: the COND paper's parentheses); 0 for
  /// solvers that do not separate it.
  double setup_ms = 0.0;
  DoubleBuffer residual_history;  // filled only when SolverSettings::record_history

  bool converged() const { return status == SolveStatus::Converged; }
};

/// Solution of a StepProblem; on entry to a solver it also carries the warm start: lambda mapped
/// by constraint key, and a vhat guess (the World passes the current velocities).  A part whose
/// size does not fit the problem is ignored.
struct StepSolution {
  VecX vhat;
  VecX lambda;
  SolveStats stats;

  bool fits(const StepProblem& problem) const {
    return vhat.size() == problem.numDof() && lambda.size() == problem.numRows();
  }
};

}  // namespace subsim
