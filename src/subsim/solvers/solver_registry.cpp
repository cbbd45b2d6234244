#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>

#include "subsim/solvers/al_newton_solver.hpp"
#include "subsim/solvers/apgd_solver.hpp"
#include "subsim/solvers/box_mlcp_solver.hpp"
#include "subsim/solvers/cond_solver.hpp"
#include "subsim/solvers/fadmm_solver.hpp"
#include "subsim/solvers/nnewton_solver.hpp"
#include "subsim/solvers/pgs_cg_solver.hpp"
#include "subsim/solvers/pgs_solver.hpp"
#include "subsim/solvers/polyhedral_lcp_solver.hpp"
#include "subsim/solvers/projected_jacobi_solver.hpp"
#include "subsim/solvers/solver.hpp"
#include "subsim/solvers/subadmm_solver.hpp"
#include "subsim/solvers/substructuring_solver.hpp"

namespace subsim {

namespace {

/// A registry entry for solver class S built with `args`: its factory and, when S has an
/// OptionTable (S::optionTable()), the description of its options.
template <class S, class... Args>
SolverEntry entry(std::string name, SolverKind kind, std::string formulation,
                  std::string description, Args... args) {
  SolverEntry e{std::move(name),
                kind,
                std::move(formulation),
                std::move(description),
                [args...] { return std::make_unique<S>(args...); },
                {}};
  if constexpr (requires { S::optionTable(); }) e.options = S::optionTable().describe();
  return e;
}

std::vector<SolverEntry>& registry() {
  using K = SolverKind;
  using V = AlNewtonSolver::Variant;
  using B = BoxMlcpSolver::Variant;
  using S = SubstructuringSolver::Variant;
  using L = PolyhedralLcpSolver::Variant;
  // The dual solvers iterate on DelassusForm, which also takes a problem given as W itself.
  const auto dual = [](SolverEntry e) {
    e.local_form = true;
    return e;
  };
  // The ADMM solvers and COND resolve contacts with the strict operator, elliptic cones too.
  const auto elliptic = [](SolverEntry e) {
    e.anisotropic_friction = true;
    return e;
  };
  static std::vector<SolverEntry> entries = {
      elliptic(entry<SubadmmSolver>(
          "subadmm", K::FirstOrder, "ncp",
          "subsystem-based ADMM (ICRA 2025, journal): per-subsystem solves, closed-form "
          "constraints")),
      elliptic(entry<FadmmSolver>("fadmm", K::FirstOrder, "ncp",
                                  "ADMM on the whole system (one sparse factorisation)")),
      dual(entry<PgsSolver>("pgs", K::FirstOrder, "ncp",
                            "projected Gauss-Seidel on the Delassus operator")),
      dual(entry<PgsCgSolver>("pgs-cg", K::FirstOrder, "ncp",
                              "PGS accelerated by nonsmooth conjugate gradient")),
      dual(entry<ProjectedJacobiSolver>("pj", K::FirstOrder, "ncp",
                                        "projected Jacobi on the Delassus operator")),
      dual(entry<ApgdSolver>("apgd", K::FirstOrder, "ncp",
                             "Nesterov-accelerated projected gradient on the Delassus form, "
                             "Euclidean cone (APGD; the CCP, the COND paper's baseline)")),
      dual(entry<NnewtonSolver>("nnewton", K::NewtonType, "ncp",
                                "nonsmooth Newton on the Fischer-Burmeister reformulation")),
      entry<AlNewtonSolver>(
          "canal", K::NewtonType, "ncp",
          "cascaded Newton augmented Lagrangian (the AL paper) with exact line search", V::Canal),
      entry<AlNewtonSolver>("ssn", K::NewtonType, "ncp",
                            "semismooth Newton on the AL subproblem (AL paper baseline)",
                            V::SemismoothNewton),
      entry<AlNewtonSolver>("tr-dogleg", K::NewtonType, "ncp",
                            "trust-region dogleg on the AL subproblem (AL paper baseline)",
                            V::TrustRegionDogleg),
      elliptic(entry<CondSolver>("cond", K::FirstOrder, "nodal",
                                 "contact nodalization and diagonalization, velocity fixed-point "
                                 "iteration with Chebyshev acceleration (the COND paper)")),
      dual(entry<BoxMlcpSolver>("bpp", K::NewtonType, "box-mlcp",
                                "block principal pivoting on the whole box MLCP (the schur "
                                "paper's direct reference)",
                                B::Bpp)),
      dual(entry<BoxMlcpSolver>("pgs-sm", K::NewtonType, "box-mlcp",
                                "PGS with subspace minimisation on the whole box MLCP", B::PgsSm)),
      dual(entry<BoxMlcpSolver>("box-pgs", K::FirstOrder, "box-mlcp",
                                "projected Gauss-Seidel on the box MLCP (box friction)", B::Pgs)),
      entry<SubstructuringSolver>("schur-bpp", K::NewtonType, "box-mlcp",
                                  "Schur-complement substructuring with BPP (schur paper, "
                                  "Algorithm 1)",
                                  S::SchurBpp),
      entry<SubstructuringSolver>("schur-pgs-sm", K::NewtonType, "box-mlcp",
                                  "Schur-complement substructuring with a PGS-SM interface solve",
                                  S::SchurPgsSm),
      entry<SubstructuringSolver>("fbic", K::NewtonType, "box-mlcp",
                                  "force-based interface coupling of substructures (schur paper "
                                  "baseline)",
                                  S::Fbic),
      // The RPI simulator paper's LCP solvers (its Table 1) on the polyhedral-cone LCPs.
      dual(entry<PolyhedralLcpSolver>(
          "lemke", K::NewtonType, "lcp",
          "Lemke's pivoting method on the Stewart-Trinkle, Anitescu-Potra or "
          "PEG LCP (the rpisim paper)",
          L::Lemke)),
      dual(entry<PolyhedralLcpSolver>("path", K::NewtonType, "lcp",
                                      "PATH-style: Fischer-Burmeister Newton, non-monotone line "
                                      "search, Lemke as fallback",
                                      L::Path)),
      dual(entry<PolyhedralLcpSolver>("fischer-newton", K::NewtonType, "lcp",
                                      "Fischer-Burmeister Newton with line search on the LCP",
                                      L::FischerNewton)),
      dual(entry<PolyhedralLcpSolver>("minmap-newton", K::NewtonType, "lcp",
                                      "min-map Newton with line search on the LCP",
                                      L::MinMapNewton)),
      dual(entry<PolyhedralLcpSolver>("lcp-ip", K::NewtonType, "lcp",
                                      "primal-dual interior point on the LCP (Mehrotra)",
                                      L::InteriorPoint)),
      dual(entry<PolyhedralLcpSolver>("lcp-pgs", K::FirstOrder, "lcp",
                                      "block projected Gauss-Seidel on the LCP (a contact's "
                                      "block by Lemke)",
                                      L::Pgs)),
      dual(entry<PolyhedralLcpSolver>("lcp-pj", K::FirstOrder, "lcp",
                                      "block projected Jacobi on the LCP, relaxed", L::Pj)),
      dual(entry<PolyhedralLcpSolver>("lcp-fp", K::FirstOrder, "lcp",
                                      "projected fixed-point iteration of the LCP's natural map, "
                                      "adaptive r-factor",
                                      L::FixedPoint)),
  };
  return entries;
}

}  // namespace

std::string solverNameList() {
  std::string known;
  for (const SolverEntry& e : registry()) known += (known.empty() ? "" : ", ") + e.name;
  return known;
}

const std::vector<SolverEntry>& solverRegistry() {
  return registry();
}

void registerSolver(SolverEntry entry) {
  if (entry.name.empty()) throw std::invalid_argument("registerSolver: the name is empty");
  if (!entry.make)
    throw std::invalid_argument("registerSolver('" + entry.name + "'): no factory (make)");
  if (findSolver(entry.name) != nullptr)
    throw std::invalid_argument("registerSolver: a solver named '" + entry.name +
                                "' is registered already (known: " + solverNameList() + ")");
  registry().push_back(std::move(entry));
}

bool unregisterSolver(std::string_view name) {
  std::vector<SolverEntry>& entries = registry();
  const auto it = std::find_if(entries.begin(), entries.end(),
                               [name](const SolverEntry& e) { return e.name == name; });
  if (it == entries.end()) return false;
  entries.erase(it);
  return true;
}

const SolverEntry* findSolver(std::string_view name) {
  for (const SolverEntry& e : registry())
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<std::string> solverNames() {
  std::vector<std::string> names;
  for (const SolverEntry& e : registry()) names.push_back(e.name);
  return names;
}

bool isNewtonTypeSolver(std::string_view name) {
  const SolverEntry* e = findSolver(name);
  return e != nullptr && e->kind == SolverKind::NewtonType;
}

std::unique_ptr<Solver> makeSolver(std::string_view name, const SolverOptionValues& options) {
  if (const SolverEntry* e = findSolver(name)) {
    std::unique_ptr<Solver> solver = e->make();
    for (const SolverOption& o : options) solver->setOption(o.name, o.value);
    return solver;
  }
  throw std::invalid_argument("unknown solver '" + std::string(name) +
                              "' (known: " + solverNameList() + ")");
}

}  // namespace subsim
