// `subsim export-fclib PROBLEMS.h5 DIR`: a subsim problem file's problems as FCLib files, one per
// problem (FCLib holds one problem a file), for Siconos, LMGC90 and the other programs that read
// FCLib (io/fclib_convert.hpp states the conventions).
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "option_checks.hpp"
#include "subsim/io/fclib_convert.hpp"
#include "subsim/io/fclib_file.hpp"
#include "subsim/io/problem_file.hpp"

namespace subsim::cli {

int runExportFclib(const ExportFclibOptions& o) {
  checkExportFclibOptions(o);  // OptionError reaches main
  ProblemFile file;
  try {
    file = readProblemFile(o.file);
  } catch (const std::exception& e) {
    std::cerr << "subsim: " << e.what() << "\n";
    return kExitBadInput;
  }
  const int count = static_cast<int>(file.problems.size());
  int first = 0, last = count;
  if (o.problems) std::tie(first, last) = parseProblemRange(*o.problems, "--problems", count);
  std::error_code ec;
  std::filesystem::create_directories(o.directory, ec);
  if (ec || !std::filesystem::is_directory(o.directory)) {
    std::cerr << "subsim: export-fclib: cannot create directory '" << o.directory
              << "': " << (ec ? ec.message() : "a file of that name exists") << "\n";
    return kExitBadInput;
  }
  const FclibEncoding encoding = o.encoding == "csr"       ? FclibEncoding::CompressedRows
                                 : o.encoding == "triplet" ? FclibEncoding::Triplet
                                                           : FclibEncoding::CompressedColumns;
  const std::string stem = std::filesystem::path(o.file).stem().string();
  for (int k = first; k < last; ++k) {
    const RecordedProblem& r = file.problems[k];
    char name[32];
    std::snprintf(name, sizeof name, "-%06d.hdf5", k + 1);
    const std::string path = (std::filesystem::path(o.directory) / (stem + name)).string();
    FclibExportOptions options;
    options.title = file.info.scene + ", problem " + std::to_string(k + 1);
    options.description = "exported by subsim from '" + o.file + "' (scene " + file.info.scene +
                          ", recorded with " + file.info.source_solver + ", dt " +
                          std::to_string(file.info.dt) + " s)";
    if (r.warm_start.fits(r.problem)) options.guess = &r.warm_start;
    if (r.solution.lambda.size() == r.problem.numRows() && r.problem.numRows() > 0)
      options.solution = &r.solution;
    try {
      const FclibProblem f = o.local ? fclibLocalFromStepProblem(r.problem, options)
                                     : fclibGlobalFromStepProblem(r.problem, options);
      writeFclibFile(path, f, encoding);
    } catch (const std::invalid_argument& e) {
      std::cerr << "subsim: export-fclib: '" << o.file << "', problem " << k + 1 << ": " << e.what()
                << "\n";
      return kExitBadInput;
    } catch (const std::exception& e) {
      std::cerr << "subsim: export-fclib: " << e.what() << "\n";
      return kExitBadInput;
    }
    std::cout << "wrote " << path << "\n";
  }
  return kExitOk;
}

}  // namespace subsim::cli
