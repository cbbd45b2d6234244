#pragma once
// `subsim run --serve` and `subsim view --serve`: the page of `subsim view` served on localhost,
// its steps sent as they are made, so that a run can be watched while it runs (as Drake's
// meshcat or MuJoCo's viewer show a simulation live).  The page polls /frames?from=K; the run
// appends each step; nothing waits on the browser, so serving never slows or changes the run.
#include <cstddef>
#include <memory>
#include <string>

#include "subsim/sim/recorder.hpp"

namespace subsim::cli {

class LiveView {
 public:
  /// Serves `header`'s live page (viewer_page.hpp) on 127.0.0.1:port, port 0 any free one, from
  /// a thread of its own; `header`'s steps are the first ones served.  std::runtime_error saying
  /// what to do when the port cannot be bound (in use, or below 1024 without the right).
  LiveView(Recording header, int port);
  /// Stops the server (an open page then says that its server has gone).
  ~LiveView();
  LiveView(const LiveView&) = delete;
  LiveView& operator=(const LiveView&) = delete;

  int port() const;
  /// http://127.0.0.1:PORT/
  std::string url() const;
  /// One more step for the page.
  void append(const RecordedStep& step);
  /// No more steps: a page that has them all stops asking.
  void finish();
  std::size_t stepsServed() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace subsim::cli
