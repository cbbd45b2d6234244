#pragma once
// Reading `subsim`'s command line into options, apart from running anything, so that the whole
// of it (CLI11's parse and our checks, option_checks.hpp) can be tested and fuzzed
// (fuzz/fuzz_command_line.cpp) without a simulation.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "commands.hpp"

namespace subsim::cli {

struct CommandLine {
  enum class Command {
    Scenarios,
    Solvers,
    Run,
    Bench,
    Seal,
    Solve,
    ExportFclib,
    Replay,
    Plot,
    View
  };
  Command command = Command::Run;
  RunOptions run;
  BenchOptions bench;
  ReplayOptions replay;
  ViewOptions view;
  PlotOptions plot;
  std::optional<std::string> solver;    // `subsim solvers NAME`
  std::vector<std::string> seal_files;  // `subsim seal FILE...`
  SolveOptions solve;
  ExportFclibOptions export_fclib;
};

/// The parsed command line, or the exit status when parsing ended it: 0 after --help (printed
/// to `out`), kExitBadInput after an error (printed to `err` as "subsim: ..." with what was
/// expected and what was given).
struct ParsedCommandLine {
  std::optional<CommandLine> command_line;
  int exit_code = kExitOk;
};

ParsedCommandLine parseCommandLine(int argc, const char* const* argv, std::ostream& out,
                                   std::ostream& err);

}  // namespace subsim::cli
