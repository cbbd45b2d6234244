// `subsim view FILE.h5 [--output PAGE.html | --serve [--port N]]`: a recording as one
// self-contained HTML page, or served (viewer_page.hpp, live_view.hpp; README.md, "Seeing a run:
// subsim view").
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "interrupt.hpp"
#include "live_view.hpp"
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

namespace {

/// `subsim view FILE.h5 --serve`: the page on localhost until Ctrl-C, for a machine whose
/// browser is elsewhere (ssh -L PORT:127.0.0.1:PORT) or a recording too large for one file.
int serveRecording(const ViewOptions& o) {
  Recording rec;
  try {
    rec = readRecording(o.file);
  } catch (const std::exception& e) {
    std::cerr << "subsim: view: " << e.what() << "\n";
    return kExitBadInput;
  }
  const InterruptGuard interrupt;
  try {
    LiveView view(std::move(rec), o.port.value_or(kDefaultServePort));
    view.finish();
    std::cerr << "subsim: '" << o.file << "' is at " << view.url() << " (Ctrl-C stops serving)"
              << std::endl;
    interrupt.wait();
  } catch (const std::exception& e) {
    std::cerr << "subsim: view: --serve: " << e.what() << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

int runView(const ViewOptions& o) {
  if (o.serve) return serveRecording(o);
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
