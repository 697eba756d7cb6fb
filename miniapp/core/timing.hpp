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
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
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

// How long a timed sample of a kernel lasts at least: launches shorter than this are chained,
// back to back between the sample's two fences, and the sample's time is per launch. A fence
// and the first launch's start add about 4 us (raw CUDA) to 15 us (a Kokkos team launch) to
// whatever they surround: 25% of a 59 us float32 transpose at 4096 on an H100, where the copy
// ceiling it is a ratio to is a chain of launches moving 1 GiB (run/level_bandwidth.cpp). Over
// 2 ms that cost is under 1%, and the case is timed as the ceiling is: at the rate of launches
// queued back to back, as an application's time steps run.
inline constexpr double kernel_sample_seconds = 2e-3;
inline constexpr int max_launches_per_sample = 1000;

// Launches per sample: enough that `sample_s` is covered, one launch lasting `one_s`; 1 where
// sample_s is 0 (transfers, launches that must line up across ranks).
inline int launches_per_sample(double one_s, double sample_s) {
  if (!(sample_s > 0))
    return 1;
  if (!(one_s > 0))
    return max_launches_per_sample;
  const double n = std::ceil(sample_s / one_s);
  return n < 1 ? 1 : n > max_launches_per_sample ? max_launches_per_sample : int(n);
}

// A power-capped GPU's clock boosts for about the first 0.8 s of a load, then drops and settles
// (H100, tiled_rb float64 4096 at its 700 W cap: 5.68 ms launches for 0.8 s, 6.7 ms at the dip,
// 5.9-6.0 ms after it). Twenty samples (0.11 s) after the 0.2 s warm-up saw only the boost and
// read 7% faster than miniapp-bench's repetitions of at least 0.2 s each; 1 s of samples still
// read 6.5% faster, their median inside the boost. So, on one GPU, a case's timed samples go on,
// after their count, until they have lasted 2 s: the energy counter's window
// (run/energy_window.hpp), which its joules and watts are then read over too.
inline constexpr double gpu_span_seconds = 2.0;

// The span of a case's timed kernel samples: gpu_span_seconds on one GPU, none on host backends,
// and none where the run adds no launches to the ones asked for (`energy: false`: sanitizer and
// profiler runs, where a launch is 10-100x slower: compute-sanitizer racecheck over the 150 small
// transposes of tests/gpu/racecheck_transpose.yaml took 370 s with the span and 61 s without it
// on an H100, docs/data/racecheck-span-h100-2026-11-27).
inline double kernel_span_seconds(bool gpu, bool adds_launches) {
  return gpu && adds_launches ? gpu_span_seconds : 0.0;
}

// How a kernel's timed samples are taken (time_samples).
struct Sampling {
  double sample_s = 0; // each sample chains launches until it lasts this long (0: one launch)
  double span_s = 0;   // after the counted samples, more until the timed ones last this long
};

struct Samples {
  std::vector<double> seconds; // per launch, one entry per sample
  int launches_per_sample = 1;
};

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
