#include "convergence_csv.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <vector>

namespace subsim::cli {

namespace {

constexpr const char* kHistoryHeader =
    "solver,problem,iteration,residual_name,residual,cumulative_ms";
constexpr const char* kBenchHeader = "solver,iteration,residual_name,residual,cumulative_ms";

/// One CSV line's fields; a quoted field may hold commas and "" for a quote.  False when a
/// quote is not closed or text follows a closing quote.
bool splitCsvLine(const std::string& line, std::vector<std::string>& fields) {
  fields.assign(1, std::string());
  bool quoted = false, was_quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        fields.back() += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == ',') {
      fields.emplace_back();
      was_quoted = false;
    } else if (c == '"' && fields.back().empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (was_quoted) {
      return false;
    } else {
      fields.back() += c;
    }
  }
  return !quoted;
}

/// What a header or a value looked like, shortened for a message.
std::string shown(const std::string& text) {
  return "'" + (text.size() > 80 ? text.substr(0, 77) + "..." : text) + "'";
}

bool isNumber(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return *end == '\0' && text.find_first_of(" \t") == std::string::npos;
}

bool isWholeNumber(const std::string& text) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

ConvergenceCsvInfo checkConvergenceCsv(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::runtime_error("cannot read '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path + "': " + std::strerror(errno));
  // Appended piece by piece: GCC 12's -Warray-bounds misfires on a chain of operator+ here.
  std::string expected = "the header ";
  expected.append(kHistoryHeader)
      .append(" (subsim solve --history) or ")
      .append(kBenchHeader)
      .append(" (subsim bench --convergence)");
  std::string line;
  if (!std::getline(in, line))
    throw std::runtime_error(path + ": expected " + expected + ", got an empty file");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ConvergenceCsvInfo info;
  if (line == kHistoryHeader)
    info.kind = ConvergenceCsv::History;
  else if (line == kBenchHeader)
    info.kind = ConvergenceCsv::BenchConvergence;
  else
    throw std::runtime_error(path + ": line 1: expected " + expected + ", got " + shown(line));

  std::vector<std::string> names, fields;
  splitCsvLine(line, names);
  for (int number = 2; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::string where = path + ": line " + std::to_string(number) + ": ";
    if (!splitCsvLine(line, fields))
      throw std::runtime_error(where +
                               "expected comma-separated fields, got a quote that is not "
                               "closed or text after a closing quote");
    if (fields.size() != names.size())
      throw std::runtime_error(where + "expected " + std::to_string(names.size()) +
                               " fields, got " + std::to_string(fields.size()));
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string& name = names[i];
      const std::string& value = fields[i];
      if (name == "iteration"                             ? !isWholeNumber(value)
          : name == "residual" || name == "cumulative_ms" ? !isNumber(value)
                                                          : false)
        throw std::runtime_error(where + "column " + name + ": expected " +
                                 (name == "iteration" ? "a whole number >= 0" : "a number") +
                                 ", got " + shown(value));
    }
    ++info.rows;
  }
  if (info.rows == 0)
    throw std::runtime_error(path +
                             ": expected one line per iteration after the header, got "
                             "none: nothing to plot");
  return info;
}

}  // namespace subsim::cli
