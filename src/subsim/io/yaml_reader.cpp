#include "subsim/io/yaml_reader.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace subsim::yaml {

std::string keyPath(const std::string& parent, std::string_view key) {
  std::string p = parent;
  if (!p.empty()) p += '.';
  p += key;
  return p;
}

std::string indexPath(const std::string& parent, std::size_t i) {
  return parent + "[" + std::to_string(i) + "]";
}

std::string joined(const Keys& keys) {
  std::string s;
  for (std::string_view k : keys) {
    if (!s.empty()) s += ", ";
    s += k;
  }
  return s;
}

// yaml-cpp tags quoted scalars "!" and plain ones "?": "1" in quotes is text, not a number.
bool isQuoted(const Node& n) {
  return n.Tag() == "!";
}

// What a node is, for "got ...".  Never emits the node: an alias can make it refer to itself
// (&a [*a]) and emitting would then never end.
std::string describe(const Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Scalar:
      if (isQuoted(n)) return "the string \"" + shown(n.Scalar()) + "\"";
      return shown(n.Scalar());
    case YAML::NodeType::Sequence: {
      const std::size_t count = n.size();
      return "a list of " + std::to_string(count) + (count == 1 ? " item" : " items");
    }
    case YAML::NodeType::Map:
      return "a map";
  }
  return "an unknown YAML node";
}

// YAML 1.2 core-schema floats.  std::from_chars rather than streams or strtod: it ignores the
// global locale and reports overflow instead of returning a silently clamped value.
ParsedNumber parseDouble(std::string_view s, double& out) {
  bool negative = false;
  std::string_view digits = s;
  if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  if (digits == ".inf" || digits == ".Inf" || digits == ".INF") {
    out = negative ? -std::numeric_limits<double>::infinity()
                   : std::numeric_limits<double>::infinity();
    return ParsedNumber::Ok;
  }
  if (digits == ".nan" || digits == ".NaN" || digits == ".NAN") {
    out = std::numeric_limits<double>::quiet_NaN();
    return ParsedNumber::Ok;
  }
  if (digits.empty() || digits.front() == '+' || digits.front() == '-')
    return ParsedNumber::NotANumber;
  double value = 0.0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) return ParsedNumber::OutOfRange;
  if (ec != std::errc() || ptr != end) return ParsedNumber::NotANumber;
  out = negative ? -value : value;
  return ParsedNumber::Ok;
}

// Decimal, or hexadecimal with 0x (convenient for collision bit masks).
bool parseInteger(std::string_view s, long long& out) {
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty() || s.front() == '+' || s.front() == '-') return false;
  unsigned long long magnitude = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, magnitude, base);
  if (ec != std::errc() || ptr != end) return false;
  if (magnitude > static_cast<unsigned long long>(std::numeric_limits<long long>::max()))
    return false;
  out = negative ? -static_cast<long long>(magnitude) : static_cast<long long>(magnitude);
  return true;
}

bool inRange(double v, Range range) {
  switch (range) {
    case Range::Any:
      return true;
    case Range::NonNegative:
      return v >= 0.0;
    case Range::Positive:
      return v > 0.0;
  }
  return false;
}

}  // namespace subsim::yaml
