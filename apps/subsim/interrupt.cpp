#include "interrupt.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>
#include <utility>

namespace subsim::cli {

namespace {

// A handler may only touch lock-free atomics (and volatile sig_atomic_t).
std::atomic<bool> signalled{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// The first signal asks the run to stop after its step; a second one (a step can take seconds)
// ends the process at once, as the signal would have without the guard.
extern "C" void onInterrupt(int signal) {
  if (signalled.exchange(true)) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
}

struct sigaction previous_int, previous_term;

}  // namespace

InterruptGuard::InterruptGuard() {
  signalled.store(false);
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  for (auto [signal, previous] : {std::pair{SIGINT, &previous_int}, {SIGTERM, &previous_term}}) {
    sigaction(signal, nullptr, previous);
    // A signal ignored from the start stays ignored (a shell starts background jobs with SIGINT
    // ignored, so that Ctrl-C reaches only the foreground).
    if (previous->sa_handler != SIG_IGN) sigaction(signal, &action, nullptr);
  }
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
}

bool InterruptGuard::interrupted() const {
  return signalled.load();
}

void InterruptGuard::wait() const {
  // Polled: a signal handler cannot notify a condition variable safely.
  while (!signalled.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

}  // namespace subsim::cli
