#pragma once
// The NCP form of a step (ARCHITECTURE.md, "Formulations"): what every solver in solvers/ takes,
//
//   A_i vhat_i = b_i + sum_j J_ij^T lambda_j                 for every subsystem i
//   (J_j vhat + e_j, lambda_j) in S_j                        for every constraint j,
//
// the form of the SubADMM and AL papers.  A_i, b_i and J are the step's data as assembled; this
// builder forms e from each row's raw error, known velocity term and stabilisation rule
// (StepProblem::error, bias, Constraint::stabilization, StepProblem::erp), so the rule by which a
// gap or a joint error becomes a velocity lives in one place, and a formulation that stabilises
// differently (the Schur paper's box MLCP with Baumgarte's term, the LCPs of the RPI simulator)
// reads the same raw data instead of undoing this one.
//
// A formulation is a builder from the StepProblem's data to what a solver of that formulation
// takes, one file each in formulation/; a solver names its formulation in its registry entry
// (solvers/solver.hpp, SolverEntry::formulation).  Formulations today:
//   "ncp"       this file (the nine NCP solvers);
//   "delassus"  the local form W = J A^-1 J^T, q, mu as an operator (delassus_form.hpp), which
//               PGS, PGS-CG, PJ and NNewton iterate on, built from the NCP form;
//   "box-mlcp"  the schur paper's box MLCP (box_mlcp_form.hpp), built from the local form, which
//               bpp, pgs-sm, box-pgs, schur-bpp, schur-pgs-sm and fbic solve;
//   "lcp"       the RPI simulator paper's polyhedral-cone LCPs (polyhedral_lcp_form.hpp), built
//               from the local form, which lemke, path, fischer-newton, minmap-newton, lcp-ip,
//               lcp-pgs and lcp-pj solve;
//   "nodal"     COND's nodalized, diagonalized system (contact_nodalization.hpp): a virtual
//               node per attachment and a diagonal step matrix, which cond iterates on.
// See docs/formulations.md for how the box MLCP, LCP and FCLib forms plug in.
#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// Sets e from the step data, row by row (Constraint::stabilization):
///   Velocity     e = bias + error / h
///   Speculative  e = bias + (error >= 0 ? error : erp error) / h on the first row, bias on others
///   Position     e = bias + error
/// with h = problem.dt and erp = problem.erp.  Needs has_step_data (e of an NCP-only problem is
/// left as it is).
void formNcpErrors(StepProblem& problem);

/// The e of one constraint's row `k` (0-based within the constraint) by the rule above.
double ncpError(const Constraint& constraint, int k, double error, double bias, double h,
                double erp);

}  // namespace subsim
