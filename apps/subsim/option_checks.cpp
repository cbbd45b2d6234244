#include "option_checks.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <memory>
#include <sstream>
#include <system_error>

#include "scene_loading.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"

namespace subsim::cli {

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) items.push_back(trim(item));
  if (!text.empty() && text.back() == ',') items.emplace_back();  // getline drops a trailing one
  return items;
}

/// The solvers of the paper's Table I, in its column order (PGS there is the accelerated one).
constexpr const char* kPaperTableSolvers = "pgs-cg,pj,fadmm,nnewton,subadmm";
constexpr int kPaperTableReplay = 50;
// A well-converged reference trajectory (SubADMM at 300 iterations; the beam needed them until
// its node copies were unified, docs/deformables.md); one count for all three scenes.
constexpr int kPaperTableReferenceIterations = 300;
// --front's defaults: the comparison (SubADMM against the accelerated PGS), a doubling
// sweep wide enough to reach both ends of the front, and a sample that keeps a scene's 2 x 7 x 2
// cells to a minute or two here; the reference as --paper-table's.
constexpr const char* kFrontSolvers = "subadmm,pgs-cg";
constexpr const char* kFrontIterations = "5,10,20,40,80,160,320";
constexpr int kFrontReplay = 30;

void checkScaling(const BenchOptions& o) {
  if (!o.scenes.empty())
    throw OptionError(
        "--scaling runs its own sweeps (stir spheres, cable segments): give no scenes");
  if (o.solvers || o.problems || o.convergence || o.step || o.newton_iterations || o.cold ||
      !o.save_problems.empty() || o.paper_table || o.replay || !o.solver_options.empty() || o.front)
    throw OptionError(
        "--scaling measures SubADMM alone: it takes --iterations, --steps, --threads, --output "
        "and --no-plot only");
  singleIterationCount(o.iterations, "--scaling", 60, 60);
}

void checkPaperTable(const BenchOptions& o) {
  if (!o.scenes.empty())
    throw OptionError("--paper-table runs the paper's scenes (stir, cable, beam): give no scenes");
  if (o.iterations || o.convergence || o.scaling || o.step || o.newton_iterations || o.no_plot ||
      o.cold || o.penetration_limit || !o.save_problems.empty() || !o.solver_options.empty() ||
      o.front)
    throw OptionError(
        "--paper-table fixes the scenes, the levels 30/60/90 and the replay mode: it takes "
        "--solvers, --steps, --replay, --threads, --reference-solver, --reference-iterations, "
        "--format and --output only");
}

void checkFront(const BenchOptions& o) {
  if (o.convergence || o.scaling || o.paper_table || o.step || o.newton_iterations || o.cold)
    throw OptionError(
        "--front sweeps iterations on recorded problems: it takes scenes or problem files, "
        "--solvers, --iterations, --steps, --threads, --replay, --reference-solver, "
        "--reference-iterations, --solver-option, --penetration-limit, --save-problems, --output "
        "and --no-plot only");
  if (o.format != "markdown")
    throw OptionError(
        "--front prints markdown and writes PREFIX.csv (--output PREFIX): drop "
        "--format");
}

void checkBudget(const BenchOptions& o) {
  if (o.iterations || o.problems || o.convergence || o.scaling || o.paper_table || o.step ||
      o.newton_iterations || o.no_plot || o.cold || !o.save_problems.empty() || o.replay ||
      o.reference_iterations || o.reference_solver != "subadmm" || o.front || o.paper)
    throw OptionError(
        "--budget runs each scene live at the iterations that fit the budget: it takes scenes, "
        "--solvers, --steps, --threads, --penetration-limit, --solver-option and --output only");
  if (o.format != "markdown") throw OptionError("--budget prints markdown: drop --format");
  if (o.scenes.empty()) throw OptionError("--budget: give one or more scenes");
  for (const std::string& spec : o.scenes) {
    if (isProblemFile(spec))
      throw OptionError(spec + ": --budget runs scenes live, not problem files");
    try {
      checkSceneSpec(spec);
    } catch (const std::exception& e) {
      throw OptionError(spec + ": " + e.what());
    }
  }
  benchSolverOptions(o, parseSolverList(o.solvers));
}

/// The scene table and the convergence study.
void checkMatrix(const BenchOptions& o) {
  if (o.scenes.empty()) throw OptionError("bench: give one or more scenes (or --scaling)");
  benchSolverOptions(o, parseSolverList(o.solvers));
  if (!isKnownSolver(o.reference_solver))
    throw OptionError("--reference-solver: unknown solver '" + o.reference_solver +
                      "' (known: " + solverNameList() + ")");
  if (!o.convergence && (o.step || o.newton_iterations || (o.no_plot && !o.front) || o.cold))
    throw OptionError(std::string(o.step                ? "--step"
                                  : o.newton_iterations ? "--newton-iterations"
                                  : o.cold              ? "--cold"
                                                        : "--no-plot") +
                      " applies only with --convergence" +
                      (o.no_plot ? ", --front or --scaling" : ""));
  if (o.convergence && o.scenes.size() != 1)
    throw OptionError("--convergence studies one scene, got " + std::to_string(o.scenes.size()));
  if (o.replay && !o.problems && !o.convergence)
    throw OptionError("--replay applies only with --problems or --convergence");
  if (o.replay && o.convergence && o.step)
    throw OptionError("--step and --replay both choose the steps --convergence studies: give one");
  if (!o.save_problems.empty() && (!o.problems || o.scenes.size() != 1))
    throw OptionError("--save-problems records the problems of one scene in --problems mode");
  for (const std::string& spec : o.scenes) {
    if (isProblemFile(spec)) {
      if (!o.problems && !o.convergence)
        throw OptionError(spec + ": a problem file is solved with --problems or --convergence");
      if (!o.save_problems.empty())
        throw OptionError("--save-problems needs a scene, not a problem file");
      continue;
    }
    try {
      checkSceneSpec(spec);
    } catch (const std::exception& e) {
      throw OptionError(spec + ": " + e.what());
    }
  }
  if (o.convergence)
    singleIterationCount(o.iterations, "--convergence", 100, 100);
  else
    parseIterationList(o.iterations.value_or("30,60,90"));
}

}  // namespace

std::vector<int> parseIterationList(const std::string& text) {
  const std::string expected =
      "--iterations: expected a comma-separated list of positive integers (e.g. 30,60,90), got '" +
      text + "'";
  std::vector<int> out;
  for (const std::string& item : splitCommas(text)) {
    int value = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || value <= 0)
      throw OptionError(expected);
    if (std::find(out.begin(), out.end(), value) != out.end())
      throw OptionError("--iterations: " + std::to_string(value) + " is listed twice in '" + text +
                        "'");
    out.push_back(value);
  }
  if (out.empty()) throw OptionError(expected);
  return out;
}

int singleIterationCount(const std::optional<std::string>& text, const char* mode, int example,
                         int fallback) {
  if (!text) return fallback;
  const std::vector<int> list = parseIterationList(*text);
  if (list.size() != 1)
    throw OptionError(std::string("--iterations: ") + mode +
                      " takes a single iteration count (e.g. " + std::to_string(example) +
                      "), got '" + *text + "'");
  return list.front();
}

bool isKnownSolver(const std::string& name) {
  const std::vector<std::string> names = solverNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> parseSolverList(const std::optional<std::string>& text) {
  if (!text) return solverNames();
  const std::string expected =
      "--solvers: expected a comma-separated list of solver names (known: " + solverNameList() +
      "), got '" + *text + "'";
  std::vector<std::string> out;
  for (const std::string& item : splitCommas(*text)) {
    if (item.empty()) throw OptionError(expected);
    if (!isKnownSolver(item))
      throw OptionError("--solvers: unknown solver '" + item + "' (known: " + solverNameList() +
                        ")");
    if (std::find(out.begin(), out.end(), item) != out.end())
      throw OptionError("--solvers: '" + item + "' is listed twice");
    out.push_back(item);
  }
  if (out.empty()) throw OptionError(expected);
  return out;
}

bool isProblemFile(const std::string& spec) {
  return std::filesystem::path(spec).extension() == ".h5";
}

BenchOptions paperTableOptions(const BenchOptions& o) {
  BenchOptions table = o;
  table.scenes = {"stir", "cable", "beam"};
  table.solvers = o.solvers.value_or(kPaperTableSolvers);
  table.iterations = "30,60,90";
  table.problems = true;
  table.replay = o.replay.value_or(kPaperTableReplay);
  table.reference_iterations = o.reference_iterations.value_or(kPaperTableReferenceIterations);
  return table;
}

BenchOptions frontOptions(const BenchOptions& o) {
  BenchOptions front = o;
  front.solvers = o.solvers.value_or(kFrontSolvers);
  front.iterations = o.iterations.value_or(kFrontIterations);
  front.problems = true;
  front.replay = o.replay.value_or(kFrontReplay);
  front.reference_iterations = o.reference_iterations.value_or(kPaperTableReferenceIterations);
  if (!o.threads_given) front.threads = 2;
  return front;
}

std::vector<int> frontThreadCounts(const BenchOptions& o) {
  if (!o.front || o.threads == 1) return {o.threads};
  return {1, o.threads};
}

void checkRunOptions(const RunOptions& o) {
  // Before the scene, whose build can take long and would otherwise be named in the message
  // instead of the option.
  if (o.solver && !isKnownSolver(*o.solver))
    throw OptionError("--solver: unknown solver '" + *o.solver + "' (known: " + solverNameList() +
                      ")");
  parseSolverOptionArgs(o.solver_options);
  if (!o.view.empty() && (o.view == o.record || std::filesystem::path(o.view).extension() == ".h5"))
    throw OptionError("--view: expected the page to write (PAGE.html), got '" + o.view +
                      "', which would overwrite the recording");
  try {
    checkSceneSpec(o.scene);
  } catch (const std::exception& e) {
    throw OptionError(e.what());
  }
  // The solver is known now unless a scene file may name it (then runSimulation checks the
  // options once the file is read).
  if (o.solver || !looksLikeFile(o.scene))
    runSolverOptions(o, o.solver.value_or(WorldSettings().solver));
}

std::vector<SolverOptionArg> parseSolverOptionArgs(const std::vector<std::string>& texts) {
  std::vector<SolverOptionArg> out;
  for (const std::string& text : texts) {
    const std::string malformed =
        "--solver-option: expected NAME=VALUE or SOLVER.NAME=VALUE (subsim solvers lists the "
        "options), got '" +
        text + "'";
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) throw OptionError(malformed);
    SolverOptionArg a;
    a.given = text;
    a.value = text.substr(eq + 1);
    const std::string key = text.substr(0, eq);
    const std::size_t dot = key.find('.');
    if (dot == std::string::npos) {
      a.name = key;
    } else {
      a.solver = key.substr(0, dot);
      a.name = key.substr(dot + 1);
      if (a.solver.empty() || a.name.empty()) throw OptionError(malformed);
      if (!isKnownSolver(a.solver))
        throw OptionError("--solver-option: unknown solver '" + a.solver + "' in '" + text +
                          "' (known: " + solverNameList() + ")");
    }
    out.push_back(std::move(a));
  }
  return out;
}

namespace {

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

/// Applies `a` to `solver` (named `name`), refusing an option already set by an earlier argument
/// (`set`: option name -> the argument that set it).
void applyOption(Solver& solver, const std::string& name, const SolverOptionArg& a,
                 std::map<std::string, const SolverOptionArg*>& set, SolverOptionValues& out) {
  if (const auto it = set.find(a.name); it != set.end())
    throw OptionError(a.option + ": option '" + a.name + "' of " + name + " is given twice ('" +
                      it->second->given + "', then '" + a.given + "')");
  try {
    solver.setOption(a.name, a.value);
  } catch (const std::invalid_argument& e) {
    throw OptionError(a.option + ": " + e.what());
  }
  set[a.name] = &a;
  out.push_back({a.name, a.value});
}

}  // namespace

SolverOptionValues runSolverOptions(const RunOptions& o, const std::string& solver) {
  std::vector<SolverOptionArg> args;
  const auto alias = [&args](const char* option, const char* name, std::string value) {
    SolverOptionArg a;
    a.name = name;
    a.option = option;
    a.given = std::string(option) + (value.empty() ? "" : " " + value);
    a.value = value.empty() ? "false" : value;  // a flag: --fixed-beta
    args.push_back(std::move(a));
  };
  if (o.beta_scale) alias("--beta-scale", "beta_scale", option_text::formatDouble(*o.beta_scale));
  if (o.relaxation) alias("--relaxation", "relaxation", option_text::formatDouble(*o.relaxation));
  if (o.fixed_beta) alias("--fixed-beta", "adaptive_beta", "");
  if (o.anderson) alias("--anderson", "anderson_window", std::to_string(*o.anderson));
  if (o.subadmm_factorization)
    alias("--subadmm-factorization", "factorization", *o.subadmm_factorization);
  for (SolverOptionArg& a : parseSolverOptionArgs(o.solver_options)) args.push_back(std::move(a));

  const std::unique_ptr<Solver> s = makeSolver(solver);
  std::map<std::string, const SolverOptionArg*> set;
  SolverOptionValues out;
  for (const SolverOptionArg& a : args) {
    if (!a.solver.empty() && a.solver != solver)
      throw OptionError(a.option + ": '" + a.given + "' is an option of " + a.solver +
                        ", but the run's solver is " + solver);
    applyOption(*s, solver, a, set, out);
  }
  return out;
}

std::map<std::string, SolverOptionValues> benchSolverOptions(
    const BenchOptions& o, const std::vector<std::string>& solvers) {
  std::map<std::string, SolverOptionValues> out;
  std::map<std::string, std::unique_ptr<Solver>> made;
  std::map<std::string, std::map<std::string, const SolverOptionArg*>> set;
  for (const std::string& name : solvers) out[name];
  const std::vector<SolverOptionArg> args = parseSolverOptionArgs(o.solver_options);
  for (const SolverOptionArg& a : args) {
    std::vector<std::string> targets;
    if (!a.solver.empty()) {
      if (std::find(solvers.begin(), solvers.end(), a.solver) == solvers.end())
        throw OptionError("--solver-option: '" + a.given + "' is an option of " + a.solver +
                          ", which this bench does not compare (solvers: " + joinNames(solvers) +
                          ")");
      targets.push_back(a.solver);
    } else {
      for (const std::string& name : solvers) {
        const SolverEntry* e = findSolver(name);
        for (const OptionInfo& info : e->options)
          if (info.name == a.name) targets.push_back(name);
      }
      if (targets.empty())
        throw OptionError("--solver-option: no compared solver has an option '" + a.name +
                          "' (solvers: " + joinNames(solvers) + "; subsim solvers lists them)");
    }
    for (const std::string& name : targets) {
      std::unique_ptr<Solver>& s = made[name];
      if (!s) s = makeSolver(name);
      applyOption(*s, name, a, set[name], out[name]);
    }
  }
  return out;
}

void checkSolversCommand(const std::optional<std::string>& name) {
  if (name && !isKnownSolver(*name))
    throw OptionError("solvers: unknown solver '" + *name + "' (known: " + solverNameList() + ")");
}

void checkPaper(const BenchOptions& o) {
  if (!o.scenes.empty())
    throw OptionError("--paper " + *o.paper + " runs the paper's scenes: give no scenes");
  // COND's paper draws its scaling study (Fig. 11): --no-plot writes the CSV only.
  const bool plots = *o.paper == "cond";
  if (o.iterations || o.problems || o.convergence || o.scaling || o.paper_table || o.step ||
      o.newton_iterations || (o.no_plot && !plots) || o.cold || o.penetration_limit ||
      !o.save_problems.empty() || o.replay || o.reference_iterations || !o.solver_options.empty() ||
      o.front)
    throw OptionError("--paper " + *o.paper +
                      " fixes the scenes and each solver's settings (the paper's Table 1): it "
                      "takes --solvers, --steps, --threads, --format" +
                      (plots ? ", --output and --no-plot only" : " and --output only"));
  if (o.format == "json")
    throw OptionError("--paper " + *o.paper + ": --format is markdown or csv");
  parseSolverList(o.solvers);
}

void checkBenchOptions(const BenchOptions& o) {
  if (o.budget) return checkBudget(o);
  if (o.paper) return checkPaper(o);
  if (o.scaling) return checkScaling(o);
  if (o.paper_table) {
    checkPaperTable(o);
    return checkMatrix(paperTableOptions(o));
  }
  if (o.front) {
    checkFront(o);
    return checkMatrix(frontOptions(o));
  }
  checkMatrix(o);
}

std::pair<int, int> parseProblemRange(const std::string& text, const char* option, int count) {
  const std::string expected = std::string(option) +
                               ": expected FIRST:LAST (problems numbered from 1; FIRST: or :LAST "
                               "leave one end open, N alone is one problem), got '" +
                               text + "'";
  const auto number = [&](const std::string& part, int fallback) {
    if (part.empty()) return fallback;
    int value = 0;
    const char* end = part.data() + part.size();
    const auto [ptr, ec] = std::from_chars(part.data(), end, value);
    if (ec != std::errc() || ptr != end || value < 1) throw OptionError(expected);
    return value;
  };
  const std::size_t colon = text.find(':');
  const int last_known = count >= 0 ? count : std::numeric_limits<int>::max();
  int first = 0, last = 0;
  if (colon == std::string::npos) {
    if (text.empty()) throw OptionError(expected);
    first = last = number(text, 1);
  } else {
    first = number(text.substr(0, colon), 1);
    last = number(text.substr(colon + 1), last_known);
  }
  if (first > last) throw OptionError(expected + ": FIRST is after LAST");
  if (count >= 0 && last > count)
    throw OptionError(std::string(option) + ": " + text + " reaches problem " +
                      std::to_string(last) + ", but there are " + std::to_string(count));
  return {first - 1, last};
}

std::vector<std::string> solveSolvers(const SolveOptions& o) {
  return parseSolverList(o.solvers);
}

void checkSolveOptions(const SolveOptions& o) {
  const std::vector<std::string> solvers = solveSolvers(o);
  BenchOptions as_bench;  // the same NAME=VALUE rules as bench's
  as_bench.solver_options = o.solver_options;
  benchSolverOptions(as_bench, solvers);
  if (o.problems) parseProblemRange(*o.problems, "--problems", -1);
  if (o.check_every && o.tolerance == 0.0)
    throw OptionError("--check-every applies only with a --tolerance above 0");
}

void checkExportFclibOptions(const ExportFclibOptions& o) {
  if (o.problems) parseProblemRange(*o.problems, "--problems", -1);
}

}  // namespace subsim::cli
