#include <iomanip>
#include <iostream>

#include "commands.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim::cli {

int runSolvers() {
  for (const SolverEntry& e : solverRegistry())
    std::cout << std::left << std::setw(10) << e.name << " "
              << (e.kind == SolverKind::NewtonType ? "Newton-type" : "first-order") << ", "
              << e.formulation << ": " << e.description << "\n";
  return kExitOk;
}

}  // namespace subsim::cli
