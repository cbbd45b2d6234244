#include <stdexcept>

#include "subsim/solvers/al_newton_solver.hpp"
#include "subsim/solvers/fadmm_solver.hpp"
#include "subsim/solvers/nnewton_solver.hpp"
#include "subsim/solvers/pgs_cg_solver.hpp"
#include "subsim/solvers/pgs_solver.hpp"
#include "subsim/solvers/projected_jacobi_solver.hpp"
#include "subsim/solvers/solver.hpp"
#include "subsim/solvers/subadmm_solver.hpp"

namespace subsim {

std::vector<std::string> solverNames() {
  return {"subadmm", "fadmm", "pgs", "pgs-cg", "pj", "nnewton", "canal", "ssn", "tr-dogleg"};
}

bool isNewtonTypeSolver(std::string_view name) {
  return name == "nnewton" || name == "canal" || name == "ssn" || name == "tr-dogleg";
}

std::unique_ptr<Solver> makeSolver(std::string_view name) {
  if (name == "subadmm") return std::make_unique<SubadmmSolver>();
  if (name == "fadmm") return std::make_unique<FadmmSolver>();
  if (name == "pgs") return std::make_unique<PgsSolver>();
  if (name == "pgs-cg") return std::make_unique<PgsCgSolver>();
  if (name == "pj") return std::make_unique<ProjectedJacobiSolver>();
  if (name == "nnewton") return std::make_unique<NnewtonSolver>();
  if (name == "canal") return std::make_unique<AlNewtonSolver>(AlNewtonSolver::Variant::Canal);
  if (name == "ssn")
    return std::make_unique<AlNewtonSolver>(AlNewtonSolver::Variant::SemismoothNewton);
  if (name == "tr-dogleg")
    return std::make_unique<AlNewtonSolver>(AlNewtonSolver::Variant::TrustRegionDogleg);
  std::string known;
  for (const std::string& n : solverNames()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown solver '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace subsim
