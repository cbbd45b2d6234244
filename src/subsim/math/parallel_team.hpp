#pragma once
// How many OpenMP threads a loop of the step outside the solver should take: at most the run's
// count, and one per `per_thread` items of work at least, since waking a team for less costs more
// than it splits (a few microseconds a region; measured on 2 cores, granular scenes).
#include <omp.h>

#include <algorithm>
#include <cstddef>

namespace subsim {

/// `threads` as the solver settings give it (0: OpenMP's default).
inline int parallelTeam(int threads, std::size_t work, std::size_t per_thread) {
  const int team = threads > 0 ? threads : omp_get_max_threads();
  return static_cast<int>(
      std::clamp<std::size_t>(work / per_thread, 1, static_cast<std::size_t>(std::max(team, 1))));
}

}  // namespace subsim
