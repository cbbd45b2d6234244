// Long runs (a benchmark, not a test): a scene for many steps, reported per window of simulated
// time, to show that nothing drifts: no non-finite number, no divergence, no growth of kinetic
// energy or speed, no creeping penetration.
//   subsim_soak SCENE STEPS [WINDOW_STEPS] [SOLVER] [ITERATIONS] [THREADS]
// e.g. subsim_soak granular 360000 36000   (one hour at dt = 10 ms, windows of 6 minutes)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "subsim/math/fnv1a_hash.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: subsim_soak SCENE STEPS [WINDOW_STEPS] [SOLVER] [ITERATIONS] [THREADS]\n");
    return 2;
  }
  const std::string spec = argv[1];
  const long steps = std::atol(argv[2]);
  const long window = argc > 3 ? std::atol(argv[3]) : std::max(1L, steps / 10);
  const std::string solver = argc > 4 ? argv[4] : "subadmm";
  const int iterations = argc > 5 ? std::atoi(argv[5]) : 60;
  const int threads = argc > 6 ? std::atoi(argv[6]) : 1;
  if (steps <= 0 || window <= 0 || iterations <= 0 || threads <= 0) {
    std::fprintf(stderr, "subsim_soak: STEPS, WINDOW_STEPS, ITERATIONS and THREADS must be > 0\n");
    return 2;
  }
  subsim::BuiltScene scene = subsim::buildScenario(spec);
  subsim::WorldSettings ws;
  ws.solver = solver;
  ws.solver_settings.max_iterations = iterations;
  ws.solver_settings.tolerance = 0.0;
  ws.solver_settings.threads = threads;
  subsim::World world(std::move(scene.model), ws);
  const double dt = world.model().dt;
  std::printf("# %s, %s %d iterations, %d thread(s), dt %g s, %ld steps (%.1f s simulated)\n",
              spec.c_str(), solver.c_str(), iterations, threads, dt, steps, steps * dt);
  std::printf(
      "| simulated s | KE mean (J) | KE max (J) | max speed (m/s) | max penetration (mm) | "
      "contacts mean | wall s |\n|---|---|---|---|---|---|---|\n");
  const auto t0 = std::chrono::steady_clock::now();
  double ke_sum = 0.0, ke_max = 0.0, speed_max = 0.0, pen_max = 0.0, contacts = 0.0;
  long in_window = 0;
  for (long k = 0; k < steps; ++k) {
    const subsim::StepReport r = world.step();
    if (r.diverged) {
      std::printf("DIVERGED at step %ld (t = %.2f s): %s\n", k + 1, (k + 1) * dt,
                  r.divergence.c_str());
      return 3;
    }
    const double ke = world.kineticEnergy();
    if (!std::isfinite(ke)) {
      std::printf("NON-FINITE kinetic energy at step %ld\n", k + 1);
      return 3;
    }
    double speed = 0.0;
    const subsim::State& s = world.state();
    for (int b = 0; b < s.numBodies(); ++b) speed = std::max(speed, s.linear_velocity[b].norm());
    ke_sum += ke;
    ke_max = std::max(ke_max, ke);
    speed_max = std::max(speed_max, speed);
    pen_max = std::max(pen_max, r.max_penetration);
    contacts += r.contacts;
    if (++in_window == window || k + 1 == steps) {
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("| %.0f | %.4g | %.4g | %.3g | %.3f | %.1f | %.0f |\n", (k + 1) * dt,
                  ke_sum / in_window, ke_max, speed_max, 1e3 * pen_max, contacts / in_window, wall);
      std::fflush(stdout);
      ke_sum = ke_max = speed_max = pen_max = contacts = 0.0;
      in_window = 0;
    }
  }
  std::printf("# completed; final state hash %s\n", subsim::hex64(world.state().hash()).c_str());
  return 0;
}
