#pragma once
// A fresh directory per test for the files a command-line test writes and reads (ctest runs the
// tests of one binary in parallel), removed again afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli_runner.hpp"

namespace subsim::cli_test {

class CliTempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           (std::string("subsim_cli_") + info->test_suite_name() + "_" + info->name() + "_" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// `name` in this test's directory.
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  static std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  static void write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
  /// `steps` steps of `scene` recorded by `subsim run --record` into run.h5 here; its path.
  std::string record(const std::string& scene, int steps) {
    const std::string path = file("run.h5");
    const Result r =
        run("run " + scene + " --steps " + std::to_string(steps) + " --record " + path + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return path;
  }

  std::filesystem::path dir_;
};

}  // namespace subsim::cli_test
