#pragma once
// The checks of `subsim replay` and `subsim plot` options that need no file, apart from
// option_checks.hpp (run, bench) so that each command's rules sit in one place; run before the
// file is read, and by the command-line fuzzer (fuzz/fuzz_command_line.cpp).  Each failure throws
// OptionError with the message the user sees after "subsim: " (docs/errors.md, "Replay and
// plot").
#include <string>

#include "commands.hpp"
#include "subsim/sim/recording_summary.hpp"

namespace subsim::cli {

/// --steps FIRST:LAST (whole numbers, 1 <= FIRST <= LAST); whether LAST lies within the
/// recording is checked once it is read.
StepRange parseStepRange(const std::string& text);

void checkReplayOptions(const ReplayOptions& options);

/// What `subsim plot` reads, told by the input's extension.
enum class PlotInput { Recording, Csv };
PlotInput plotInputOf(const std::string& file);
/// The PNG to write: --output, else the input's name with _KIND.png for its extension.
std::string plotOutputOf(const PlotOptions& options);

/// The input is .h5 or .csv, a CSV only with --kind convergence, --output ends in .png.
void checkPlotOptions(const PlotOptions& options);

}  // namespace subsim::cli
