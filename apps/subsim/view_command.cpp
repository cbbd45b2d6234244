// `subsim view FILE.h5 [--output PAGE.html]`: a recording as one self-contained HTML page
// (viewer_page.hpp; README.md, "Seeing a run: subsim view").
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "viewer_page.hpp"

namespace subsim::cli {

std::string viewOutputOf(const ViewOptions& o) {
  return o.output.empty() ? std::filesystem::path(o.file).replace_extension(".html").string()
                          : o.output;
}

int writeViewerPage(const std::string& recording, const std::string& page, std::ostream& err) {
  Recording rec;
  try {
    rec = readRecording(recording);
  } catch (const std::exception& e) {
    err << "subsim: view: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (rec.steps.empty()) {
    err << "subsim: view: '" << recording << "' holds no steps: nothing to show\n";
    return kExitBadInput;
  }
  std::string html;
  try {
    html = viewerPage(rec);
  } catch (const std::exception& e) {
    err << "subsim: view: " << e.what() << "\n";
    return kExitBadInput;
  }
  std::ofstream out(page, std::ios::binary);
  out << html;
  out.close();
  if (!out) {
    err << "subsim: view: cannot write '" << page
        << "' (does its directory exist, and may it be written?)\n";
    return kExitBadInput;
  }
  return kExitOk;
}

int runView(const ViewOptions& o) {
  const std::string page = viewOutputOf(o);
  if (page == o.file) {
    std::cerr << "subsim: view: --output '" << page << "' is the recording itself\n";
    return kExitBadInput;
  }
  const int code = writeViewerPage(o.file, page, std::cerr);
  if (code == kExitOk)
    std::cout << "subsim: wrote " << page << " (open it in a browser; it needs no network)\n";
  return code;
}

}  // namespace subsim::cli
