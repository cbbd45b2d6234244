// `subsim bench --paper schur`: the tables of the Schur-complement substructuring paper (Peiret
// et al., TOG 2019) on its scenes, measured here, with the paper's figures beside ours.
//   Table 2  partitions: method and n_max, groups, bodies per group, interface rows, average
//            cond(S_Gamma) (schur-bpp's interface matrix, sampled every 10th step);
//   Table 3  mean solve time per step of every solver on a live run of each scene (each solver
//            its own trajectory, as in the paper), speed-up against whole-system BPP, average
//            coupling iterations and % of steps at k_max, the mean natural residual (29) of
//            each step's impulses on its box MLCP, and a failure mark where a run
//            diverges (speed, penetration: the World's checks);
//   Table 4  schur-pgs-sm with minimum-degree n_max = 8, 16, 32, 64 on log tower and rock pile.
// Settings as the paper's Table 1: bpp kappa 50; box-pgs 1000 sweeps, eps 1e-9; schur-* k_max 10,
// kappa 50, eta 1e-9 (docs/schur.md says why not 1e-5); fbic k_max 250 (1000 on the net); the NCP
// solvers subadmm and pgs-cg at 100 iterations, tolerance 1e-6.  The bridge (the paper's scaling
// scene) runs in Table 3 too.
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "option_checks.hpp"
#include "progress_line.hpp"
#include "subsim/metrics/box_natural_residual.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"
#include "subsim/solvers/substructuring_solver.hpp"
#include "table_text.hpp"

namespace subsim::cli {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A scene of the paper, its partition (semantic: the substructures the scene declares; the
/// chains' semantic groups are "sequential": the scene builds each chain in index order) and
/// the paper's figures.
struct PaperScene {
  const char* scene;
  const char* label;
  const char* partition;  // min-degree | sequential | semantic
  int n_max;
  const char* paper_partition;  // Table 2
  double paper_cond;
  // Table 3 (ms): Eigen-BPP, PGS, Schur-BPP, Schur-PGS-SM, FBIC; avg k, % at k_max
  double paper_ms[5];
  double paper_k, paper_kmax_percent;
};

const std::vector<PaperScene>& paperScenes() {
  static const std::vector<PaperScene> s = {
      {"logtower",
       "Log tower",
       "min-degree",
       16,
       "min-degree (16)",
       2.2e6,
       {202.6, 302.4, 59.7, 51.4, 111.6},
       5.8,
       39.2},
      {"cablespinner",
       "Cable spinner",
       "sequential",
       48,
       "semantic (36-48)",
       3.9e7,
       {141.3, 229.1, 8.7, 8.8, 93.2},
       2.1,
       0.0},
      {"chainwrap",
       "Chain wrap",
       "sequential",
       16,
       "semantic (16)",
       5.6e4,
       {54.6, 198.5, 11.6, 12.3, 132.0},
       4.4,
       1.9},
      {"chaindrop",
       "Chain drop",
       "sequential",
       16,
       "semantic (16)",
       2.7e4,
       {46.9, 150.5, 9.1, 8.7, 20.5},
       3.2,
       2.1},
      {"rockpile",
       "Rock pile",
       "min-degree",
       16,
       "min-degree (16)",
       1.5e4,
       {311.7, 284.4, 101.5, 98.6, 373.9},
       6.3,
       10.2},
      {"nettruck",
       "Net with truck",
       "semantic",
       48,
       "semantic (48)",
       2.5e12,
       {252.3, 802.4, 11.9, 12.7, 632.0},
       2.6,
       0.0},
      {"cranes",
       "Tandem cranes",
       "semantic",
       32,
       "semantic (24-50)",
       4.8e10,
       {180.6, 222.9, 12.9, 13.0, 134.3},
       2.4,
       0.2},
      {"bridge",
       "Bridge (scaling)",
       "min-degree",
       32,
       "-",
       kNaN,
       {kNaN, kNaN, kNaN, kNaN, kNaN},
       1.0,
       kNaN},
  };
  return s;
}

const std::vector<std::string>& defaultSolvers() {
  static const std::vector<std::string> s = {"bpp",  "box-pgs", "schur-bpp", "schur-pgs-sm",
                                             "fbic", "subadmm", "pgs-cg"};
  return s;
}

/// The paper's column of a solver in Table 3 (-1: none).
int paperColumn(const std::string& solver) {
  const char* names[] = {"bpp", "box-pgs", "schur-bpp", "schur-pgs-sm", "fbic"};
  for (int c = 0; c < 5; ++c)
    if (solver == names[c]) return c;
  return -1;
}

bool substructuring(const std::string& solver) {
  return solver == "schur-bpp" || solver == "schur-pgs-sm" || solver == "fbic";
}

struct RunRow {
  std::string scene, solver;
  int steps = 0, steps_done = 0, n_max = 0;
  double solve_ms = kNaN, iterations = kNaN, at_k_max = kNaN;
  double solved_whole = kNaN;      // % of steps schur-* solved whole (substructuring_solver.hpp)
  double natural_residual = kNaN;  // mean of (29)'s maximum over steps with constraints
  std::string failure;
};

struct PartitionRow {
  std::string scene, partition;
  int n_max = 0, samples = 0;
  double groups = 0, bodies_per_group = 0, interface_rows = 0, rows = 0, cond = 0;
};

/// Settings of one solver on one scene (Table 1 of the paper, and the scene's partition).
WorldSettings settingsFor(const PaperScene& scene, const std::string& solver, int threads,
                          int n_max_override = 0) {
  WorldSettings ws;
  ws.solver = solver;
  ws.solver_settings.threads = threads;
  ws.solver_settings.tolerance = 1e-9;
  ws.solver_settings.max_iterations = 1000;
  if (solver == "bpp" || solver == "pgs-sm") ws.solver_settings.max_iterations = 50;
  if (solver == "subadmm" || solver == "pgs-cg") {
    ws.solver_settings.max_iterations = 100;
    ws.solver_settings.tolerance = 1e-6;
  }
  if (substructuring(solver)) {
    ws.solver_options = {
        {"partition", scene.partition},
        {"n_max", std::to_string(n_max_override > 0 ? n_max_override : scene.n_max)}};
    if (solver == "fbic" && std::string(scene.scene) == "nettruck")
      ws.solver_options.push_back({"k_max", "1000"});
  }
  return ws;
}

int kMaxOf(const std::string& solver, const WorldSettings& ws) {
  for (const SolverOption& o : ws.solver_options)
    if (o.name == "k_max") return std::stoi(o.value);
  return solver == "fbic" ? 250 : 10;
}

RunRow runScene(const PaperScene& scene, const std::string& solver, int steps, int threads,
                int n_max_override, PartitionRow* partition) {
  RunRow row;
  row.scene = scene.scene;
  row.solver = solver;
  row.steps = steps;
  BuiltScene built = buildScenario(scene.scene);
  const WorldSettings ws = settingsFor(scene, solver, threads, n_max_override);
  World world(std::move(built.model), ws);
  row.n_max = n_max_override > 0 ? n_max_override : scene.n_max;
  const int k_max = kMaxOf(solver, ws);
  SubstructuringSolver probe(SubstructuringSolver::Variant::SchurBpp);
  if (partition) {
    probe.setOption("partition", scene.partition);
    probe.setOption("n_max", std::to_string(scene.n_max));
    partition->scene = scene.scene;
    partition->partition = scene.partition;
    partition->n_max = scene.n_max;
  }
  double ms = 0.0, iterations = 0.0, residual = 0.0;
  int at_k_max = 0, judged = 0, solves = 0;
  for (int k = 0; k < steps; ++k) {
    progressLine("bench", std::string(scene.scene) + " " + solver + ": step " +
                              std::to_string(k + 1) + "/" + std::to_string(steps));
    const StepReport r = world.step();
    if (r.diverged) {
      row.failure = "step " + std::to_string(k + 1) + ": " + r.divergence;
      break;
    }
    ++row.steps_done;
    ms += r.solver_ms;
    iterations += r.iterations;
    solves += r.solves;
    if (substructuring(solver) && r.iterations >= k_max) ++at_k_max;
    if (world.lastProblem().numConstraints() > 0) {
      const VecX& previous = world.lastWarmStart().lambda;
      residual +=
          evaluateBoxNaturalResidual(world.lastProblem(), &previous, world.lastSolution().lambda)
              .max;
      ++judged;
    }
    if (partition && k % 10 == 0 && world.lastProblem().numConstraints() > 0) {
      StepSolution s = world.lastWarmStart();
      SolverSettings settings;
      settings.max_iterations = 1000;
      settings.tolerance = 1e-9;
      probe.solve(world.lastProblem(), settings, s);
      const SubstructurePartition& part = probe.partition();
      const MatX sg = MatX(probe.interfaceMatrix());
      ++partition->samples;
      partition->groups += part.num_groups;
      int bodies = 0;
      for (int g : part.group_size) bodies += g;
      partition->bodies_per_group += part.num_groups > 0 ? double(bodies) / part.num_groups : 0;
      partition->interface_rows += part.numInterfaceRows();
      partition->rows += world.lastProblem().numRows();
      if (sg.rows() > 0 && sg.rows() <= 3000) {
        const Eigen::VectorXd ev =
            Eigen::SelfAdjointEigenSolver<MatX>(sg, Eigen::EigenvaluesOnly).eigenvalues();
        partition->cond += ev.maxCoeff() / std::max(ev.minCoeff(), 1e-300);
      }
    }
  }
  progressDone();
  if (row.steps_done > 0) {
    row.solve_ms = ms / row.steps_done;
    row.iterations = iterations / row.steps_done;
    if (substructuring(solver)) row.at_k_max = 100.0 * at_k_max / row.steps_done;
    if (const auto* s = dynamic_cast<const SubstructuringSolver*>(&world.solver()))
      // Of the solves: a step takes more than one where the geometric stiffness passes run.
      row.solved_whole = 100.0 * s->wholeSystemSolves() / std::max(solves, 1);
  }
  if (judged > 0) row.natural_residual = residual / judged;
  if (partition && partition->samples > 0) {
    const double n = partition->samples;
    partition->groups /= n;
    partition->bodies_per_group /= n;
    partition->interface_rows /= n;
    partition->rows /= n;
    partition->cond /= n;
  }
  return row;
}

}  // namespace

int runSchurPaperBench(const BenchOptions& o) {
  const int steps = o.steps.value_or(120);
  const std::vector<std::string> solvers =
      o.solvers ? parseSolverList(o.solvers) : defaultSolvers();
  std::vector<RunRow> runs;
  std::vector<PartitionRow> partitions;
  for (const PaperScene& scene : paperScenes()) {
    for (const std::string& solver : solvers) {
      PartitionRow part;
      const bool probe = solver == "schur-bpp";
      runs.push_back(runScene(scene, solver, steps, o.threads, 0, probe ? &part : nullptr));
      if (probe) partitions.push_back(part);
    }
  }
  std::vector<std::pair<RunRow, double>> sweep;  // Table 4: (run, mean groups)
  const bool table4 =
      !o.solvers || std::find(solvers.begin(), solvers.end(), "schur-pgs-sm") != solvers.end();
  if (table4) {
    for (const PaperScene& scene : paperScenes()) {
      const std::string name = scene.scene;
      if (name != "logtower" && name != "rockpile") continue;
      for (int n_max : {8, 16, 32, 64}) {
        PaperScene s = scene;
        s.partition = "min-degree";
        s.n_max = n_max;
        PartitionRow part;
        RunRow r = runScene(s, "schur-pgs-sm", steps, o.threads, n_max, nullptr);
        // The groups of this n_max, from a schur-bpp probe run at the same partition.
        runScene(s, "schur-bpp", std::min(steps, 30), o.threads, n_max, &part);
        sweep.push_back({r, part.groups});
      }
    }
  }

  std::ostringstream out;
  if (o.format == "csv") {
    out << "table,scene,solver,n_max,steps,steps_done,solve_ms,iterations,at_k_max_percent,"
           "solved_whole_percent,groups,natural_residual,failure\n";
    for (const RunRow& r : runs)
      out << "3," << r.scene << "," << r.solver << ",," << r.steps << "," << r.steps_done << ","
          << fixedText(r.solve_ms, 4) << "," << fixedText(r.iterations, 3) << ","
          << fixedText(r.at_k_max, 2) << "," << fixedText(r.solved_whole, 2) << ",,"
          << scientificText(r.natural_residual) << ",\"" << r.failure << "\"\n";
    for (const auto& [r, groups] : sweep)
      out << "4," << r.scene << "," << r.solver << "," << r.n_max << "," << r.steps << ","
          << r.steps_done << "," << fixedText(r.solve_ms, 4) << "," << fixedText(r.iterations, 3)
          << "," << fixedText(r.at_k_max, 2) << "," << fixedText(r.solved_whole, 2) << ","
          << fixedText(groups, 2) << "," << scientificText(r.natural_residual) << ",\"" << r.failure
          << "\"\n";
  } else {
    out << "# subsim bench --paper schur (Peiret et al. 2019, Tables 2-4)\n\n"
        << steps << " steps per run at each scene's dt, " << o.threads
        << (o.threads == 1 ? " thread" : " threads")
        << "; times are the mean solve time per completed step (ms), ours | paper's (6-core "
           "i7, Vortex scenes; ours are simplified scenes of our own, "
           "src/subsim/scenarios/schur_scenes.cpp).\n\n";
    out << "## Table 2: partitions (schur-bpp, sampled every 10th step)\n\n"
        << "| scene | partition (ours) | groups | bodies / group | interface rows / all rows | "
           "cond(S) | paper: partition | paper: cond(S) |\n|---|---|---|---|---|---|---|---|\n";
    for (const PartitionRow& p : partitions) {
      const PaperScene* ps = nullptr;
      for (const PaperScene& s : paperScenes())
        if (p.scene == s.scene) ps = &s;
      out << "| " << ps->label << " | " << p.partition << " (" << p.n_max << ") | "
          << fixedText(p.groups) << " | " << fixedText(p.bodies_per_group) << " | "
          << fixedText(p.interface_rows, 0) << " / " << fixedText(p.rows, 0) << " | "
          << scientificText(p.cond) << " | " << ps->paper_partition << " | "
          << scientificText(ps->paper_cond) << " |\n";
    }
    out << "\n## Table 3: solve time per step (ms) and speed-up against whole-system BPP\n\n"
        << "| scene | solver | ours: ms | ours: speed-up | paper: ms (speed-up) | iterations | "
           "% at k_max | % solved whole | (29) mean | failure |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n";
    for (const PaperScene& s : paperScenes()) {
      double bpp_ms = kNaN;
      for (const RunRow& r : runs)
        if (r.scene == s.scene && r.solver == "bpp" && r.failure.empty()) bpp_ms = r.solve_ms;
      for (const RunRow& r : runs) {
        if (r.scene != s.scene) continue;
        const int c = paperColumn(r.solver);
        std::string paper = "-";
        if (c >= 0 && std::isfinite(s.paper_ms[c]))
          paper = fixedText(s.paper_ms[c]) + " (" + fixedText(s.paper_ms[0] / s.paper_ms[c]) + "x)";
        const std::string speedup =
            r.failure.empty() && std::isfinite(bpp_ms) ? fixedText(bpp_ms / r.solve_ms) + "x" : "-";
        out << "| " << s.label << " | " << r.solver << " | " << fixedText(r.solve_ms, 2) << " | "
            << speedup << " | " << paper << " | " << fixedText(r.iterations) << " | "
            << fixedText(r.at_k_max) << " | " << fixedText(r.solved_whole) << " | "
            << scientificText(r.natural_residual) << " | "
            << (r.failure.empty() ? "" : "**failed** " + r.failure) << " |\n";
      }
      if (std::isfinite(s.paper_k))
        out << "| " << s.label << " | *paper: Schur avg k " << fixedText(s.paper_k) << ", "
            << fixedText(s.paper_kmax_percent) << " % at k_max* | | | | | | | | |\n";
    }
    if (!sweep.empty()) {
      out << "\n## Table 4: schur-pgs-sm, minimum-degree n_max sweep\n\n"
          << "| scene | n_max | ours: ms | ours: groups | paper: ms / groups |\n"
             "|---|---|---|---|---|\n";
      const std::map<std::pair<std::string, int>, std::string> paper = {
          {{"logtower", 8}, "53.4 / 30.4"},  {{"logtower", 16}, "51.4 / 19.1"},
          {{"logtower", 32}, "63.3 / 14.3"}, {{"logtower", 64}, "88.8 / 12.8"},
          {{"rockpile", 8}, "169.1 / 21.2"}, {{"rockpile", 16}, "98.6 / 12.1"},
          {{"rockpile", 32}, "129.7 / 6.8"}, {{"rockpile", 64}, "142.7 / 4.9"}};
      for (const auto& [r, groups] : sweep) {
        out << "| " << r.scene << " | " << r.n_max << " | " << fixedText(r.solve_ms, 2)
            << (r.failure.empty() ? "" : " (**failed** " + r.failure + ")") << " | "
            << fixedText(groups) << " | " << paper.at({r.scene, r.n_max}) << " |\n";
      }
    }
  }
  return writeTable(out.str(), o.output);
}

}  // namespace subsim::cli
