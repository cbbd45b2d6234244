#pragma once
// The problems-mode cell of `subsim bench --problems`: one solver replaying a recorded run.
#include <string>

#include "subsim/bench/bench_cell.hpp"
#include "subsim/bench/recorded_run.hpp"

namespace subsim::bench {

/// A replayed solution with a velocity beyond this (m/s or rad/s) is no answer in any scene: a
/// World stops at 100 m/s (WorldSettings::max_speed); replay has no state to check, so it judges
/// the solution's own velocity with a tenfold margin.
constexpr double kReplaySpeedLimit = 1000.0;

/// Solves every problem of `run` from its recorded warm start with one `solver` object (as a
/// World keeps it across steps) at iteration `level` (iterationsAtLevel), and averages the solve
/// time and accuracy.  A problem whose solution is non-finite, faster than kReplaySpeedLimit or
/// has a non-finite residual fails the cell; the problems after it are still hashed, so that
/// `input_hash` always certifies the whole recorded input set and stays comparable between cells.
/// `scene` only names the cell.
Cell runProblemsCell(const std::string& scene, const RecordedRun& run, const std::string& solver,
                     int level, int threads, const SolverOptionValues& options = {});

}  // namespace subsim::bench
