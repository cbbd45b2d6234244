// `subsim solve FILE...`: stored problems (subsim problem files, FCLib files) re-solved by every
// compatible solver and judged by the common metrics (src/subsim/bench/solve_problems.hpp).
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench_table.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "progress_line.hpp"
#include "subsim/bench/solve_problems.hpp"
#include "subsim/metrics/step_metrics.hpp"

namespace subsim::cli {

namespace {

using ::subsim::bench::SolveRecord;
using ::subsim::bench::StoredProblem;

std::string number(double v, const char* format = "%.3g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string problemName(const StoredProblem& p) {
  return p.source + ":" + std::to_string(p.index_in_file);
}

bool solved(const SolveRecord& r) {
  return r.status == "converged" || r.status == "stored";
}

std::string formatMarkdown(const std::vector<SolveRecord>& rows, const std::string& heading) {
  std::ostringstream out;
  out << heading << "\n\n";
  out << "| problem | contacts | rows | solver | status | iterations | ms | natural-map error | "
         "AL residual (AA) | max abs(lambda - stored) |\n";
  out << "|---|---:|---:|---|---|---:|---:|---:|---:|---:|\n";
  for (const SolveRecord& r : rows) {
    const StepProblem& p = r.problem->problem;
    out << "| " << problemName(*r.problem) << " | " << p.numContacts() << " | " << p.numRows()
        << " | " << r.solver << " | " << r.status;
    if (r.status == "not-applicable") {
      out << " (" << r.note << ") | | | | | |\n";
      continue;
    }
    out << " | " << (r.solver == "stored" ? "" : std::to_string(r.iterations)) << " | "
        << (r.solver == "stored" ? "" : number(r.solve_ms, "%.2f")) << " | "
        << number(r.natural_map_error) << " | " << number(r.constraint_residual) << " ("
        << number(accuracyOf(r.constraint_residual), "%.2f") << ") | "
        << (r.stored_difference ? number(*r.stored_difference) : "") << " |\n";
  }
  // Per solver: how many it solved and what that cost.
  std::map<std::string, std::array<double, 4>> per;  // solved, tried, iterations, ms
  std::vector<std::string> order;
  for (const SolveRecord& r : rows) {
    if (r.solver == "stored" || r.status == "not-applicable") continue;
    if (!per.count(r.solver)) order.push_back(r.solver);
    auto& s = per[r.solver];
    s[0] += solved(r) ? 1 : 0;
    s[1] += 1;
    s[2] += r.iterations;
    s[3] += r.solve_ms;
  }
  if (!order.empty()) {
    out << "\n| solver | solved | mean iterations | total ms |\n|---|---:|---:|---:|\n";
    for (const std::string& name : order) {
      const auto& s = per[name];
      out << "| " << name << " | " << s[0] << "/" << s[1] << " | " << number(s[2] / s[1], "%.1f")
          << " | " << number(s[3], "%.1f") << " |\n";
    }
  }
  return out.str();
}

std::string formatCsv(const std::vector<SolveRecord>& rows) {
  std::ostringstream out;
  out << "file,problem,contacts,rows,solver,status,iterations,solve_ms,natural_map_error,"
         "constraint_residual,aa,stored_difference,note\n";
  for (const SolveRecord& r : rows) {
    const StepProblem& p = r.problem->problem;
    out << bench::csvField(r.problem->source) << "," << r.problem->index_in_file << ","
        << p.numContacts() << "," << p.numRows() << "," << r.solver << "," << r.status << ","
        << r.iterations << "," << number(r.solve_ms, "%.6g") << ","
        << number(r.natural_map_error, "%.10g") << "," << number(r.constraint_residual, "%.10g")
        << "," << number(accuracyOf(r.constraint_residual), "%.6g") << ","
        << (r.stored_difference ? number(*r.stored_difference, "%.10g") : "") << ","
        << bench::csvField(r.note) << "\n";
  }
  return out.str();
}

std::string formatJson(const std::vector<SolveRecord>& rows, const SolveOptions& o,
                       const ::subsim::bench::SolveSettings& s) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["files"] = o.files;
  j["tolerance"] = s.tolerance;
  j["iterations_cap"] = s.iterations;
  j["newton_iterations_cap"] = s.newton_iterations.value_or(std::max(1, s.iterations / 10));
  j["start"] = o.start;
  j["threads"] = s.threads;
  j["results"] = nlohmann::json::array();
  for (const SolveRecord& r : rows) {
    nlohmann::json row;
    row["file"] = r.problem->source;
    row["problem"] = r.problem->index_in_file;
    row["contacts"] = r.problem->problem.numContacts();
    row["rows"] = r.problem->problem.numRows();
    row["solver"] = r.solver;
    row["status"] = r.status;
    if (!r.note.empty()) row["note"] = r.note;
    if (r.status != "not-applicable") {
      row["iterations"] = r.iterations;
      row["solve_ms"] = r.solve_ms;
      row["natural_map_error"] = r.natural_map_error;
      row["constraint_residual"] = r.constraint_residual;
      if (r.stored_difference) row["stored_difference"] = *r.stored_difference;
    }
    j["results"].push_back(row);
  }
  return j.dump(2) + "\n";
}

bool writeText(const std::string& path, const std::string& text, const char* option) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) {
    std::cerr << "subsim: solve: " << option << ": cannot write '" << path
              << "': " << std::strerror(errno) << "\n";
    return false;
  }
  return true;
}

std::string historyCsv(const std::vector<SolveRecord>& rows) {
  std::ostringstream out;
  out << "solver,problem,iteration,residual_name,residual,cumulative_ms\n";
  for (const SolveRecord& r : rows)
    for (const ::subsim::bench::HistoryPoint& h : r.history)
      out << r.solver << "," << bench::csvField(problemName(*r.problem)) << "," << h.iteration
          << "," << bench::csvField(h.residual_name) << "," << number(h.residual, "%.10g") << ","
          << number(h.cumulative_ms, "%.6g") << "\n";
  return out.str();
}

void progress(const std::string& text) {
  progressLine("solve", text);
}

}  // namespace

int runSolve(const SolveOptions& o) {
  checkSolveOptions(o);  // OptionError reaches main
  std::vector<StoredProblem> problems;
  try {
    problems = ::subsim::bench::loadStoredProblems(o.files);
  } catch (const std::exception& e) {
    std::cerr << "subsim: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (o.problems) {
    const auto [first, last] =
        parseProblemRange(*o.problems, "--problems", static_cast<int>(problems.size()));
    problems.erase(problems.begin() + last, problems.end());
    problems.erase(problems.begin(), problems.begin() + first);
  }
  std::vector<std::string> solvers = solveSolvers(o);
  if (!o.solvers) {
    // Every solver that takes every problem: the dual ones when a problem is in local form.
    std::erase_if(solvers, [&](const std::string& name) {
      for (const StoredProblem& p : problems)
        if (!::subsim::bench::incompatibility(*findSolver(name), p.problem).empty()) return true;
      return false;
    });
  }
  ::subsim::bench::SolveSettings settings;
  settings.iterations = o.iterations.value_or(1000);
  settings.newton_iterations = o.newton_iterations;
  settings.tolerance = o.tolerance;
  settings.check_every = o.check_every.value_or(0);
  settings.time_limit_ms = o.time_limit ? *o.time_limit * 1000.0 : 0.0;
  settings.from_stored = o.start == "stored";
  settings.threads = o.threads;
  settings.history = !o.history.empty();
  BenchOptions as_bench;
  as_bench.solver_options = o.solver_options;
  settings.options = benchSolverOptions(as_bench, solvers);

  std::vector<SolveRecord> rows;
  try {
    rows = ::subsim::bench::solveStoredProblems(problems, solvers, settings, progress);
  } catch (const std::exception& e) {
    progressDone();
    std::cerr << "subsim: solve: " << e.what() << "\n";
    return kExitBadInput;
  }
  progressDone();

  std::string text;
  if (o.format == "csv") {
    text = formatCsv(rows);
  } else if (o.format == "json") {
    text = formatJson(rows, o, settings);
  } else {
    std::ostringstream heading;
    heading << "subsim solve: " << problems.size() << " problem(s), "
            << (settings.tolerance > 0.0
                    ? "tolerance " + number(settings.tolerance) +
                          " on the natural-map error (the AL residual without contacts)"
                    : std::string("no tolerance (each solver runs its cap)"))
            << ", cap " << settings.iterations << " iterations (Newton-type "
            << settings.newton_iterations.value_or(std::max(1, settings.iterations / 10))
            << "), start " << (settings.from_stored ? "from the stored warm start" : "from zero")
            << ", " << settings.threads << " thread(s)";
    text = formatMarkdown(rows, heading.str());
  }
  if (o.output.empty())
    std::cout << text;
  else if (!writeText(o.output, text, "--output"))
    return kExitBadInput;
  if (!o.history.empty() && !writeText(o.history, historyCsv(rows), "--history"))
    return kExitBadInput;
  return kExitOk;
}

}  // namespace subsim::cli
