#include "subsim/solvers/polyhedral_lcp_solver.hpp"

#include <chrono>
#include <stdexcept>

#include "subsim/solvers/lcp_interior_point.hpp"

namespace subsim {

const OptionTable<PolyhedralLcpOptions>& PolyhedralLcpSolver::optionTable() {
  using O = PolyhedralLcpOptions;
  static const auto table =
      OptionTable<O>()
          .choice("formulation", &O::formulation,
                  {{"stewart-trinkle", PolyhedralLcpKind::StewartTrinkle},
                   {"anitescu-potra", PolyhedralLcpKind::AnitescuPotra},
                   {"peg", PolyhedralLcpKind::Peg}},
                  "the polyhedral-cone LCP (rpisim eq. 7): Stewart-Trinkle's normal rows carry "
                  "the gap / h, Anitescu-Potra's do not; peg (eq. 6) enforces one plane of each "
                  "set of subcontacts (scene contact.subcontacts)")
          .integer("directions", &O::directions, 3, kMaxFrictionDirections, "directions",
                   "friction directions n_d per contact (the polygonal cone)")
          .number("compliance", &O::compliance, NumberRange::nonNegative(), "m/(N s^2)",
                  "diagonal compliance on bilateral, unilateral and normal rows")
          .integer("max_variables", &O::max_variables, 1, 50000, "variables",
                   "largest dense LCP a step may pose (8 n^2 bytes)")
          .integer("max_pivots", &O::max_pivots, 0, 100000000, "pivots",
                   "Lemke's pivot cap (0: 50 n + 100 for n complementary variables)")
          .number("relaxation", &O::relaxation, NumberRange::openClosed(0.0, 1.0), "-",
                  "lcp-pj: z += omega (z_new - z) after each Jacobi sweep; lcp-fp: the first "
                  "omega of r = omega / M_ii");
  return table;
}

std::string_view PolyhedralLcpSolver::name() const {
  switch (variant_) {
    case Variant::Lemke:
      return "lemke";
    case Variant::Path:
      return "path";
    case Variant::FischerNewton:
      return "fischer-newton";
    case Variant::MinMapNewton:
      return "minmap-newton";
    case Variant::InteriorPoint:
      return "lcp-ip";
    case Variant::Pgs:
      return "lcp-pgs";
    case Variant::Pj:
      return "lcp-pj";
    case Variant::FixedPoint:
      break;
  }
  return "lcp-fp";
}

bool PolyhedralLcpSolver::solveByLemke(SolveStats& stats, int& pivots) {
  if (!elimination_.reduce(form_.lcp())) {
    noteFailure(stats, SolveStatus::FactorizationFailed);
    return false;
  }
  zc_.resize(elimination_.rhs().size());
  const LemkeResult r =
      lemke_.solveRegularized(elimination_.matrix(), elimination_.rhs(), zc_, options_.max_pivots);
  pivots += r.pivots;
  if (r.status != LemkeStatus::Solved) return false;
  elimination_.expand(zc_, z_);
  return true;
}

void PolyhedralLcpSolver::solve(const StepProblem& p, const SolverSettings& settings,
                                StepSolution& sol) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool warm = sol.lambda.size() == p.numRows();
  const PolyhedralLcpSettings fs{options_.formulation, options_.directions, options_.compliance,
                                 options_.max_variables};
  SolveStats& st = sol.stats;
  requireIsotropicFriction(p, name());
  const int max_it = beginStats(st, "LCP natural residual max", settings);
  if (!form_.build(p, fs, settings.threads)) {
    if (form_.tooLarge()) throw std::invalid_argument(std::string(name()) + ": " + form_.error());
    return finishUnfactored(p, sol, settings, t0);
  }
  const MixedLcp& lcp = form_.lcp();
  const bool cold_method = variant_ == Variant::Lemke || variant_ == Variant::InteriorPoint;
  if (warm && !cold_method)
    form_.variablesOf(sol.lambda, z_);  // the warm start, before the solution replaces it
  else
    z_.setZero(lcp.size());
  DoubleBuffer* history = settings.record_history ? &st.residual_history : nullptr;

  int iterations = 0;
  double residual = 0.0, two_norm = 0.0;
  switch (variant_) {
    case Variant::Lemke:
      if (!solveByLemke(st, iterations)) {
        noteFailure(st, SolveStatus::Stalled);
        z_.setZero(lcp.size());
      }
      break;
    case Variant::Path:
    case Variant::FischerNewton:
    case Variant::MinMapNewton: {
      LcpNewtonSettings ns;
      ns.max_iterations = max_it;
      ns.tolerance = settings.tolerance;
      ns.nonmonotone_memory = variant_ == Variant::Path ? 5 : 1;
      const LcpNewtonResult r =
          newton_.solve(lcp, z_,
                        variant_ == Variant::MinMapNewton ? LcpReformulation::MinMap
                                                          : LcpReformulation::FischerBurmeister,
                        ns, settings.on_iteration, history);
      iterations = r.iterations;
      // Unsolved: stalled, or the tolerance not reached (tolerance 0 asks for exactly
      // max_iterations of Newton, and gets them).
      const bool unsolved =
          r.stalled || (settings.tolerance > 0.0 && !(r.residual < settings.tolerance));
      if (variant_ == Variant::Path && unsolved) {
        // PATH's pivoting fallback: keep Lemke's solution where it is the better one.
        const VecX newton_z = z_;
        if (!solveByLemke(st, iterations) || !(lcp.naturalResidualMax(z_) <= r.residual))
          z_ = newton_z;
      } else if (r.stalled) {
        noteFailure(st, SolveStatus::Stalled);
      }
      break;
    }
    case Variant::InteriorPoint: {
      if (!elimination_.reduce(lcp)) {
        noteFailure(st, SolveStatus::FactorizationFailed);
        break;
      }
      const LcpInteriorPointResult r =
          solveLcpInteriorPoint(elimination_.matrix(), elimination_.rhs(), zc_, max_it,
                                settings.tolerance, settings.on_iteration, history);
      iterations = r.iterations;
      if (r.stalled) noteFailure(st, SolveStatus::Stalled);
      elimination_.expand(zc_, z_);
      break;
    }
    case Variant::Pgs:
    case Variant::Pj: {
      projection_.prepare(lcp);
      const auto order = variant_ == Variant::Pgs ? LcpBlockProjection::Order::GaussSeidel
                                                  : LcpBlockProjection::Order::Jacobi;
      iterations = max_it;
      for (int l = 0; l < max_it; ++l) {
        if (settings.on_iteration) settings.on_iteration(l);
        projection_.sweep(lcp, z_, order, options_.relaxation);
        lcp.naturalResidual(z_, residual, two_norm);
        if (recordIteration(st, residual, settings)) {
          iterations = l + 1;
          break;
        }
      }
      break;
    }
    case Variant::FixedPoint: {
      fixed_point_.prepare(lcp, z_, options_.relaxation);
      iterations = max_it;
      for (int l = 0; l < max_it; ++l) {
        if (settings.on_iteration) settings.on_iteration(l);
        if (recordIteration(st, fixed_point_.sweep(lcp, z_), settings)) {
          iterations = l + 1;
          break;
        }
      }
      break;
    }
  }
  lcp.naturalResidual(z_, residual, two_norm);
  if (variant_ == Variant::Lemke && history != nullptr) history->push_back(residual);
  form_.impulses(z_, sol.lambda);
  form_.velocity(sol.lambda, sol.vhat);
  finishStats(sol, iterations, residual, settings, t0);
}

}  // namespace subsim
