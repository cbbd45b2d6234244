#pragma once
// Text of the paper tables (`bench --paper`): numbers as the tables print them, and where the
// table goes.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

#include "commands.hpp"

namespace subsim::cli {

/// v with `precision` decimals, "-" when not finite (a figure a run did not produce).
inline std::string fixedText(double v, int precision = 1) {
  if (!std::isfinite(v)) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(precision) << v;
  return s.str();
}

/// v as 1.2e+03, "-" when negative or not finite.
inline std::string scientificText(double v) {
  if (!std::isfinite(v) || v < 0.0) return "-";
  std::ostringstream s;
  s << std::scientific << std::setprecision(1) << v;
  return s.str();
}

/// The fewest digits (at least 6) that read back as the same double: CSV is for further
/// processing.
inline std::string exactText(double v) {
  char buf[64];
  for (int p = 6; p < 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// Opens an output file (before the long runs, so that an unwritable path fails at once); false,
/// with a message on stderr naming `option` and the path, when it cannot be written.
inline bool openOutput(const std::string& option, const std::string& path, std::ofstream& out) {
  out.open(path, std::ios::binary | std::ios::trunc);
  if (out) return true;
  std::cerr << "subsim: " << option << ": cannot write '" << path << "': " << std::strerror(errno)
            << "\n";
  return false;
}

/// Prints `text` on stdout, or writes it to `output` and says so; kExitBadInput when the file
/// cannot be written.
inline int writeTable(const std::string& text, const std::string& output) {
  if (output.empty()) {
    std::cout << text;
    return kExitOk;
  }
  std::ofstream file(output);
  if (!file) {
    std::cerr << "subsim: --output: cannot write '" << output << "'\n";
    return kExitBadInput;
  }
  file << text;
  std::cout << "subsim: wrote " << output << "\n";
  return kExitOk;
}

}  // namespace subsim::cli
