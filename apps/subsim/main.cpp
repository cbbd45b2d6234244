// subsim: the command line.  `subsim scenarios` and `subsim solvers [NAME]` list the built-in
// scenes and the solvers with their options; `subsim run SCENE` simulates one;
// `subsim bench SCENE...` compares solvers; `subsim solve FILE...` re-solves stored problems
// (subsim problem files, FCLib files); `subsim export-fclib` writes problems as FCLib;
// `subsim replay`, `subsim plot` and `subsim view` show a recording; `subsim seal FILE...` writes
// the checksum onto HDF5 files (see README.md).
#include <iostream>

#include "command_line.hpp"
#include "commands.hpp"
#include "option_checks.hpp"

int main(int argc, char** argv) {
  using namespace subsim::cli;
  const ParsedCommandLine parsed = parseCommandLine(argc, argv, std::cout, std::cerr);
  if (!parsed.command_line) return parsed.exit_code;
  const CommandLine& line = *parsed.command_line;
  try {
    switch (line.command) {
      case CommandLine::Command::Scenarios:
        return runScenarios();
      case CommandLine::Command::Solvers:
        return runSolvers(line.solver);
      case CommandLine::Command::Seal:
        return runSeal(line.seal_files);
      case CommandLine::Command::Bench:
        return runBench(line.bench);
      case CommandLine::Command::Solve:
        return runSolve(line.solve);
      case CommandLine::Command::ExportFclib:
        return runExportFclib(line.export_fclib);
      case CommandLine::Command::Replay:
        return runReplay(line.replay);
      case CommandLine::Command::Plot:
        return runPlot(line.plot);
      case CommandLine::Command::View:
        return runView(line.view);
      case CommandLine::Command::Run:
        break;
    }
    return runSimulation(line.run);
  } catch (const OptionError& e) {
    std::cerr << "subsim: " << e.what() << "\n";
    return kExitBadInput;
  }
}
