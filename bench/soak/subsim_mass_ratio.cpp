// Mass ratios (a benchmark, not a test): a chain of light links holding a heavy load, every
// solver.  pendulum:links=N,load=R hangs a steel sphere of R link masses from N capsule links on
// ball joints, at rest; a solver holds it when the load has dropped less than 1 cm after the run
// (the exact answer is no motion at all).  Iterative solvers converge at a rate set by the mass
// ratio, so at fixed iterations the load falls through the chain.
//   subsim_mass_ratio [LINKS] [LOAD] [STEPS] [ITERATIONS] [TOLERANCE]
// (defaults 100 40000 100 60 0).  Newton-type solvers run a tenth of ITERATIONS, as in the
// tables; TOLERANCE > 0 stops each step there (ITERATIONS is then the cap).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"
#include "subsim/solvers/solver.hpp"

int main(int argc, char** argv) {
  const int links = argc > 1 ? std::atoi(argv[1]) : 100;
  const double load = argc > 2 ? std::atof(argv[2]) : 40000.0;
  const int steps = argc > 3 ? std::atoi(argv[3]) : 100;
  const int iterations = argc > 4 ? std::atoi(argv[4]) : 60;
  const double tolerance = argc > 5 ? std::atof(argv[5]) : 0.0;
  if (links <= 0 || !(load > 0.0) || steps <= 0 || iterations <= 0 || !(tolerance >= 0.0)) {
    std::fprintf(stderr,
                 "usage: subsim_mass_ratio [LINKS>0] [LOAD>0] [STEPS>0] [ITERATIONS>0] "
                 "[TOLERANCE>=0]\n");
    return 2;
  }
  char load_text[32];
  std::snprintf(load_text, sizeof load_text, "%g", load);
  const std::string spec =
      "pendulum:links=" + std::to_string(links) + ",angle=0,load=" + std::string(load_text);
  std::printf("# %s, %d steps; load:link mass ratio %.0f:1; tolerance %g\n", spec.c_str(), steps,
              load, tolerance);
  std::printf(
      "| solver | iterations (cap) | load drop (m) | max stopping residual | holds | "
      "solver ms/step |\n|---|---|---|---|---|---|\n");
  for (const std::string& name : subsim::solverNames()) {
    subsim::BuiltScene scene = subsim::buildScenario(spec);
    subsim::WorldSettings ws;
    ws.solver = name;
    const int it = subsim::isNewtonTypeSolver(name) ? std::max(1, iterations / 10) : iterations;
    ws.solver_settings.max_iterations = it;
    ws.solver_settings.tolerance = tolerance;
    subsim::World world(std::move(scene.model), ws);
    const int load_body = world.state().numBodies() - 1;
    const double z0 = world.state().pose[load_body].position.z();
    double residual = 0.0, solver_ms = 0.0;
    std::string outcome;
    int k = 0;
    for (; k < steps; ++k) {
      const subsim::StepReport r = world.step();
      solver_ms += r.solver_ms;
      residual = std::max(residual, r.residual);
      if (r.diverged) {
        outcome = "diverged at step " + std::to_string(k + 1) + ": " + r.divergence;
        ++k;
        break;
      }
    }
    const double drop = z0 - world.state().pose[load_body].position.z();
    if (outcome.empty()) outcome = std::abs(drop) < 0.01 ? "yes" : "no";
    std::printf("| %s | %d | %.4g | %.3g | %s | %.2f |\n", name.c_str(), it, drop, residual,
                outcome.c_str(), solver_ms / k);
    std::fflush(stdout);
  }
  return 0;
}
