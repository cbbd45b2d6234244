#include "python_plot.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <vector>

namespace subsim::cli {

namespace {

std::string quoteShell(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

/// Finds scripts/`script`: next to an installed or built executable (searching upwards for
/// scripts/), else in the source tree this file was compiled from.
std::filesystem::path findPlotScript(const std::string& script) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path dir = exe.parent_path();
    candidates.push_back(dir / "../share/subsim" / script);
    for (int up = 0; up < 4 && !dir.empty(); ++up, dir = dir.parent_path())
      candidates.push_back(dir / "scripts" / script);
  }
  candidates.push_back(fs::path(__FILE__).parent_path() / "../../scripts" / script);
  for (const fs::path& p : candidates)
    if (fs::exists(p, ec)) return fs::weakly_canonical(p, ec);
  return {};
}

/// The first Python that can import matplotlib: `python3` on PATH, else Debian's own
/// /usr/bin/python3 (python3-matplotlib installs there, which a pyenv or venv python3 earlier on
/// PATH does not see).  Empty if none can.
std::string findPythonWithMatplotlib() {
  for (const char* python : {"python3", "/usr/bin/python3"}) {
    const std::string cmd =
        std::string(python) + " -c 'import matplotlib' >/dev/null 2>&1 </dev/null";
    if (std::system(cmd.c_str()) == 0) return python;
  }
  return {};
}

bool havePython3() {
  return std::system("command -v python3 >/dev/null 2>&1") == 0;
}

}  // namespace

bool drawPlot(const std::string& script_name, const std::string& csv_path,
              const std::string& png_path, const std::string& title, bool csv_is_input) {
  const std::string written = csv_is_input ? "" : "; " + csv_path + " is written";
  const std::filesystem::path script = findPlotScript(script_name);
  if (script.empty()) {
    std::cerr << "subsim: the plot needs scripts/" << script_name
              << ", which was not found next to the executable nor in the source tree" << written
              << "\n";
    return false;
  }
  const std::string python = findPythonWithMatplotlib();
  if (python.empty()) {
    std::cerr << "subsim: the plot needs "
              << (havePython3() ? "matplotlib for python3: install python3-matplotlib "
                                  "(apt-get install python3-matplotlib)"
                                : "python3 with matplotlib: install python3 and "
                                  "python3-matplotlib (apt-get install python3 "
                                  "python3-matplotlib)")
              << written << "\n";
    return false;
  }
  const std::string cmd = python + " " + quoteShell(script.string()) + " " + quoteShell(csv_path) +
                          " " + quoteShell(png_path) + " --title " + quoteShell(title) +
                          " </dev/null";
  if (std::system(cmd.c_str()) != 0) {
    std::cerr << "subsim: plotting with " << script.string() << " failed" << written << "\n";
    return false;
  }
  return true;
}

}  // namespace subsim::cli
