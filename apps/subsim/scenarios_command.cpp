#include <iomanip>
#include <iostream>

#include "commands.hpp"
#include "subsim/scenarios/scenario.hpp"

namespace subsim::cli {

int runScenarios() {
  for (const Scenario& s : builtinScenarios()) {
    std::cout << std::left << std::setw(10) << s.name << " " << s.description << "\n";
    for (const ScenarioParameter& p : s.parameters)
      std::cout << "           " << p.name << "=" << p.default_value << "  " << p.help << "\n";
  }
  return kExitOk;
}

}  // namespace subsim::cli
