// `subsim bench --front`: the accuracy-time front (README.md, "The accuracy-time front").  The
// matrix (bench_command.cpp) has run every solver at every swept iteration count and thread count
// on one scene's identical recorded problems; this reads each (solver, threads) curve of (AT, AA)
// points, marks the points no other point beats, and says how soon each curve reaches a ladder of
// accuracies: the way the claim ("more accuracy in less time") is judged.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bench_table.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "python_plot.hpp"
#include "subsim/bench/accuracy_front.hpp"
#include "table_text.hpp"

namespace subsim::cli {

namespace {

using ::subsim::bench::FrontPoint;

/// A cell that measured: not failed, with a time and an accuracy.
bool measured(const bench::Cell& c) {
  return !c.failed && c.at_ms && c.aa;
}

/// One solver at one thread count over the sweep, its cells in sweep order.
struct Curve {
  std::string solver;
  int threads = 1;
  std::vector<const bench::Cell*> cells;
  std::vector<FrontPoint> points;  // the measured cells' (AT, AA), in the same order
  std::vector<bool> on_front;      // per cell (a failed one is not on it)
};

/// The scene's curves, each cell marked on the front or not (paretoFront over all the curves).
std::vector<Curve> curvesOf(const bench::Report& r, const std::string& scene) {
  std::vector<Curve> curves;
  for (const bench::Cell& c : r.cells) {
    if (c.scene != scene) continue;
    auto it = std::find_if(curves.begin(), curves.end(), [&](const Curve& k) {
      return k.solver == c.solver && k.threads == c.threads;
    });
    if (it == curves.end())
      it = curves.insert(curves.end(), Curve{c.solver, c.threads, {}, {}, {}});
    it->cells.push_back(&c);
    if (measured(c)) it->points.push_back({*c.at_ms, *c.aa});
  }
  std::vector<std::vector<FrontPoint>> points;
  for (const Curve& c : curves) points.push_back(c.points);
  const std::vector<std::vector<bool>> front = ::subsim::bench::paretoFront(points);
  for (std::size_t i = 0; i < curves.size(); ++i) {
    std::size_t p = 0;
    for (const bench::Cell* c : curves[i].cells)
      curves[i].on_front.push_back(measured(*c) && front[i][p++]);
  }
  return curves;
}

/// The accuracies the time-to-reach table asks for: every half unit of AA from the lowest to the
/// highest AA measured (every unit when that would be more than eight columns).
std::vector<double> accuracyLadder(const std::vector<Curve>& curves) {
  double lo = INFINITY, hi = -INFINITY;
  for (const Curve& c : curves)
    for (const FrontPoint& p : c.points) {
      lo = std::min(lo, p.aa);
      hi = std::max(hi, p.aa);
    }
  if (!(lo <= hi)) return {};
  const double step = (std::floor(2 * hi) - std::ceil(2 * lo)) / 2 > 3.5 ? 1.0 : 0.5;
  std::vector<double> ladder;
  for (double a = std::ceil(lo / step) * step; a <= hi + 1e-12; a += step) ladder.push_back(a);
  return ladder;
}

/// The time budgets the equal-time table asks for: 1-2-5 steps per decade from the fastest to the
/// slowest point measured.
std::vector<double> timeLadder(const std::vector<Curve>& curves) {
  double lo = INFINITY, hi = 0.0;
  for (const Curve& c : curves)
    for (const FrontPoint& p : c.points) {
      lo = std::min(lo, p.ms);
      hi = std::max(hi, p.ms);
    }
  std::vector<double> ladder;
  if (!(lo <= hi) || lo <= 0.0) return ladder;
  for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10.0)
    for (const double m : {1.0, 2.0, 5.0})
      if (m * decade >= lo && m * decade <= hi) ladder.push_back(m * decade);
  return ladder;
}

/// A time in ms with three significant digits, as the bench's figures are read.
std::string msText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// A markdown table's header: a solver column, then `columns` right-aligned.
void writeHeader(std::ostream& out, const std::vector<std::string>& columns) {
  out << "| solver |";
  for (const std::string& c : columns) out << " " << c << " |";
  out << "\n|---|";
  for (std::size_t k = 0; k < columns.size(); ++k) out << "---:|";
  out << "\n";
}

std::string curveName(const Curve& c) {
  return c.solver + " (" + std::to_string(c.threads) + (c.threads == 1 ? " thread)" : " threads)");
}

void writeScene(std::ostream& out, const bench::SceneInfo& s, const std::vector<Curve>& curves) {
  out << "\n## " << s.spec << "\n\n"
      << s.dof << " DOF, dt " << exactText(s.dt) << " s; " << s.problems_recorded
      << " steps recorded";
  if (!s.reference_note.empty()) out << " (" << s.reference_note << ")";
  out << ", " << s.problems_replayed << " of them solved per point; input hash "
      << (s.input_hashes_agree ? s.input_hash + " (identical for every point)"
                               : std::string("DIFFERS between points"))
      << ".\n\n";

  const std::vector<double> ladder = accuracyLadder(curves);
  out << "Solve time per problem (ms) to reach an AA (on each curve's envelope, interpolated in "
         "log time between swept counts; – : not within the sweep; bold: the fastest):\n\n";
  std::vector<std::string> columns;
  for (double a : ladder) columns.push_back("AA " + fixedText(a, 2));
  writeHeader(out, columns);
  std::vector<double> fastest(ladder.size(), INFINITY);
  for (const Curve& c : curves)
    for (std::size_t k = 0; k < ladder.size(); ++k)
      if (const auto t = ::subsim::bench::timeToReach(c.points, ladder[k]))
        fastest[k] = std::min(fastest[k], *t);
  for (const Curve& c : curves) {
    out << "| " << curveName(c) << " |";
    for (std::size_t k = 0; k < ladder.size(); ++k) {
      const auto t = ::subsim::bench::timeToReach(c.points, ladder[k]);
      if (!t)
        out << " – |";
      else if (*t == fastest[k])
        out << " **" << msText(*t) << "** |";
      else
        out << " " << msText(*t) << " |";
    }
    out << "\n";
  }

  const std::vector<double> budgets = timeLadder(curves);
  out << "\nAA reached within a solve time per problem (same envelope and interpolation; – : "
         "its fastest point is slower; ≥: beyond its slowest point, whose AA it shows; bold: the "
         "most accurate):\n\n";
  columns.clear();
  for (double t : budgets) columns.push_back(msText(t) + " ms");
  writeHeader(out, columns);
  std::vector<double> best(budgets.size(), -INFINITY);
  for (const Curve& c : curves)
    for (std::size_t k = 0; k < budgets.size(); ++k)
      if (const auto a = ::subsim::bench::accuracyWithin(c.points, budgets[k]))
        best[k] = std::max(best[k], *a);
  for (const Curve& c : curves) {
    out << "| " << curveName(c) << " |";
    double slowest = 0.0;
    for (const FrontPoint& p : c.points) slowest = std::max(slowest, p.ms);
    for (std::size_t k = 0; k < budgets.size(); ++k) {
      const auto a = ::subsim::bench::accuracyWithin(c.points, budgets[k]);
      // Beyond the sweep's last point the curve's best is a lower bound: more iterations fit.
      const std::string text = a ? (budgets[k] > slowest ? "≥" : "") + fixedText(*a, 2) : "–";
      out << " " << (a && *a == best[k] ? "**" + text + "**" : text) << " |";
    }
    out << "\n";
  }

  out << "\nThe points (● on the front: no point of any solver is as fast and as accurate):\n\n"
      << "| solver | it. | AT (ms) | AA | front |\n|---|---:|---:|---:|:---:|\n";
  std::vector<const bench::Cell*> failures;
  for (const Curve& curve : curves)
    for (std::size_t k = 0; k < curve.cells.size(); ++k) {
      const bench::Cell* c = curve.cells[k];
      out << "| " << curveName(curve) << " | " << c->iterations << " | ";
      if (!measured(*c)) {
        out << "✗ " << c->failure_mark << " | | |\n";
        if (c->failed) failures.push_back(c);
        continue;
      }
      out << (bench::hasFailedSolves(c->solve_status) ? "⚠ " : "") << msText(*c->at_ms) << " | "
          << fixedText(*c->aa, 2) << " | " << (curve.on_front[k] ? "●" : "") << " |\n";
      if (bench::hasFailedSolves(c->solve_status)) failures.push_back(c);
    }
  if (!failures.empty()) out << "\n";
  for (const bench::Cell* c : failures)
    out << (c->failed ? "- ✗ " : "- ⚠ ") << c->solver << " at " << c->iterations << " it., "
        << c->threads << " thr.: "
        << (c->failed ? c->failure_reason
                      : "solves ended so: " + bench::statusSummary(c->solve_status))
        << "\n";
}

/// --output PREFIX, default "front".
std::string frontPrefix(const BenchOptions& o) {
  return o.output.empty() ? std::string("front") : o.output;
}

}  // namespace

std::string frontCsvPath(const BenchOptions& o) {
  return frontPrefix(o) + ".csv";
}

int reportFront(const BenchOptions& o, const bench::Report& r, std::ofstream& csv) {
  std::ostringstream out;
  out << "# subsim bench --front\n\n"
      << "One reference run per scene (" << r.reference_solver << " at " << r.reference_iterations
      << " iterations) records every step's problem and warm start; every point solves the same "
         "evenly spaced sample of them, tolerance 0 (exactly its iteration count), so AT is the "
         "mean solve time per problem and AA the mean -log10 of the AL paper's constraint "
         "residual (section 6) over those with constraints.  Threads:";
  for (int t : frontThreadCounts(o)) out << " " << t;
  out << ".\n";
  const std::string options = bench::optionsText(r);
  if (!options.empty()) out << "Solver options (others at their defaults): " << options << ".\n";

  csv << "scene,solver,threads,iterations,at_ms,aa,aa_fb,aa_nm,failed,failure_reason,"
         "solve_status,input_hash,on_front\n";
  const auto opt = [](const std::optional<double>& v) { return v ? exactText(*v) : std::string(); };
  for (const bench::SceneInfo& s : r.scenes) {
    const std::vector<Curve> curves = curvesOf(r, s.spec);
    writeScene(out, s, curves);
    for (const Curve& curve : curves)
      for (std::size_t k = 0; k < curve.cells.size(); ++k) {
        const bench::Cell* c = curve.cells[k];
        csv << bench::csvField(c->scene) << "," << bench::csvField(c->solver) << "," << c->threads
            << "," << c->iterations << "," << opt(c->at_ms) << "," << opt(c->aa) << ","
            << opt(c->aa_fb) << "," << opt(c->aa_nm) << "," << (c->failed ? "true" : "false") << ","
            << bench::csvField(c->failure_reason) << ","
            << bench::csvField(bench::statusSummary(c->solve_status)) << "," << c->input_hash << ","
            << (curve.on_front[k] ? "true" : "false") << "\n";
      }
  }
  csv.close();
  const std::string csv_path = frontCsvPath(o);
  if (!csv) {
    std::cerr << "subsim: --output: writing '" << csv_path << "' failed\n";
    return kExitBadInput;
  }
  std::cout << out.str() << "\nwrote " << csv_path << "\n";
  if (o.no_plot) return kExitOk;
  const std::string png_path = frontPrefix(o) + ".png";
  std::string title = "accuracy-time front:";
  for (const bench::SceneInfo& s : r.scenes) title += " " + s.spec;
  if (!drawPlot("plot_front.py", csv_path, png_path, title)) return kExitBadInput;
  std::cout << "wrote " << png_path << "\n";
  return kExitOk;
}

}  // namespace subsim::cli
