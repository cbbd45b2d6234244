#include "subsim/bench/solve_problems.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "subsim/formulation/delassus_form.hpp"
#include "subsim/io/fclib_convert.hpp"
#include "subsim/io/fclib_file.hpp"
#include "subsim/io/problem_file.hpp"
#include "subsim/metrics/step_metrics.hpp"

namespace subsim::bench {

std::vector<StoredProblem> loadStoredProblems(const std::vector<std::string>& paths) {
  std::vector<StoredProblem> out;
  for (const std::string& path : paths) {
    if (isFclibFile(path)) {
      FclibImport in = stepProblemFromFclib(readFclibFile(path), path);
      StoredProblem s;
      s.source = path;
      s.index_in_file = 1;
      s.fclib = true;
      s.problem = std::move(in.problem);
      if (!in.guesses.empty()) s.warm_start = std::move(in.guesses.front());
      if (in.solution) s.stored_solution = std::move(*in.solution);
      out.push_back(std::move(s));
      continue;
    }
    ProblemFile file = readProblemFile(path);
    if (file.problems.empty())
      throw std::runtime_error("problem file '" + path + "' holds no problems");
    int index = 0;
    for (RecordedProblem& r : file.problems) {
      StoredProblem s;
      s.source = path;
      s.index_in_file = ++index;
      s.problem = std::move(r.problem);
      s.warm_start = std::move(r.warm_start);
      s.stored_solution = std::move(r.solution);
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::string incompatibility(const SolverEntry& solver, const StepProblem& problem) {
  if (problem.hasLocalForm() && !solver.local_form)
    return "a local problem (W, q, mu) needs a dual solver; " + solver.name +
           " works on the subsystems (A_i, J)";
  return {};
}

namespace {

/// The judge and the other errors of `solution`, into `record`.
void judge(const StepProblem& problem, const StepSolution& solution, SolveRecord& record) {
  const StepMetrics m = evaluateStep(problem, solution);
  record.natural_map_error = m.contact_natural_map_error;
  record.constraint_residual = m.constraint_residual;
  record.judge = m.contacts > 0 ? m.contact_natural_map_error : m.constraint_residual;
}

const char* judgeName(const StepProblem& problem) {
  return problem.numContacts() > 0 ? "natural-map" : "constraint (AL sec. 6)";
}

double maxDifference(const VecX& a, const VecX& b) {
  return a.size() == b.size() && a.size() > 0 ? (a - b).cwiseAbs().maxCoeff() : 0.0;
}

/// The file's own solution as a row, its vhat recomputed from lambda when the file has none.
SolveRecord storedRow(const StoredProblem& s) {
  SolveRecord row;
  row.problem = &s;
  row.solver = "stored";
  StepSolution solution = s.stored_solution;
  if (solution.vhat.size() != s.problem.numDof()) {
    DelassusForm form;
    solution.vhat.resize(s.problem.numDof());
    if (!form.build(s.problem)) {
      row.status = "not-applicable";
      row.note = "a block A_i is not positive definite";
      return row;
    }
    form.velocity(solution.lambda.data(), solution.vhat.data());
  }
  judge(s.problem, solution, row);
  row.status = "stored";
  return row;
}

/// One (problem, solver) solve.  Without a tolerance: one uninterrupted solve of the cap with
/// the file's solver object.  With one: the least k (a multiple of check_every) for which an
/// uninterrupted k-iteration solve from the start meets the tolerance, found by doubling k and
/// then bisecting, each attempt a fresh solver object; what is reported is that k-iteration
/// solve, so iterations and time are the pure algorithm's, at the cost of about 2 + log2(k / step)
/// solves.
class ProblemSolve {
 public:
  ProblemSolve(const SolveSettings& settings, const SolverEntry& entry, Solver& file_solver)
      : settings_(settings), entry_(entry), file_solver_(file_solver) {
    newton_ = entry.kind == SolverKind::NewtonType;
    cap_ = newton_ ? settings.newton_iterations.value_or(std::max(1, settings.iterations / 10))
                   : settings.iterations;
    step_ = settings.check_every > 0 ? settings.check_every : newton_ ? 1 : 10;
  }

  SolveRecord run(const StoredProblem& s) {
    if (settings_.tolerance <= 0.0) return attempt(s, cap_, file_solver_);
    const auto fresh = [&](int k) {
      const auto it = settings_.options.find(entry_.name);
      const std::unique_ptr<Solver> solver = makeSolver(
          entry_.name, it != settings_.options.end() ? it->second : SolverOptionValues{});
      return attempt(s, k, *solver);
    };
    std::vector<HistoryPoint> checks;  // the judge after each attempted k
    const auto note = [&](const SolveRecord& r) {
      if (settings_.history)
        checks.push_back({r.iterations, judgeName(s.problem), r.judge, r.solve_ms});
    };
    int lo = 0, k = std::min(step_, cap_);
    SolveRecord best;
    while (true) {
      SolveRecord r = fresh(k);
      note(r);
      if (r.status != "iteration-cap") return finish(std::move(r), checks);  // a failure
      if (r.judge <= settings_.tolerance) {
        best = std::move(r);
        break;
      }
      lo = k;
      if (k >= cap_) return finish(std::move(r), checks);
      if (settings_.time_limit_ms > 0.0 && r.solve_ms >= settings_.time_limit_ms) {
        r.status = "time-limit";
        return finish(std::move(r), checks);
      }
      k = std::min(2 * k, cap_);
    }
    int hi = k;
    while (hi - lo > step_) {
      const int mid = lo + std::max(1, (hi - lo) / step_ / 2) * step_;
      SolveRecord r = fresh(mid);
      note(r);
      if (r.status == "iteration-cap" && r.judge <= settings_.tolerance) {
        hi = mid;
        best = std::move(r);
      } else {
        lo = mid;
      }
    }
    best.status = "converged";
    return finish(std::move(best), checks);
  }

 private:
  /// One uninterrupted solve of `iterations` from the start: status iteration-cap, or the
  /// solver's failure.
  SolveRecord attempt(const StoredProblem& s, int iterations, Solver& solver) const {
    SolveRecord row;
    row.problem = &s;
    row.solver = entry_.name;
    StepSolution solution;
    if (settings_.from_stored) solution = s.warm_start;
    SolverSettings ss;
    ss.max_iterations = iterations;
    ss.tolerance = 0.0;  // exactly `iterations`: the judge decides
    ss.threads = settings_.threads;
    ss.record_history = settings_.history;
    // The start of every iteration, so that the history's times are the solve's own.
    std::vector<std::chrono::steady_clock::time_point> stamps;
    if (settings_.history) {
      stamps.reserve(static_cast<std::size_t>(iterations) + 1);
      ss.on_iteration = [&stamps](int) { stamps.push_back(std::chrono::steady_clock::now()); };
    }
    const auto t0 = std::chrono::steady_clock::now();
    solver.solve(s.problem, ss, solution);
    const auto t1 = std::chrono::steady_clock::now();
    const SolveStats& st = solution.stats;
    row.iterations = st.iterations;
    row.solve_ms = st.solve_ms;
    row.status = "iteration-cap";
    // Iteration k ends where k + 1 starts, or with the solve; a solver that does not stamp its
    // iterations gets the solve's time spread evenly.
    const auto ms = [](auto a, auto b) {
      return std::chrono::duration<double, std::milli>(b - a).count();
    };
    const std::size_t n = st.residual_history.size();
    for (std::size_t k = 0; k < n; ++k) {
      const double at = stamps.size() == n ? ms(t0, k + 1 < n ? stamps[k + 1] : t1)
                                           : ms(t0, t1) * static_cast<double>(k + 1) / n;
      row.history.push_back(
          {static_cast<int>(k) + 1, st.residual_name, st.residual_history[k], at});
    }
    if (st.status == SolveStatus::FactorizationFailed || st.status == SolveStatus::NonFinite) {
      row.status = solveStatusName(st.status);
      return row;
    }
    judge(s.problem, solution, row);
    if (!std::isfinite(row.judge)) row.status = "non-finite";
    if (s.stored_solution.lambda.size() == solution.lambda.size() && solution.lambda.size() > 0)
      row.stored_difference = maxDifference(solution.lambda, s.stored_solution.lambda);
    return row;
  }

  /// The reported solve's own history, then the judge's checks in iteration order.
  static SolveRecord finish(SolveRecord r, std::vector<HistoryPoint>& checks) {
    std::sort(checks.begin(), checks.end(), [](const HistoryPoint& a, const HistoryPoint& b) {
      return a.iteration < b.iteration;
    });
    r.history.insert(r.history.end(), checks.begin(), checks.end());
    return r;
  }

  const SolveSettings& settings_;
  const SolverEntry& entry_;
  Solver& file_solver_;
  bool newton_ = false;
  int cap_ = 0, step_ = 1;
};

}  // namespace

std::vector<SolveRecord> solveStoredProblems(const std::vector<StoredProblem>& problems,
                                             const std::vector<std::string>& solvers,
                                             const SolveSettings& settings,
                                             const SolveProgress& progress) {
  std::vector<SolveRecord> rows;
  // One solver object per (file, solver), through the file's problems in order.
  std::map<std::string, std::unique_ptr<Solver>> objects;
  std::string file;
  for (std::size_t k = 0; k < problems.size(); ++k) {
    const StoredProblem& s = problems[k];
    if (s.source != file) {
      objects.clear();
      file = s.source;
    }
    if (s.stored_solution.lambda.size() == s.problem.numRows() && s.problem.numRows() > 0)
      rows.push_back(storedRow(s));
    for (const std::string& name : solvers) {
      const SolverEntry* entry = findSolver(name);
      if (entry == nullptr) throw std::invalid_argument("unknown solver '" + name + "'");
      if (progress)
        progress(s.source + ": problem " + std::to_string(s.index_in_file) + ", " + name);
      const std::string why = incompatibility(*entry, s.problem);
      if (!why.empty()) {
        SolveRecord row;
        row.problem = &s;
        row.solver = name;
        row.status = "not-applicable";
        row.note = why;
        rows.push_back(std::move(row));
        continue;
      }
      std::unique_ptr<Solver>& solver = objects[name];
      if (!solver) {
        const auto it = settings.options.find(name);
        solver = makeSolver(name, it != settings.options.end() ? it->second : SolverOptionValues{});
      }
      rows.push_back(ProblemSolve(settings, *entry, *solver).run(s));
    }
  }
  return rows;
}

}  // namespace subsim::bench
