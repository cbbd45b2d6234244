#pragma once
// The convergence-history CSVs that `subsim plot FILE.csv --kind convergence` draws, checked
// before python sees them, so that a wrong file gets a message naming the file, the line and what
// was expected instead of a python traceback.  Two headers are known:
//   solver,problem,iteration,residual_name,residual,cumulative_ms   (subsim solve --history:
//       one line per iteration of each solve; one curve per (solver, problem))
//   solver,iteration,residual_name,residual,cumulative_ms           (subsim bench --convergence)
// solver, problem and residual_name are labels (any text, quoted as RFC 4180 when it holds a
// comma); iteration is a whole number >= 0; residual and cumulative_ms are numbers (nan and inf
// included: a diverged solve's residual is one, and the plot leaves it out).
#include <string>

namespace subsim::cli {

enum class ConvergenceCsv { History, BenchConvergence };

struct ConvergenceCsvInfo {
  ConvergenceCsv kind = ConvergenceCsv::History;
  int rows = 0;  // data lines
};

/// Reads and checks `path`; std::runtime_error with the message (without "subsim: ") for a file
/// that cannot be read, an unknown header, a line with the wrong number of fields or a value
/// that is not a number, or no data lines.
ConvergenceCsvInfo checkConvergenceCsv(const std::string& path);

}  // namespace subsim::cli
