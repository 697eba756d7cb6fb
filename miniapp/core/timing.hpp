#pragma once
// The one way a launch is timed: `miniapp run` (run/driver.cpp), `miniapp-bench`, the autotuner
// and the ceilings all go through time_launches(), so their numbers are the same measurement.
//
// Rule: untimed launches (at least `warmup`, at least one, and at least warmup_seconds of them) run
// immediately before the timed ones, and the timed ones run back to back, each between two fences
// of the kernel's execution-space instance.
// Why back to back: timing a launch right after a host-to-device copy (as the runner used to do,
// upload - run - download per repetition) measured the GPU as the copy left it, not as a
// sequence of kernels keeps it (see docs/performance.md, "One timing path").
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <vector>

namespace miniapp {

// One launch between two fences; returns seconds.
template <class Fence, class Launch>
double time_fenced(const Fence& fence, const Launch& launch) {
  fence(); // nothing queued earlier is counted
  Kokkos::Timer timer;
  launch();
  fence(); // the launch itself is complete
  return timer.seconds();
}

// How long the untimed launches last at least. On the GPU host's 16 cores (a VM) a fresh
// process's first host launches ran at half speed: axpby flat 4096 after 2 warm-up launches read
// 35 GB/s, after 50 (about 0.15 s) 76 GB/s, as miniapp-bench (75 GB/s), whose iteration-count
// estimation is itself a long warm-up (docs/performance.md, run 6).
inline constexpr double warmup_seconds = 0.2;

struct NothingBeforeTimed {
  void operator()() const {}
};

// Untimed launches, each fenced, until there were `warmup` (at least 1) and `warmup_s` seconds
// have passed; then `reps` timed ones. Stops early when keep_going() turns false (a signal),
// returning the samples taken so far. before_timed() runs between the last warm-up launch's fence
// and the first timed launch (the energy counter's first read, run/energy_window.hpp).
template <class Fence, class Launch, class KeepGoing, class BeforeTimed = NothingBeforeTimed>
std::vector<double> time_launches(const Fence& fence, const Launch& launch, int warmup, int reps,
                                  const KeepGoing& keep_going, double warmup_s = warmup_seconds,
                                  const BeforeTimed& before_timed = BeforeTimed{}) {
  fence();
  Kokkos::Timer warming;
  for (int w = 0; (w < std::max(1, warmup) || warming.seconds() < warmup_s) && keep_going(); ++w) {
    launch();
    fence();
  }
  before_timed();
  std::vector<double> t;
  for (int r = 0; r < reps && keep_going(); ++r)
    t.push_back(time_fenced(fence, launch));
  return t;
}

template <class Fence, class Launch>
std::vector<double> time_launches(const Fence& fence, const Launch& launch, int warmup, int reps) {
  return time_launches(fence, launch, warmup, reps, [] { return true; });
}

// Repetitions for a ceiling: enough that the timed launches add up to about `budget_s` seconds
// (one launch taking `one_s`), between `min_reps` and `max_reps`: a ceiling timed a few times
// after a transfer read up to 26% below the case it was the ceiling of (issue 12).
inline int reps_for(double one_s, double budget_s, int min_reps, int max_reps) {
  if (!(one_s > 0))
    return max_reps;
  const double n = budget_s / one_s;
  return n < min_reps ? min_reps : n > max_reps ? max_reps : int(n);
}

} // namespace miniapp
