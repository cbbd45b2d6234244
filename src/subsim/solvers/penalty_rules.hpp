#pragma once
// The penalty rules the AL-type solvers share, written once: the initial penalty of the ICRA
// paper's rule (23) and residual balancing (the journal's (43); OSQP, Stellato et al. 2020,
// section 5.2).  Each solver keeps its own measured constants (the factor on the rule, how often
// and how far it balances); what they compute is the same.
//   rule (23):  beta = Tr(A) / Tr(J^T J)   (1 without constraint rows)
//     SubADMM per subsystem (its Trace rule), FADMM on the whole system (times
//     kTracePenaltyFactor), CANAL, SSN and TR-dogleg on the whole system with their Trace rule
//     (times beta0_scale; their default scales with the constraints' effective mass instead,
//     AlNewtonOptions::PenaltyRule); CANAL's natural-map stopping residual at any rule.
//   balancing:  beta *= sqrt(r_p / r_d) within [1 / max_factor, max_factor] when r_p and r_d
//     differ by more than gamma either way (max_factor when the other residual is 0)
//     SubADMM per subsystem (impulse residuals, with its round-off and drift guards), FADMM on
//     the whole system (residuals normalised as OSQP's).
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>

#include "subsim/problem/step_problem.hpp"

namespace subsim {

/// The factors that make beta_scale = 1 the measured default of each penalty rule
/// (SubadmmOptions::penalty_rule, FadmmOptions::beta_scale).
inline constexpr double kTracePenaltyFactor = 20.0;
inline constexpr double kDelassusPenaltyFactor = 4.0;

/// Rule (23): Tr(A) / Tr(J^T J), 1 when J^T J has no trace (no constraint rows).
inline double traceRatio(double trace_a, double trace_jtj) {
  return trace_jtj > 0.0 ? trace_a / trace_jtj : 1.0;
}

/// Rule (23) on the whole system: Tr(A) summed over the subsystems, Tr(J^T J) = ||J||_F^2 of the
/// assembled J (SparseNewtonSystem::J()).
inline double wholeSystemTraceRatio(const StepProblem& p,
                                    const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& J) {
  double trace_a = 0.0;
  for (int i = 0; i < p.numSubsystems(); ++i) trace_a += p.traceA(i);
  // (Eigen's sparse reductions assert on a matrix with no rows: no constraints, no J.)
  const double trace_jtj = p.numRows() > 0 ? J.squaredNorm() : 0.0;
  return traceRatio(trace_a, trace_jtj);
}

/// Residual balancing: every `interval` iterations (never after the last), when the primal and
/// dual residuals differ by more than `gamma`, scale the penalty by sqrt(primal / dual) clamped
/// to [1 / max_factor, max_factor].
struct ResidualBalancing {
  int interval;
  double gamma;
  double max_factor;

  /// Whether iteration l (from 0) of a solve of max_iterations balances.
  bool due(int l, int max_iterations) const {
    return l + 1 != max_iterations && (l + 1) % interval == 0;
  }
  /// The factor on the penalty (1: leave it).
  double factor(double primal, double dual) const {
    double f = 1.0;
    if (primal > gamma * dual) {
      f = dual > 0.0 ? std::min(std::sqrt(primal / dual), max_factor) : max_factor;
    } else if (dual > gamma * primal) {
      f = primal > 0.0 ? std::max(std::sqrt(primal / dual), 1.0 / max_factor) : 1.0 / max_factor;
    }
    return f;
  }
};

}  // namespace subsim
