#include "replay_plot_checks.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <system_error>

#include "option_checks.hpp"

namespace subsim::cli {

namespace {

std::string lowerExtension(const std::string& file) {
  std::string ext = std::filesystem::path(file).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

/// A step number: whole, from 1; nothing else on [begin, end).
bool stepNumber(const char* begin, const char* end, int& value) {
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  return begin != end && ec == std::errc() && ptr == end && value >= 1;
}

}  // namespace

StepRange parseStepRange(const std::string& text) {
  const std::size_t colon = text.find(':');
  StepRange range;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (colon == std::string::npos || !stepNumber(begin, begin + colon, range.first) ||
      !stepNumber(begin + colon + 1, end, range.last))
    throw OptionError(
        "replay: --steps: expected FIRST:LAST, two step numbers from 1 (e.g. 1:100), "
        "got '" +
        text + "'");
  if (range.last < range.first)
    throw OptionError("replay: --steps: expected FIRST:LAST with FIRST <= LAST, got '" + text +
                      "'");
  return range;
}

void checkReplayOptions(const ReplayOptions& o) {
  if (o.steps) parseStepRange(*o.steps);
}

PlotInput plotInputOf(const std::string& file) {
  return lowerExtension(file) == ".csv" ? PlotInput::Csv : PlotInput::Recording;
}

std::string plotOutputOf(const PlotOptions& o) {
  if (!o.output.empty()) return o.output;
  std::filesystem::path png(o.file);
  png.replace_extension();
  return png.string() + "_" + o.kind + ".png";
}

void checkPlotOptions(const PlotOptions& o) {
  const std::string ext = lowerExtension(o.file);
  if (ext != ".h5" && ext != ".csv")
    throw OptionError(
        "plot: " + o.file + ": expected a recording (.h5) or a convergence CSV (.csv), got " +
        (ext.empty() ? std::string("a name without an extension") : "a '" + ext + "' file"));
  if (ext == ".csv" && o.kind != "convergence")
    throw OptionError("plot: " + o.file + ": --kind " + o.kind +
                      " draws a recording (FILE.h5); a CSV is drawn with --kind convergence");
  if (!o.output.empty() && lowerExtension(o.output) != ".png")
    throw OptionError("plot: --output: expected a .png file name, got '" + o.output + "'");
}

}  // namespace subsim::cli
