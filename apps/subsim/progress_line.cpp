#include "progress_line.hpp"

#include <unistd.h>

#include <iostream>

namespace subsim::cli {

namespace {
bool terminal() {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  return tty;
}
}  // namespace

void progressLine(const char* command, const std::string& text) {
  if (terminal()) std::cerr << "\r" << command << ": " << text << "\033[K" << std::flush;
}

void progressDone() {
  if (terminal()) std::cerr << "\r\033[K" << std::flush;
}

}  // namespace subsim::cli
