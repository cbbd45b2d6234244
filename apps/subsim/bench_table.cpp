#include "bench_table.hpp"

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

// The fewest digits (at least 6) that read back to the same double: CSV is for further processing.
std::string exact(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  for (int p = 6; p < 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) return buf;
  }
  return s;
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

}  // namespace

int iterationsAtLevel(const std::string& solver, int level) {
  return isNewtonTypeSolver(solver) ? std::max(1, level / 10) : level;
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string q = "\"";
  for (char ch : text) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string formatMarkdown(const Report& r) {
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

  const std::vector<std::string> newton = newtonSolvers(r);
  std::vector<int> newton_levels;
  for (int level : r.levels) newton_levels.push_back(std::max(1, level / 10));

  for (const SceneInfo& s : r.scenes) {
    out << "\n## " << s.spec << "\n\n";
    out << "Scene `" << s.spec << "`: " << s.steps << " steps of dt = " << exact(s.dt) << " s, "
        << s.dof << " DOF.  ";
    if (r.problems_mode) {
      out << s.problems_recorded << " problems recorded";
      if (!s.reference_note.empty()) out << " (" << s.reference_note << ")";
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
          out << " " << (c->at_ms ? fixed(*c->at_ms, 3) : "–") << " | "
              << (c->aa ? fixed(*c->aa, 2) : "–") << " |";
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
    for (const Cell* c : failures)
      out << "- ✗ " << c->solver << " at " << c->iterations << " it.: " << c->failure_reason
          << "\n";
  }
  out << "\nAT: mean solver time per step (ms).  AA: mean over steps with constraints of -log10 "
         "of the AL paper's constraint residual (section 6); the Fischer-Burmeister contact "
         "accuracy aa_fb is in the CSV and JSON output.";
  if (std::any_of(r.cells.begin(), r.cells.end(), [](const Cell& c) { return c.failed; }))
    out << "  ✗: the run failed at that step (reason under the table); no AT or AA is shown for "
           "it.";
  out << "\n";
  return out.str();
}

std::string formatCsv(const Report& r) {
  std::ostringstream out;
  out << "scene,solver,iterations,at_ms,aa,aa_fb,failed,failure_reason";
  if (r.problems_mode) out << ",input_hash";
  out << "\n";
  const auto opt = [](const std::optional<double>& v) { return v ? exact(*v) : std::string(); };
  for (const Cell& c : r.cells) {
    out << csvField(c.scene) << "," << csvField(c.solver) << "," << c.iterations << ","
        << opt(c.at_ms) << "," << opt(c.aa) << "," << opt(c.aa_fb) << ","
        << (c.failed ? "true" : "false") << "," << csvField(c.failure_reason);
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
  j["threads"] = r.threads;
  j["tolerance"] = 0.0;
  j["levels"] = r.levels;
  j["solvers"] = r.solvers;
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
    row["failed"] = c.failed;
    row["failure_reason"] = c.failure_reason;
    if (r.problems_mode) row["input_hash"] = c.input_hash;
    j["rows"].push_back(row);
  }
  return j.dump(2) + "\n";
}

}  // namespace subsim::cli::bench
