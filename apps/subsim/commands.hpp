#pragma once
// Subcommands of the `subsim` command line.  Exit codes: 0 done, 2 bad input, 3 diverged, 130
// a run stopped by Ctrl-C (SIGINT) or SIGTERM.
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace subsim::cli {

namespace bench {
struct Report;  // bench_table.hpp
}

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;
constexpr int kExitDiverged = 3;
constexpr int kExitInterrupted = 130;  // as a shell reports a process ended by SIGINT

/// The port `--serve` uses when --port does not name one.
constexpr int kDefaultServePort = 7070;

struct RunOptions {
  std::string scene = "granular";
  std::optional<std::string> solver;  // default: the scene file's solver, else subadmm
  std::optional<int> iterations;
  std::optional<double> tolerance;
  std::optional<int> steps;
  std::optional<double> dt;
  int threads = 1;
  /// --fixed-threads: every solve on `threads` (else, with 2 or more, a ThreadGovernor falls back
  /// to 1 while more do not pay).
  bool fixed_threads = false;
  /// --solver-option NAME=VALUE (or SOLVER.NAME=VALUE), as typed, in order.
  std::vector<std::string> solver_options;
  // Aliases of solver options (--beta-scale X is --solver-option beta_scale=X).
  std::optional<double> beta_scale;
  std::optional<double> relaxation;
  bool fixed_beta = false;
  std::optional<int> anderson;
  std::optional<std::string> subadmm_factorization;  // per-body | dense
  std::string record;
  /// --view PAGE.html: the run's page (subsim view) at the end; recorded to PAGE's name with .h5
  /// when --record is not given.
  std::string view;
  /// --serve: the run's page on http://127.0.0.1:PORT/ while it runs, and after it until Ctrl-C.
  bool serve = false;
  std::optional<int> port;  // with --serve; 0 any free port
  bool json = false;
};

/// `subsim bench` (README.md, "Comparing solvers: subsim bench").  Lists arrive as the user typed
/// them ("30,60,90") so that runBench can name the option in its error messages.
struct BenchOptions {
  std::vector<std::string> scenes;
  std::optional<std::string> solvers;     // default: every solverNames()
  std::optional<std::string> iterations;  // default "30,60,90"; --convergence: one value, 100
  std::optional<int> steps;               // default: each scene's
  int threads = 1;
  bool threads_given = false;               // --threads was on the command line
  std::optional<double> penetration_limit;  // default: World's, half the smallest dynamic shape
  std::string format = "markdown";          // markdown | csv | json
  bool problems = false;
  std::string reference_solver = "subadmm";
  std::optional<int> reference_iterations;  // default 100; --paper-table 300
  std::string output;  // table: FILE instead of stdout; --convergence: PREFIX ("convergence")
  bool convergence = false;
  std::optional<int> step;               // --convergence: default the middle of the run
  std::optional<int> newton_iterations;  // --convergence: default iterations / 10
  bool no_plot = false;                  // --convergence: the CSV only
  bool cold = false;                     // --convergence: every solver from zero impulses
  std::string save_problems;             // --problems: write the recorded run to this HDF5 file
  bool scaling = false;                  // SubADMM time against size (stir, cable), no scenes
  std::optional<int> replay;  // --problems: replay this many recorded problems, evenly spaced
  bool paper_table = false;   // the ICRA paper's Table I: its scenes, solvers and levels
  std::optional<std::string> paper;  // --paper schur: that paper's tables on its scenes
  /// The accuracy-time front: --problems over an iteration sweep at 1 and --threads threads.
  bool front = false;
  /// --solver-option NAME=VALUE (every compared solver that has NAME) or SOLVER.NAME=VALUE.
  std::vector<std::string> solver_options;
  /// --budget MS: each solver at the iterations whose solve fits MS per step (budget_bench.cpp).
  std::optional<double> budget;
};

/// `subsim solve FILE...` (README.md, "Solving stored problems"): every problem of subsim problem
/// files and FCLib files with every compatible solver, judged by the common metrics.
struct SolveOptions {
  std::vector<std::string> files;
  std::optional<std::string> solvers;    // default: every solver that takes the problems
  std::optional<int> iterations;         // first-order cap, default 1000
  std::optional<int> newton_iterations;  // Newton-type cap, default iterations / 10
  double tolerance = 1e-8;               // on the judge (natural-map error); 0: run the cap
  std::optional<int> check_every;        // iterations between the judge's checks
  std::optional<double> time_limit;      // s per problem and solver
  std::optional<std::string> problems;   // "FIRST:LAST", 1-based over all files' problems
  std::string start = "stored";          // stored | zero
  int threads = 1;
  std::string format = "markdown";  // markdown | csv | json
  std::string output;               // the table to FILE instead of stdout
  std::string history;              // FILE.csv: every iteration's residuals
  std::vector<std::string> solver_options;
};

/// `subsim export-fclib PROBLEMS.h5 DIR`: the problems of a subsim problem file as FCLib files.
struct ExportFclibOptions {
  std::string file;
  std::string directory;
  bool local = false;
  std::optional<std::string> problems;  // "FIRST:LAST", 1-based
  std::string encoding = "csc";         // csc | csr | triplet
};

/// `subsim replay FILE.h5` (README.md, "Replaying and plotting a recording").
struct ReplayOptions {
  std::string file;
  std::string format = "markdown";   // markdown | csv | json
  std::optional<std::string> steps;  // "FIRST:LAST", from 1, inclusive; default all
};

/// `subsim plot FILE.h5|FILE.csv --kind KIND [--output PNG]`.
struct PlotOptions {
  std::string file;
  std::string kind;    // convergence | penetration | energy | joint-error | contacts
  std::string output;  // default: FILE's name with _KIND.png for its extension
};

/// `subsim view FILE.h5 [--output PAGE.html]` (view_command.cpp).
struct ViewOptions {
  std::string file;
  std::string output;  // default: FILE's name with .html for its extension
  bool serve = false;  // serve the page on http://127.0.0.1:PORT/ until Ctrl-C instead
  std::optional<int> port;
};

int runScenarios();
/// `subsim solvers [NAME]`: every solver (or the one named) with its options.
int runSolvers(const std::optional<std::string>& name);
int runSimulation(const RunOptions& options);
int runBench(const BenchOptions& options);
/// `subsim seal FILE...`: the checksum that subsim's HDF5 readers verify (io/file_seal.hpp).
int runSeal(const std::vector<std::string>& files);
int runSolve(const SolveOptions& options);
int runExportFclib(const ExportFclibOptions& options);
/// `subsim replay FILE.h5`: a recording's summary and per-step table.
int runReplay(const ReplayOptions& options);
/// `subsim plot FILE --kind KIND`: a recording's or a convergence CSV's PNG.
int runPlot(const PlotOptions& options);
/// `subsim view FILE.h5`: the recording as a self-contained HTML page.
int runView(const ViewOptions& options);
/// The page `subsim view` writes: --output, else the recording's name with .html.
std::string viewOutputOf(const ViewOptions& options);
/// Reads `recording` and writes its page to `page`; errors go to `err`; an exit code.
int writeViewerPage(const std::string& recording, const std::string& page, std::ostream& err);
/// `bench --scaling` once its options are checked (scaling_bench.cpp).
int runScalingBench(const BenchOptions& options, int iterations);
/// `bench --paper schur` once its options are checked (schur_paper_bench.cpp).
int runSchurPaperBench(const BenchOptions& options);
/// `bench --front`'s CSV: PREFIX.csv (--output PREFIX, default front).
std::string frontCsvPath(const BenchOptions& options);
/// `bench --front`'s markdown on stdout, its CSV into `csv` (open on frontCsvPath) and
/// PREFIX.png, from the finished matrix (front_bench.cpp).
int reportFront(const BenchOptions& options, const bench::Report& report, std::ofstream& csv);
/// `bench --budget` once its options are checked (budget_bench.cpp).
int runBudgetBench(const BenchOptions& options);
/// `bench --paper cond` once its options are checked (cond_paper_bench.cpp).
int runCondPaperBench(const BenchOptions& options);
/// The default reference iteration count of `bench --problems` and `--convergence`.
constexpr int kDefaultReferenceIterations = 100;

}  // namespace subsim::cli
