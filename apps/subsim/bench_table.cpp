#include "bench_table.hpp"
#include "table_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "subsim/solvers/solver.hpp"

namespace subsim::cli::bench {

namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string joinLevels(const std::vector<int>& values) {
  std::string s;
  for (int v : values) {
    if (!s.empty()) s += '/';
    s += std::to_string(v);
  }
  return s;
}

std::string limitText(const SceneInfo& s) {
  if (!std::isfinite(s.penetration_limit)) return "none (no dynamic shape)";
  char mm[64];
  std::snprintf(mm, sizeof mm, "%.3g mm", s.penetration_limit * 1e3);
  return std::string(mm) + (s.penetration_limit_from_user ? " (--penetration-limit)"
                                                          : " (half the smallest dynamic shape)");
}

std::vector<std::string> newtonSolvers(const Report& r) {
  std::vector<std::string> out;
  for (const std::string& s : r.solvers)
    if (isNewtonTypeSolver(s)) out.push_back(s);
  return out;
}

const Cell* findCell(const Report& r, const std::string& scene, const std::string& solver,
                     int level) {
  for (const Cell& c : r.cells)
    if (c.scene == scene && c.solver == solver && c.level == level) return &c;
  return nullptr;
}

/// The SubADMM ICRA paper's Table I (4 cores, its own machine and metric): AT in ms and AA at
/// 30/60/90 iterations (NNewton 3/6/9); `failed`: the paper's "-" (the simulation failed).
struct PaperCell {
  const char* scene;
  const char* solver;
  bool failed;
  double at[3];
  double aa[3];
};

constexpr PaperCell kPaperTableI[] = {
    {"stir", "pgs-cg", false, {14.50, 23.91, 32.27}, {4.427, 4.928, 5.248}},
    {"stir", "pj", false, {3.235, 5.688, 9.425}, {3.033, 3.349, 3.562}},
    {"stir", "fadmm", false, {28.41, 41.40, 56.95}, {4.107, 4.644, 5.009}},
    {"stir", "nnewton", false, {24.35, 46.99, 75.44}, {3.565, 4.429, 5.324}},
    {"stir", "subadmm", false, {3.489, 5.940, 8.705}, {4.069, 4.579, 5.023}},
    {"cable", "pgs-cg", false, {48.08, 59.30, 72.96}, {4.141, 4.860, 5.404}},
    {"cable", "pj", true, {}, {}},
    {"cable", "fadmm", false, {16.74, 23.52, 32.96}, {4.189, 4.634, 4.910}},
    {"cable", "nnewton", false, {43.35, 87.98, 132.7}, {3.270, 4.454, 5.278}},
    {"cable", "subadmm", false, {2.288, 4.285, 6.402}, {4.344, 4.984, 5.222}},
    {"beam", "pgs-cg", false, {231.4, 241.2, 251.2}, {3.895, 4.194, 4.255}},
    {"beam", "pj", true, {}, {}},
    {"beam", "fadmm", false, {50.33, 92.11, 130.3}, {4.220, 4.478, 4.756}},
    {"beam", "nnewton", false, {188.5, 360.2, 525.7}, {2.445, 3.494, 4.945}},
    {"beam", "subadmm", false, {13.41, 24.67, 35.50}, {4.326, 4.743, 4.925}},
};

/// A paper figure with the digits it was printed with (4 significant).
std::string asPrinted(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

const PaperCell* paperCell(const std::string& scene, const std::string& solver) {
  for (const PaperCell& c : kPaperTableI)
    if (scene == c.scene && solver == c.solver) return &c;
  return nullptr;
}

nlohmann::json paperFiguresJson() {
  nlohmann::json rows = nlohmann::json::array();
  for (const PaperCell& c : kPaperTableI) {
    nlohmann::json row;
    row["scene"] = c.scene;
    row["solver"] = c.solver;
    row["failed"] = c.failed;
    if (!c.failed) {
      row["at_ms"] = {c.at[0], c.at[1], c.at[2]};
      row["aa"] = {c.aa[0], c.aa[1], c.aa[2]};
    }
    rows.push_back(row);
  }
  return {{"source", "SubADMM ICRA 2023, Table I (4 cores; its AA metric and units differ)"},
          {"levels", {30, 60, 90}},
          {"rows", rows}};
}

const char* paperSolverTitle(const std::string& solver) {
  if (solver == "pgs-cg") return "PGS-CG";
  if (solver == "pj") return "PJ";
  if (solver == "fadmm") return "FADMM";
  if (solver == "nnewton") return "NNewton";
  if (solver == "subadmm") return "SubADMM";
  return nullptr;
}

/// "a / b / c" over the levels; a failed cell is ✗.
template <class Value>
std::string triple(const std::vector<int>& levels, Value value) {
  std::string s;
  for (size_t k = 0; k < levels.size(); ++k) s += (k == 0 ? "" : " / ") + value(k);
  return s;
}

std::string formatPaperTable(const Report& r) {
  std::ostringstream out;
  out << "# subsim bench --paper-table (SubADMM ICRA 2023, Table I)\n\n"
      << "Each scene's run is recorded once with " << r.reference_solver << " at "
      << r.reference_iterations
      << " iterations; every cell solves the same evenly spaced problems with the same warm "
         "starts, so AT is the solve alone.  Threads: "
      << r.threads << ".  Tolerance 0: every solve runs exactly its iteration count.\n\n";
  for (const SceneInfo& s : r.scenes) {
    out << "- " << s.spec << ": " << s.dof << " DOF, dt " << exactText(s.dt) << " s, "
        << s.problems_recorded << " steps recorded";
    if (!s.reference_note.empty()) out << " (" << s.reference_note << ")";
    out << ", " << s.problems_replayed << " solved per cell, input hash "
        << (s.input_hashes_agree ? s.input_hash : "DIFFERS between cells") << "\n";
  }
  out << "\n| scene | row |";
  for (const std::string& solver : r.solvers) {
    const char* title = paperSolverTitle(solver);
    std::vector<int> its;
    for (int level : r.levels) its.push_back(iterationsAtLevel(solver, level));
    out << " " << (title != nullptr ? title : solver.c_str()) << " " << joinLevels(its) << " |";
  }
  out << "\n|---|---|";
  for (size_t k = 0; k < r.solvers.size(); ++k) out << "---|";
  out << "\n";
  std::vector<const Cell*> failures;
  for (const SceneInfo& s : r.scenes) {
    // The scene is named on its first row only, as in the paper.
    const auto row = [&](const std::string& scene, const char* name, auto cellText) {
      out << "| " << scene << " | " << name << " |";
      for (const std::string& solver : r.solvers) out << " " << cellText(solver) << " |";
      out << "\n";
    };
    const auto ours = [&](bool at) {
      return [&, at](const std::string& solver) {
        return triple(r.levels, [&](size_t k) -> std::string {
          const Cell* c = findCell(r, s.spec, solver, r.levels[k]);
          if (c == nullptr) return "";
          if (c->failed) return "✗";
          const std::optional<double>& v = at ? c->at_ms : c->aa;
          return v ? fixed(*v, at ? (*v < 10 ? 2 : 1) : 2) : "–";
        });
      };
    };
    const auto paper = [&](bool at) {
      return [&, at](const std::string& solver) -> std::string {
        const PaperCell* p = paperCell(s.spec, solver);
        if (p == nullptr) return "";
        if (p->failed) return "-";
        std::string text;
        for (int k = 0; k < 3; ++k)
          text += (k == 0 ? "" : " / ") + asPrinted(at ? p->at[k] : p->aa[k]);
        return "*" + text + "*";
      };
    };
    row(s.spec, "AT (ms)", ours(true));
    row("", "AA", ours(false));
    row("", "paper AT", paper(true));
    row("", "paper AA", paper(false));
    for (const std::string& solver : r.solvers)
      for (int level : r.levels) {
        const Cell* c = findCell(r, s.spec, solver, level);
        if (c != nullptr && c->failed) failures.push_back(c);
      }
  }
  out << "\nAT: mean solver time per problem (ms).  AA: mean of -log10 of the AL paper's "
         "constraint residual (section 6) over problems with constraints.  Paper rows (italic): "
         "the paper's 4-core figures, for reference only: its machine, its AA metric and units "
         "differ; \"-\" there means its simulation failed.";
  if (!failures.empty()) {
    out << "  ✗: the solve failed on a recorded problem:\n\n";
    for (const Cell* c : failures)
      out << "- ✗ " << c->scene << ", " << c->solver << " at " << c->iterations
          << " it.: " << c->failure_reason << "\n";
  } else {
    out << "\n";
  }
  return out.str();
}

}  // namespace

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string q = "\"";
  for (char ch : text) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string optionsText(const Report& r) {
  std::string text;
  for (const std::string& solver : r.solvers) {
    const auto it = r.solver_options.find(solver);
    if (it == r.solver_options.end() || it->second.empty()) continue;
    text += (text.empty() ? "" : "; ") + solver;
    for (const SolverOption& o : it->second) text += " " + o.name + "=" + o.value;
  }
  return text;
}

std::string formatMarkdown(const Report& r) {
  if (r.paper_table) return formatPaperTable(r);
  std::ostringstream out;
  out << "# subsim bench\n\n";
  out << "Mode: "
      << (r.problems_mode
              ? "recorded problems (one reference run per scene with " + r.reference_solver +
                    " at " + std::to_string(r.reference_iterations) +
                    " iterations records every step's problem and warm start; every cell solves "
                    "those identical inputs, so AT excludes collision and assembly)"
              : std::string("scene (every cell steps its own World from the initial state; AT is "
                            "the solve only, collision and assembly excluded)"))
      << ".  Threads: " << r.threads
      << ".  Tolerance 0: every solve runs exactly its iteration count.\n";
  const std::string options = optionsText(r);
  if (!options.empty()) out << "Solver options (others at their defaults): " << options << ".\n";

  const std::vector<std::string> newton = newtonSolvers(r);
  std::vector<int> newton_levels;
  for (int level : r.levels) newton_levels.push_back(std::max(1, level / 10));

  for (const SceneInfo& s : r.scenes) {
    out << "\n## " << s.spec << "\n\n";
    out << "Scene `" << s.spec << "`: " << s.steps << " steps of dt = " << exactText(s.dt) << " s, "
        << s.dof << " DOF.  ";
    if (r.problems_mode) {
      out << s.problems_recorded << " problems recorded";
      if (!s.reference_note.empty()) out << " (" << s.reference_note << ")";
      if (s.problems_replayed < s.problems_recorded)
        out << ", " << s.problems_replayed << " of them (evenly spaced) solved per cell";
      out << "; input hash " << (s.input_hashes_agree ? s.input_hash : "DIFFERS between cells")
          << (s.input_hashes_agree ? " (identical for every cell)" : "") << ".\n";
    } else {
      out << "Failure: divergence or a penetration above " << limitText(s) << ".\n";
    }
    out << "\n| solver |";
    for (int level : r.levels) out << " " << level << " it.: AT (ms) | AA |";
    out << "\n|---|";
    for (size_t k = 0; k < r.levels.size(); ++k) out << "---:|---:|";
    out << "\n";
    std::vector<const Cell*> failures;
    for (const std::string& solver : r.solvers) {
      out << "| " << solver;
      if (isNewtonTypeSolver(solver)) out << " (" << joinLevels(newton_levels) << " it.)";
      out << " |";
      for (int level : r.levels) {
        const Cell* c = findCell(r, s.spec, solver, level);
        if (c == nullptr) {
          out << " | |";
        } else if (c->failed) {
          failures.push_back(c);
          out << " ✗ " << c->failure_mark << " | step " << c->steps_done + 1 << "/" << c->steps
              << " |";
        } else {
          if (hasFailedSolves(c->solve_status)) failures.push_back(c);
          out << " " << (hasFailedSolves(c->solve_status) ? "⚠ " : "")
              << (c->at_ms ? fixed(*c->at_ms, 3) : "–") << " | " << (c->aa ? fixed(*c->aa, 2) : "–")
              << " |";
        }
      }
      out << "\n";
    }
    if (!newton.empty() || !failures.empty()) out << "\n";
    if (!newton.empty()) {
      std::string names;
      for (const std::string& n : newton) names += (names.empty() ? "" : ", ") + n;
      out << "Newton-type solvers (" << names
          << ") run a tenth of the iterations: " << joinLevels(newton_levels) << " beside "
          << joinLevels(r.levels) << ", as in the papers' tables.\n";
    }
    if (!newton.empty() && !failures.empty()) out << "\n";  // separate paragraphs in markdown
    for (const Cell* c : failures) {
      if (c->failed)
        out << "- ✗ " << c->solver << " at " << c->iterations << " it.: " << c->failure_reason
            << "\n";
      else
        out << "- ⚠ " << c->solver << " at " << c->iterations
            << " it.: solves ended so: " << statusSummary(c->solve_status) << "\n";
    }
  }
  out << "\nAT: mean solver time per step (ms).  AA: mean over steps with constraints of -log10 "
         "of the AL paper's constraint residual (section 6); the Fischer-Burmeister contact "
         "accuracy aa_fb is in the CSV and JSON output.";
  if (std::any_of(r.cells.begin(), r.cells.end(), [](const Cell& c) { return c.failed; }))
    out << "  ✗: the run failed at that step (reason under the table); no AT or AA is shown for "
           "it.";
  if (std::any_of(r.cells.begin(), r.cells.end(),
                  [](const Cell& c) { return !c.failed && hasFailedSolves(c.solve_status); }))
    out << "  ⚠: some solves ended in a failure status (stalled, factorization failed, "
           "non-finite; counts under the table).";
  out << "\n";
  return out.str();
}

std::string statusSummary(const std::array<int, kSolveStatusCount>& counts) {
  std::string text;
  for (int k = 0; k < kSolveStatusCount; ++k)
    if (counts[k] > 0)
      text += (text.empty() ? "" : ", ") +
              std::string(solveStatusName(static_cast<SolveStatus>(k))) + " " +
              std::to_string(counts[k]);
  return text;
}

bool hasFailedSolves(const std::array<int, kSolveStatusCount>& counts) {
  for (int k = 0; k < kSolveStatusCount; ++k) {
    const auto status = static_cast<SolveStatus>(k);
    if (counts[k] > 0 && status != SolveStatus::Converged && status != SolveStatus::IterationCap)
      return true;
  }
  return false;
}

namespace {

nlohmann::json statusJson(const std::array<int, kSolveStatusCount>& counts) {
  nlohmann::json j = nlohmann::json::object();
  for (int k = 0; k < kSolveStatusCount; ++k)
    if (counts[k] > 0) j[solveStatusName(static_cast<SolveStatus>(k))] = counts[k];
  return j;
}

}  // namespace

std::string formatCsv(const Report& r) {
  std::ostringstream out;
  out << "scene,solver,iterations,at_ms,aa,aa_fb,aa_nm,failed,failure_reason,solve_status";
  if (r.problems_mode) out << ",input_hash";
  out << "\n";
  const auto opt = [](const std::optional<double>& v) { return v ? exactText(*v) : std::string(); };
  for (const Cell& c : r.cells) {
    out << csvField(c.scene) << "," << csvField(c.solver) << "," << c.iterations << ","
        << opt(c.at_ms) << "," << opt(c.aa) << "," << opt(c.aa_fb) << "," << opt(c.aa_nm) << ","
        << (c.failed ? "true" : "false") << "," << csvField(c.failure_reason) << ","
        << csvField(statusSummary(c.solve_status));
    if (r.problems_mode) out << "," << c.input_hash;
    out << "\n";
  }
  return out.str();
}

std::string formatJson(const Report& r) {
  using nlohmann::json;
  const auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json j;
  j["schema_version"] = 1;
  j["mode"] = r.problems_mode ? "problems" : "scene";
  if (r.paper_table) j["paper_table"] = paperFiguresJson();
  j["threads"] = r.threads;
  j["tolerance"] = 0.0;
  j["levels"] = r.levels;
  j["solvers"] = r.solvers;
  // Options set by --solver-option, per solver (values as given); every other option default.
  j["solver_options"] = json::object();
  for (const auto& [solver, options] : r.solver_options)
    for (const SolverOption& o : options) j["solver_options"][solver][o.name] = o.value;
  j["newton_iterations"] =
      "Newton-type solvers run max(1, level / 10) iterations (the papers' tables)";
  if (r.problems_mode) {
    j["reference_solver"] = r.reference_solver;
    j["reference_iterations"] = r.reference_iterations;
  }
  j["scenes"] = json::array();
  for (const SceneInfo& s : r.scenes) {
    json js;
    js["scene"] = s.spec;
    js["steps"] = s.steps;
    js["dt"] = s.dt;
    js["dof"] = s.dof;
    js["penetration_limit_m"] =
        std::isfinite(s.penetration_limit) ? json(s.penetration_limit) : json(nullptr);
    if (r.problems_mode) {
      js["problems_recorded"] = s.problems_recorded;
      js["problems_replayed"] = s.problems_replayed;
      if (!s.reference_note.empty()) js["reference_note"] = s.reference_note;
      js["input_hashes_agree"] = s.input_hashes_agree;
    }
    j["scenes"].push_back(js);
  }
  j["rows"] = json::array();
  for (const Cell& c : r.cells) {
    json row;
    row["scene"] = c.scene;
    row["solver"] = c.solver;
    row["level"] = c.level;
    row["iterations"] = c.iterations;
    row["steps"] = c.steps;
    row["steps_done"] = c.steps_done;
    row["at_ms"] = opt(c.at_ms);
    row["aa"] = opt(c.aa);
    row["aa_fb"] = opt(c.aa_fb);
    row["aa_nm"] = opt(c.aa_nm);
    row["failed"] = c.failed;
    row["failure_reason"] = c.failure_reason;
    row["solve_status"] = statusJson(c.solve_status);
    if (r.problems_mode) row["input_hash"] = c.input_hash;
    j["rows"].push_back(row);
  }
  return j.dump(2) + "\n";
}

}  // namespace subsim::cli::bench
