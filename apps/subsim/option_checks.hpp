#pragma once
// Every check of `subsim run` and `subsim bench` options that needs no file and no simulation:
// run before the first (possibly long) scene build, and by the command-line fuzzer
// (fuzz/fuzz_command_line.cpp).  Each failure throws OptionError with the message the user sees
// after "subsim: " (docs/errors.md, "Command line").
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"

namespace subsim::cli {

class OptionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// "30,60,90": positive integers, each once.
std::vector<int> parseIterationList(const std::string& text);
/// --iterations where a mode takes one count ("--convergence", "--scaling"); `fallback` when the
/// option is absent, `example` in the message.
int singleIterationCount(const std::optional<std::string>& text, const char* mode, int example,
                         int fallback);
/// "pgs,subadmm": known solver names, each once; every solver when absent.
std::vector<std::string> parseSolverList(const std::optional<std::string>& text);
/// "subadmm, fadmm, ...", for messages.
std::string knownSolvers();
bool isKnownSolver(const std::string& name);

/// A `.h5` name: a problem file in place of a scene (bench).
bool isProblemFile(const std::string& spec);

/// The options `--paper-table` stands for: Table I's scenes, solvers, levels and replay.
BenchOptions paperTableOptions(const BenchOptions& options);

void checkRunOptions(const RunOptions& options);
void checkBenchOptions(const BenchOptions& options);

}  // namespace subsim::cli
