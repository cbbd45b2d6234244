// Builds a scene in code, adds a controller, steps it and reads the state back: the World API.
#include <cstdio>

#include "subsim/metrics/step_metrics.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

int main() {
  using namespace subsim;
  // A box pushed along the ground by a constant horizontal force (a controller), on a plane.
  Model model;
  const int ground = model.addBody(namedBody("ground", BodyKind::Static));
  model.addShape(ground, Shape::plane(), Pose(), 0.5);
  const Shape box = Shape::box(Vec3(0.1, 0.1, 0.1));
  Body b = namedBody("box", BodyKind::Dynamic, 1.0);
  b.inertia = box.unitDensityInertia(1.0);
  b.initial_pose.position = Vec3(0, 0, 0.1);
  const int body = model.addBody(b);
  model.addShape(body, box, Pose(), 0.5);

  WorldSettings settings;
  settings.solver_settings.max_iterations = 100;
  settings.solver_settings.tolerance = 1e-10;
  World world(model, settings);
  world.setController([body](const Model&, const State&, BodyForces& f) {
    f.force[body] = Vec3(8.0, 0.0, 0.0);  // N: above mu m g = 4.9 N, so the box slides
  });
  for (int k = 0; k < 100; ++k) world.step();
  const State& s = world.state();
  // Expected: a = (8 - 0.5 * 9.81) / 1 = 3.095 m/s^2, so v(1 s) = 3.095 m/s.
  std::printf("t = %.2f s  x = %.4f m  measured_v = %.4f m/s  (expected %.4f)\n", s.time,
              s.pose[body].position.x(), s.linear_velocity[body].x(), 8.0 - 0.5 * 9.81);
  const StepMetrics m = evaluateStep(world.lastProblem(), world.lastSolution());
  std::printf("contacts %d  accuracy %.2f\n", m.contacts, accuracyOf(m.constraint_residual));
  // A built-in scene, one step.
  World granular(buildScenario("granular:spheres=27").model);
  const StepReport r = granular.step();
  std::printf("granular: %d contacts, %d iterations\n", r.contacts, r.iterations);
  return 0;
}
