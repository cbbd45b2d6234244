#pragma once
// Every check of `subsim run` and `subsim bench` options that needs no file and no simulation:
// run before the first (possibly long) scene build, and by the command-line fuzzer
// (fuzz/fuzz_command_line.cpp).  Each failure throws OptionError with the message the user sees
// after "subsim: " (docs/errors.md, "Command line").
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "subsim/solvers/solver_options.hpp"

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
bool isKnownSolver(const std::string& name);

/// A `.h5` name: a problem file in place of a scene (bench).
bool isProblemFile(const std::string& spec);

/// The options `--paper-table` stands for: Table I's scenes, solvers, levels and replay.
BenchOptions paperTableOptions(const BenchOptions& options);
/// The options --front runs with: --problems, and defaults for the solvers (subadmm,pgs-cg), the
/// sweep (5..320), --replay (30), the reference (300 iterations) and --threads (2).
BenchOptions frontOptions(const BenchOptions& options);
/// The thread counts every cell runs at: --front's 1 and --threads, else --threads alone.
std::vector<int> frontThreadCounts(const BenchOptions& options);

/// One --solver-option as typed: SOLVER.NAME=VALUE, or NAME=VALUE for any solver that has NAME.
struct SolverOptionArg {
  std::string solver;  // empty: not named
  std::string name;
  std::string value;
  std::string option = "--solver-option";  // or the alias that gave it, for messages
  std::string given;                       // as typed ("relaxation=1.2", "--relaxation 1.2")
};
/// Splits the --solver-option texts; OptionError for a malformed one or an unknown SOLVER.
std::vector<SolverOptionArg> parseSolverOptionArgs(const std::vector<std::string>& texts);

/// The options the command line gives `subsim run`'s solver `solver`: the --solver-option values
/// after the aliases (--beta-scale, --relaxation, --fixed-beta, --anderson,
/// --subadmm-factorization), each checked against the solver.  OptionError for an option of
/// another solver, one the solver does not have, a bad value, or one given twice.
SolverOptionValues runSolverOptions(const RunOptions& options, const std::string& solver);

/// `subsim bench`'s options per compared solver (every solver of `solvers` has an entry): a
/// plain NAME=VALUE goes to every solver that lists NAME (OptionError when none does),
/// SOLVER.NAME=VALUE to that solver, which must be compared.
std::map<std::string, SolverOptionValues> benchSolverOptions(
    const BenchOptions& options, const std::vector<std::string>& solvers);

/// `subsim solvers NAME`: a known solver.
void checkSolversCommand(const std::optional<std::string>& name);

/// A 1-based inclusive range "FIRST:LAST" (also "FIRST:", ":LAST" and "N") over `count` items,
/// as [first, last) from 0; OptionError naming `option` when malformed, empty or beyond count.
/// count < 0: not known yet (only the form is checked).
std::pair<int, int> parseProblemRange(const std::string& text, const char* option, int count);

/// `subsim solve`'s solver list and options (every known solver when absent).
std::vector<std::string> solveSolvers(const SolveOptions& options);

void checkSolveOptions(const SolveOptions& options);
void checkExportFclibOptions(const ExportFclibOptions& options);
void checkRunOptions(const RunOptions& options);
void checkBenchOptions(const BenchOptions& options);

}  // namespace subsim::cli
