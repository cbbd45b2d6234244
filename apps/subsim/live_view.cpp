#include "live_view.hpp"

#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "viewer_page.hpp"

namespace subsim::cli {

namespace {

// Media types are case-insensitive (RFC 9110, 8.3.1), and cpp-httplib compresses only the
// lower-case ones it knows: with its Brotli at quality 11, a browser's 5 MB of steps took 15 s
// to send, against 0.1 s plain.  On localhost compression gains nothing.
constexpr const char* kHtml = "Text/html; charset=utf-8";
constexpr const char* kJson = "Application/json";

}  // namespace

struct LiveView::Impl {
  mutable std::mutex mutex;  // guards recording and done, which the server's threads read
  Recording recording;
  bool done = false;
  std::string page;
  int port = 0;
  httplib::Server server;
  std::thread thread;
};

LiveView::LiveView(Recording header, int port) : impl_(std::make_unique<Impl>()) {
  Impl& v = *impl_;
  v.page = liveViewerPage(header);
  v.recording = std::move(header);
  v.server.Get("/", [&v](const httplib::Request&, httplib::Response& res) {
    res.set_content(v.page, kHtml);
  });
  v.server.Get("/frames", [&v](const httplib::Request& req, httplib::Response& res) {
    std::size_t first = 0;
    if (req.has_param("from")) {
      const std::string text = req.get_param_value("from");
      const char* end = text.data() + text.size();
      const auto [at, error] = std::from_chars(text.data(), end, first);
      if (text.empty() || error != std::errc() || at != end) {
        res.status = 400;
        res.set_content("from: expected a step index, got '" + text + "'", "text/plain");
        return;
      }
    }
    std::string body;
    {
      const std::lock_guard<std::mutex> lock(v.mutex);
      first = std::min(first, v.recording.steps.size());
      body = viewerFrames(v.recording, first, viewerFramesEnd(v.recording, first), v.done);
    }
    res.set_header("Cache-Control", "no-store");
    res.set_content(body, kJson);
  });
  const bool bound = port == 0 ? (v.port = v.server.bind_to_any_port("127.0.0.1")) > 0
                               : v.server.bind_to_port("127.0.0.1", v.port = port);
  if (!bound)
    throw std::runtime_error("cannot serve the page on 127.0.0.1:" + std::to_string(port) +
                             " (is the port in use, or below 1024?): choose another with --port, "
                             "or --port 0 for any free one");
  v.thread = std::thread([&v] { v.server.listen_after_bind(); });
}

LiveView::~LiveView() {
  // stop() does nothing before the thread has begun to listen, and the join would then wait
  // forever: give it a moment (listening fails only if the bound socket went bad, and then the
  // thread has already ended).
  for (int k = 0; k < 2000 && !impl_->server.is_running(); ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

int LiveView::port() const {
  return impl_->port;
}

std::string LiveView::url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port) + "/";
}

void LiveView::append(const RecordedStep& step) {
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->recording.steps.push_back(step);
}

void LiveView::finish() {
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->done = true;
}

std::size_t LiveView::stepsServed() const {
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->recording.steps.size();
}

}  // namespace subsim::cli
