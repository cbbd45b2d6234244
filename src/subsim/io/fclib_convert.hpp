#pragma once
// FCLib problems as StepProblems and back (docs/fclib.md has the conventions with a worked
// example).
//
// Global form (M, H, G, f, w, b, mu) <-> the NCP form of the StepProblem:
//   A := M restricted to each subsystem, b := f, the contact rows' J := H^T (contact alpha is
//   FCLib's rows 3 alpha .. 3 alpha + 2, [N, T1, T2], as subsim's [n, t1, t2]), their e := w, each
//   column of G one bilateral row with J := G^T and e := b, vhat := v, lambda := [r; l] by
//   constraint.  Both state A vhat = b + J^T lambda and u = J vhat + e with r in the Coulomb cone
//   and u + [mu ||u_T||, 0, 0] in its dual: no sign changes.  Subsystems are the connected
//   components of M's graph, DOFs renumbered so that each is contiguous (FclibImport::dof_order);
//   a file subsim wrote names its subsystems (/subsim/subsystem_dof) and keeps them.
//   What FCLib calls M is subsim's A (with theta = 0.49 a rigid body's A is M / (1 - theta), and
//   FEM blocks hold stiffness and damping): the exported problem is the step's NCP, exactly.
// Local form (W, V, R, q, s, mu) <-> a StepProblem in local form (StepProblem::local_w): the
//   contacts, then one bilateral row per equality row, W_local = [W V; V^T R], e = [q; s].  The
//   dual solvers (registry entries with `local_form`) and the metrics take it.
// An imported problem has no step data (has_step_data false): what FCLib stores is the NCP form.
#include <optional>
#include <string>
#include <vector>

#include "subsim/io/fclib_file.hpp"
#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// An FCLib problem as subsim solves it.
struct FclibImport {
  StepProblem problem;
  /// The file's solution and guesses as StepSolutions of `problem` (a part the file lacks is
  /// empty; vhat from v of a global problem, in subsim's DOF order).
  std::optional<StepSolution> solution;
  std::vector<StepSolution> guesses;
  /// Global form: the FCLib DOF of each of the problem's DOFs (subsystems are contiguous).
  std::vector<int> dof_order;
};

/// Builds the StepProblem of `fclib` (read from `path`, named in messages).  std::runtime_error
/// "'PATH' is not a valid FCLib problem: ..." when M is not symmetric positive definite (naming
/// the block), W is not symmetric, or a block of M is too large to hold densely.
FclibImport stepProblemFromFclib(const FclibProblem& fclib, const std::string& path);

/// What export writes besides the problem.
struct FclibExportOptions {
  std::string title, description;
  /// The warm start given with the problem, written as FCLib's first guess (when it fits).
  const StepSolution* guess = nullptr;
  /// A solution, written as FCLib's solution (when it fits).
  const StepSolution* solution = nullptr;
};

/// The global form of `problem` (not one in local form: std::invalid_argument).  Contacts map
/// as above; a unilateral row becomes a frictionless contact (mu = 0) with zero tangent rows,
/// which is the same condition in the De Saxce form; soft rows (lambda = -k e - c J vhat) are
/// folded into M and f: (A + c J^T J) vhat = b - k e J^T, exactly the same step.  Without soft
/// rows the file names the subsystems (/subsim/subsystem_dof) and reads back bit for bit.
FclibProblem fclibGlobalFromStepProblem(const StepProblem& problem,
                                        const FclibExportOptions& options = {});

/// The local form of `problem`: W = J A^{-1} J^T and q from DelassusForm (soft rows with damping
/// become regularised equality rows, as the dual solvers see them), contacts (and unilateral
/// rows as frictionless contacts) first, equality rows in V and R.  std::invalid_argument for
/// soft rows without damping or a block A_i that is not positive definite.
FclibProblem fclibLocalFromStepProblem(const StepProblem& problem,
                                       const FclibExportOptions& options = {});

}  // namespace subsim
