#pragma once
// The built-in Franka Panda: robots/panda/panda.urdf (sources and approximations in
// robots/panda/README.md), compiled into the library so that scenes need no data files at run
// time.  CMake generates the definition from the URDF file.

namespace subsim {

/// The text of robots/panda/panda.urdf.
const char* pandaUrdf();

}  // namespace subsim
