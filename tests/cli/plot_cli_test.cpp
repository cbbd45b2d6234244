// `subsim plot FILE --kind KIND`: every kind of a recording and both convergence CSV headers give
// a PNG (when matplotlib is there, which scripts/setup.sh installs) and, for a recording, the CSV
// it drew, whose values are the recording's; a recording made before energy and joint_error
// existed, a CSV of another shape and a bad --output are refused with exit 2 (the messages are in
// docs/errors.md, run by error_catalogue_test.cpp, except the older recording's, checked here).
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "cli_temp_dir.hpp"
#include "subsim/sim/recorder.hpp"
#include "support/hdf5_file_edits.hpp"
#include "test_support.hpp"

namespace {
using ::subsim::test::matplotlibAvailable;

using subsim::cli_test::contains;
using subsim::cli_test::Result;
using subsim::cli_test::run;

class PlotCli : public subsim::cli_test::CliTempDir {
 protected:
  /// Runs `subsim plot ARGS`; with matplotlib, expects exit 0 and a PNG at `png`; without, exit 2
  /// and the message saying what to install.
  void expectPng(const std::string& args, const std::string& png) {
    const Result r = run("plot " + args);
    if (!matplotlibAvailable()) {
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_TRUE(contains(r.err, "the plot needs")) << r.err;
      return;
    }
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "wrote " + png)) << r.out;
    const std::string bytes = read(png);
    ASSERT_GE(bytes.size(), 8u) << png;
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << png;
  }
};

std::vector<std::vector<std::string>> csvRows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream s(line);
    std::string f;
    while (std::getline(s, f, ',')) fields.push_back(f);
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    rows.push_back(fields);
  }
  return rows;
}

TEST_F(PlotCli, EveryKindOfARecordingDrawsItsRecordedValues) {
  const std::string path = record("granular:spheres=8", 15);
  const subsim::Recording rec = subsim::readRecording(path);
  const struct {
    const char* kind;
    std::vector<std::string> columns;
  } kinds[] = {{"penetration", {"max_penetration_mm"}},
               {"energy", {"energy_j"}},
               {"joint-error", {"joint_error"}},
               {"contacts", {"contacts", "normal_force_n"}},
               {"convergence", {"residual", "aa"}}};
  for (const auto& k : kinds) {
    SCOPED_TRACE(k.kind);
    const std::string png = file(std::string(k.kind) + ".png");
    expectPng(path + " --kind " + k.kind + " --output " + png, png);
    const std::string csv = file(std::string(k.kind) + ".csv");
    const std::vector<std::vector<std::string>> rows = csvRows(read(csv));
    ASSERT_EQ(rows.size(), rec.steps.size() + 1) << csv;
    std::vector<std::string> header{"step", "time_s"};
    header.insert(header.end(), k.columns.begin(), k.columns.end());
    EXPECT_EQ(rows[0], header);
    for (std::size_t s = 0; s < rec.steps.size(); ++s) {
      const std::vector<std::string>& row = rows[s + 1];
      ASSERT_EQ(row.size(), header.size());
      EXPECT_EQ(std::stoul(row[0]), s + 1);
      EXPECT_EQ(std::strtod(row[1].c_str(), nullptr), rec.steps[s].time);
      const double value = std::strtod(row[2].c_str(), nullptr);
      const subsim::RecordedStep& step = rec.steps[s];
      const std::string& column = k.columns[0];
      const double recorded = column == "energy_j"      ? *step.energy
                              : column == "joint_error" ? *step.joint_error
                              : column == "residual"    ? step.residual
                              : column == "contacts"
                                  ? static_cast<double>(step.contact_impulse.size())
                                  : 1e3 * step.max_penetration;  // max_penetration_mm
      EXPECT_DOUBLE_EQ(value, recorded) << column << ", step " << s + 1;
    }
  }
}

TEST_F(PlotCli, TheDefaultOutputIsBesideTheInput) {
  const std::string path = record("sphere", 4);
  expectPng(path + " --kind penetration", file("run_penetration.png"));
  EXPECT_FALSE(read(file("run_penetration.csv")).empty());
}

TEST_F(PlotCli, ARecordingWithoutEnergyOrJointErrorSaysToRecordAgain) {
  const std::string path = record("pendulum:links=2", 3);
  // As a recording made before the two fields existed: every step lacks them.
  for (const char* step : {"/steps/000000", "/steps/000001", "/steps/000002"}) {
    subsim::detail::removeAttributeForTesting(path, step, "energy");
    subsim::detail::removeAttributeForTesting(path, step, "joint_error");
  }
  Result r = run("plot " + path + " --kind energy --output " + file("e.png"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "plot: '" + path +
                                  "' predates the energy field (added to recordings later): "
                                  "record the run again with subsim run SCENE --record FILE.h5"))
      << r.err;
  r = run("plot " + path + " --kind joint-error --output " + file("j.png"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "plot: '" + path +
                                  "' predates the joint_error field (added to recordings later): "
                                  "record the run again with subsim run SCENE --record FILE.h5"))
      << r.err;
  // The other kinds do not need them; replay shows the fields as missing.
  expectPng(path + " --kind contacts --output " + file("c.png"), file("c.png"));
  r = run("replay " + path + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, ",,\n")) << r.out;  // energy_j and joint_error empty
}

TEST_F(PlotCli, AHistoryCsvDrawsOneCurvePerSolverAndProblem) {
  const std::string csv = file("history.csv");
  write(csv,
        "solver,problem,iteration,residual_name,residual,cumulative_ms\n"
        "pgs,1,1,velocity,0.1,0.01\npgs,1,2,velocity,0.01,0.02\n"
        "pgs,2,1,velocity,0.2,0.01\npgs,2,2,velocity,nan,0.02\n"
        "\"sub,admm\",1,1,\"theta, primal\",1e-3,0.5\n");
  expectPng(csv + " --kind convergence --output " + file("history.png"), file("history.png"));
}

TEST_F(PlotCli, ABenchConvergenceCsvIsDrawnToo) {
  const std::string prefix = file("conv");
  const Result r =
      run("bench granular:spheres=8 --convergence --steps 4 --solvers pgs,subadmm --iterations 5 "
          "--reference-iterations 20 --no-plot --output " +
          prefix);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expectPng(prefix + ".csv --kind convergence --output " + file("conv.png"), file("conv.png"));
}

TEST_F(PlotCli, CsvsOfAnotherShapeAreRefusedNamingTheFileAndLine) {
  const std::string csv = file("bad.csv");
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"", "expected the header solver,problem,iteration,residual_name,residual,cumulative_ms"},
      {"a,b,c\n1,2,3\n", "line 1: expected the header"},
      {"solver,problem,iteration,residual_name,residual,cumulative_ms\n", "got none"},
      {"solver,problem,iteration,residual_name,residual,cumulative_ms\npgs,1,1,r,abc,0.1\n",
       "line 2: column residual: expected a number, got 'abc'"},
      {"solver,iteration,residual_name,residual,cumulative_ms\npgs,1,r,0.1,0.1\npgs,x,r,1,1\n",
       "line 3: column iteration: expected a whole number >= 0, got 'x'"},
      {"solver,iteration,residual_name,residual,cumulative_ms\npgs,1,r,0.1\n",
       "line 2: expected 5 fields, got 4"},
      {"solver,iteration,residual_name,residual,cumulative_ms\n\"pgs,1,r,0.1,1\n",
       "line 2: expected comma-separated fields"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    write(csv, c.text);
    const Result r = run("plot " + csv + " --kind convergence --output " + file("bad.png"));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.err, "subsim: plot: " + csv + ": ")) << r.err;
    EXPECT_TRUE(contains(r.err, c.message)) << r.err;
  }
}

}  // namespace
