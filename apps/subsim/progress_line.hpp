#pragma once
// A progress line on stderr for the long commands (bench, solve), drawn only for a person
// watching a terminal: redirected output and CI logs stay clean.
#include <string>

namespace subsim::cli {

/// Redraws the line as "COMMAND: TEXT".
void progressLine(const char* command, const std::string& text);
/// Clears the line.
void progressDone();

}  // namespace subsim::cli
