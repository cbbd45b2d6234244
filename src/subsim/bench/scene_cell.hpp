#pragma once
// The scene-mode cell of `subsim bench`: a World stepped from the model's initial state.
#include <memory>
#include <string>

#include "subsim/bench/bench_cell.hpp"
#include "subsim/model/model.hpp"

namespace subsim::bench {

/// Steps a fresh World of `model` (shared, not copied) `steps` times with `solver` at iteration
/// `level` (iterationsAtLevel) and averages the solve time and accuracy per step.  The cell fails
/// at the first step that throws, diverges, penetrates deeper than `limit` (m; the World's own
/// limit, World::penetrationLimit, so that both judge by one number) or gives a non-finite
/// residual. `scene` only names the cell.
Cell runSceneCell(const std::shared_ptr<const Model>& model, const std::string& scene, int steps,
                  double limit, const std::string& solver, int level, int threads,
                  const SolverOptionValues& options = {});

}  // namespace subsim::bench
