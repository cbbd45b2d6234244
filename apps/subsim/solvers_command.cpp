#include <algorithm>
#include <iomanip>
#include <iostream>

#include "commands.hpp"
#include "option_checks.hpp"
#include "subsim/solvers/solver.hpp"

namespace subsim::cli {

namespace {

/// The option's type with its legal values: "double in (0, 2)", "enum: per-body | dense".
std::string typeText(const OptionInfo& o) {
  switch (o.type) {
    case OptionType::Bool:
      return "bool";
    case OptionType::Enum: {
      std::string s = "enum:";
      for (size_t i = 0; i < o.choices.size(); ++i) s += (i == 0 ? " " : " | ") + o.choices[i];
      return s;
    }
    case OptionType::Int:
    case OptionType::Double:
      break;
  }
  // "a whole number from 0 to 8" -> "int from 0 to 8"; "a number in (0, 2)" -> "double in (0, 2)"
  std::string range = o.expected;
  for (const std::string prefix : {"a whole number ", "a number "})
    if (range.rfind(prefix, 0) == 0) range = range.substr(prefix.size());
  return std::string(optionTypeName(o.type)) + " " + range;
}

void listSolver(const SolverEntry& e) {
  std::cout << std::left << std::setw(10) << e.name << " "
            << (e.kind == SolverKind::NewtonType ? "Newton-type" : "first-order") << ", "
            << e.formulation << (e.local_form ? " and local (W, q, mu)" : "")
            << (e.anisotropic_friction ? ", anisotropic friction" : "") << ": " << e.description
            << "\n";
  if (e.options.empty()) {
    std::cout << "    (no options)\n";
    return;
  }
  size_t name_width = 0, type_width = 0;
  for (const OptionInfo& o : e.options) {
    name_width = std::max(name_width, o.name.size());
    type_width = std::max(type_width, typeText(o).size());
  }
  // NAME  TYPE  default VALUE [UNIT], then the documentation on its own line.
  for (const OptionInfo& o : e.options)
    std::cout << "    " << std::setw(static_cast<int>(name_width)) << o.name << "  "
              << std::setw(static_cast<int>(type_width)) << typeText(o) << "  default "
              << o.default_value << (o.unit == "-" ? "" : " " + o.unit) << "\n        " << o.doc
              << "\n";
}

}  // namespace

int runSolvers(const std::optional<std::string>& name) {
  checkSolversCommand(name);  // OptionError reaches main
  for (const SolverEntry& e : solverRegistry())
    if (!name || e.name == *name) listSolver(e);
  if (!name)
    std::cout << "\nSet an option with --solver-option NAME=VALUE (subsim run, subsim bench) or "
                 "in a scene file's solver: {name: NAME, options: {...}}.\n";
  return kExitOk;
}

}  // namespace subsim::cli
