// `subsim bench`: the solver comparison matrix (scenes x solvers x iteration levels) and the
// single-step convergence study (README.md, "Comparing solvers: subsim bench").

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

#include "bench_table.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "progress_line.hpp"
#include "python_plot.hpp"
#include "scene_loading.hpp"
#include "subsim/bench/convergence_study.hpp"
#include "subsim/bench/problems_cell.hpp"
#include "subsim/bench/recorded_run.hpp"
#include "subsim/bench/scene_cell.hpp"
#include "subsim/io/problem_file.hpp"
#include "subsim/math/fnv1a_hash.hpp"
#include "subsim/math/median.hpp"
#include "subsim/metrics/step_metrics.hpp"
#include "subsim/problem/problem_hash.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"
#include "table_text.hpp"

namespace subsim::cli {

namespace {

using bench::Cell;
using bench::Report;
using bench::SceneInfo;
using ::subsim::bench::benchWorldSettings;
using ::subsim::bench::RecordedRun;

struct LoadedScene {
  std::string spec;
  std::shared_ptr<const Model> model;  // shared by every World of the scene
  int default_steps = 0;
  // A problem file (`.h5`, io/problem_file.hpp) in place of a scene: its problems and warm
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
      out.recorded.solutions.push_back(std::move(r.solution));
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
  return loadSharedModel(spec, out.model, out.default_steps);
}

/// Progress on stderr, only for a person watching a terminal.
void progress(const std::string& text) {
  progressLine("bench", text);
}

// ---------------------------------------------------------------------------------------------
// Convergence study

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
    if (k < run.solutions.size()) problems[k].solution = run.solutions[k];
  }
  try {
    writeProblemFile(o.save_problems, {scene.spec, o.reference_solver, scene.model->dt}, problems);
  } catch (const std::exception& e) {
    progressDone();
    std::cerr << "subsim: --save-problems: " << e.what() << "\n";
    return false;
  }
  return true;
}

/// A step --convergence studies.
struct StudiedStep {
  int step = 0;  // 1-based
  StepProblem problem;
  StepSolution warm_start;
};

/// The steps --convergence studies: --step's one (default the middle of the run), or --replay's
/// evenly spaced ones, from the problem file or from one reference run.  Prints the error and
/// returns its exit code, or kExitOk.
int studiedSteps(const BenchOptions& o, const LoadedScene& scene, int run_steps,
                 std::vector<StudiedStep>& out) {
  const WorldSettings reference = benchWorldSettings(
      o.reference_solver, o.reference_iterations.value_or(kDefaultReferenceIterations), o.threads,
      o.penetration_limit.value_or(0.0));
  if (o.replay) {
    const std::vector<char> mask = ::subsim::bench::evenlySpaced(run_steps, *o.replay);
    if (scene.from_file) {
      for (int k = 0; k < run_steps; ++k)
        if (mask[k])
          out.push_back({k + 1, scene.recorded.problems[k], scene.recorded.warm_starts[k]});
      return kExitOk;
    }
    // The reference run keeps only the sampled problems, in step order.
    ::subsim::bench::RecordedRun run = ::subsim::bench::recordProblems(
        scene.model, scene.spec, run_steps, *o.replay, reference, progress);
    progressDone();
    if (run.steps_run < run_steps) {
      std::cerr << "subsim: the reference run (" << o.reference_solver << ") ended at step "
                << run.steps_run << " of " << run_steps << ": " << run.note << "\n";
      return kExitDiverged;
    }
    std::size_t kept = 0;
    for (int k = 0; k < run_steps; ++k)
      if (mask[k]) {
        out.push_back({k + 1, std::move(run.problems[kept]), std::move(run.warm_starts[kept])});
        ++kept;
      }
    return kExitOk;
  }
  const int step = o.step.value_or(std::max(1, run_steps / 2));
  if ((o.steps || scene.from_file) && step > run_steps) {
    std::cerr << "subsim: --step: step " << step << " lies beyond "
              << (scene.from_file ? "the " + std::to_string(run_steps) + " problems of the file"
                                  : "--steps " + std::to_string(run_steps))
              << "\n";
    return kExitBadInput;
  }
  if (scene.from_file) {
    out.push_back({step, scene.recorded.problems[step - 1], scene.recorded.warm_starts[step - 1]});
    return kExitOk;
  }
  ::subsim::bench::RecordedStep recorded =
      ::subsim::bench::recordStep(scene.model, scene.spec, step, reference, progress);
  progressDone();
  if (recorded.diverged_at > 0) {
    std::cerr << "subsim: the reference run (" << o.reference_solver << ") diverged at step "
              << recorded.diverged_at << " before reaching --step " << step << ": "
              << recorded.divergence << "\n";
    return kExitDiverged;
  }
  out.push_back({step, std::move(recorded.problem), std::move(recorded.warm_start)});
  return kExitOk;
}

int runConvergence(const BenchOptions& o, const LoadedScene& scene,
                   const std::vector<std::string>& solvers) {
  const int iterations = singleIterationCount(o.iterations, "--convergence", 100, 100);
  const std::map<std::string, SolverOptionValues> options = benchSolverOptions(o, solvers);
  const int run_steps = scene.from_file ? static_cast<int>(scene.recorded.problems.size())
                                        : o.steps.value_or(scene.default_steps);
  const std::string csv_path = o.output.empty() ? "convergence.csv" : o.output + ".csv";
  const std::string png_path = o.output.empty() ? "convergence.png" : o.output + ".png";
  std::ofstream csv;
  if (!openOutput("--output", csv_path, csv)) return kExitBadInput;

  std::vector<StudiedStep> steps;
  if (const int code = studiedSteps(o, scene, run_steps, steps); code != kExitOk) return code;
  const bool sampled = o.replay.has_value();
  // A sample's step without contacts or joints has nothing to study; a single --step must have.
  std::size_t empty = 0;
  for (StudiedStep& s : steps) {
    if (o.cold) s.warm_start = StepSolution();  // a solver takes impulses of the wrong size as none
    empty += s.problem.numConstraints() == 0 ? 1 : 0;
  }
  if (!sampled && empty > 0) {
    std::cerr << "subsim: --step: step " << steps.front().step << " of " << scene.spec
              << " has no constraints to solve; choose another step\n";
    return kExitBadInput;
  }
  if (empty == steps.size()) {
    std::cerr << "subsim: --replay: none of the " << steps.size() << " steps of " << scene.spec
              << " has constraints to solve\n";
    return kExitBadInput;
  }

  ::subsim::bench::ConvergenceSettings settings;
  settings.iterations = iterations;
  settings.newton_iterations = o.newton_iterations;
  settings.threads = o.threads;
  settings.options = options;
  Fnv1a64 input;
  std::ostringstream summary;
  std::vector<std::pair<int, ::subsim::bench::ConvergenceStudy>> studies;
  for (const StudiedStep& s : steps) {
    if (s.problem.numConstraints() == 0) continue;
    input.add(problemHash(s.problem));
    input.add(solutionHash(s.warm_start));
    studies.emplace_back(s.step, ::subsim::bench::runConvergenceStudy(
                                     s.problem, s.warm_start, solvers, settings,
                                     scene.spec + ", step " + std::to_string(s.step), progress));
  }
  progressDone();

  const StepProblem& first = steps.front().problem;
  summary << "convergence: " << scene.spec;
  if (sampled)
    summary << ", " << studies.size() << " steps evenly spaced over " << run_steps
            << (empty > 0 ? " (" + std::to_string(empty) + " without constraints left out)" : "");
  else
    summary << ", step " << steps.front().step << " (" << first.numContacts() << " contacts, "
            << first.numConstraints() << " constraints, " << first.numDof() << " DOF)";
  summary << ", input hash " << hex64(input.value()) << ", threads " << o.threads
          << (o.cold ? ", cold start" : "") << "\n";
  for (std::size_t k = 0; k < solvers.size(); ++k) {
    const ::subsim::bench::ConvergenceSummary& s = studies.front().second.solvers[k];
    if (!s.stamped)
      std::cerr << "subsim: note: " << s.solver
                << " does not report its iterations (SolverSettings::on_iteration); its "
                   "cumulative_ms is each k-iteration run's own solve time\n";
    char line[320];
    if (!sampled) {
      std::snprintf(line, sizeof line, "  %-10s %4d it.  final %s %.3e (AA %.2f)  %.3f ms\n",
                    s.solver.c_str(), s.iterations, ::subsim::bench::kJudgeResidualName,
                    s.final_residual, accuracyOf(s.final_residual), s.final_ms);
    } else {
      std::vector<double> finals, ms;
      for (const auto& [step, study] : studies) {
        finals.push_back(study.solvers[k].final_residual);
        ms.push_back(study.solvers[k].final_ms);
      }
      const double worst = *std::max_element(finals.begin(), finals.end());
      std::snprintf(line, sizeof line,
                    "  %-10s %4d it.  final %s median %.3e (AA %.2f), worst %.3e  median %.3f "
                    "ms\n",
                    s.solver.c_str(), s.iterations, ::subsim::bench::kJudgeResidualName,
                    median(finals), accuracyOf(median(finals)), worst, median(ms));
    }
    summary << line;
  }

  csv << (sampled ? "step," : "") << "solver,iteration,residual_name,residual,cumulative_ms\n";
  std::size_t rows = 0;
  for (const auto& [step, study] : studies)
    for (const ::subsim::bench::ConvergenceRow& r : study.rows) {
      if (sampled) csv << step << ",";
      csv << bench::csvField(r.solver) << "," << r.iteration << ","
          << bench::csvField(r.residual_name) << "," << csvNumber(r.residual) << ","
          << csvNumber(r.cumulative_ms) << "\n";
      ++rows;
    }
  csv.close();
  if (!csv) {
    std::cerr << "subsim: --output: writing '" << csv_path << "' failed\n";
    return kExitBadInput;
  }
  std::cout << summary.str() << "wrote " << csv_path << " (" << rows << " rows)\n";
  if (o.no_plot) return kExitOk;

  const std::string title = scene.spec + (sampled ? ", " + std::to_string(studies.size()) + " steps"
                                                  : ", step " + std::to_string(steps.front().step));
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
  // --front's --output is a prefix; its CSV is opened here so that a bad path fails at once.
  const std::string output_path = o.front ? frontCsvPath(o) : o.output;
  std::ofstream file;
  if (!output_path.empty() && !openOutput("--output", output_path, file)) return kExitBadInput;
  const std::vector<int> thread_counts = frontThreadCounts(o);

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
        recorded.solutions.resize(*o.steps);
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
      info.dt = scene.model->dt;
      info.penetration_limit_from_user = o.penetration_limit.has_value();
      // World's own limit (0: its default), so that the table states the very number every
      // cell's World judges by, and the bench can tell a penetration failure by value.
      const World probe(scene.model, benchWorldSettings(o.reference_solver, 1, 1,
                                                        o.penetration_limit.value_or(0.0)));
      info.penetration_limit = probe.penetrationLimit();
      info.dof = probe.dof();
    }

    if (o.problems && !scene.from_file) {
      // --save-problems writes every step; otherwise only the replayed sample is kept.
      const int keep = o.save_problems.empty() ? o.replay.value_or(0) : 0;
      recorded = ::subsim::bench::recordProblems(
          scene.model, scene.spec, info.steps, keep,
          benchWorldSettings(o.reference_solver, report.reference_iterations, o.threads,
                             info.penetration_limit),
          progress);
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
        ::subsim::bench::keepEvenlySpaced(recorded, o.replay.value_or(0));
      info.problems_replayed = static_cast<int>(recorded.problems.size());
    }
    for (const std::string& solver : solvers)
      for (const int threads : thread_counts) {
        std::vector<int> ran;  // --front: a Newton-type solver's levels 5 and 10 are both 1 it.
        for (int level : levels) {
          const int iterations = bench::iterationsAtLevel(solver, level);
          if (o.front && std::find(ran.begin(), ran.end(), iterations) != ran.end()) continue;
          ran.push_back(iterations);
          progress(scene.spec + ": " + solver + " at " + std::to_string(iterations) +
                   " iterations" +
                   (thread_counts.size() > 1 ? ", " + std::to_string(threads) + " threads" : ""));
          Cell cell = o.problems
                          ? ::subsim::bench::runProblemsCell(scene.spec, recorded, solver, level,
                                                             threads, options.at(solver))
                          : ::subsim::bench::runSceneCell(scene.model, scene.spec, info.steps,
                                                          info.penetration_limit, solver, level,
                                                          threads, options.at(solver));
          if (o.problems) {
            if (info.input_hash.empty()) info.input_hash = cell.input_hash;
            if (cell.input_hash != info.input_hash) info.input_hashes_agree = false;
          }
          report.cells.push_back(std::move(cell));
        }
      }
    if (!info.input_hashes_agree)
      std::cerr << "subsim: warning: " << scene.spec
                << ": the solver cells did not receive identical inputs (input hashes differ)\n";
    report.scenes.push_back(std::move(info));
  }
  progressDone();
  if (o.front) return reportFront(o, report, file);

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
  if (o.budget) return runBudgetBench(o);
  if (o.paper) return *o.paper == "cond" ? runCondPaperBench(o) : runSchurPaperBench(o);
  if (o.scaling) return runScalingBench(o, singleIterationCount(o.iterations, "--scaling", 60, 60));
  if (o.paper_table) return runMatrix(paperTableOptions(o), true);
  if (o.front) return runMatrix(frontOptions(o), false);
  return runMatrix(o, false);
}

}  // namespace subsim::cli
