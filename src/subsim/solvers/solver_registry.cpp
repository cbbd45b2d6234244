#include <stdexcept>

#include "subsim/solvers/solver.hpp"
#include "subsim/solvers/subadmm_solver.hpp"

namespace subsim {

std::vector<std::string> solverNames() {
  return {"subadmm"};
}

std::unique_ptr<Solver> makeSolver(std::string_view name) {
  if (name == "subadmm") return std::make_unique<SubadmmSolver>();
  std::string known;
  for (const std::string& n : solverNames()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown solver '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace subsim
