// `subsim replay FILE.h5`: what a recording holds, as a summary and a per-step table
// (README.md, "Replaying and plotting a recording").  The figures come from
// sim/recording_summary.hpp; this file only lays them out.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "option_checks.hpp"
#include "replay_plot_checks.hpp"
#include "subsim/sim/recorder.hpp"
#include "subsim/sim/recording_summary.hpp"
#include "table_text.hpp"

namespace subsim::cli {

namespace {

std::string format(const char* spec, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, value);
  return buf;
}
/// exactText, or nothing for a figure the recording lacks.
std::string exactOrEmpty(const std::optional<double>& value) {
  return value ? exactText(*value) : std::string();
}

/// "converged 98, iteration-cap 2" (only the statuses that occurred).
std::string statusText(const RecordingSummary& s) {
  std::string text;
  for (int k = 0; k < kSolveStatusCount; ++k)
    if (s.solve_status[k] > 0)
      text += (text.empty() ? "" : ", ") +
              std::string(solveStatusName(static_cast<SolveStatus>(k))) + " " +
              std::to_string(s.solve_status[k]);
  if (s.solve_status_unknown > 0)
    text += (text.empty() ? "" : ", ") + std::string("not recorded ") +
            std::to_string(s.solve_status_unknown);
  return text;
}

// The per-step columns, in every format's order.
constexpr const char* kCsvHeader =
    "step,time_s,iterations,solve_status,residual,constraint_residual,aa,solver_ms,step_ms,"
    "contacts,max_penetration_mm,normal_force_n,energy_j,joint_error";

std::string csv(const std::vector<StepFigures>& figures) {
  std::ostringstream out;
  out << kCsvHeader << "\n";
  for (const StepFigures& f : figures)
    out << f.step << "," << exactText(f.time) << "," << f.iterations << "," << f.solve_status << ","
        << exactText(f.residual) << "," << exactText(f.constraint_residual) << ","
        << exactOrEmpty(f.accuracy) << "," << exactText(f.solver_ms) << "," << exactText(f.step_ms)
        << "," << f.contacts << "," << exactText(f.max_penetration_mm) << ","
        << exactText(f.normal_force) << "," << exactOrEmpty(f.energy) << ","
        << exactOrEmpty(f.joint_error) << "\n";
  return out.str();
}

nlohmann::json optionalJson(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::string json(const std::string& file, const Recording& rec, const RecordingSummary& s,
                 const std::vector<StepFigures>& figures) {
  nlohmann::json j;
  j["file"] = file;
  j["scene"] = rec.scene;
  j["solver"] = rec.solver;
  j["dt"] = rec.dt;
  j["threads"] = rec.threads;
  j["iterations_cap"] = rec.iterations_cap;
  j["tolerance"] = rec.tolerance;
  j["bodies"] = rec.body_names.size();
  j["steps_recorded"] = s.steps_recorded;
  j["first_step"] = s.range.first;
  j["last_step"] = s.range.last;
  j["simulated_time_s"] = s.simulated_time;
  j["solver_ms_total"] = s.solver_ms_total;
  j["solver_ms_mean"] = s.solver_ms_mean;
  j["step_ms_total"] = s.step_ms_total;
  j["step_ms_mean"] = s.step_ms_mean;
  j["iterations_total"] = s.iterations_total;
  j["iterations_mean"] = s.iterations_mean;
  j["residual_mean"] = s.residual_mean;
  j["constraint_residual_mean"] = optionalJson(s.constraint_residual_mean);
  j["aa_mean"] = optionalJson(s.accuracy_mean);
  j["steps_with_constraints"] = s.steps_judged;
  j["max_penetration_mm"] = s.max_penetration_mm;
  j["contacts_total"] = s.contacts_total;
  j["contacts_mean"] = s.contacts_mean;
  // Every status named, as in `run --json`, so that a reader need not know which can occur.
  j["solve_status"] = nlohmann::json::object();
  for (int k = 0; k < kSolveStatusCount; ++k)
    j["solve_status"][solveStatusName(static_cast<SolveStatus>(k))] = s.solve_status[k];
  j["solve_status"]["not-recorded"] = s.solve_status_unknown;
  j["steps"] = nlohmann::json::array();
  for (const StepFigures& f : figures)
    j["steps"].push_back({{"step", f.step},
                          {"time_s", f.time},
                          {"iterations", f.iterations},
                          {"solve_status", f.solve_status},
                          {"residual", f.residual},
                          {"constraint_residual", f.constraint_residual},
                          {"aa", optionalJson(f.accuracy)},
                          {"solver_ms", f.solver_ms},
                          {"step_ms", f.step_ms},
                          {"contacts", f.contacts},
                          {"max_penetration_mm", f.max_penetration_mm},
                          {"normal_force_n", f.normal_force},
                          {"energy_j", optionalJson(f.energy)},
                          {"joint_error", optionalJson(f.joint_error)}});
  return j.dump(2) + "\n";
}

std::string markdown(const std::string& file, const Recording& rec, const RecordingSummary& s,
                     const std::vector<StepFigures>& figures) {
  std::ostringstream out;
  const auto row = [&out](const std::string& figure, const std::string& value) {
    out << "| " << figure << " | " << value << " |\n";
  };
  out << "## Recording " << file << "\n\n| figure | value |\n|---|---|\n";
  row("scene", rec.scene);
  row("solver", rec.solver);
  row("dt", format("%g s", rec.dt));
  row("threads", std::to_string(rec.threads));
  row("iteration cap", std::to_string(rec.iterations_cap));
  row("tolerance", format("%g", rec.tolerance));
  row("bodies", std::to_string(rec.body_names.size()));
  row("steps", std::to_string(s.range.first) + ":" + std::to_string(s.range.last) + " of " +
                   std::to_string(s.steps_recorded));
  row("simulated time", format("%.6g s", s.simulated_time));
  row("solver time",
      format("%.3f ms in all", s.solver_ms_total) + format(", %.3f ms per step", s.solver_ms_mean));
  row("step time",
      format("%.3f ms in all", s.step_ms_total) + format(", %.3f ms per step", s.step_ms_mean));
  row("iterations",
      std::to_string(s.iterations_total) + format(" in all, %.1f per step", s.iterations_mean));
  row("residual (the solver's own)", format("mean %.3e", s.residual_mean));
  row("constraint residual", s.accuracy_mean
                                 ? format("mean %.3e", *s.constraint_residual_mean) +
                                       format(", AA %.2f (mean over ", *s.accuracy_mean) +
                                       std::to_string(s.steps_judged) + " steps with constraints)"
                                 : std::string("- (no step had constraints)"));
  row("max penetration", format("%.3f mm", s.max_penetration_mm));
  row("contacts",
      std::to_string(s.contacts_total) + format(" in all, %.1f per step", s.contacts_mean));
  row("solve status", statusText(s));

  const auto optional = [](const char* spec, const std::optional<double>& v) {
    return v ? format(spec, *v) : std::string("-");
  };
  out << "\n| step | time (s) | iterations | status | residual | constraint residual | AA | "
         "solver ms | step ms | contacts | max penetration (mm) | normal force (N) | energy (J) "
         "| joint error |\n"
         "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const StepFigures& f : figures)
    out << "| " << f.step << " | " << format("%.4f", f.time) << " | " << f.iterations << " | "
        << (f.solve_status.empty() ? "-" : f.solve_status) << " | " << format("%.3e", f.residual)
        << " | " << format("%.3e", f.constraint_residual) << " | " << optional("%.2f", f.accuracy)
        << " | " << format("%.3f", f.solver_ms) << " | " << format("%.3f", f.step_ms) << " | "
        << f.contacts << " | " << format("%.3f", f.max_penetration_mm) << " | "
        << format("%.4g", f.normal_force) << " | " << optional("%.6g", f.energy) << " | "
        << optional("%.3e", f.joint_error) << " |\n";
  return out.str();
}

}  // namespace

int runReplay(const ReplayOptions& o) {
  checkReplayOptions(o);  // OptionError reaches main
  Recording rec;
  try {
    rec = readRecording(o.file);
  } catch (const std::exception& e) {
    std::cerr << "subsim: replay: " << e.what() << "\n";
    return kExitBadInput;
  }
  const int n = static_cast<int>(rec.steps.size());
  if (n == 0) {
    std::cerr << "subsim: replay: '" << o.file
              << "' holds no steps (recorded with --steps 0?): nothing to replay\n";
    return kExitBadInput;
  }
  const StepRange range = o.steps ? parseStepRange(*o.steps) : StepRange{1, n};
  if (range.last > n) {
    std::cerr << "subsim: replay: --steps " << *o.steps << ": '" << o.file << "' holds " << n
              << " steps: expected FIRST:LAST within 1:" << n << "\n";
    return kExitBadInput;
  }
  const RecordingSummary summary = summarizeRecording(rec, range);
  const std::vector<StepFigures> figures = stepFigures(rec, range);
  std::cout << (o.format == "csv"    ? csv(figures)
                : o.format == "json" ? json(o.file, rec, summary, figures)
                                     : markdown(o.file, rec, summary, figures));
  return kExitOk;
}

}  // namespace subsim::cli
