#pragma once
// Drawing a bench's CSV as a PNG with one of the project's matplotlib scripts (scripts/*.py).
#include <string>

namespace subsim::cli {

/// Runs scripts/`script` CSV PNG [--title TITLE] with the first python3 that has matplotlib.
/// False, with a message on stderr naming what is missing (the script, python3, matplotlib) or
/// that the script failed; the CSV is left in place either way, and the message says it is
/// written unless `csv_is_input` (the user's own CSV, as `subsim plot FILE.csv` draws).
bool drawPlot(const std::string& script, const std::string& csv_path, const std::string& png_path,
              const std::string& title, bool csv_is_input = false);

}  // namespace subsim::cli
