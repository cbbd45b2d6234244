// `subsim bench --scaling`: SubADMM's solver time per step against the size of the system, for
// the ICRA paper's Fig. 2 (stir: number of spheres; cable: number of segments), with a linear fit
// and its R^2, as a table, PREFIX.csv and PREFIX.png.
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "python_plot.hpp"
#include "subsim/scenarios/scenario.hpp"
#include "subsim/sim/world.hpp"
#include "table_text.hpp"

namespace subsim::cli {

namespace {

struct Sweep {
  const char* scene;      // built-in scene ...
  const char* parameter;  // ... and the parameter that sets its size
  std::vector<int> sizes;
};

// The paper sweeps 216 .. ~3000 spheres and 160 .. 2560 segments (Fig. 2).
const std::vector<Sweep>& sweeps() {
  static const std::vector<Sweep> s = {{"stir", "spheres", {216, 512, 1000, 2000, 3000}},
                                       {"cable", "segments", {160, 320, 640, 1280, 2560}}};
  return s;
}

struct Point {
  std::string scene, parameter;
  int size = 0, dof = 0, subsystems = 0, steps = 0;
  double solver_ms = 0.0;
  std::string failure;  // empty when the run completed
};

/// Least squares t = a + b n and its coefficient of determination.
struct LinearFit {
  double intercept = 0.0, slope = 0.0, r2 = 0.0;
};

LinearFit fitLine(const DoubleBuffer& x, const DoubleBuffer& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0.0, my = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / n;
    my += y[i] / n;
  }
  double sxx = 0.0, sxy = 0.0, syy = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  LinearFit f;
  f.slope = sxx > 0.0 ? sxy / sxx : 0.0;
  f.intercept = my - f.slope * mx;
  double ss_res = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (f.intercept + f.slope * x[i]);
    ss_res += r * r;
  }
  f.r2 = syy > 0.0 ? 1.0 - ss_res / syy : 1.0;
  return f;
}

Point runPoint(const Sweep& sweep, int size, const BenchOptions& o, int iterations) {
  Point p;
  p.scene = sweep.scene;
  p.parameter = sweep.parameter;
  p.size = size;
  const std::string spec =
      std::string(sweep.scene) + ":" + sweep.parameter + "=" + std::to_string(size);
  BuiltScene built = buildScenario(spec);
  WorldSettings ws;
  ws.solver = "subadmm";
  ws.solver_settings.max_iterations = iterations;
  ws.solver_settings.tolerance = 0.0;
  ws.solver_settings.threads = o.threads;
  World world(std::move(built.model), ws);
  p.dof = world.dof();
  p.subsystems = world.partition().numSubsystems();
  const int steps = o.steps.value_or(100);
  double sum = 0.0;
  for (int k = 0; k < steps; ++k) {
    const StepReport r = world.step();
    if (r.diverged) {
      p.failure = "step " + std::to_string(k) + ": " + r.divergence;
      break;
    }
    sum += r.solver_ms;
    ++p.steps;
  }
  p.solver_ms = p.steps > 0 ? sum / p.steps : 0.0;
  return p;
}

}  // namespace

int runScalingBench(const BenchOptions& o, int iterations) {
  const std::string prefix = o.output.empty() ? "scaling" : o.output;
  const std::string csv_path = prefix + ".csv", png_path = prefix + ".png";
  std::ofstream csv;
  if (!openOutput("--output", csv_path, csv)) return kExitBadInput;
  std::ostringstream report;
  report << std::fixed;
  report << "SubADMM at " << iterations << " iterations (--tolerance 0), " << o.threads
         << (o.threads == 1 ? " thread" : " threads") << ", " << o.steps.value_or(100)
         << " steps per point: mean solver time per step\n";
  csv << "scene,parameter,size,dof,subsystems,steps,solver_ms\n";
  bool all_completed = true;
  for (const Sweep& sweep : sweeps()) {
    report << "\n| " << sweep.scene << " " << sweep.parameter
           << " | DOF | subsystems | solver ms/step | fit ms |\n|---|---|---|---|---|\n";
    std::vector<Point> points;
    DoubleBuffer x, y;
    for (int size : sweep.sizes) {
      points.push_back(runPoint(sweep, size, o, iterations));
      const Point& p = points.back();
      csv << p.scene << "," << p.parameter << "," << p.size << "," << p.dof << "," << p.subsystems
          << "," << p.steps << "," << std::setprecision(6) << p.solver_ms << "\n";
      if (p.failure.empty()) {
        x.push_back(p.size);
        y.push_back(p.solver_ms);
      } else {
        all_completed = false;
      }
    }
    const LinearFit fit = fitLine(x, y);
    for (const Point& p : points) {
      report << "| " << p.size << " | " << p.dof << " | " << p.subsystems << " | ";
      if (p.failure.empty())
        report << std::setprecision(3) << p.solver_ms << " | " << fit.intercept + fit.slope * p.size
               << " |\n";
      else
        report << "failed (" << p.failure << ") | |\n";
    }
    report << "\nlinear fit: " << std::setprecision(4) << fit.intercept << " ms + "
           << std::setprecision(6) << fit.slope << " ms x " << sweep.parameter
           << ", R^2 = " << std::setprecision(4) << fit.r2 << " (" << x.size() << " points)\n";
  }
  csv.close();
  if (!csv) {
    std::cerr << "subsim: --output: writing '" << csv_path << "' failed\n";
    return kExitBadInput;
  }
  std::cout << report.str() << "\nwrote " << csv_path << "\n";
  if (!o.no_plot) {
    if (!drawPlot("plot_scaling.py", csv_path, png_path,
                  "SubADMM, " + std::to_string(iterations) + " iterations"))
      return kExitBadInput;
    std::cout << "wrote " << png_path << "\n";
  }
  return all_completed ? kExitOk : kExitDiverged;
}

}  // namespace subsim::cli
