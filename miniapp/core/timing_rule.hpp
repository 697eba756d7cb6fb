#pragma once
// The timing rule's figures and arithmetic (core/timing.hpp times launches by them): how long the
// warm-up and a sample last, how many launches a sample chains, how many repetitions a ceiling
// takes. No Kokkos header, so the time estimate (plan/estimate.cpp) uses the same figures without
// reaching Kokkos (cmake/HostOnlySources.cmake).
#include <cmath>
#include <vector>

namespace miniapp {

// How long the untimed launches last at least. On the GPU host's 16 cores (a VM) a fresh
// process's first host launches ran at half speed: axpby flat 4096 after 2 warm-up launches read
// 35 GB/s, after 50 (about 0.15 s) 76 GB/s, as miniapp-bench (75 GB/s), whose iteration-count
// estimation is itself a long warm-up (docs/performance.md, run 6).
inline constexpr double warmup_seconds = 0.2;

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
