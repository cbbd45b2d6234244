// End-to-end tests of `subsim bench`: the table in its three formats, the Newton iteration rule,
// failure marks, identical inputs in recorded-problem mode, the convergence study and bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "subsim/io/problem_file.hpp"
#include "subsim/solvers/solver.hpp"
#include "test_files.hpp"
#include "test_support.hpp"

namespace {
using ::subsim::test::matplotlibAvailable;

using ::subsim::test::readFile;
using ::subsim::test::tempPath;

using subsim::cli_test::contains;
using subsim::cli_test::Result;
using subsim::cli_test::run;

std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
  // The bench quotes only failure reasons, which the tests below never need to split.
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') {
        quoted = !quoted;
      } else if (ch == ',' && !quoted) {
        fields.push_back(field);
        field.clear();
      } else {
        field += ch;
      }
    }
    fields.push_back(field);
    rows.push_back(fields);
  }
  return rows;
}

/// The first registered Newton-type solver, or "" while none is registered.
std::string newtonSolver() {
  for (const std::string& name : subsim::solverNames())
    if (subsim::isNewtonTypeSolver(name)) return name;
  return {};
}

constexpr const char* kSmall = "granular:spheres=27 --steps 5";

/// The file at `path` is a PNG (its signature).
void expectPng(const std::string& path) {
  const std::string png = readFile(path);
  ASSERT_GT(png.size(), 8u) << path;
  EXPECT_EQ(png.substr(1, 3), "PNG") << path;
}

TEST(BenchCli, MarkdownHasThePapersTableShape) {
  const Result r = run(std::string("bench ") + kSmall + " --solvers pgs,subadmm --iterations 5,10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "## granular:spheres=27")) << r.out;
  EXPECT_TRUE(contains(r.out, "| solver | 5 it.: AT (ms) | AA | 10 it.: AT (ms) | AA |")) << r.out;
  EXPECT_TRUE(contains(r.out, "| pgs |")) << r.out;
  EXPECT_TRUE(contains(r.out, "| subadmm |")) << r.out;
  // The machine-independent conditions are stated.
  EXPECT_TRUE(contains(r.out, "5 steps of dt = 0.01 s")) << r.out;
  EXPECT_TRUE(contains(r.out, "Threads: 1")) << r.out;
  EXPECT_TRUE(contains(r.out, "Tolerance 0")) << r.out;
  EXPECT_TRUE(contains(r.out, "Mode: scene")) << r.out;
  EXPECT_FALSE(contains(r.out, "✗")) << r.out;
}

TEST(BenchCli, CsvHasOneRowPerCell) {
  const Result r =
      run("bench granular:spheres=27 stack:boxes=3 --steps 5 --solvers pgs,pj --iterations 4,8 "
          "--format csv");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = parseCsv(r.out);
  ASSERT_EQ(rows.size(), 1u + 2 * 2 * 2) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "scene,solver,iterations,at_ms,aa,aa_fb,aa_nm,failed,failure_reason,solve_status");
  std::set<std::string> cells;
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 10u) << i;
    cells.insert(rows[i][0] + "/" + rows[i][1] + "/" + rows[i][2]);
    EXPECT_GT(std::stod(rows[i][3]), 0.0) << i;  // at_ms
    EXPECT_GT(std::stod(rows[i][4]), 0.0) << i;  // aa
    EXPECT_FALSE(rows[i][5].empty()) << i;       // aa_fb: both scenes have contacts
    EXPECT_GT(std::stod(rows[i][6]), 0.0) << i;  // aa_nm
    EXPECT_EQ(rows[i][7], "false") << i;
    // Tolerance 0: every one of the 5 steps' solves runs to the cap.
    EXPECT_EQ(rows[i][9], "iteration-cap 5") << i;
  }
  EXPECT_EQ(cells.size(), 8u);
  EXPECT_TRUE(cells.count("stack:boxes=3/pj/8"));
}

TEST(BenchCli, JsonRowsCarryEveryField) {
  const Result r =
      run(std::string("bench ") + kSmall + " --solvers subadmm,fadmm --iterations 6 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "scene");
  ASSERT_EQ(j["rows"].size(), 2u);
  for (const auto& row : j["rows"]) {
    for (const char* field : {"scene", "solver", "iterations", "at_ms", "aa", "aa_fb", "aa_nm",
                              "failed", "failure_reason", "solve_status"})
      EXPECT_TRUE(row.contains(field)) << field;
    EXPECT_EQ(row["solve_status"], nlohmann::json({{"iteration-cap", 5}}));
    EXPECT_EQ(row["scene"], "granular:spheres=27");
    EXPECT_EQ(row["iterations"], 6);
    EXPECT_EQ(row["steps_done"], 5);
    EXPECT_FALSE(row["failed"].get<bool>());
    EXPECT_GT(row["aa"].get<double>(), 0.0);
  }
  EXPECT_FALSE(j["rows"][0].contains("input_hash"));  // problems mode only
}

TEST(BenchCli, OutputWritesTheTableToAFile) {
  const std::string path = tempPath("table.csv");
  std::remove(path.c_str());
  const Result r = run(std::string("bench ") + kSmall +
                       " --solvers pgs --iterations 3 --format csv --output " + path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(contains(readFile(path), "granular:spheres=27,pgs,3,")) << readFile(path);
  std::remove(path.c_str());
}

TEST(BenchCli, NewtonTypeSolversGetATenthOfTheIterations) {
  const std::string newton = newtonSolver();
  if (newton.empty()) GTEST_SKIP() << "no Newton-type solver registered yet";
  const Result json = run(std::string("bench ") + kSmall + " --solvers pgs," + newton +
                          " --iterations 10,20,5 --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  std::map<std::string, std::vector<int>> iterations;
  for (const auto& row : j["rows"]) iterations[row["solver"]].push_back(row["iterations"]);
  EXPECT_EQ(iterations["pgs"], (std::vector<int>{10, 20, 5}));
  EXPECT_EQ(iterations[newton], (std::vector<int>{1, 2, 1}));  // at least one

  const Result md =
      run(std::string("bench ") + kSmall + " --solvers pgs," + newton + " --iterations 30,60");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(contains(md.out, "| " + newton + " (3/6 it.) |")) << md.out;
  EXPECT_TRUE(contains(md.out, "run a tenth of the iterations: 3/6 beside 30/60")) << md.out;
}

TEST(BenchCli, NoNewtonNoteWithoutNewtonSolvers) {
  const Result r = run(std::string("bench ") + kSmall + " --solvers pgs --iterations 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "a tenth")) << r.out;
}

TEST(BenchCli, ATinyPenetrationLimitFailsEveryCell) {
  const std::string args = std::string("bench ") + kSmall +
                           " --solvers pgs,subadmm --iterations 4 --penetration-limit 1e-9";
  const Result md = run(args);
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(contains(md.out, "✗ pen ")) << md.out;
  EXPECT_TRUE(contains(md.out, "above 1e-06 mm (--penetration-limit)")) << md.out;
  const Result json = run(args + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["rows"].size(), 2u);
  for (const auto& row : j["rows"]) {
    EXPECT_TRUE(row["failed"].get<bool>());
    const std::string reason = row["failure_reason"];
    EXPECT_TRUE(contains(reason, "step ")) << reason;
    EXPECT_TRUE(contains(reason, "penetration")) << reason;
    EXPECT_LT(row["steps_done"].get<int>(), 5);
  }
}

TEST(BenchCli, RecordedProblemsGiveEverySolverBitIdenticalInput) {
  // Every registered solver, at two levels, on two scenes: one hash per scene, shared by all cells.
  const Result r =
      run("bench granular:spheres=27 stack:boxes=3 --steps 6 --iterations 4,8 --problems "
          "--reference-iterations 20 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "problems");
  std::map<std::string, std::set<std::string>> hashes;
  size_t rows = 0;
  for (const auto& row : j["rows"]) {
    const std::string hash = row["input_hash"];
    EXPECT_EQ(hash.size(), 16u) << hash;
    EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos) << hash;
    hashes[row["scene"]].insert(hash);
    EXPECT_EQ(row["steps"], 6);
    ++rows;
  }
  EXPECT_EQ(rows, 2 * 2 * subsim::solverNames().size());
  ASSERT_EQ(hashes.size(), 2u);
  for (const auto& [scene, set] : hashes) EXPECT_EQ(set.size(), 1u) << scene;
  EXPECT_NE(*hashes["granular:spheres=27"].begin(), *hashes["stack:boxes=3"].begin());
  for (const auto& scene : j["scenes"]) {
    EXPECT_TRUE(scene["input_hashes_agree"].get<bool>());
    EXPECT_EQ(scene["problems_recorded"], 6);
  }

  // The recording is deterministic: a second bench sees the same inputs.
  const Result again =
      run("bench granular:spheres=27 --steps 6 --iterations 4 --solvers pj --problems "
          "--reference-iterations 20 --format json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["rows"][0]["input_hash"],
            *hashes["granular:spheres=27"].begin());
}

// The same command gives the same bits whatever the heap layout: Eigen starts the packets of a
// dynamic-size reduction at the first 32-byte-aligned element, so buffers with malloc's 16-byte
// alignment once made the rounding depend on where a buffer landed (math/types.hpp DoubleBuffer).
// glibc's tunables move the buffers without changing anything else.
TEST(BenchCli, RecordingIsBitIdenticalWhateverTheHeapLayout) {
  std::set<std::string> hashes;
  // Shorter recordings happened to agree before the fix; this one (the paper table's stir
  // column) did not: three layouts, three hashes.
  for (const char* tunables : {"", "glibc.malloc.tcache_count=0"}) {
    setenv("GLIBC_TUNABLES", tunables, 1);
    const Result r =
        run("bench stir --problems --steps 300 --replay 50 --solvers pj --iterations 2 "
            "--reference-iterations 300 --format json");
    unsetenv("GLIBC_TUNABLES");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    hashes.insert(nlohmann::json::parse(r.out)["rows"][0]["input_hash"].get<std::string>());
  }
  EXPECT_EQ(hashes.size(), 1u);
}

// A run's problems saved with --save-problems and solved again from the file: the same input hash
// and the same figures as the in-memory recording; the convergence study reads a step from it.
TEST(BenchCli, ProblemFileRoundTripGivesTheSameInputAndFigures) {
  const std::string file =
      ::testing::TempDir() + "bench_problems_" + std::to_string(getpid()) + ".h5";
  const Result saved =
      run("bench granular:spheres=27 --steps 5 --iterations 6 --solvers pgs,subadmm --problems "
          "--reference-iterations 20 --format json --save-problems " +
          file);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const Result again =
      run("bench " + file + " --iterations 6 --solvers pgs,subadmm --problems --format json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const nlohmann::json a = nlohmann::json::parse(saved.out), b = nlohmann::json::parse(again.out);
  ASSERT_EQ(a["rows"].size(), b["rows"].size());
  for (size_t k = 0; k < a["rows"].size(); ++k) {
    EXPECT_EQ(a["rows"][k]["input_hash"], b["rows"][k]["input_hash"]);
    EXPECT_EQ(a["rows"][k]["aa"], b["rows"][k]["aa"]);  // same input, deterministic solvers
    EXPECT_EQ(b["rows"][k]["steps"], 5);
  }
  const std::string prefix = ::testing::TempDir() + "bench_file_conv_" + std::to_string(getpid());
  const Result conv = run("bench " + file +
                          " --convergence --step 3 --solvers pgs --iterations 4 "
                          "--no-plot --output " +
                          prefix);
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  EXPECT_TRUE(contains(conv.out + conv.err, "step 3"));
  const Result beyond = run("bench " + file +
                            " --convergence --step 9 --solvers pgs --iterations 4 --no-plot "
                            "--output " +
                            prefix);
  EXPECT_EQ(beyond.exit_code, 2);
  EXPECT_TRUE(contains(beyond.err, "--step")) << beyond.err;
  std::remove(file.c_str());
  std::remove((prefix + ".csv").c_str());
}

TEST(BenchCli, ProblemFileErrorsAreExitTwo) {
  const Result missing = run("bench /nonexistent/p.h5 --problems");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "/nonexistent/p.h5")) << missing.err;
  const Result no_mode = run("bench /nonexistent/p.h5");
  EXPECT_EQ(no_mode.exit_code, 2);
  EXPECT_TRUE(contains(no_mode.err, "--problems")) << no_mode.err;
  const Result two = run("bench sphere stack --problems --save-problems /tmp/x.h5");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_TRUE(contains(two.err, "--save-problems")) << two.err;
  const Result unwritable =
      run("bench sphere --problems --steps 2 --solvers pgs --iterations 2 --save-problems "
          "/nonexistent/dir/p.h5");
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_TRUE(contains(unwritable.err, "/nonexistent/dir/p.h5")) << unwritable.err;
}

TEST(BenchCli, RecordedProblemsMarkdownStatesTheHash) {
  const Result r = run(std::string("bench ") + kSmall +
                       " --solvers pgs,pj --iterations 3 --problems --reference-iterations 10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Mode: recorded problems")) << r.out;
  EXPECT_TRUE(contains(r.out, "5 problems recorded")) << r.out;
  EXPECT_TRUE(contains(r.out, "(identical for every cell)")) << r.out;
}

// Table I's shape: one column per solver with its three iteration counts, our AT and AA rows and
// the paper's beside them, for each of the paper's scenes.  A short recording keeps it quick.
TEST(BenchCli, PaperTableHasTableIsShapeWithThePapersFigures) {
  const Result r =
      run("bench --paper-table --steps 4 --replay 2 --solvers pj,subadmm --reference-iterations "
          "20");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "| scene | row | PJ 30/60/90 | SubADMM 30/60/90 |")) << r.out;
  for (const char* scene : {"stir", "cable", "beam"}) {
    EXPECT_TRUE(contains(r.out, std::string("| ") + scene + " | AT (ms) |")) << scene;
    EXPECT_TRUE(contains(r.out, std::string("- ") + scene + ": ")) << scene;
  }
  EXPECT_TRUE(contains(r.out, "4 steps recorded, 2 solved per cell")) << r.out;
  EXPECT_TRUE(contains(r.out, "|  | paper AT | *3.235 / 5.688 / 9.425* | *3.489 / 5.94 / 8.705* |"))
      << r.out;
  // The paper's PJ failed on the cable and the beam: "-".
  EXPECT_TRUE(contains(r.out, "|  | paper AT | - | *2.288 / 4.285 / 6.402* |")) << r.out;
  EXPECT_TRUE(contains(r.out, "subadmm at 20 iterations")) << r.out;
  // PJ diverges on the beam, as in the paper; a replayed solve has no World to stop it, so the
  // solution's own velocity is judged.
  EXPECT_TRUE(contains(r.out, "| beam | AT (ms) | ✗ / ✗ / ✗ |")) << r.out;
  EXPECT_TRUE(contains(r.out, "- ✗ beam, pj at 30 it.: problem 1: a velocity of")) << r.out;

  const Result j =
      run("bench --paper-table --steps 3 --replay 2 --solvers subadmm --reference-iterations 20 "
          "--format json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json table = nlohmann::json::parse(j.out);
  ASSERT_EQ(table["scenes"].size(), 3u);
  for (const auto& scene : table["scenes"]) {
    EXPECT_EQ(scene["problems_recorded"], 3);
    EXPECT_EQ(scene["problems_replayed"], 2);
    EXPECT_TRUE(scene["input_hashes_agree"].get<bool>());
  }
  EXPECT_EQ(table["rows"].size(), 3u * 3u);
  EXPECT_EQ(table["paper_table"]["rows"].size(), 15u);
}

// --replay keeps evenly spaced problems: one of six is the fourth (the middle of the run), the
// very input the convergence study reads at --step 4.
TEST(BenchCli, ReplayKeepsEvenlySpacedProblems) {
  const std::string file = tempPath("replay.h5");
  const Result saved =
      run("bench granular:spheres=27 --steps 6 --iterations 2 --solvers pj --problems "
          "--reference-iterations 20 --format json --save-problems " +
          file);
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const Result one =
      run("bench " + file + " --problems --replay 1 --iterations 2 --solvers pj --format json");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const nlohmann::json j = nlohmann::json::parse(one.out);
  EXPECT_EQ(j["scenes"][0]["problems_replayed"], 1);
  EXPECT_EQ(j["rows"][0]["steps"], 1);
  const std::string hash = j["rows"][0]["input_hash"];
  const std::string prefix = tempPath("replay_conv");
  const Result conv = run("bench " + file +
                          " --convergence --step 4 --solvers pj --iterations 2 --no-plot "
                          "--output " +
                          prefix);
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  EXPECT_TRUE(contains(conv.out, "input hash " + hash)) << conv.out << " vs " << hash;
  // More than recorded keeps all of them, in order: the full run's hash.
  const Result all =
      run("bench " + file + " --problems --replay 9 --iterations 2 --solvers pj --format json");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(nlohmann::json::parse(all.out)["rows"][0]["input_hash"],
            nlohmann::json::parse(saved.out)["rows"][0]["input_hash"]);
  std::remove(file.c_str());
  std::remove((prefix + ".csv").c_str());
}

struct ConvergenceRows {
  std::map<std::string, int> judge_rows, own_rows;  // per solver
  bool monotone = true;
  bool positive = true;
};

ConvergenceRows checkConvergenceCsv(const std::string& csv) {
  ConvergenceRows c;
  const auto rows = parseCsv(csv);
  EXPECT_FALSE(rows.empty());
  if (rows.empty()) return c;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"solver", "iteration", "residual_name", "residual",
                                               "cumulative_ms"}));
  std::map<std::string, std::pair<int, double>> last;  // per (solver, residual): iteration, ms
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].size(), 5u) << i;
    if (rows[i].size() != 5u) continue;
    const std::string& solver = rows[i][0];
    const int iteration = std::stoi(rows[i][1]);
    const double ms = std::stod(rows[i][4]);
    (rows[i][2] == "constraint (AL sec. 6)" ? c.judge_rows : c.own_rows)[solver]++;
    auto& [prev_it, prev_ms] = last[solver + "/" + rows[i][2]];
    EXPECT_EQ(iteration, prev_it + 1) << i;
    if (ms < prev_ms) c.monotone = false;
    if (!(ms > 0.0)) c.positive = false;
    prev_it = iteration;
    prev_ms = ms;
  }
  return c;
}

TEST(BenchCli, ConvergenceWritesOneJudgeRowPerIteration) {
  const std::string prefix = tempPath("conv");
  std::remove((prefix + ".csv").c_str());
  std::remove((prefix + ".png").c_str());
  const Result r =
      run("bench granular:spheres=27 --convergence --steps 10 --solvers pgs,subadmm "
          "--iterations 8 --reference-iterations 30 --output " +
          prefix);
  // Without matplotlib the CSV is still written, and the exit code says what is missing.
  if (matplotlibAvailable()) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
  } else {
    ASSERT_EQ(r.exit_code, 2) << r.err;
    // python3 missing altogether, or only matplotlib.
    EXPECT_TRUE(contains(r.err,
                         "the plot needs matplotlib for python3: install python3-matplotlib "
                         "(apt-get install python3-matplotlib); " +
                             prefix + ".csv is written") ||
                contains(r.err,
                         "the plot needs python3 with matplotlib: install python3 and "
                         "python3-matplotlib (apt-get install python3 python3-matplotlib); " +
                             prefix + ".csv is written"))
        << r.err;
  }
  EXPECT_TRUE(contains(r.out, "step 5")) << r.out;  // the middle of --steps 10
  const ConvergenceRows c = checkConvergenceCsv(readFile(prefix + ".csv"));
  EXPECT_EQ(c.judge_rows.at("pgs"), 8);
  EXPECT_EQ(c.judge_rows.at("subadmm"), 8);
  EXPECT_EQ(c.own_rows.at("pgs"), 8);
  EXPECT_EQ(c.own_rows.at("subadmm"), 8);
  EXPECT_TRUE(c.monotone);
  EXPECT_TRUE(c.positive);
  std::remove((prefix + ".csv").c_str());
  std::remove((prefix + ".png").c_str());
}

TEST(BenchCli, ConvergenceOnEvenlySpacedStepsWritesEachStepsRows) {
  // --replay 3 with --convergence: the RPI paper's samples over a run, each step's study in the
  // CSV under its step number, the same rows per step as one --step study writes, and the study of
  // each step the same as --step gives for it.
  const std::string prefix = tempPath("conv_sampled");
  const Result r =
      run("bench spherecube:side=2 --convergence --cold --steps 12 --replay 3 "
          "--solvers lcp-pgs,fischer-newton --iterations 10 --no-plot --output " +
          prefix);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "3 steps evenly spaced over 12")) << r.out;
  EXPECT_TRUE(contains(r.out, "median")) << r.out;
  const std::string csv = readFile(prefix + ".csv");
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "step,solver,iteration,residual_name,residual,cumulative_ms");
  std::map<int, std::string> rows_of_step;  // step -> its rows without the step column
  while (std::getline(in, line)) {
    const std::size_t comma = line.find(',');
    rows_of_step[std::stoi(line.substr(0, comma))] += line.substr(comma + 1) + "\n";
  }
  // evenlySpaced: the middle of each third of 12 steps (steps 3, 7, 11).
  ASSERT_EQ(rows_of_step.size(), 3u);
  EXPECT_EQ(rows_of_step.begin()->first, 3);
  EXPECT_EQ(rows_of_step.rbegin()->first, 11);
  // The step-11 study alone: the same residuals (times differ).
  const std::string single = tempPath("conv_single");
  ASSERT_EQ(run("bench spherecube:side=2 --convergence --cold --steps 12 --step 11 "
                "--solvers lcp-pgs,fischer-newton --iterations 10 --no-plot --output " +
                single)
                .exit_code,
            0);
  const auto residuals = [](const std::string& rows) {
    std::istringstream lines(rows);
    std::string row, out;
    while (std::getline(lines, row)) {
      if (row.rfind("solver,", 0) == 0) continue;
      out += row.substr(0, row.rfind(',')) + "\n";  // all but cumulative_ms
    }
    return out;
  };
  EXPECT_EQ(residuals(rows_of_step.at(11)), residuals(readFile(single + ".csv")));
  std::remove((prefix + ".csv").c_str());
  std::remove((single + ".csv").c_str());
}

TEST(BenchCli, ConvergenceGivesNewtonTypeSolversATenth) {
  const std::string newton = newtonSolver();
  if (newton.empty()) GTEST_SKIP() << "no Newton-type solver registered yet";
  const std::string prefix = tempPath("conv_newton");
  const std::string base = "bench stack:boxes=3 --convergence --step 4 --solvers pj," + newton +
                           " --iterations 20 --no-plot --output " + prefix;
  const Result r = run(base);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(r.out, ".png")) << r.out;
  ConvergenceRows c = checkConvergenceCsv(readFile(prefix + ".csv"));
  EXPECT_EQ(c.judge_rows.at("pj"), 20);
  EXPECT_EQ(c.judge_rows.at(newton), 2);
  run(base + " --newton-iterations 3");
  c = checkConvergenceCsv(readFile(prefix + ".csv"));
  EXPECT_EQ(c.judge_rows.at(newton), 3);
  EXPECT_TRUE(c.monotone);
  std::remove((prefix + ".csv").c_str());
  std::remove((prefix + ".png").c_str());
}

TEST(BenchCli, ConvergenceFromAColdStartBeginsFartherFromTheSolution) {
  // The same step of a box stack, from the reference run's warm start and from zero impulses:
  // block PGS on the Stewart-Trinkle LCP starts far from the solution only when cold.
  const auto firstResidual = [](const std::string& extra) {
    const std::string prefix = tempPath("conv_cold");
    const Result r =
        run("bench stack:boxes=3 --convergence --step 3 --solvers lcp-pgs "
            "--iterations 4 --no-plot --output " +
            prefix + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(contains(r.out, "cold start"), !extra.empty()) << r.out;
    std::istringstream csv(readFile(prefix + ".csv"));
    std::string line;
    double first = -1.0;
    while (std::getline(csv, line))
      if (first < 0.0 && contains(line, "lcp-pgs,1,LCP natural residual max,"))
        first = std::stod(line.substr(line.rfind(',', line.rfind(',') - 1) + 1));
    std::remove((prefix + ".csv").c_str());
    return first;
  };
  const double warm = firstResidual(""), cold = firstResidual(" --cold");
  ASSERT_GE(warm, 0.0);
  ASSERT_GE(cold, 0.0);
  EXPECT_GT(cold, 10.0 * warm);
}

TEST(BenchCli, ConvergenceDrawsAPng) {
  if (!matplotlibAvailable()) GTEST_SKIP() << "python3 cannot import matplotlib";
  const std::string prefix = tempPath("conv_png");
  std::remove((prefix + ".png").c_str());
  const Result r =
      run("bench stack:boxes=3 --convergence --step 3 --solvers pgs,fadmm --iterations 6 "
          "--output " +
          prefix);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expectPng(prefix + ".png");
  EXPECT_TRUE(contains(r.out, "wrote " + prefix + ".png")) << r.out;
  std::remove((prefix + ".csv").c_str());
  std::remove((prefix + ".png").c_str());
}

TEST(BenchCli, FrontSweepsEverySolverAtOneAndTwoThreadsOnIdenticalProblems) {
  const std::string prefix = tempPath("front");
  std::remove((prefix + ".csv").c_str());
  std::remove((prefix + ".png").c_str());
  const bool plot = matplotlibAvailable();
  const std::string newton = newtonSolver();
  ASSERT_FALSE(newton.empty());
  const Result r =
      run("bench granular:spheres=27 --front --steps 12 --replay 4 --iterations "
          "5,10,40 --reference-iterations 60 --solvers subadmm,pgs-cg," +
          newton + " --output " + prefix + (plot ? "" : " --no-plot"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "| subadmm (1 thread) |")) << r.out;
  EXPECT_TRUE(contains(r.out, "| pgs-cg (2 threads) |")) << r.out;
  EXPECT_TRUE(contains(r.out, "to reach an AA")) << r.out;
  EXPECT_TRUE(contains(r.out, "4 of them solved per point")) << r.out;
  const auto rows = parseCsv(readFile(prefix + ".csv"));
  ASSERT_FALSE(rows.empty());
  const std::vector<std::string> header = {
      "scene", "solver", "threads",        "iterations",   "at_ms",      "aa",      "aa_fb",
      "aa_nm", "failed", "failure_reason", "solve_status", "input_hash", "on_front"};
  ASSERT_EQ(rows[0], header);
  // Per solver and thread count: subadmm and pgs-cg 3 points, the Newton-type solver 2 (levels 5
  // and 10 both run 1 iteration: swept once).
  std::map<std::pair<std::string, std::string>, std::vector<std::vector<std::string>>> curves;
  std::set<std::string> hashes;
  int on_front = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), header.size()) << i;
    EXPECT_EQ(rows[i][8], "false") << rows[i][9];
    curves[std::make_pair(rows[i][1], rows[i][2])].push_back(rows[i]);
    hashes.insert(rows[i][11]);
    on_front += rows[i][12] == "true" ? 1 : 0;
  }
  EXPECT_EQ(hashes.size(), 1u);  // every point solved the identical recorded input
  ASSERT_EQ(curves.size(), 6u);
  const auto curve = [&](const std::string& solver, const std::string& threads) {
    return curves[std::make_pair(solver, threads)];
  };
  for (const char* threads : {"1", "2"}) {
    EXPECT_EQ(curve("subadmm", threads).size(), 3u);
    EXPECT_EQ(curve("pgs-cg", threads).size(), 3u);
    ASSERT_EQ(curve(newton, threads).size(), 2u);
    EXPECT_EQ(curve(newton, threads)[0][3], "1");
    EXPECT_EQ(curve(newton, threads)[1][3], "4");
  }
  // Results do not depend on the thread count (docs/determinism.md): the same accuracy, to the
  // digit, on 1 and 2 threads; only the time differs.
  for (const std::string& solver : {std::string("subadmm"), std::string("pgs-cg"), newton})
    for (size_t k = 0; k < curve(solver, "1").size(); ++k)
      for (int column : {5, 6, 7})
        EXPECT_EQ(curve(solver, "1")[k][column], curve(solver, "2")[k][column])
            << solver << " point " << k << " column " << header[column];
  // More SubADMM iterations on the same problems reach more accuracy.
  const auto subadmm = curve("subadmm", "1");
  EXPECT_LT(std::stod(subadmm[0][5]), std::stod(subadmm[2][5]));
  // The front: at least one point, and no point on it beaten in time and accuracy by another.
  EXPECT_GE(on_front, 1);
  for (size_t i = 1; i < rows.size(); ++i) {
    if (rows[i][12] != "true") continue;
    for (size_t j = 1; j < rows.size(); ++j) {
      const double ti = std::stod(rows[i][4]), ai = std::stod(rows[i][5]);
      const double tj = std::stod(rows[j][4]), aj = std::stod(rows[j][5]);
      EXPECT_FALSE(tj <= ti && aj >= ai && (tj < ti || aj > ai)) << i << " beaten by " << j;
    }
  }
  if (plot) expectPng(prefix + ".png");
  std::remove((prefix + ".csv").c_str());
  std::remove((prefix + ".png").c_str());
}

TEST(BenchCli, FrontOnOneThreadHasOneCurvePerSolver) {
  const std::string prefix = tempPath("front1");
  const Result r =
      run("bench stack:boxes=2 --front --steps 6 --replay 2 --iterations 5,10 "
          "--threads 1 --solvers subadmm,pgs --no-plot --output " +
          prefix);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = parseCsv(readFile(prefix + ".csv"));
  ASSERT_EQ(rows.size(), 5u);  // header + 2 solvers x 2 counts
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(rows[i][2], "1") << i;
  EXPECT_FALSE(contains(r.out, "threads)")) << r.out;
  std::remove((prefix + ".csv").c_str());
}

TEST(BenchCli, BudgetRunsEverySolverAtACountItStates) {
  // Which count fits depends on the machine; what the table holds does not: one row per solver
  // with its count (at least 1), the steps it completed and its penetration.
  const Result r = run("bench stack:boxes=2 --budget 5 --steps 6 --solvers pgs,canal");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "# subsim bench --budget 5 ms")) << r.out;
  EXPECT_TRUE(contains(r.out, "## stack:boxes=2")) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "| solver | iterations | AT (ms) | steps | max penetration (mm) | "
                       "AA | result |"))
      << r.out;
  for (const char* solver : {"pgs", "canal"}) {
    const std::size_t at = r.out.find(std::string("| ") + solver + " | ");
    ASSERT_NE(at, std::string::npos) << solver << "\n" << r.out;
    const std::string row = r.out.substr(at, r.out.find('\n', at) - at);
    EXPECT_GE(std::stoi(row.substr(row.find(" | ") + 3)), 1) << row;
    EXPECT_TRUE(contains(row, "| 6/6 |")) << row;
    EXPECT_TRUE(contains(row, "| completed |")) << row;
  }
}

TEST(BenchCli, ABudgetBelowOneIterationRunsNothing) {
  // No solve takes a picosecond: no solver is run, and the table says why.
  const Result r = run("bench stack:boxes=2 --budget 1e-9 --steps 6 --solvers pgs,subadmm");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* solver : {"pgs", "subadmm"})
    EXPECT_TRUE(
        contains(r.out, std::string("| ") + solver + " | 0 | - | 0 | - | - | not run: its setup"))
        << r.out;
}

TEST(BenchCli, ScalingSweepsStirAndCableWithALinearFit) {
  const std::string prefix = tempPath("scaling");
  std::remove((prefix + ".csv").c_str());
  std::remove((prefix + ".png").c_str());
  const bool plot = matplotlibAvailable();
  const Result r = run("bench --scaling --steps 1 --iterations 5 --output " + prefix +
                       (plot ? "" : " --no-plot"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "| stir spheres | DOF |")) << r.out;
  EXPECT_TRUE(contains(r.out, "| cable segments | DOF |")) << r.out;
  EXPECT_TRUE(contains(r.out, "| 3000 | 18007 | 3001 |")) << r.out;  // 6 DOF per sphere + Panda
  EXPECT_TRUE(contains(r.out, "| 2560 | 15380 | 642 |")) << r.out;   // 4 segments per subsystem
  EXPECT_TRUE(contains(r.out, "R^2 = ")) << r.out;
  const auto rows = parseCsv(readFile(prefix + ".csv"));
  ASSERT_EQ(rows.size(), 11u);  // header + 5 stir + 5 cable
  EXPECT_EQ(rows[0][0], "scene");
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][5], "1") << i;             // steps completed
    EXPECT_GT(std::stod(rows[i][6]), 0.0) << i;  // solver ms
  }
  if (plot) expectPng(prefix + ".png");
  std::remove((prefix + ".csv").c_str());
  std::remove((prefix + ".png").c_str());
}

TEST(BenchCli, AProblemFileWithoutProblemsIsBadInput) {
  // The command line never writes one (a reference run that records nothing exits 3), but
  // writeProblemFile does.
  const std::string path = tempPath("empty_problems.h5");
  subsim::writeProblemFile(path, {"none", "subadmm", 0.01}, {});
  const Result r = run("bench " + path + " --problems --solvers pgs --iterations 1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "problem file '" + path + "' holds no problems")) << r.err;
  std::remove(path.c_str());
}

TEST(BenchCli, BadInputIsExitTwoWithAMessageNamingTheOption) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bench nosuchscene", "unknown scene 'nosuchscene'"},
      {"bench granular:sphres=3", "sphres"},
      {"bench", "scenes"},
      {"bench granular --solvers nosuch", "--solvers: unknown solver 'nosuch'"},
      {"bench granular --solvers pgs,,pj", "--solvers: expected a comma-separated list"},
      {"bench granular --solvers ''", "--solvers: expected a comma-separated list"},
      {"bench granular --solvers pgs,pgs", "--solvers: 'pgs' is listed twice"},
      {"bench granular --iterations 30,x", "--iterations: expected a comma-separated list"},
      {"bench granular --iterations ''", "--iterations: expected"},
      {"bench granular --iterations 30,", "--iterations: expected"},
      {"bench granular --iterations 0", "--iterations: expected"},
      {"bench granular --iterations=-30", "--iterations: expected"},
      {"bench granular --iterations 30,30", "--iterations: 30 is listed twice"},
      {"bench granular --steps -1", "--steps"},
      {"bench granular --steps 0", "--steps"},
      {"bench granular --steps x", "--steps"},
      {"bench granular --threads 0", "--threads"},
      {"bench granular --penetration-limit -1", "--penetration-limit"},
      {"bench granular --penetration-limit 0", "--penetration-limit"},
      {"bench granular --format xml", "--format"},
      {"bench granular --reference-solver nosuch", "--reference-solver: unknown solver"},
      {"bench granular --reference-iterations 0", "--reference-iterations"},
      {"bench granular --output /nonexistent/dir/table.md", "--output: cannot write"},
      {"bench granular --step 3", "--step applies only with --convergence"},
      {"bench granular --newton-iterations 3", "--newton-iterations applies only"},
      {"bench granular --no-plot", "--no-plot applies only"},
      {"bench granular stack --convergence", "--convergence studies one scene"},
      {"bench granular --convergence --iterations 10,20", "--convergence takes a single"},
      {"bench granular --convergence --steps 4 --step 9", "--step: step 9 lies beyond"},
      {"bench granular --convergence --output /nonexistent/dir/c", "--output: cannot write"},
      {"bench granular --convergence --newton-iterations 0", "--newton-iterations"},
      {"bench --scaling granular", "--scaling runs its own sweeps"},
      {"bench --scaling --solvers pgs", "--scaling measures SubADMM alone"},
      {"bench --scaling --problems", "--scaling measures SubADMM alone"},
      {"bench --scaling --iterations 30,60", "--scaling takes a single iteration count"},
      {"bench --scaling --iterations 0", "--iterations: expected"},
      {"bench --scaling --output /nonexistent/dir/s", "--output: cannot write"},
      {"bench --paper cond --output /nonexistent/dir/t.md",
       "--output: cannot write '/nonexistent/dir/t-scaling.csv'"},
      {"bench --scaling --paper-table", "--scaling measures SubADMM alone"},
      {"bench --paper-table granular", "--paper-table runs the paper's scenes"},
      {"bench --paper-table --iterations 30", "--paper-table fixes the scenes"},
      {"bench --paper-table --convergence", "--paper-table fixes the scenes"},
      {"bench --paper-table --penetration-limit 0.01", "--paper-table fixes the scenes"},
      {"bench --paper-table --solvers nosuch", "--solvers: unknown solver 'nosuch'"},
      {"bench --paper-table --replay 0", "--replay"},
      {"bench granular --replay 3", "--replay applies only with --problems"},
      {"bench granular --front --convergence", "--front sweeps iterations on recorded problems"},
      {"bench granular --front --cold", "--front sweeps iterations on recorded problems"},
      {"bench granular --front --format csv", "--front prints markdown"},
      {"bench granular --front --output /nonexistent/dir/f",
       "--output: cannot write '/nonexistent/dir/f.csv'"},
      {"bench granular --front --iterations 5,x", "--iterations: expected"},
      {"bench --front", "give one or more scenes"},
      {"bench --paper-table --front", "--paper-table fixes the scenes"},
      {"bench --paper schur --front", "--paper schur fixes the scenes"},
      {"bench --scaling --front", "--scaling measures SubADMM alone"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_TRUE(contains(r.err, message)) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
  }
}

TEST(BenchCli, PaperSchurPrintsTheTablesWithThePapersFigures) {
  const Result r = run("bench --paper schur --steps 2 --solvers schur-bpp,fbic");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "## Table 2: partitions")) << r.out;
  EXPECT_TRUE(contains(r.out, "## Table 3: solve time per step")) << r.out;
  // The paper's figures beside ours: Schur-BPP on the net with the truck, 11.9 ms (21.2x).
  EXPECT_TRUE(contains(r.out, "| Net with truck | schur-bpp |")) << r.out;
  EXPECT_TRUE(contains(r.out, "11.9 (21.2x)")) << r.out;
  EXPECT_TRUE(contains(r.out, "| Log tower | min-degree (16) |")) << r.out;
  // Table 4 needs schur-pgs-sm, not asked for here.
  EXPECT_FALSE(contains(r.out, "## Table 4")) << r.out;

  const Result c = run("bench --paper schur --steps 2 --solvers schur-bpp --format csv");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  int rows = 0;
  for (const char* scene : {"logtower", "cablespinner", "chainwrap", "chaindrop", "rockpile",
                            "nettruck", "cranes", "bridge"}) {
    EXPECT_TRUE(contains(c.out, std::string("3,") + scene + ",schur-bpp,,2,")) << scene;
    ++rows;
  }
  EXPECT_EQ(rows, 8);
}

TEST(BenchCli, PaperCondPrintsTheTablesWithThePapersFigures) {
  // COND alone, one step of each soft-ball, soft-mat, cable and gripper run: the tables' shapes,
  // the paper's figures, the box test's errors falling as 1 / k_v, and the scaling study's CSV.
  const std::string table = tempPath("cond_paper.md"), csv = tempPath("cond_paper-scaling.csv");
  std::remove(csv.c_str());
  const Result r = run("bench --paper cond --steps 1 --solvers cond --no-plot --output " + table);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = readFile(table);
  EXPECT_TRUE(contains(out, "### Table I: virtual-node box test")) << out;
  EXPECT_TRUE(contains(out, "*0.0012, 0.0061*")) << out;
  EXPECT_TRUE(contains(out, "### Table III: soft ball")) << out;
  EXPECT_TRUE(contains(out, "*0.0058, 8.5, 37.5*")) << out;
  EXPECT_TRUE(contains(out, "### Table IV")) << out;
  EXPECT_TRUE(contains(out, "### Table II: soft mat")) << out;
  EXPECT_TRUE(contains(out, "*0.0033, 8.7, 39.7*")) << out;
  EXPECT_TRUE(contains(out, "### Table V: wound cable")) << out;
  EXPECT_TRUE(contains(out, "| solver | MP (mm) | grip (N) |")) << out;
  EXPECT_TRUE(contains(out, "*0.0021, 1.2, 18.3*")) << out;
  // COND on the paper's stop too, in the mat's, the ball's, the cable's and the gripper's table.
  size_t paper_stops = 0;
  for (size_t at = out.find("| cond, ||dx|| < 1e-4 | "); at != std::string::npos;
       at = out.find("| cond, ||dx|| < 1e-4 | ", at + 1))
    ++paper_stops;
  EXPECT_EQ(paper_stops, 4u) << out;
  EXPECT_TRUE(contains(out, "### Table VI: soft gripper")) << out;
  EXPECT_TRUE(contains(out, "*0.0005, 18.2, 30.9*")) << out;
  EXPECT_TRUE(contains(out, "### Table VII")) << out;
  EXPECT_TRUE(contains(out, "| cond(100) | ")) << out;
  EXPECT_TRUE(contains(out, "*0.1620, 20.90*")) << out;
  EXPECT_TRUE(contains(out, "### Table VIII")) << out;
  EXPECT_TRUE(contains(out, "*0.0031, 0.553, 3.949*")) << out;
  EXPECT_TRUE(contains(out, "### Table IX")) << out;
  EXPECT_TRUE(contains(out, "### Fig. 14")) << out;
  EXPECT_TRUE(contains(out, "| 0.2, 0.6 | cond | ")) << out;
  EXPECT_TRUE(contains(out, "| 0.4, 0.4 | cond | ")) << out;
  EXPECT_TRUE(contains(out, "### Fig. 11")) << out;
  EXPECT_TRUE(contains(out, "| 5618 |")) << out;  // 52 cells a side: 4x the paper's mat
  EXPECT_TRUE(contains(out, "(paper *1.000*)")) << out;
  EXPECT_TRUE(contains(out, "wrote " + tempPath("cond_paper-scaling") + ".csv\n")) << out;
  EXPECT_FALSE(contains(out, "failed")) << out;
  EXPECT_TRUE(contains(out, "| 1.0e+05 | 0.0000 | 0.0001 | 0.0006 |")) << out;
  const auto rows = parseCsv(readFile(csv));
  ASSERT_EQ(rows.size(), 6u);  // header + COND at 5 sizes
  EXPECT_EQ(rows[0][0], "solver");
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][0], "cond");
    EXPECT_EQ(rows[i][2], "1") << i;             // steps completed
    EXPECT_GT(std::stod(rows[i][3]), 0.0) << i;  // solver ms
  }
  std::remove(table.c_str());
  std::remove(csv.c_str());
}

}  // namespace
