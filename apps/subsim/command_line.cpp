// subsim's command line read into options (command_line.hpp); main.cpp runs them.
#include "command_line.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace subsim::cli {

namespace {

// CLI11's own range checks print a double's bounds with 300 digits and call a word that is not a
// number "not in range"; these say what is expected and echo what was given.

CLI::Validator wholeNumber(long long lowest, long long highest) {
  return CLI::Validator(
      [lowest, highest](std::string& text) -> std::string {
        long long value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (text.empty() || ec != std::errc() || ptr != end || value < lowest || value > highest)
          return "expected a whole number from " + std::to_string(lowest) + " to " +
                 std::to_string(highest) + ", got '" + text + "'";
        return {};
      },
      "N");
}

/// A finite number for which `ok` holds; `expected` describes it ("a positive time step in s").
CLI::Validator finiteNumber(std::function<bool(double)> ok, const std::string& expected,
                            const std::string& type) {
  return CLI::Validator(
      [ok, expected](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end == text.c_str() || *end != '\0' || !std::isfinite(value) ||
            !ok(value))
          return "expected " + expected + ", got '" + text + "'";
        return {};
      },
      type);
}

/// One of `names` (CLI::IsMember prints "x not in {a,b}").
CLI::Validator oneOf(std::vector<std::string> names) {
  std::string expected;
  for (size_t i = 0; i < names.size(); ++i)
    expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return CLI::Validator(
      [names, expected](std::string& text) -> std::string {
        for (const std::string& n : names)
          if (text == n) return {};
        return "expected " + expected + ", got '" + text + "'";
      },
      "NAME");
}

/// Checks what CLI11 would otherwise report as "A subcommand is required" (even for a misspelt
/// command); prints the error and returns false.
bool knownCommand(int argc, const char* const* argv, std::ostream& err) {
  const char* commands =
      "run, bench, solve, export-fclib, replay, plot, view, scenarios, solvers or seal (subsim "
      "--help lists them)";
  if (argc < 2) {
    err << "subsim: expected a command: " << commands << "\n";
    return false;
  }
  const std::string first = argv[1];
  for (const char* known : {"run", "bench", "solve", "export-fclib", "replay", "plot", "view",
                            "scenarios", "solvers", "seal", "-h", "--help", "--help-all"})
    if (first == known) return true;
  err << "subsim: " << (first.rfind('-', 0) == 0 ? "unknown option '" : "unknown command '")
      << first << "': expected a command first: " << commands << "\n";
  return false;
}

constexpr const char* kPlotKinds = "convergence, penetration, energy, joint-error or contacts";

/// `subsim replay` and `subsim plot` (replay_command.cpp, plot_command.cpp).
void addReplayAndPlot(CLI::App& app, CommandLine& line) {
  CLI::App* replay = app.add_subcommand(
      "replay", "print a recording's summary and per-step statistics (subsim run --record)");
  replay->add_option("recording", line.replay.file, "the recording (FILE.h5)")->required();
  replay->add_option("--format", line.replay.format, "table format")
      ->check(oneOf({"markdown", "csv", "json"}))
      ->capture_default_str();
  replay->add_option("--steps", line.replay.steps,
                     "FIRST:LAST: only these steps, numbered from 1, both included (default: all)");

  CLI::App* plot = app.add_subcommand(
      "plot",
      "draw a recording's per-step figures, or a convergence CSV (subsim solve --history, "
      "subsim bench --convergence), as a PNG with matplotlib");
  plot->add_option("input", line.plot.file, "a recording (FILE.h5) or a convergence CSV (FILE.csv)")
      ->required();
  plot->add_option("--kind", line.plot.kind,
                   "what to draw: convergence (a CSV's residual per iteration, or a recording's "
                   "per-step residual and AA), penetration, energy, joint-error or contacts "
                   "(recordings)")
      ->required()
      ->check(oneOf({"convergence", "penetration", "energy", "joint-error", "contacts"}));
  plot->add_option("--output", line.plot.output,
                   "the PNG to write (default: the input's name with _KIND.png for its extension)");

  CLI::App* view = app.add_subcommand(
      "view",
      "write a recording (subsim run --record) as one self-contained HTML page that plays it: "
      "bodies, FEM surfaces, contact impulses, a timeline and the per-step figures");
  view->add_option("recording", line.view.file, "the recording (FILE.h5)")->required();
  view->add_option("--output", line.view.output,
                   "the page to write (default: the recording's name with .html)");
  CLI::Option* view_serve =
      view->add_flag("--serve", line.view.serve,
                     "serve the page on http://127.0.0.1:PORT/ until Ctrl-C instead of writing it");
  view->add_option(
          "--port", line.view.port,
          "--serve's port (default " + std::to_string(kDefaultServePort) + "; 0: any free one)")
      ->check(wholeNumber(0, 65535))
      ->needs(view_serve);
  view_serve->excludes("--output");
}

}  // namespace

ParsedCommandLine parseCommandLine(int argc, const char* const* argv, std::ostream& out,
                                   std::ostream& err) {
  ParsedCommandLine parsed;
  parsed.exit_code = kExitBadInput;
  if (!knownCommand(argc, argv, err)) return parsed;
  CLI::App app{"subsim: contact-rich multibody simulation with subsystem-based ADMM"};
  app.require_subcommand(1);

  app.add_subcommand("scenarios", "list the built-in scenes");
  CommandLine line;
  app.add_subcommand("solvers",
                     "list the solvers: kind, formulation, what each is and its options "
                     "(--solver-option NAME=VALUE, a scene's solver.options)")
      ->add_option("name", line.solver, "list only this solver");

  CLI::App* seal_cmd = app.add_subcommand(
      "seal",
      "write the checksum that subsim's readers verify onto HDF5 files you changed on purpose "
      "(docs/problem-format.md, \"Seal\")");
  seal_cmd->add_option("files", line.seal_files, "problem files or recordings (.h5)")->required();

  RunOptions& run = line.run;
  CLI::App* run_cmd = app.add_subcommand("run", "simulate a scene and report its figures");
  run_cmd
      ->add_option("scene", run.scene,
                   "scene file (.yaml) or built-in scene with parameters, e.g. "
                   "granular:spheres=1000,mu=0.3")
      ->required();
  run_cmd->add_option("--solver", run.solver,
                      "solver name (default: the scene file's solver.name, else subadmm)");
  run_cmd
      ->add_option("--iterations", run.iterations,
                   "iteration cap (default: the scene's, e.g. 300 for beam, else 60)")
      ->check(wholeNumber(0, 100000000));
  run_cmd
      ->add_option("--tolerance", run.tolerance, "stopping residual; 0 runs exactly --iterations")
      ->check(finiteNumber([](double v) { return v >= 0.0; },
                           "a residual >= 0 (e.g. 1e-6; 0 runs exactly --iterations)", "TOL"));
  run_cmd->add_option("--steps", run.steps, "number of steps (default: the scene's)")
      ->check(wholeNumber(0, 100000000));
  run_cmd->add_option("--dt", run.dt, "time step in s (default: the scene's)")
      ->check(finiteNumber([](double v) { return v > 0.0; },
                           "a positive time step in s (e.g. 0.01)", "SECONDS"));
  run_cmd->add_option("--threads", run.threads, "OpenMP threads for the solver")
      ->check(wholeNumber(1, 1024))
      ->capture_default_str();
  run_cmd
      ->add_option("--solver-option", run.solver_options,
                   "set an option of the solver, NAME=VALUE (repeatable; subsim solvers NAME "
                   "lists them), overriding the scene file's")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  run_cmd
      ->add_option("--beta-scale", run.beta_scale,
                   "ADMM: factor on the initial penalty rule (default 1, the measured default; "
                   "--solver-option beta_scale=X)")
      ->check(
          finiteNumber([](double v) { return v > 0.0; }, "a positive factor (e.g. 1)", "FACTOR"));
  run_cmd
      ->add_option("--relaxation", run.relaxation,
                   "ADMM over-relaxation in (0, 2) (default 1.5; 1 = plain; --solver-option "
                   "relaxation=X)")
      ->check(finiteNumber([](double v) { return v >= 1e-6 && v <= 2.0 - 1e-6; },
                           "a number strictly between 0 and 2 (e.g. 1.5)", "FACTOR"));
  run_cmd
      ->add_option("--anderson", run.anderson,
                   "SubADMM: Anderson acceleration window 1..8 (default 0: off; not in the papers; "
                   "--solver-option anderson_window=N)")
      ->check(wholeNumber(0, 8));
  run_cmd->add_flag("--fixed-beta", run.fixed_beta,
                    "ADMM: keep the penalty fixed (no residual balancing; --solver-option "
                    "adaptive_beta=false)");
  run_cmd
      ->add_option("--subadmm-factorization", run.subadmm_factorization,
                   "SubADMM: robots' subsystem matrices in the per-body form (AL paper eq. 40, "
                   "branch-sparse LTDL; the default) or dense (Cholesky; --solver-option "
                   "factorization=dense)")
      ->check(oneOf({"per-body", "dense"}));
  run_cmd->add_flag("--fixed-threads", run.fixed_threads,
                    "solve every step on --threads threads (for timing them); by default a run "
                    "given 2 or more checks, 50 steps in and then at doubling intervals, whether "
                    "1 thread is faster (another busy process on the cores) and uses it while it "
                    "is");
  run_cmd->add_option("--record", run.record, "write poses, contacts and statistics to FILE.h5");
  run_cmd->add_option("--view", run.view,
                      "write the run's page (subsim view) to PAGE.html at the end; recorded to "
                      "PAGE.h5 unless --record names the recording");
  CLI::Option* run_serve = run_cmd->add_flag(
      "--serve", run.serve,
      "show the run live in a browser: its page on http://127.0.0.1:PORT/ while it runs, and "
      "after it until Ctrl-C");
  run_cmd
      ->add_option(
          "--port", run.port,
          "--serve's port (default " + std::to_string(kDefaultServePort) + "; 0: any free one)")
      ->check(wholeNumber(0, 65535))
      ->needs(run_serve);
  run_cmd->add_flag("--json", run.json, "print one JSON object with the run's figures on stdout");

  BenchOptions& bench = line.bench;
  CLI::App* bench_cmd = app.add_subcommand(
      "bench",
      "compare solvers: a table of scenes x solvers x iteration counts (AT ms, AA), or with "
      "--convergence one step's residual per iteration");
  bench_cmd->add_option("scenes", bench.scenes,
                        "scene files or built-in scenes with parameters (none with --scaling)");
  bench_cmd->add_option("--solvers", bench.solvers,
                        "comma-separated solver names (default: every solver)");
  bench_cmd->add_option("--iterations", bench.iterations,
                        "comma-separated iteration counts (default 30,60,90; Newton-type solvers "
                        "run a tenth); --convergence: one count (default 100)");
  bench_cmd->add_option("--steps", bench.steps, "steps per run (default: each scene's)")
      ->check(wholeNumber(1, 100000000));
  bench_cmd->add_option("--threads", bench.threads, "OpenMP threads for the solvers")
      ->check(wholeNumber(1, 1024))
      ->capture_default_str();
  bench_cmd
      ->add_option("--penetration-limit", bench.penetration_limit,
                   "a run fails above this penetration in m (default: half the smallest "
                   "dynamic shape)")
      ->check(finiteNumber([](double v) { return v > 0.0; },
                           "a positive length in metres (e.g. 0.005)", "METRES"));
  bench_cmd->add_option("--format", bench.format, "table format")
      ->check(oneOf({"markdown", "csv", "json"}))
      ->capture_default_str();
  bench_cmd->add_flag("--problems", bench.problems,
                      "record each step's problem once (reference solver), then time every "
                      "solver on the identical problems");
  bench_cmd
      ->add_option("--reference-solver", bench.reference_solver,
                   "solver of the run that records the problems (--problems, --convergence)")
      ->capture_default_str();
  bench_cmd
      ->add_option("--reference-iterations", bench.reference_iterations,
                   "its iteration count (default 100; --paper-table 300)")
      ->check(wholeNumber(1, 100000000));
  bench_cmd->add_option("--output", bench.output,
                        "write the table to FILE instead of stdout; --convergence: the prefix "
                        "of PREFIX.csv and PREFIX.png (default convergence)");
  bench_cmd->add_flag("--convergence", bench.convergence,
                      "single-step convergence study: residual and time per iteration, per "
                      "solver, as CSV and PNG");
  bench_cmd
      ->add_option("--step", bench.step,
                   "--convergence: the step whose problem is studied (default: the middle "
                   "of the run)")
      ->check(wholeNumber(1, 100000000));
  bench_cmd
      ->add_option("--newton-iterations", bench.newton_iterations,
                   "--convergence: iterations of Newton-type solvers (default: --iterations / 10)")
      ->check(wholeNumber(1, 100000000));
  bench_cmd->add_flag("--cold", bench.cold,
                      "--convergence: start every solver from zero impulses instead of the "
                      "reference run's warm start (the RPI simulator paper's studies)");
  bench_cmd->add_flag("--no-plot", bench.no_plot,
                      "--convergence, --scaling: write only PREFIX.csv (no python3/matplotlib "
                      "needed)");
  bench_cmd->add_flag("--scaling", bench.scaling,
                      "SubADMM's solver time against the number of spheres in stir (216 .. 3000) "
                      "and of cable segments (160 .. 2560), with a linear fit and R^2, as a "
                      "table, PREFIX.csv and PREFIX.png (default prefix scaling; --iterations "
                      "one count, default 60; --steps per point, default 100)");
  bench_cmd
      ->add_option("--replay", bench.replay,
                   "--problems: solve this many of the recorded problems, evenly spaced over the "
                   "run (default: all; --paper-table 50); --convergence: study this many evenly "
                   "spaced steps instead of one --step (the RPI paper's 50 samples)")
      ->check(wholeNumber(1, 100000000));
  bench_cmd->add_flag("--paper-table", bench.paper_table,
                      "the SubADMM ICRA paper's Table I: stir, cable and beam x PGS-CG, PJ, "
                      "FADMM, NNewton (3/6/9) and SubADMM (30/60/90) on 50 recorded problems per "
                      "scene, with the paper's figures beside ours (--solvers narrows it; "
                      "--steps, --replay, --threads, --reference-iterations, --format, --output)");
  bench_cmd->add_flag("--front", bench.front,
                      "the accuracy-time front: per solver, AA against solve time over an "
                      "iteration sweep (default 5..320) on identical recorded problems, at 1 and "
                      "--threads threads (default 2), as a table, PREFIX.csv and PREFIX.png "
                      "(default prefix front; --solvers default subadmm,pgs-cg; --replay default "
                      "30; --reference-iterations default 300)");
  bench_cmd
      ->add_option("--budget", bench.budget,
                   "every solver under one solve time per step (ms): the iterations that fit it "
                   "on this machine, fitted from two short probe runs, then the whole scene at "
                   "that count: which complete, how deep they penetrate (--solvers, --steps, "
                   "--threads, --penetration-limit, --solver-option, --output)")
      ->check(finiteNumber([](double v) { return v > 0.0; }, "a positive time in ms", "MS"));
  bench_cmd
      ->add_option("--paper", bench.paper,
                   "a paper's tables on its scenes: schur (Peiret et al. 2019: partitions, solve "
                   "time and speed-up against whole-system BPP, the n_max sweep; --steps default "
                   "120) or cond (Lee et al. 2023: the virtual-node box test, the soft ball's "
                   "table, the stiffness sweep, the Chebyshev ablation; --steps default 30); "
                   "--solvers, --threads, --format markdown|csv, --output")
      ->check(oneOf({"schur", "cond"}));
  bench_cmd
      ->add_option("--solver-option", bench.solver_options,
                   "NAME=VALUE: set an option of every compared solver that has it, or "
                   "SOLVER.NAME=VALUE of one (repeatable; the reference run keeps its defaults)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  bench_cmd->add_option("--save-problems", bench.save_problems,
                        "--problems: also write the recorded problems and warm starts to FILE.h5 "
                        "(a FILE.h5 given in place of a scene is solved instead of simulating)");

  SolveOptions& solve = line.solve;
  CLI::App* solve_cmd = app.add_subcommand(
      "solve",
      "re-solve every problem of subsim problem files or FCLib files with every compatible "
      "solver: iterations, time, status and the common errors (natural-map, AL residual)");
  solve_cmd->add_option("files", solve.files, "problem files (.h5) or FCLib files (.hdf5)")
      ->required();
  solve_cmd->add_option("--solvers,--solver", solve.solvers,
                        "comma-separated solver names (default: every solver that takes the "
                        "problems; local FCLib problems: the dual ones)");
  solve_cmd
      ->add_option("--iterations", solve.iterations,
                   "iteration cap of first-order solvers (default 1000)")
      ->check(wholeNumber(0, 100000000));
  solve_cmd
      ->add_option("--newton-iterations", solve.newton_iterations,
                   "iteration cap of Newton-type solvers (default: --iterations / 10)")
      ->check(wholeNumber(0, 100000000));
  solve_cmd
      ->add_option("--tolerance", solve.tolerance,
                   "stop when the judge (natural-map error with contacts, else the AL residual) "
                   "is at or below this; 0 runs exactly the cap in one uninterrupted solve")
      ->check(finiteNumber([](double v) { return v >= 0.0; }, "an error >= 0 (e.g. 1e-8)", "TOL"))
      ->capture_default_str();
  solve_cmd
      ->add_option("--check-every", solve.check_every,
                   "the step of the iteration counts tried against the tolerance (default 10, "
                   "Newton-type 1)")
      ->check(wholeNumber(1, 100000000));
  solve_cmd
      ->add_option("--time-limit", solve.time_limit,
                   "give up on a problem once one solve takes this many seconds")
      ->check(finiteNumber([](double v) { return v > 0.0; }, "a positive time in s (e.g. 10)",
                           "SECONDS"));
  solve_cmd->add_option("--problems", solve.problems,
                        "FIRST:LAST, the problems to solve, numbered from 1 over all files "
                        "(FIRST:, :LAST and a single number too)");
  solve_cmd->add_option("--start", solve.start, "the stored warm start, or zero")
      ->check(oneOf({"stored", "zero"}))
      ->capture_default_str();
  solve_cmd->add_option("--threads", solve.threads, "OpenMP threads for the solvers")
      ->check(wholeNumber(1, 1024))
      ->capture_default_str();
  solve_cmd->add_option("--format", solve.format, "table format")
      ->check(oneOf({"markdown", "csv", "json"}))
      ->capture_default_str();
  solve_cmd->add_option("--output", solve.output, "write the table to FILE instead of stdout");
  solve_cmd->add_option("--history", solve.history,
                        "write every iteration's own residual and every check's judge to "
                        "FILE.csv (subsim plot FILE.csv --kind convergence draws it)");
  solve_cmd
      ->add_option("--solver-option", solve.solver_options,
                   "NAME=VALUE: set an option of every solver that has it, or "
                   "SOLVER.NAME=VALUE of one (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);

  ExportFclibOptions& exp = line.export_fclib;
  CLI::App* export_cmd = app.add_subcommand(
      "export-fclib",
      "write the problems of a subsim problem file as FCLib files (one per problem, global form "
      "by default), with the stored warm start as FCLib's guess and the stored solution");
  export_cmd->add_option("file", exp.file, "a subsim problem file (.h5)")->required();
  export_cmd->add_option("directory", exp.directory, "where to write NAME-NNNNNN.hdf5")->required();
  export_cmd->add_flag("--local", exp.local,
                       "the local form (W, q, mu; equality rows in V, R) instead of the global "
                       "form (M, H, G, f, w, b, mu)");
  export_cmd->add_option("--problems", exp.problems, "FIRST:LAST, the problems to export (from 1)");
  export_cmd->add_option("--encoding", exp.encoding, "how the matrices are stored")
      ->check(oneOf({"csc", "csr", "triplet"}))
      ->capture_default_str();

  addReplayAndPlot(app, line);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    parsed.exit_code = app.exit(e, out, err);
    return parsed;
  } catch (const CLI::CallForAllHelp& e) {
    parsed.exit_code = app.exit(e, out, err);
    return parsed;
  } catch (const CLI::RequiredError& e) {
    // CLI11 says "scene is required" and "files is required".
    const std::string what = e.what();
    if (what == "scene is required")
      err << "subsim: run: expected a scene: a scene file (.yaml) or a built-in scene such as "
             "granular (subsim scenarios lists them)\n";
    else if (what == "files is required" && std::string(argv[1]) == "solve")
      err << "subsim: solve: expected one or more problem files (.h5) or FCLib files (.hdf5)\n";
    else if (what == "files is required")
      err << "subsim: seal: expected one or more HDF5 files (problem files or recordings)\n";
    else if (what == "file is required" || what == "directory is required")
      err << "subsim: export-fclib: expected a problem file and a directory: subsim export-fclib "
             "PROBLEMS.h5 DIR\n";
    else if (what == "recording is required")
      err << "subsim: " << argv[1]
          << ": expected a recording (FILE.h5, written by subsim run --record)\n";
    else if (what == "input is required")
      err << "subsim: plot: expected a recording (FILE.h5) or a convergence CSV (FILE.csv)\n";
    else if (what == "--kind is required")
      err << "subsim: plot: expected --kind " << kPlotKinds << "\n";
    else
      err << "subsim: " << what << "\n";
    return parsed;
  } catch (const CLI::ArgumentMismatch& e) {
    // CLI11 says "--steps: 1 required INT:INT in [0 - 100000000] missing".
    const std::string what = e.what();
    const std::size_t colon = what.find(':');
    if (what.size() > 8 && what.compare(what.size() - 8, 8, " missing") == 0 &&
        colon != std::string::npos)
      err << "subsim: " << what.substr(0, colon) << ": expected a value after "
          << what.substr(0, colon) << ", got none\n";
    else
      err << "subsim: " << what << "\n";
    return parsed;
  } catch (const CLI::ParseError& e) {
    err << "subsim: " << e.what() << "\n";
    return parsed;
  }
  line.bench.threads_given = bench_cmd->count("--threads") > 0;
  line.command = app.got_subcommand("scenarios")      ? CommandLine::Command::Scenarios
                 : app.got_subcommand("solvers")      ? CommandLine::Command::Solvers
                 : app.got_subcommand("seal")         ? CommandLine::Command::Seal
                 : app.got_subcommand("bench")        ? CommandLine::Command::Bench
                 : app.got_subcommand("solve")        ? CommandLine::Command::Solve
                 : app.got_subcommand("export-fclib") ? CommandLine::Command::ExportFclib
                 : app.got_subcommand("replay")       ? CommandLine::Command::Replay
                 : app.got_subcommand("plot")         ? CommandLine::Command::Plot
                 : app.got_subcommand("view")         ? CommandLine::Command::View
                                                      : CommandLine::Command::Run;
  parsed.command_line = std::move(line);
  parsed.exit_code = kExitOk;
  return parsed;
}

}  // namespace subsim::cli
