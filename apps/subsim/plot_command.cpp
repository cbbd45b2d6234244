// `subsim plot FILE.h5|FILE.csv --kind KIND [--output PNG]` (README.md, "Replaying and plotting
// a recording").  A recording's per-step figures (sim/recording_summary.hpp) are written to a CSV
// beside the PNG and drawn by scripts/plot_recording.py; a convergence CSV is checked
// (convergence_csv.hpp) and drawn by the script made for its header.  Everything that can be
// wrong with the input is found here, before python runs, so that the message names the file.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "commands.hpp"
#include "convergence_csv.hpp"
#include "python_plot.hpp"
#include "replay_plot_checks.hpp"
#include "subsim/sim/recorder.hpp"
#include "subsim/sim/recording_summary.hpp"
#include "table_text.hpp"

namespace subsim::cli {

namespace {

namespace fs = std::filesystem;

int badInput(const std::string& message) {
  std::cerr << "subsim: plot: " << message << "\n";
  return kExitBadInput;
}

/// Whether `path` can be written, found without truncating a file that is there (it is replaced
/// only once the plot is drawn); a file this check creates is removed again.
bool writable(const std::string& path, std::string& reason) {
  std::error_code ec;
  const bool existed = fs::exists(path, ec);
  std::ofstream probe(path, std::ios::binary | std::ios::app);
  if (!probe) {
    reason = std::strerror(errno);
    return false;
  }
  probe.close();
  if (!existed) fs::remove(path, ec);
  return true;
}

/// The columns after step,time_s that each kind draws (scripts/plot_recording.py reads their
/// names for its axes), and the value of one step.
std::vector<std::string> columnsOf(const std::string& kind) {
  if (kind == "penetration") return {"max_penetration_mm"};
  if (kind == "energy") return {"energy_j"};
  if (kind == "joint-error") return {"joint_error"};
  if (kind == "contacts") return {"contacts", "normal_force_n"};
  return {"residual", "aa"};  // convergence
}
std::string valueOf(const StepFigures& f, const std::string& column) {
  if (column == "max_penetration_mm") return exactText(f.max_penetration_mm);
  if (column == "energy_j") return exactText(*f.energy);
  if (column == "joint_error") return exactText(*f.joint_error);
  if (column == "contacts") return std::to_string(f.contacts);
  if (column == "normal_force_n") return exactText(f.normal_force);
  if (column == "residual") return exactText(f.residual);
  return f.accuracy ? exactText(*f.accuracy) : std::string();  // aa: none without constraints
}

int plotCsv(const PlotOptions& o, const std::string& png) {
  ConvergenceCsvInfo info;
  try {
    info = checkConvergenceCsv(o.file);
  } catch (const std::exception& e) {
    return badInput(e.what());
  }
  std::string reason;
  if (!writable(png, reason)) return badInput("--output: cannot write '" + png + "': " + reason);
  const char* script =
      info.kind == ConvergenceCsv::History ? "plot_history.py" : "plot_convergence.py";
  if (!drawPlot(script, o.file, png, fs::path(o.file).filename().string(), true))
    return kExitBadInput;
  std::cout << "wrote " << png << " (" << info.rows << " rows of " << o.file << ")\n";
  return kExitOk;
}

int plotRecording(const PlotOptions& o, const std::string& png) {
  Recording rec;
  try {
    rec = readRecording(o.file);
  } catch (const std::exception& e) {
    return badInput(e.what());
  }
  const int n = static_cast<int>(rec.steps.size());
  if (n == 0)
    return badInput("'" + o.file +
                    "' holds no steps (recorded with --steps 0?): nothing "
                    "to plot");
  const std::vector<StepFigures> figures = stepFigures(rec, StepRange{1, n});
  const RecordingSummary summary = summarizeRecording(rec, StepRange{1, n});
  if ((o.kind == "energy" && !summary.has_energy) ||
      (o.kind == "joint-error" && !summary.has_joint_error))
    return badInput("'" + o.file + "' predates the " +
                    (o.kind == "energy" ? "energy" : "joint_error") +
                    " field (added to recordings later): record the run again with subsim run "
                    "SCENE --record FILE.h5");

  // The data behind the PNG, beside it, as `bench --convergence` leaves PREFIX.csv.
  const std::string csv_path = fs::path(png).replace_extension(".csv").string();
  std::ofstream csv(csv_path, std::ios::binary | std::ios::trunc);
  if (!csv) return badInput("--output: cannot write '" + csv_path + "': " + std::strerror(errno));
  std::string reason;
  if (!writable(png, reason)) return badInput("--output: cannot write '" + png + "': " + reason);
  const std::vector<std::string> columns = columnsOf(o.kind);
  csv << "step,time_s";
  for (const std::string& c : columns) csv << "," << c;
  csv << "\n";
  for (const StepFigures& f : figures) {
    csv << f.step << "," << exactText(f.time);
    for (const std::string& c : columns) csv << "," << valueOf(f, c);
    csv << "\n";
  }
  csv.close();
  if (!csv) return badInput("--output: writing '" + csv_path + "' failed");
  std::cout << "wrote " << csv_path << " (" << n << " steps)\n";

  const std::string title =
      rec.scene + ", " + rec.solver + " (" + fs::path(o.file).filename().string() + ")";
  if (!drawPlot("plot_recording.py", csv_path, png, title)) return kExitBadInput;
  std::cout << "wrote " << png << "\n";
  return kExitOk;
}

}  // namespace

int runPlot(const PlotOptions& o) {
  checkPlotOptions(o);  // OptionError reaches main
  const std::string png = plotOutputOf(o);
  return plotInputOf(o.file) == PlotInput::Csv ? plotCsv(o, png) : plotRecording(o, png);
}

}  // namespace subsim::cli
