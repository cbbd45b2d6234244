#pragma once
// The robot descriptions compiled into the library, so that scenes need no data files at run
// time: robots/panda/panda.urdf and robots/allegro/allegro_hand_right.urdf (sources and
// approximations in the README.md beside each).  CMake generates each text's definition from its
// URDF file (cmake/builtin_urdf.cpp.in).  Scene files name them `urdf: panda` and
// `urdf: allegro_hand`; the built-in scenes' helpers are in scenarios/panda_model.hpp.
#include <string_view>

namespace subsim {

/// The text of robots/panda/panda.urdf.
const char* pandaUrdf();
/// The text of robots/allegro/allegro_hand_right.urdf.
const char* allegroHandUrdf();

/// The built-in robots by the name scene files give them.
struct BuiltinRobot {
  const char* name;         // e.g. "panda"
  const char* description;  // e.g. "the built-in Franka Panda"
  const char* (*urdf)();
};
inline constexpr BuiltinRobot kBuiltinRobots[] = {
    {"panda", "the built-in Franka Panda", pandaUrdf},
    {"allegro_hand", "the built-in 16-DOF Allegro hand", allegroHandUrdf},
};
/// The built-in robot called `name`, nullptr when there is none.
inline const BuiltinRobot* findBuiltinRobot(std::string_view name) {
  for (const BuiltinRobot& r : kBuiltinRobots)
    if (name == r.name) return &r;
  return nullptr;
}

}  // namespace subsim
