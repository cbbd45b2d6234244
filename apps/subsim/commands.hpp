#pragma once
// Subcommands of the `subsim` command line.  Exit codes: 0 done, 2 bad input, 3 diverged.
#include <optional>
#include <string>

namespace subsim::cli {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;
constexpr int kExitDiverged = 3;

struct RunOptions {
  std::string scene = "granular";
  std::string solver = "subadmm";
  std::optional<int> iterations;
  std::optional<double> tolerance;
  std::optional<int> steps;
  std::optional<double> dt;
  int threads = 1;
  std::optional<double> beta_scale;
  std::optional<double> relaxation;
  bool fixed_beta = false;
  std::string record;
  bool json = false;
};

int runScenarios();
int runSimulation(const RunOptions& options);

}  // namespace subsim::cli
