// End-to-end tests of `subsim solve` and `subsim export-fclib`: a recorded run exported to FCLib
// and solved again, the three output formats, the history CSV and bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "test_files.hpp"

namespace {

using ::subsim::test::readFile;
using ::subsim::test::tempPath;

using subsim::cli_test::contains;
using subsim::cli_test::Result;
using subsim::cli_test::run;

/// A problem file of 6 steps of granular, recorded with SubADMM at 40 iterations.
const std::string& problemFile() {
  static const std::string path = [] {
    const std::string p = tempPath("granular.h5");
    const Result r =
        run("bench granular:spheres=8 --problems --steps 6 --solvers pgs "
            "--iterations 5 --reference-iterations 40 --save-problems " +
            p);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return p;
  }();
  return path;
}

TEST(SolveCli, ReproducesTheRecordingSolverAndPrintsEveryFormat) {
  const Result r = run("solve " + problemFile() +
                       " --solvers subadmm,pgs --iterations 40 --tolerance 0 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  int subadmm = 0, stored = 0;
  for (const auto& row : j["results"]) {
    if (row["solver"] == "stored") ++stored;
    if (row["solver"] != "subadmm") continue;
    ++subadmm;
    EXPECT_EQ(row["iterations"], 40);
    EXPECT_EQ(row["stored_difference"], 0.0) << row.dump();  // bit for bit: the same solution
  }
  EXPECT_EQ(subadmm, 6);
  EXPECT_EQ(stored, 6);
  const Result md = run("solve " + problemFile() + " --solvers pgs --problems 2:3");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(contains(md.out, "| problem | contacts | rows | solver | status |")) << md.out;
  EXPECT_TRUE(contains(md.out, "granular.h5:2 |")) << md.out;
  EXPECT_FALSE(contains(md.out, "granular.h5:4 |")) << md.out;
  EXPECT_TRUE(contains(md.out, "| pgs | ")) << md.out;
  const Result csv = run("solve " + problemFile() + " --solvers nnewton --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("file,problem,contacts,rows,solver,status,iterations,solve_ms,", 0), 0u);
}

TEST(SolveCli, ExportedFclibFilesSolveAndWriteAHistory) {
  const std::string dir = tempPath("fclib");
  for (const char* form : {"", " --local"}) {
    std::filesystem::remove_all(dir);
    const Result ex = run("export-fclib " + problemFile() + " " + dir + form + " --problems 5:6");
    ASSERT_EQ(ex.exit_code, 0) << ex.err;
    const std::string a = dir + "/" + std::filesystem::path(problemFile()).stem().string();
    EXPECT_TRUE(contains(ex.out, "wrote " + a + "-000005.hdf5")) << ex.out;
    EXPECT_TRUE(std::filesystem::exists(a + "-000006.hdf5"));
    EXPECT_FALSE(std::filesystem::exists(a + "-000004.hdf5"));
    const std::string history = tempPath("history.csv");
    const Result r = run("solve " + a + "-000005.hdf5 " + a +
                         "-000006.hdf5 --tolerance 1e-8 --format csv --history " + history);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Every default solver solves these small piles to 1e-8 (local: the dual solvers only).
    EXPECT_TRUE(contains(r.out, ",pgs,converged,")) << r.out;
    EXPECT_TRUE(contains(r.out, ",nnewton,converged,")) << r.out;
    EXPECT_EQ(contains(r.out, ",subadmm,"), std::string(form).empty()) << r.out;
    EXPECT_FALSE(contains(r.out, "not-applicable")) << r.out;
    const std::string h = readFile(history);
    EXPECT_EQ(h.rfind("solver,problem,iteration,residual_name,residual,cumulative_ms\n", 0), 0u);
    EXPECT_TRUE(contains(h, ",natural-map,")) << h.substr(0, 400);
    std::remove(history.c_str());
  }
  std::filesystem::remove_all(dir);
}

TEST(SolveCli, BadInputSaysWhatIsWrong) {
  const Result none = run("solve");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_TRUE(contains(none.err, "solve: expected one or more problem files")) << none.err;
  const Result range = run("solve " + problemFile() + " --problems 5:2");
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_TRUE(contains(range.err, "FIRST is after LAST")) << range.err;
  const Result beyond = run("solve " + problemFile() + " --problems 3:9");
  EXPECT_EQ(beyond.exit_code, 2);
  EXPECT_TRUE(contains(beyond.err, "--problems: 3:9 reaches problem 9, but there are 6"))
      << beyond.err;
  const Result check = run("solve " + problemFile() + " --tolerance 0 --check-every 3");
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_TRUE(contains(check.err, "--check-every applies only with a --tolerance above 0"));
  const Result missing = run("solve " + tempPath("absent.hdf5"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "absent.hdf5")) << missing.err;
  const Result args = run("export-fclib " + problemFile());
  EXPECT_EQ(args.exit_code, 2);
  EXPECT_TRUE(contains(args.err, "export-fclib: expected a problem file and a directory"))
      << args.err;
  const Result encoding = run("export-fclib " + problemFile() + " d --encoding coo");
  EXPECT_EQ(encoding.exit_code, 2);
  EXPECT_TRUE(contains(encoding.err, "expected csc, csr or triplet, got 'coo'")) << encoding.err;
}

}  // namespace
