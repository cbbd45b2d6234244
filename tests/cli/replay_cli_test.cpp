// `subsim replay FILE.h5`: what it prints is what the recording holds (checked against
// readRecording), in each format, for the whole run or a range of steps; bad ranges and files
// that are not recordings are refused with exit 2 (the messages themselves are in docs/errors.md,
// run by error_catalogue_test.cpp).
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "cli_temp_dir.hpp"
#include "subsim/sim/recorder.hpp"

namespace {

using subsim::cli_test::contains;
using subsim::cli_test::Result;
using subsim::cli_test::run;

using ReplayCli = subsim::cli_test::CliTempDir;

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, sep)) fields.push_back(field);
  if (!line.empty() && line.back() == sep) fields.emplace_back();
  return fields;
}

TEST_F(ReplayCli, JsonHoldsEveryRecordedStepsIterationsAndResiduals) {
  const std::string path = record("granular:spheres=8", 20);
  const subsim::Recording rec = subsim::readRecording(path);
  const Result r = run("replay " + path + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["scene"], "granular:spheres=8");
  EXPECT_EQ(j["solver"], "subadmm");
  EXPECT_EQ(j["dt"], rec.dt);
  EXPECT_EQ(j["threads"], 1);
  EXPECT_EQ(j["iterations_cap"], 60);
  EXPECT_EQ(j["tolerance"], 1e-6);
  EXPECT_EQ(j["bodies"], rec.body_names.size());
  EXPECT_EQ(j["steps_recorded"], 20);
  ASSERT_EQ(j["steps"].size(), 20u);
  long iterations = 0;
  for (std::size_t k = 0; k < rec.steps.size(); ++k) {
    SCOPED_TRACE("step " + std::to_string(k + 1));
    const nlohmann::json& s = j["steps"][k];
    const subsim::RecordedStep& step = rec.steps[k];
    EXPECT_EQ(s["step"], k + 1);
    // JSON numbers read back as the same doubles.
    EXPECT_EQ(s["time_s"].get<double>(), step.time);
    EXPECT_EQ(s["iterations"], step.iterations);
    EXPECT_EQ(s["residual"].get<double>(), step.residual);
    EXPECT_EQ(s["constraint_residual"].get<double>(), step.constraint_residual);
    EXPECT_EQ(s["solve_status"], step.solve_status);
    EXPECT_EQ(s["contacts"], step.contact_impulse.size());
    EXPECT_EQ(s["energy_j"].get<double>(), *step.energy);
    iterations += step.iterations;
  }
  EXPECT_EQ(j["iterations_total"], iterations);
  // Every solve ended with one of the five statuses.
  int statuses = 0;
  for (const auto& [name, count] : j["solve_status"].items()) statuses += count.get<int>();
  EXPECT_EQ(statuses, 20);
  EXPECT_EQ(j["solve_status"]["not-recorded"], 0);
}

TEST_F(ReplayCli, CsvOfARangeHasThoseStepsExactly) {
  const std::string path = record("granular:spheres=8", 12);
  const subsim::Recording rec = subsim::readRecording(path);
  const Result r = run("replay " + path + " --format csv --steps 5:9");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line,
            "step,time_s,iterations,solve_status,residual,constraint_residual,aa,solver_ms,"
            "step_ms,contacts,max_penetration_mm,normal_force_n,energy_j,joint_error");
  int step = 5;
  for (; std::getline(in, line); ++step) {
    SCOPED_TRACE(line);
    const std::vector<std::string> f = split(line, ',');
    ASSERT_EQ(f.size(), 14u);
    const subsim::RecordedStep& s = rec.steps[step - 1];
    EXPECT_EQ(std::stoi(f[0]), step);
    EXPECT_EQ(std::stoi(f[2]), s.iterations);
    EXPECT_EQ(f[3], s.solve_status);
    // Seventeen digits: the recorded doubles, bit for bit.
    EXPECT_EQ(std::strtod(f[4].c_str(), nullptr), s.residual);
    EXPECT_EQ(std::strtod(f[5].c_str(), nullptr), s.constraint_residual);
    EXPECT_EQ(std::stoul(f[9]), s.contact_impulse.size());
    EXPECT_EQ(std::strtod(f[12].c_str(), nullptr), *s.energy);
  }
  EXPECT_EQ(step, 10);  // steps 5..9, both included
}

TEST_F(ReplayCli, MarkdownShowsTheSummaryAndOneRowPerStep) {
  const std::string path = record("sphere", 6);
  const Result r = run("replay " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part : {"| scene | sphere |", "| solver | subadmm |", "| dt | 0.01 s |",
                           "| threads | 1 |", "| iteration cap | 60 |", "| tolerance | 1e-06 |",
                           "| bodies | 2 |", "| steps | 1:6 of 6 |", "| simulated time | 0.06 s |",
                           "| solve status | converged 6 |", "| step | time (s) | iterations |"})
    EXPECT_TRUE(contains(r.out, part)) << part << "\n" << r.out;
  int rows = 0;
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("| ", 0) == 0 && line.size() > 2 && std::isdigit(line[2])) ++rows;
  EXPECT_EQ(rows, 6);
}

TEST_F(ReplayCli, BadRangesAndInputsExitTwo) {
  const std::string path = record("sphere", 3);
  for (const char* steps : {"4:4", "2:9", "0:2", "3:1", "2", "a:b", "1:", ":3", "1:2:3", "-1:2"}) {
    const Result r = run("replay " + path + " --steps " + steps);
    EXPECT_EQ(r.exit_code, 2) << steps;
    EXPECT_TRUE(contains(r.err, "--steps")) << steps << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << steps;
  }
  EXPECT_EQ(run("replay " + file("absent.h5")).exit_code, 2);
  write(file("notes.h5"), "not an HDF5 file\n");
  EXPECT_EQ(run("replay " + file("notes.h5")).exit_code, 2);
  EXPECT_EQ(run("replay " + path + " --format xml").exit_code, 2);
  EXPECT_EQ(run("replay").exit_code, 2);
}

}  // namespace
