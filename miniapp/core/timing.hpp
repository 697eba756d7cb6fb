#pragma once
// The one way a launch is timed: `miniapp run` (run/driver.cpp), `miniapp-bench`, the autotuner
// and the ceilings all go through time_samples(), so their numbers are the same measurement.
//
// Rule: untimed launches (at least `warmup`, at least one, and at least warmup_seconds of them) run
// immediately before the timed ones, and the timed samples run back to back, each between two
// fences of the kernel's execution-space instance. A kernel's sample chains as many launches as
// cover kernel_sample_seconds (one where a launch lasts longer), and its time is per launch.
// Why back to back: timing a launch right after a host-to-device copy (as the runner used to do,
// upload - run - download per repetition) measured the GPU as the copy left it, not as a
// sequence of kernels keeps it (docs/config.md, "Running, timing and results").
#include "core/timing_rule.hpp"

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

struct NothingBeforeTimed {
  void operator()() const {}
};

// One sample: n launches back to back between two fences; seconds per launch.
template <class Fence, class Launch>
double time_sample(const Fence& fence, const Launch& launch, int n) {
  return time_fenced(fence,
                     [&] {
                       for (int i = 0; i < n; ++i)
                         launch();
                     }) /
         n;
}

// Untimed launches, each fenced, until there were `warmup` (at least 1) and `warmup_s` seconds
// have passed; then at least `reps` timed samples, and more until they have lasted
// sampling.span_s, each a chain of launches_per_sample(fastest warm-up launch, sampling.sample_s)
// launches between two fences. Stops early when keep_going() (asked before every warm-up launch
// and every sample) turns false, returning the samples taken so far. before_timed() runs between
// the last warm-up launch's fence and the first timed launch (the energy counter's first read,
// run/energy_window.hpp).
template <class Fence, class Launch, class KeepGoing, class BeforeTimed = NothingBeforeTimed>
Samples time_samples(const Fence& fence, const Launch& launch, int warmup, int reps,
                     const Sampling& sampling, const KeepGoing& keep_going,
                     double warmup_s = warmup_seconds,
                     const BeforeTimed& before_timed = BeforeTimed{}) {
  fence();
  Kokkos::Timer warming;
  // The fastest warm-up launch sets the chain: one launch that another process delayed (on a
  // loaded 2-core host, beyond 2 ms) would otherwise leave every sample a single launch.
  double fastest = 0;
  for (int w = 0; (w < std::max(1, warmup) || warming.seconds() < warmup_s) && keep_going(); ++w) {
    Kokkos::Timer one; // the fence before it has returned
    launch();
    fence();
    fastest = w == 0 ? one.seconds() : std::min(fastest, one.seconds());
  }
  Samples s;
  s.launches_per_sample = launches_per_sample(fastest, sampling.sample_s);
  before_timed();
  double timed = 0;
  for (int r = 0; (r < reps || (r > 0 && timed < sampling.span_s)) && keep_going(); ++r) {
    s.seconds.push_back(time_sample(fence, launch, s.launches_per_sample));
    timed += s.seconds.back() * s.launches_per_sample;
  }
  return s;
}

// One launch per sample (transfers, ceilings that chain inside their own launch).
template <class Fence, class Launch, class KeepGoing, class BeforeTimed = NothingBeforeTimed>
std::vector<double> time_launches(const Fence& fence, const Launch& launch, int warmup, int reps,
                                  const KeepGoing& keep_going, double warmup_s = warmup_seconds,
                                  const BeforeTimed& before_timed = BeforeTimed{}) {
  return time_samples(fence, launch, warmup, reps, Sampling{}, keep_going, warmup_s, before_timed)
      .seconds;
}

template <class Fence, class Launch>
std::vector<double> time_launches(const Fence& fence, const Launch& launch, int warmup, int reps) {
  return time_launches(fence, launch, warmup, reps, [] { return true; });
}

} // namespace miniapp
