// The `solver:` section of a scene file.  Its messages have the shape of the rest of the scene
// reader's (io/scene_file.cpp): "FILE: PATH: expected WHAT, got VALUE (line L, column C)".
#include "subsim/io/scene_solver_section.hpp"

#include <yaml-cpp/yaml.h>

#include <memory>
#include <set>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "subsim/io/scene_file.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim {

namespace {

using YAML::Node;

constexpr std::size_t kMaxShownChars = 40;
constexpr long long kMaxIterations = 100000000;  // as the command line's --iterations

class SectionReader {
 public:
  explicit SectionReader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message,
                         const Node& where) const {
    std::string text = source_ + ": " + path + ": " + message;
    const YAML::Mark mark = where.Mark();
    if (!mark.is_null())
      text += " (line " + std::to_string(mark.line + 1) + ", column " +
              std::to_string(mark.column + 1) + ")";
    throw SceneError(text);
  }

  [[noreturn]] void expected(const std::string& path, const std::string& what,
                             const Node& got) const {
    fail(path, "expected " + what + ", got " + describe(got), got);
  }

  /// The entries of a map, refusing keys that are not text, given twice or not in `allowed`
  /// (none: any key).
  std::vector<std::pair<Node, Node>> entries(const Node& map, const std::string& path,
                                             const std::string& what,
                                             const std::vector<std::string>& allowed) const {
    if (!map.IsMap()) expected(path, what, map);
    std::vector<std::pair<Node, Node>> out;
    std::set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const Node key = it->first;
      if (!key.IsScalar())
        fail(path, "expected text keys, got " + describe(key) + " as a key", key);
      const std::string at = path + "." + key.Scalar();
      if (!seen.insert(key.Scalar()).second)
        fail(at, "duplicate key: expected each key at most once", key);
      if (!allowed.empty()) {
        bool known = false;
        for (const std::string& a : allowed) known = known || a == key.Scalar();
        if (!known) fail(at, "unknown key, expected one of: " + joined(allowed), key);
      }
      out.emplace_back(key, it->second);
    }
    return out;
  }

  static std::string joined(const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  }

  // What a node is, for "got ..." (never emitted: an alias can make a node contain itself).
  static std::string describe(const Node& n) {
    switch (n.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        return "nothing";
      case YAML::NodeType::Scalar:
        return n.Tag() == "!" ? "the string \"" + shown(n.Scalar()) + "\"" : shown(n.Scalar());
      case YAML::NodeType::Sequence:
        return "a list of " + std::to_string(n.size()) + (n.size() == 1 ? " item" : " items");
      case YAML::NodeType::Map:
        return "a map";
    }
    return "an unknown YAML node";
  }

 private:
  // Control characters escaped, long scalars cut (as scene_file.cpp).
  static std::string shown(const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size() && i < kMaxShownChars; ++i) {
      const unsigned char c = static_cast<unsigned char>(text[i]);
      if (c >= 0x20 && c != 0x7f) {
        out += static_cast<char>(c);
        continue;
      }
      static const char* const kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
    if (text.size() > kMaxShownChars) out += "...";
    return out;
  }

  const std::string& source_;
};

bool isPlainScalar(const Node& n) {
  return n.IsScalar() && n.Tag() != "!";
}

}  // namespace

SceneSolver parseSceneSolver(const Node& node, const std::string& source) {
  const SectionReader r(source);
  SceneSolver out;
  const auto fields =
      r.entries(node, "solver",
                "a map {name: SOLVER, iterations: N, tolerance: T, options: {...}} (see "
                "docs/scene-format.md)",
                {"name", "iterations", "tolerance", "options"});
  const Node* options = nullptr;
  for (const auto& [key, value] : fields) {
    const std::string& k = key.Scalar();
    const std::string path = "solver." + k;
    if (k == "name") {
      std::string known;
      for (const std::string& n : solverNames()) known += (known.empty() ? "" : ", ") + n;
      const std::string what = "a solver name (known: " + known + ")";
      if (!value.IsScalar() || findSolver(value.Scalar()) == nullptr) r.expected(path, what, value);
      out.name = value.Scalar();
    } else if (k == "iterations") {
      const std::string what =
          "a whole number of iterations from 0 to " + std::to_string(kMaxIterations);
      const std::optional<long long> v =
          isPlainScalar(value) ? option_text::parseInt(value.Scalar()) : std::nullopt;
      if (!v || *v < 0 || *v > kMaxIterations) r.expected(path, what, value);
      out.iterations = static_cast<int>(*v);
    } else if (k == "tolerance") {
      const std::string what = "a residual >= 0 (0 runs exactly the iterations)";
      const std::optional<double> v =
          isPlainScalar(value) ? option_text::parseDouble(value.Scalar()) : std::nullopt;
      if (!v || *v < 0.0) r.expected(path, what, value);
      out.tolerance = *v;
    } else {
      options = &value;
    }
  }
  if (options == nullptr) return out;

  const Node& map = *options;
  if (out.name.empty())
    r.fail("solver.options", "expected solver.name beside the options: they belong to one solver",
           map);
  const SolverEntry& entry = *findSolver(out.name);
  const std::unique_ptr<Solver> solver = entry.make();
  for (const auto& [key, value] :
       r.entries(map, "solver.options",
                 "a map of " + out.name + "'s options (subsim solvers " + out.name + " lists them)",
                 {})) {
    const std::string path = "solver.options." + key.Scalar();
    const OptionInfo* info = nullptr;
    for (const OptionInfo& o : entry.options)
      if (o.name == key.Scalar()) info = &o;
    if (info == nullptr) {
      std::vector<std::string> names;
      for (const OptionInfo& o : entry.options) names.push_back(o.name);
      r.fail(path,
             names.empty() ? "unknown option: solver '" + out.name + "' has no options"
                           : "unknown option of solver '" + out.name +
                                 "', expected one of: " + SectionReader::joined(names),
             key);
    }
    // Numbers and true/false unquoted, as everywhere in a scene; a name may be quoted.
    if (!value.IsScalar() || value.Scalar().empty() ||
        (info->type != OptionType::Enum && !isPlainScalar(value)))
      r.expected(path, info->expected, value);
    try {
      solver->setOption(info->name, value.Scalar());
    } catch (const std::invalid_argument&) {
      r.expected(path, info->expected, value);
    }
    out.options.push_back({info->name, value.Scalar()});
  }
  return out;
}

}  // namespace subsim
