#pragma once
// Runs the `subsim` command line (SUBSIM_CLI, set by tests/CMakeLists.txt) for the end-to-end
// tests in this folder.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace subsim::cli_test {

struct Result {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

/// Runs `subsim <args>` (through the shell) and returns its exit code, stdout and stderr.
inline Result run(const std::string& args) {
  // One stderr file per call and process: ctest runs tests of this binary in parallel.
  static int calls = 0;
  const std::string err_file = ::testing::TempDir() + "subsim_cli_stderr_" +
                               std::to_string(getpid()) + "_" + std::to_string(calls++) + ".txt";
  const std::string cmd = std::string(SUBSIM_CLI) + " " + args + " 2>" + err_file;
  Result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  r.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::remove(err_file.c_str());
  return r;
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace subsim::cli_test
