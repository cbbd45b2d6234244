#pragma once
// Ctrl-C and SIGTERM during `subsim run`: the run stops after the step in progress, so that its
// recording is sealed and its figures printed, instead of dying with a half-written file; with
// --serve they also end the serving that follows the run.
namespace subsim::cli {

/// While one exists, SIGINT and SIGTERM set a flag instead of ending the process; the handlers
/// before it are restored when it goes.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  /// True once SIGINT or SIGTERM arrived.
  bool interrupted() const;
  /// Returns once SIGINT or SIGTERM arrived (at once if one has).
  void wait() const;
};

}  // namespace subsim::cli
