#include "subsim/solvers/solver_options.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

namespace subsim {

const char* optionTypeName(OptionType type) {
  switch (type) {
    case OptionType::Bool:
      return "bool";
    case OptionType::Int:
      return "int";
    case OptionType::Double:
      return "double";
    case OptionType::Enum:
      return "enum";
  }
  return "?";
}

bool NumberRange::contains(double v) const {
  if (!std::isfinite(v)) return false;
  const bool above = lowest_open ? v > lowest : v >= lowest;
  const bool below = highest_open ? v < highest : v <= highest;
  return above && below;
}

std::string NumberRange::describe() const {
  const bool bounded_below = std::isfinite(lowest), bounded_above = std::isfinite(highest);
  const std::string a = option_text::formatDouble(lowest), b = option_text::formatDouble(highest);
  if (bounded_below && bounded_above)
    return "a number in " + std::string(lowest_open ? "(" : "[") + a + ", " + b +
           (highest_open ? ")" : "]");
  if (bounded_below) return "a number " + std::string(lowest_open ? "> " : ">= ") + a;
  if (bounded_above) return "a number " + std::string(highest_open ? "< " : "<= ") + b;
  return "a finite number";
}

namespace option_text {

std::optional<bool> parseBool(std::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

std::optional<long long> parseInt(std::string_view text) {
  // from_chars takes no '+'; a leading one is accepted as written in YAML and by strtol.
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  long long value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> parseDouble(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, std::chars_format::general);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string formatDouble(double value) {
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("?");
}

void throwBadValue(std::string_view solver, const OptionInfo& option, std::string_view text) {
  throw std::invalid_argument("solver '" + std::string(solver) + "': option '" + option.name +
                              "': expected " + option.expected + ", got '" + std::string(text) +
                              "'");
}

void throwUnknown(std::string_view solver, std::string_view option,
                  const std::vector<std::string>& known) {
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  throw std::invalid_argument("solver '" + std::string(solver) + "' has no option '" +
                              std::string(option) + "' (" +
                              (known.empty() ? "it has none" : "its options: " + list) + ")");
}

}  // namespace option_text

}  // namespace subsim
