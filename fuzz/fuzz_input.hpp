#pragma once
// Shared by the libFuzzer targets (fuzz/README.md): readers that take a path get the input
// through a file of this process's own.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace subsim::fuzz {

/// A file of this process's own, named after `suffix`.
inline std::string processPath(const char* suffix) {
  return "/tmp/subsim_fuzz_" + std::to_string(static_cast<long>(getpid())) + suffix;
}

/// Writes the fuzz input to processPath(suffix), and returns that path.
inline std::string writeInput(const std::uint8_t* data, std::size_t size, const char* suffix) {
  const std::string path = processPath(suffix);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace subsim::fuzz
