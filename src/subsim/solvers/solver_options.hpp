#pragma once
// Solver options as text: every solver keeps its options in a typed struct (SubadmmOptions,
// FadmmOptions, ...) and describes them once in an OptionTable built from member pointers.  The
// table gives the registry entry its self-describing list (name, type, default, unit, one line of
// documentation: `subsim solvers`), and reads and writes the struct's fields from text, so that
// scene files (`solver: {options: {...}}`) and the command line (`--solver-option NAME=VALUE`)
// reach every option of every solver the same way.
//
// Declaring an option (in the solver's .cpp):
//   const OptionTable<SubadmmOptions>& SubadmmSolver::optionTable() {
//     static const auto table = OptionTable<SubadmmOptions>()
//         .number("relaxation", &SubadmmOptions::relaxation, NumberRange::open(0.0, 2.0), "-",
//                 "ADMM over-relaxation alpha; 1 is the papers' plain iteration");
//     return table;
//   }
// Names are snake_case (as the struct members and scene-file keys).  Values are read strictly:
// bool "true" or "false"; int a whole decimal number; double a finite number (C++ from_chars,
// so "1e-6" and "0.5"); enum one of its listed names.  Every refusal is std::invalid_argument
// naming the solver, the option and what was expected, e.g.
//   solver 'subadmm': option 'relaxation': expected a number in (0, 2), got '2.5'
//   solver 'pgs' has no option 'relaxation' (it has none)
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace subsim {

enum class OptionType { Bool, Int, Double, Enum };
/// "bool", "int", "double", "enum".
const char* optionTypeName(OptionType type);

/// Where a number option's legal values lie, bounds open or closed.
struct NumberRange {
  double lowest = -std::numeric_limits<double>::infinity();
  double highest = std::numeric_limits<double>::infinity();
  bool lowest_open = false;
  bool highest_open = false;

  static NumberRange positive() { return {0.0, std::numeric_limits<double>::infinity(), true}; }
  static NumberRange nonNegative() { return {0.0, std::numeric_limits<double>::infinity()}; }
  static NumberRange atLeast(double a) { return {a, std::numeric_limits<double>::infinity()}; }
  static NumberRange open(double a, double b) { return {a, b, true, true}; }
  /// (a, b]
  static NumberRange openClosed(double a, double b) { return {a, b, true, false}; }
  bool contains(double v) const;
  /// "a number > 0", "a number >= 0", "a number in (0, 2)", "a number in (0, 1]".
  std::string describe() const;
};

/// One option as the registry describes it (`subsim solvers`).
struct OptionInfo {
  std::string name;
  OptionType type = OptionType::Double;
  std::string default_value;  // as text, in the form setOption reads
  std::string unit = "-";     // "-" for none
  std::string expected;  // the legal values in words: "a number in (0, 2)", "per-body or dense"
  NumberRange range;     // Int and Double: the legal values (Int: closed bounds)
  std::vector<std::string> choices;  // Enum: the legal names
  std::string doc;                   // one line
};

/// One option given as text, e.g. {"relaxation", "1.2"}.
struct SolverOption {
  std::string name;
  std::string value;
  bool operator==(const SolverOption&) const = default;
};
/// Options in the order given (scene file, then command line); a later value of the same option
/// overrides an earlier one.
using SolverOptionValues = std::vector<SolverOption>;

namespace option_text {
// The text forms, shared by every table (solver_options.cpp).
std::optional<bool> parseBool(std::string_view text);
std::optional<long long> parseInt(std::string_view text);
std::optional<double> parseDouble(std::string_view text);  // finite only
/// Shortest text that reads back to the same double ("1.5", "0.001", "1e-06").
std::string formatDouble(double value);
[[noreturn]] void throwBadValue(std::string_view solver, const OptionInfo& option,
                                std::string_view text);
/// `known` are the solver's option names (none: "it has none").
[[noreturn]] void throwUnknown(std::string_view solver, std::string_view option,
                               const std::vector<std::string>& known);
}  // namespace option_text

/// The options of one Options struct: descriptions plus typed access through member pointers.
template <class Options>
class OptionTable {
 public:
  OptionTable& flag(std::string name, bool Options::*member, std::string doc) {
    OptionInfo info = makeInfo(std::move(name), OptionType::Bool, "-", std::move(doc));
    info.expected = "true or false";
    return add(
        std::move(info),
        [member](Options& o, std::string_view text) {
          const std::optional<bool> v = option_text::parseBool(text);
          if (v) o.*member = *v;
          return v.has_value();
        },
        [member](const Options& o) { return std::string(o.*member ? "true" : "false"); });
  }

  OptionTable& integer(std::string name, int Options::*member, int lowest, int highest,
                       std::string unit, std::string doc) {
    OptionInfo info = makeInfo(std::move(name), OptionType::Int, std::move(unit), std::move(doc));
    info.expected =
        "a whole number from " + std::to_string(lowest) + " to " + std::to_string(highest);
    info.range = {static_cast<double>(lowest), static_cast<double>(highest)};
    return add(
        std::move(info),
        [member, lowest, highest](Options& o, std::string_view text) {
          const std::optional<long long> v = option_text::parseInt(text);
          if (!v || *v < lowest || *v > highest) return false;
          o.*member = static_cast<int>(*v);
          return true;
        },
        [member](const Options& o) { return std::to_string(o.*member); });
  }

  OptionTable& number(std::string name, double Options::*member, NumberRange range,
                      std::string unit, std::string doc) {
    OptionInfo info =
        makeInfo(std::move(name), OptionType::Double, std::move(unit), std::move(doc));
    info.expected = range.describe();
    info.range = range;
    return add(
        std::move(info),
        [member, range](Options& o, std::string_view text) {
          const std::optional<double> v = option_text::parseDouble(text);
          if (!v || !range.contains(*v)) return false;
          o.*member = *v;
          return true;
        },
        [member](const Options& o) { return option_text::formatDouble(o.*member); });
  }

  /// An enum member; `choices` pairs each legal name with its value.
  template <class E>
  OptionTable& choice(std::string name, E Options::*member,
                      std::vector<std::pair<std::string, E>> choices, std::string doc) {
    OptionInfo info = makeInfo(std::move(name), OptionType::Enum, "-", std::move(doc));
    for (const auto& c : choices) info.choices.push_back(c.first);
    for (std::size_t i = 0; i < choices.size(); ++i)
      info.expected += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i].first;
    return add(
        std::move(info),
        [member, choices](Options& o, std::string_view text) {
          for (const auto& c : choices)
            if (text == c.first) {
              o.*member = c.second;
              return true;
            }
          return false;
        },
        [member, choices](const Options& o) {
          for (const auto& c : choices)
            if (o.*member == c.second) return c.first;
          return std::string("?");
        });
  }

  /// Every option, in declaration order, with the default of a value-initialised Options.
  const std::vector<OptionInfo>& describe() const { return infos_; }

  /// Sets option `name` of `o` from `text`; std::invalid_argument (naming `solver`) otherwise,
  /// with `o` unchanged.
  void set(Options& o, std::string_view solver, std::string_view name,
           std::string_view text) const {
    const std::size_t k = find(solver, name);
    if (!access_[k].set(o, text)) option_text::throwBadValue(solver, infos_[k], text);
  }

  /// Option `name` of `o` as text (what set() reads back to the same value).
  std::string get(const Options& o, std::string_view solver, std::string_view name) const {
    return access_[find(solver, name)].get(o);
  }

 private:
  struct Access {
    std::function<bool(Options&, std::string_view)> set;
    std::function<std::string(const Options&)> get;
  };

  static OptionInfo makeInfo(std::string name, OptionType type, std::string unit, std::string doc) {
    OptionInfo info;
    info.name = std::move(name);
    info.type = type;
    info.unit = std::move(unit);
    info.doc = std::move(doc);
    return info;
  }

  OptionTable& add(OptionInfo info, std::function<bool(Options&, std::string_view)> set,
                   std::function<std::string(const Options&)> get) {
    info.default_value = get(Options());
    infos_.push_back(std::move(info));
    access_.push_back({std::move(set), std::move(get)});
    return *this;
  }

  std::size_t find(std::string_view solver, std::string_view name) const {
    for (std::size_t k = 0; k < infos_.size(); ++k)
      if (infos_[k].name == name) return k;
    std::vector<std::string> known;
    for (const OptionInfo& i : infos_) known.push_back(i.name);
    option_text::throwUnknown(solver, name, known);
  }

  std::vector<OptionInfo> infos_;
  std::vector<Access> access_;
};

}  // namespace subsim
