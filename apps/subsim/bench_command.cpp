// `subsim bench`: the solver comparison matrix (scenes x solvers x iteration levels) and the
// single-step convergence study (README.md, "Comparing solvers: subsim bench").
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

#include "bench_table.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "python_plot.hpp"
#include "scene_loading.hpp"
#include "subsim/math/fnv1a_hash.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/problem/problem_file.hpp"
#include "subsim/problem/problem_hash.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

namespace subsim::cli {

namespace {

using bench::Cell;
using bench::Report;
using bench::SceneInfo;
using Clock = std::chrono::steady_clock;

constexpr const char* kJudgeResidualName = "constraint (AL sec. 6)";

double msBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

bool badInput(const std::string& message) {
  std::cerr << "subsim: " << message << "\n";
  return false;
}

struct RecordedRun {
  std::vector<StepProblem> problems;
  std::vector<StepSolution> warm_starts;
  std::string note;   // why it ended early
  int steps_run = 0;  // steps the reference run completed (problems holds a sample of them)
};

struct LoadedScene {
  std::string spec;
  Model model;
  int default_steps = 0;
  // A problem file (`.h5`, problem/problem_file.hpp) in place of a scene: its problems and warm
  // starts are the recorded run, no simulation is involved.
  bool from_file = false;
  RecordedRun recorded;
  ProblemFileInfo file_info;
};

/// Reads a problem file into `out`; prints the error and returns false on bad input.
bool loadProblemFile(const std::string& path, LoadedScene& out) {
  out.spec = path;
  out.from_file = true;
  try {
    ProblemFile file = readProblemFile(path);
    out.file_info = file.info;
    for (RecordedProblem& r : file.problems) {
      out.recorded.problems.push_back(std::move(r.problem));
      out.recorded.warm_starts.push_back(std::move(r.warm_start));
    }
  } catch (const std::exception& e) {
    std::cerr << "subsim: " << e.what() << "\n";
    return false;
  }
  if (out.recorded.problems.empty()) {
    std::cerr << "subsim: problem file '" << path << "' holds no problems\n";
    return false;
  }
  return true;
}

/// Loads (scene_loading.hpp) and validates scene `spec`; prints the error and returns false on
/// bad input.
bool loadValidScene(const std::string& spec, LoadedScene& out) {
  out.spec = spec;
  try {
    BuiltScene scene = loadScene(spec);
    out.model = std::move(scene.model);
    out.default_steps = scene.default_steps;
    out.model.validate();
    return true;
  } catch (const std::exception& e) {
    std::cerr << "subsim: " << spec << ": " << e.what() << "\n";
    return false;
  }
}

WorldSettings worldSettings(const std::string& solver, int iterations, int threads,
                            double penetration_limit, const SolverOptionValues& options = {}) {
  WorldSettings ws;
  ws.solver = solver;
  ws.solver_options = options;
  ws.solver_settings.max_iterations = iterations;
  ws.solver_settings.tolerance = 0.0;  // equal work per cell: exactly the iteration count
  ws.solver_settings.threads = threads;
  // Handed over explicitly so the World and the bench judge against the very same number.
  ws.penetration_limit = std::isfinite(penetration_limit) ? penetration_limit : 0.0;
  return ws;
}

/// Opens an output file before the (long) runs so an unwritable path fails at once.
bool openOutput(const std::string& option, const std::string& path, std::ofstream& out) {
  out.open(path, std::ios::binary | std::ios::trunc);
  if (!out) return badInput(option + ": cannot write '" + path + "': " + std::strerror(errno));
  return true;
}

/// Order-dependent combination of the per-step input hashes of one cell.

std::string millimetres(double metres) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g mm", metres * 1e3);
  return buf;
}

/// `where`: "step" of a scene run, "problem" of a replayed sample.
void fail(Cell& cell, int step, const std::string& mark, const std::string& reason,
          const char* where = "step") {
  cell.failed = true;
  cell.failure_mark = mark;
  cell.failure_reason = std::string(where) + " " + std::to_string(step) + ": " + reason;
}

/// Sums for the cell averages.
struct Averages {
  double at = 0.0, aa = 0.0, fb = 0.0;
  int n = 0, n_aa = 0, n_fb = 0;

  void add(double solve_ms, const StepMetrics& m) {
    at += solve_ms;
    ++n;
    // Steps without constraints have nothing to judge (accuracyOf would report a perfect 16).
    if (m.constraints > 0) {
      aa += accuracyOf(m.constraint_residual);
      ++n_aa;
    }
    if (m.contacts > 0) {
      fb += accuracyOf(m.contact_fb_residual);
      ++n_fb;
    }
  }
  void into(Cell& c) const {
    c.steps_done = n;
    if (n > 0) c.at_ms = at / n;
    if (n_aa > 0) c.aa = aa / n_aa;
    if (n_fb > 0) c.aa_fb = fb / n_fb;
  }
};

bool finiteMetrics(const StepMetrics& m) {
  return std::isfinite(m.constraint_residual) && std::isfinite(m.contact_fb_residual);
}

/// Progress on stderr, only for a person watching a terminal.
void progress(const std::string& text) {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  if (tty) std::cerr << "\rbench: " << text << "\033[K" << std::flush;
}
void progressDone() {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  if (tty) std::cerr << "\r\033[K" << std::flush;
}

Cell runSceneCell(const LoadedScene& scene, int steps, double limit, const std::string& solver,
                  int level, int threads, const SolverOptionValues& options) {
  Cell cell;
  cell.scene = scene.spec;
  cell.solver = solver;
  cell.level = level;
  cell.iterations = bench::iterationsAtLevel(solver, level);
  cell.steps = steps;
  World world(scene.model, worldSettings(solver, cell.iterations, threads, limit, options));
  Averages avg;
  for (int k = 1; k <= steps; ++k) {
    StepReport r;
    try {
      r = world.step();
    } catch (const std::exception& e) {
      fail(cell, k, "diverged", std::string("the step threw: ") + e.what());
      break;
    }
    // A step that diverged before its solve (a non-finite problem) has no status to count.
    if (!r.diverged || r.solve_status == SolveStatus::FactorizationFailed)
      ++cell.solve_status[static_cast<int>(r.solve_status)];
    if (r.max_penetration > limit) {
      fail(cell, k, "pen " + millimetres(r.max_penetration),
           "penetration " + millimetres(r.max_penetration) + " exceeds the limit " +
               millimetres(limit));
      break;
    }
    if (r.diverged) {
      fail(cell, k, "diverged", r.divergence);
      break;
    }
    const StepMetrics m = evaluateStep(world.lastProblem(), world.lastSolution());
    if (!finiteMetrics(m)) {
      fail(cell, k, "diverged", "non-finite residual");
      break;
    }
    avg.add(r.solver_ms, m);
  }
  avg.into(cell);
  return cell;
}

/// A mask over n problems marking `count` evenly spaced ones: the middle of each of `count` equal
/// stretches of the run, so a sample of a 300-step run covers its whole course.  count <= 0 or
/// >= n marks every problem.
std::vector<char> evenlySpaced(size_t n, int count) {
  if (count <= 0 || static_cast<size_t>(count) >= n) return std::vector<char>(n, 1);
  std::vector<char> keep(n, 0);
  const size_t c = static_cast<size_t>(count);
  for (size_t k = 0; k < c; ++k) keep[((2 * k + 1) * n) / (2 * c)] = 1;
  return keep;
}

/// Steps the reference World `steps` times and keeps the problems (and warm starts) that
/// `evenlySpaced(steps, keep)` selects: only those are held in memory (a beam problem stores its
/// blocks densely, about 30 MB).
RecordedRun recordProblems(const LoadedScene& scene, int steps, int keep, double limit,
                           const std::string& solver, int iterations, int threads) {
  RecordedRun run;
  const std::vector<char> kept = evenlySpaced(static_cast<size_t>(steps), keep);
  World world(scene.model, worldSettings(solver, iterations, threads, limit));
  for (int k = 1; k <= steps; ++k) {
    progress(scene.spec + ": recording step " + std::to_string(k) + "/" + std::to_string(steps));
    StepReport r;
    try {
      r = world.step();
    } catch (const std::exception& e) {
      run.note = "the reference run threw at step " + std::to_string(k) + ": " + e.what();
      break;
    }
    // A diverged step's problem comes from a state no solver should be judged on.
    if (r.diverged) {
      run.note = "the reference run diverged at step " + std::to_string(k) + ": " + r.divergence;
      break;
    }
    run.steps_run = k;
    if (!kept[k - 1]) continue;
    run.problems.push_back(world.lastProblem());
    run.warm_starts.push_back(world.lastWarmStart());
  }
  return run;
}

/// Keeps `count` evenly spaced problems of a run held in full (a problem file).
void keepEvenlySpaced(RecordedRun& run, int count) {
  const std::vector<char> kept = evenlySpaced(run.problems.size(), count);
  size_t to = 0;
  for (size_t from = 0; from < kept.size(); ++from) {
    if (!kept[from]) continue;
    if (to != from) {
      run.problems[to] = std::move(run.problems[from]);
      run.warm_starts[to] = std::move(run.warm_starts[from]);
    }
    ++to;
  }
  run.problems.resize(to);
  run.warm_starts.resize(to);
}

/// A replayed solution with a velocity beyond this (m/s or rad/s) is no answer in any scene: a
/// World stops at 100 m/s (WorldSettings::max_speed); replay has no state to check, so it judges
/// the solution's own velocity with a tenfold margin.
constexpr double kReplaySpeedLimit = 1000.0;

Cell runProblemsCell(const std::string& scene, const RecordedRun& run, const std::string& solver,
                     int level, int threads, const SolverOptionValues& options) {
  Cell cell;
  cell.scene = scene;
  cell.solver = solver;
  cell.level = level;
  cell.iterations = bench::iterationsAtLevel(solver, level);
  cell.steps = static_cast<int>(run.problems.size());
  SolverSettings settings;
  settings.max_iterations = cell.iterations;
  settings.tolerance = 0.0;
  settings.threads = threads;
  // One solver object for the whole cell, as a World keeps it across steps.
  std::unique_ptr<Solver> s = makeSolver(solver, options);
  Fnv1a64 hash;
  Averages avg;
  for (size_t k = 0; k < run.problems.size(); ++k) {
    const StepProblem& problem = run.problems[k];
    StepSolution solution = run.warm_starts[k];
    // Hashed just before the solve: what the solver actually receives.
    hash.add(problemHash(problem));
    hash.add(solutionHash(solution));
    // After a failure the remaining inputs are still hashed (not solved), so the hash always
    // certifies the whole recorded input set and stays comparable between cells.
    if (cell.failed) continue;
    s->solve(problem, settings, solution);
    ++cell.solve_status[static_cast<int>(solution.stats.status)];
    const int step = static_cast<int>(k) + 1;
    if (!solution.vhat.allFinite() || !solution.lambda.allFinite()) {
      fail(cell, step, "diverged", "non-finite vhat or lambda", "problem");
      continue;
    }
    const double speed = solution.vhat.size() > 0 ? solution.vhat.cwiseAbs().maxCoeff() : 0.0;
    if (speed > kReplaySpeedLimit) {
      char what[128];
      std::snprintf(what, sizeof what, "a velocity of %.3g in the solution (limit %g)", speed,
                    kReplaySpeedLimit);
      fail(cell, step, "diverged", what, "problem");
      continue;
    }
    const StepMetrics m = evaluateStep(problem, solution);
    if (!finiteMetrics(m)) {
      fail(cell, step, "diverged", "non-finite residual", "problem");
      continue;
    }
    avg.add(solution.stats.solve_ms, m);
  }
  avg.into(cell);
  cell.input_hash = hex64(hash.value());
  return cell;
}

// ---------------------------------------------------------------------------------------------
// Convergence study

struct ConvergenceRow {
  std::string solver;
  int iteration = 0;
  std::string residual_name;
  double residual = 0.0;
  double cumulative_ms = 0.0;
};

std::string csvNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

/// Writes the recorded run to --save-problems; prints the error and returns false on failure.
bool saveProblems(const BenchOptions& o, const LoadedScene& scene, const RecordedRun& run) {
  std::vector<RecordedProblem> problems(run.problems.size());
  for (size_t k = 0; k < run.problems.size(); ++k) {
    problems[k].problem = run.problems[k];
    problems[k].warm_start = run.warm_starts[k];
  }
  try {
    writeProblemFile(o.save_problems, {scene.spec, o.reference_solver, scene.model.dt}, problems);
  } catch (const std::exception& e) {
    progressDone();
    std::cerr << "subsim: --save-problems: " << e.what() << "\n";
    return false;
  }
  return true;
}

int runConvergence(const BenchOptions& o, const LoadedScene& scene,
                   const std::vector<std::string>& solvers) {
  const int iterations = singleIterationCount(o.iterations, "--convergence", 100, 100);
  const std::map<std::string, SolverOptionValues> options = benchSolverOptions(o, solvers);
  const int run_steps = scene.from_file ? static_cast<int>(scene.recorded.problems.size())
                                        : o.steps.value_or(scene.default_steps);
  const int step = o.step.value_or(std::max(1, run_steps / 2));
  if ((o.steps || scene.from_file) && step > run_steps) {
    std::cerr << "subsim: --step: step " << step << " lies beyond "
              << (scene.from_file ? "the " + std::to_string(run_steps) + " problems of the file"
                                  : "--steps " + std::to_string(run_steps))
              << "\n";
    return kExitBadInput;
  }
  const std::string csv_path = o.output.empty() ? "convergence.csv" : o.output + ".csv";
  const std::string png_path = o.output.empty() ? "convergence.png" : o.output + ".png";
  std::ofstream csv;
  if (!openOutput("--output", csv_path, csv)) return kExitBadInput;

  StepProblem problem;
  StepSolution warm_start;
  if (scene.from_file) {
    problem = scene.recorded.problems[step - 1];
    warm_start = scene.recorded.warm_starts[step - 1];
  } else {
    World world(scene.model,
                worldSettings(o.reference_solver,
                              o.reference_iterations.value_or(kDefaultReferenceIterations),
                              o.threads, o.penetration_limit.value_or(0.0)));
    for (int k = 1; k <= step; ++k) {
      progress(scene.spec + ": reference step " + std::to_string(k) + "/" + std::to_string(step));
      const StepReport r = world.step();
      if (r.diverged) {
        progressDone();
        std::cerr << "subsim: the reference run (" << o.reference_solver << ") diverged at step "
                  << k << " before reaching --step " << step << ": " << r.divergence << "\n";
        return kExitDiverged;
      }
    }
    progressDone();
    problem = world.lastProblem();
    warm_start = world.lastWarmStart();
  }
  if (problem.numConstraints() == 0) {
    std::cerr << "subsim: --step: step " << step << " of " << scene.spec
              << " has no constraints to solve; choose another step\n";
    return kExitBadInput;
  }
  Fnv1a64 input;
  input.add(problemHash(problem));
  input.add(solutionHash(warm_start));
  const std::uint64_t input_hash = input.value();

  std::vector<ConvergenceRow> rows;
  std::ostringstream summary;
  summary << "convergence: " << scene.spec << ", step " << step << " (" << problem.numContacts()
          << " contacts, " << problem.numConstraints() << " constraints, " << problem.numDof()
          << " DOF), input hash " << hex64(input_hash) << ", threads " << o.threads << "\n";
  for (const std::string& name : solvers) {
    const int n = isNewtonTypeSolver(name)
                      ? o.newton_iterations.value_or(std::max(1, iterations / 10))
                      : iterations;
    progress(scene.spec + ": " + name);
    SolverSettings settings;
    settings.max_iterations = n;
    settings.tolerance = 0.0;
    settings.threads = o.threads;

    // The time axis comes from one n-iteration run stamped at the start of every iteration: the
    // time to finish iteration k is then monotone by construction, where the solve times of n
    // separate k-iteration runs jitter by more than an iteration costs on a small problem.
    std::vector<Clock::time_point> starts(static_cast<size_t>(n));
    int stamps = 0;
    settings.on_iteration = [&starts, &stamps, n](int l) {
      if (l >= 0 && l < n) starts[static_cast<size_t>(l)] = Clock::now();
      ++stamps;
    };
    std::vector<double> finished_ms(static_cast<size_t>(n));
    {
      std::unique_ptr<Solver> s = makeSolver(name, options.at(name));
      StepSolution solution = warm_start;
      const Clock::time_point t0 = Clock::now();
      s->solve(problem, settings, solution);
      const Clock::time_point t1 = Clock::now();
      const int done = std::min(solution.stats.iterations, n);
      for (int k = 1; k <= n; ++k)
        finished_ms[k - 1] = msBetween(t0, k < done ? starts[static_cast<size_t>(k)] : t1);
    }
    settings.on_iteration = nullptr;
    const bool stamped = stamps == n;
    if (!stamped)
      std::cerr << "subsim: note: " << name
                << " does not report its iterations (SolverSettings::on_iteration); its "
                   "cumulative_ms is each k-iteration run's own solve time\n";

    // The solver's own residual, from an n-iteration run that records it.
    DoubleBuffer history;
    const char* own_name = "";
    {
      SolverSettings recorded = settings;
      recorded.record_history = true;
      std::unique_ptr<Solver> s = makeSolver(name, options.at(name));
      StepSolution solution = warm_start;
      s->solve(problem, recorded, solution);
      history = solution.stats.residual_history;
      own_name = solution.stats.residual_name;
    }

    // The common judge after k iterations: a fresh solver from the identical input each time,
    // since the solvers expose no iterate mid-solve.
    double last_residual = 0.0;
    for (int k = 1; k <= n; ++k) {
      progress(scene.spec + ": " + name + " " + std::to_string(k) + "/" + std::to_string(n));
      SolverSettings limited = settings;
      limited.max_iterations = k;
      std::unique_ptr<Solver> s = makeSolver(name, options.at(name));
      StepSolution solution = warm_start;
      s->solve(problem, limited, solution);
      const double ms = stamped ? finished_ms[k - 1] : solution.stats.solve_ms;
      if (!stamped) finished_ms[k - 1] = ms;
      last_residual = evaluateStep(problem, solution).constraint_residual;
      rows.push_back({name, k, kJudgeResidualName, last_residual, ms});
    }
    for (size_t k = 0; k < history.size(); ++k)
      rows.push_back({name, static_cast<int>(k) + 1, own_name, history[k],
                      k < finished_ms.size() ? finished_ms[k] : finished_ms.back()});
    char line[256];
    std::snprintf(line, sizeof line, "  %-10s %4d it.  final %s %.3e (AA %.2f)  %.3f ms\n",
                  name.c_str(), n, kJudgeResidualName, last_residual, accuracyOf(last_residual),
                  finished_ms.back());
    summary << line;
  }
  progressDone();

  csv << "solver,iteration,residual_name,residual,cumulative_ms\n";
  for (const ConvergenceRow& r : rows)
    csv << bench::csvField(r.solver) << "," << r.iteration << ","
        << bench::csvField(r.residual_name) << "," << csvNumber(r.residual) << ","
        << csvNumber(r.cumulative_ms) << "\n";
  csv.close();
  if (!csv) {
    std::cerr << "subsim: --output: writing '" << csv_path << "' failed\n";
    return kExitBadInput;
  }
  std::cout << summary.str() << "wrote " << csv_path << " (" << rows.size() << " rows)\n";
  if (o.no_plot) return kExitOk;

  const std::string title = scene.spec + ", step " + std::to_string(step);
  if (!drawPlot("plot_convergence.py", csv_path, png_path, title)) return kExitBadInput;
  std::cout << "wrote " << png_path << "\n";
  return kExitOk;
}

/// The scene table and the convergence study, once checkBenchOptions passed.
int runMatrix(const BenchOptions& o, bool paper_table) {
  const std::vector<std::string> solvers = parseSolverList(o.solvers);
  std::vector<LoadedScene> scenes(o.scenes.size());
  for (size_t i = 0; i < o.scenes.size(); ++i) {
    const bool loaded = isProblemFile(o.scenes[i]) ? loadProblemFile(o.scenes[i], scenes[i])
                                                   : loadValidScene(o.scenes[i], scenes[i]);
    if (!loaded) return kExitBadInput;
  }

  if (o.convergence) return runConvergence(o, scenes.front(), solvers);

  const std::vector<int> levels = parseIterationList(o.iterations.value_or("30,60,90"));
  const std::map<std::string, SolverOptionValues> options = benchSolverOptions(o, solvers);
  std::ofstream file;
  if (!o.output.empty() && !openOutput("--output", o.output, file)) return kExitBadInput;

  Report report;
  report.problems_mode = o.problems;
  report.threads = o.threads;
  report.levels = levels;
  report.solvers = solvers;
  report.reference_solver = o.reference_solver;
  report.reference_iterations = o.reference_iterations.value_or(kDefaultReferenceIterations);
  report.paper_table = paper_table;
  report.solver_options = options;
  for (const LoadedScene& scene : scenes) {
    SceneInfo info;
    info.spec = scene.spec;
    RecordedRun recorded;
    if (scene.from_file) {
      recorded = scene.recorded;
      const int count = static_cast<int>(recorded.problems.size());
      if (o.steps && *o.steps < count) {
        recorded.problems.resize(*o.steps);
        recorded.warm_starts.resize(*o.steps);
      }
      info.steps = static_cast<int>(recorded.problems.size());
      info.problems_recorded = info.steps;
      info.dt = scene.file_info.dt;
      info.dof = recorded.problems.front().numDof();
      info.penetration_limit = std::numeric_limits<double>::infinity();
      info.reference_note = "read from the problem file (scene '" + scene.file_info.scene +
                            "', recorded with " + scene.file_info.source_solver + ")";
    } else {
      info.steps = o.steps.value_or(scene.default_steps);
      info.dt = scene.model.dt;
      info.penetration_limit_from_user = o.penetration_limit.has_value();
      // World's own limit (0: its default), so that the table states the very number every
      // cell's World judges by, and the bench can tell a penetration failure by value.
      const World probe(scene.model,
                        worldSettings(o.reference_solver, 1, 1, o.penetration_limit.value_or(0.0)));
      info.penetration_limit = probe.penetrationLimit();
      info.dof = probe.dof();
    }

    if (o.problems && !scene.from_file) {
      // --save-problems writes every step; otherwise only the replayed sample is kept.
      const int keep = o.save_problems.empty() ? o.replay.value_or(0) : 0;
      recorded = recordProblems(scene, info.steps, keep, info.penetration_limit, o.reference_solver,
                                report.reference_iterations, o.threads);
      info.problems_recorded = recorded.steps_run;
      info.reference_note = recorded.note;
      if (recorded.problems.empty()) {
        progressDone();
        std::cerr << "subsim: " << scene.spec << ": no problem recorded: " << recorded.note << "\n";
        return kExitDiverged;
      }
      if (!recorded.note.empty())
        std::cerr << "subsim: warning: " << scene.spec << ": " << recorded.note << "; using the "
                  << recorded.problems.size() << " problems kept before it\n";
      if (!o.save_problems.empty() && !saveProblems(o, scene, recorded)) return kExitBadInput;
    }
    if (o.problems) {
      // A problem file's run, or a recording held in full for --save-problems (a recording that
      // ended early keeps the sample of its planned steps that it reached).
      if (scene.from_file || !o.save_problems.empty())
        keepEvenlySpaced(recorded, o.replay.value_or(0));
      info.problems_replayed = static_cast<int>(recorded.problems.size());
    }
    for (const std::string& solver : solvers)
      for (int level : levels) {
        progress(scene.spec + ": " + solver + " at " +
                 std::to_string(bench::iterationsAtLevel(solver, level)) + " iterations");
        Cell cell = o.problems ? runProblemsCell(scene.spec, recorded, solver, level, o.threads,
                                                 options.at(solver))
                               : runSceneCell(scene, info.steps, info.penetration_limit, solver,
                                              level, o.threads, options.at(solver));
        if (o.problems) {
          if (info.input_hash.empty()) info.input_hash = cell.input_hash;
          if (cell.input_hash != info.input_hash) info.input_hashes_agree = false;
        }
        report.cells.push_back(std::move(cell));
      }
    if (!info.input_hashes_agree)
      std::cerr << "subsim: warning: " << scene.spec
                << ": the solver cells did not receive identical inputs (input hashes differ)\n";
    report.scenes.push_back(std::move(info));
  }
  progressDone();

  const std::string text = o.format == "csv"    ? bench::formatCsv(report)
                           : o.format == "json" ? bench::formatJson(report)
                                                : bench::formatMarkdown(report);
  if (o.output.empty()) {
    std::cout << text;
  } else {
    file << text;
    file.close();
    if (!file) {
      std::cerr << "subsim: --output: writing '" << o.output << "' failed\n";
      return kExitBadInput;
    }
  }
  return kExitOk;
}

}  // namespace

int runBench(const BenchOptions& o) {
  checkBenchOptions(o);  // OptionError reaches main
  if (o.scaling) return runScalingBench(o, singleIterationCount(o.iterations, "--scaling", 60, 60));
  if (o.paper_table) return runMatrix(paperTableOptions(o), true);
  return runMatrix(o, false);
}

}  // namespace subsim::cli
