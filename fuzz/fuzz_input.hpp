#pragma once
// Shared by the libFuzzer targets (fuzz/README.md): readers that take a path get the input
// through a file of this process's own.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace subsim::fuzz {

/// A file of this process's own, named after `suffix`.
inline std::string processPath(const char* suffix) {
  return "/tmp/subsim_fuzz_" + std::to_string(static_cast<long>(getpid())) + suffix;
}

/// The bytes of the file at `path`, which is then removed (a base file written once per process).
inline std::string takeFile(const std::string& path) {
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::remove(path.c_str());
  return bytes;
}

/// Writes the fuzz input to processPath(suffix), and returns that path.
inline std::string writeInput(const std::uint8_t* data, std::size_t size, const char* suffix) {
  const std::string path = processPath(suffix);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace subsim::fuzz
