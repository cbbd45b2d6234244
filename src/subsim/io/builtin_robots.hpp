#pragma once
// The robot descriptions compiled into the library, so that scenes need no data files at run
// time: robots/panda/panda.urdf (sources and approximations in robots/panda/README.md).  CMake
// generates pandaUrdf()'s definition from the URDF file (cmake/panda_urdf.cpp.in).  Scene files
// name it `urdf: panda`; the built-in scenes' helpers are in scenarios/panda_model.hpp.

namespace subsim {

/// The text of robots/panda/panda.urdf.
const char* pandaUrdf();

}  // namespace subsim
