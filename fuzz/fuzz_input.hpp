#pragma once
// Shared by the libFuzzer targets (fuzz/README.md): readers that take a path get the input
// through a file of this process's own.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace subsim::fuzz {

/// Writes the fuzz input to a file named after the process and `suffix`, and returns its path.
inline std::string writeInput(const std::uint8_t* data, std::size_t size, const char* suffix) {
  const std::string path =
      "/tmp/subsim_fuzz_" + std::to_string(static_cast<long>(getpid())) + suffix;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace subsim::fuzz
