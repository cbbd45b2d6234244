#pragma once
// The thread count of a run's solves chosen at run time: a run given N threads keeps N while N
// pay, and falls back to 1 while they do not, as when another busy process shares the cores and
// libgomp's spinning barriers make two threads twice as slow as one (issue 14: granular at 60
// iterations on 2 cores with one busy process, 20.1 ms per solve on 2 threads, 10.8 on 1).  A
// wait policy cannot do it: OMP_WAIT_POLICY=passive keeps the loaded run at 8.1 ms but makes the
// idle 2-thread run 18.6 ms instead of 7.1 (a futex wake per barrier).
//
// Every `probe_every` steps the governor runs `window` steps at the other count and keeps the one
// whose median solver time is lower by more than `margin` (noise must not flip it).  A probe that
// does not switch doubles the interval to the next one (up to 16 x probe_every), so that a steady
// machine pays little for them; a switch resets it.  The first probe waits probe_every steps: a
// scene's first steps (bodies falling, few contacts) are cheap and would choose 1 thread for the
// wrong reason (measured: 56 of 150 granular steps on 1 thread and 15 % slower than fixed 2 threads
// when it probed after 3 steps).  Results do not depend on the thread count (bit-identical for any
// count: docs/determinism.md), so this changes only time.
#include <vector>

namespace subsim {

class ThreadGovernor {
 public:
  struct Settings {
    int probe_every = 50;  // steps between probes
    int window = 3;        // steps per probe, and the steps it is compared with
    double margin = 0.1;   // the probe's median must be below (1 - margin) x the current's
  };
  /// max_threads < 2: always 1 thread (nothing to choose).
  explicit ThreadGovernor(int max_threads);
  ThreadGovernor(int max_threads, const Settings& settings);

  /// The thread count for the next step.
  int threads() const { return probing_ ? other() : current_; }
  /// The next step's solver time (ms), taken at threads().
  void record(double solver_ms);
  /// Steps run at 1 thread and at max_threads so far.
  int stepsAtOne() const { return at_one_; }
  int stepsAtMax() const { return at_max_; }

 private:
  int other() const { return current_ == 1 ? max_ : 1; }

  int max_;
  Settings s_;
  int current_;
  bool probing_ = false;
  int since_probe_ = 0;
  int interval_;
  int at_one_ = 0, at_max_ = 0;
  std::vector<double> recent_, probe_;  // the last `window` times at current_, the probe's
};

}  // namespace subsim
