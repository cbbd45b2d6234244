// The command line: any arguments are options that pass every check or an error printed as
// "subsim: ..." with exit status 2 (or --help with 0), never a crash, a hang or another
// exception.  Nothing is run: the input is read and checked as `subsim` does before its first
// scene build (command_line.hpp, option_checks.hpp).  The input is the arguments after
// "subsim", separated by NUL bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "option_checks.hpp"
#include "replay_plot_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace subsim::cli;
  std::vector<std::string> args{"subsim"};
  std::string arg;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(arg);
      arg.clear();
    } else {
      arg.push_back(static_cast<char>(data[i]));
    }
  }
  if (size > 0) args.push_back(arg);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  std::ostringstream out, err;
  const ParsedCommandLine parsed =
      parseCommandLine(static_cast<int>(argv.size()), argv.data(), out, err);
  if (!parsed.command_line) {
    // Every refusal says what was wrong; --help prints the usage.
    if (parsed.exit_code == kExitBadInput && err.str().rfind("subsim: ", 0) != 0) std::abort();
    if (parsed.exit_code == kExitOk && out.str().empty()) std::abort();
    if (parsed.exit_code != kExitOk && parsed.exit_code != kExitBadInput) std::abort();
    return 0;
  }
  try {
    switch (parsed.command_line->command) {
      case CommandLine::Command::Run:
        checkRunOptions(parsed.command_line->run);
        break;
      case CommandLine::Command::Bench:
        checkBenchOptions(parsed.command_line->bench);
        break;
      case CommandLine::Command::Solvers:
        checkSolversCommand(parsed.command_line->solver);
        break;
      case CommandLine::Command::Solve:
        checkSolveOptions(parsed.command_line->solve);
        break;
      case CommandLine::Command::ExportFclib:
        checkExportFclibOptions(parsed.command_line->export_fclib);
        break;
      case CommandLine::Command::Replay:
        checkReplayOptions(parsed.command_line->replay);
        break;
      case CommandLine::Command::Plot:
        checkPlotOptions(parsed.command_line->plot);
        break;
      case CommandLine::Command::Scenarios:
      case CommandLine::Command::Seal:
      case CommandLine::Command::View:  // no option to check before the file is read
        break;
    }
  } catch (const OptionError& e) {
    if (std::string(e.what()).empty()) std::abort();
  }
  return 0;
}
