#pragma once
// Files the tests write and read: a temporary path of their own per test, removed again, and
// whole-file reads.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace subsim::test {

/// The whole file at `path`, bytes as they are ("" when it cannot be read).
inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// A path in GoogleTest's temporary folder that no other test and no other process uses:
/// TMP/subsim_SUITE_TEST_PID followed by `suffix` (a parameterised test's '/' made '_').
inline std::string tempPath(const std::string& suffix = "") {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(info->test_suite_name()) + "_" + info->name();
  for (char& c : name)
    if (c == '/') c = '_';
  return ::testing::TempDir() + "subsim_" + name + "_" + std::to_string(::getpid()) + suffix;
}

/// A file path removed when the test ends (and when made, so a crashed run leaves nothing that
/// changes the next one).
struct TempFile {
  std::string path;
  explicit TempFile(std::string p) : path(std::move(p)) { std::remove(path.c_str()); }
  ~TempFile() { std::remove(path.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

}  // namespace subsim::test
