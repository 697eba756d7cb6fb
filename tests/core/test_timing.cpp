// The one timing helper (core/timing.hpp): what is launched, fenced and timed, in which order.
#include "core/timing.hpp"

#include <gtest/gtest.h>

#include <string>

namespace miniapp {
namespace {

struct Recorder {
  std::string events; // L = launch, F = fence
  auto fence() {
    return [this] { events += 'F'; };
  }
  auto launch() {
    return [this] { events += 'L'; };
  }
};

TEST(Timing, WarmupLaunchesThenEachTimedLaunchBetweenTwoFences) {
  Recorder r;
  const auto t = time_launches(
      r.fence(), r.launch(), 2, 3, [] { return true; }, 0);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(r.events, "FLFLFFLFFLFFLF"); // F, warm-up LF LF, timed FLF x 3
}

// The run command used to time a launch straight after a host-to-device copy, with no launch of
// its own before it; the rule now is at least one untimed launch, also for warmup 0.
TEST(Timing, AtLeastOneUntimedLaunchEvenWithoutWarmup) {
  Recorder r;
  time_launches(
      r.fence(), r.launch(), 0, 1, [] { return true; }, 0);
  EXPECT_EQ(r.events, "FLFFLF"); // F, warm-up LF, timed FLF
}

TEST(Timing, StopsWhenToldAndKeepsTheSamplesTaken) {
  Recorder r;
  int calls = 0;
  const auto t = time_launches(
      r.fence(), r.launch(), 1, 10, [&] { return ++calls <= 3; }, 0);
  EXPECT_EQ(t.size(), 2u); // the first check is the warm-up's
}

// A fresh process's first host launches ran at half speed on the 16-core GPU host: the warm-up
// lasts warmup_seconds however few launches it asks for.
TEST(Timing, WarmupLastsAtLeastItsSeconds) {
  int launches = 0;
  const Kokkos::Timer timer;
  time_launches([] {}, [&] { ++launches; }, 1, 0, [] { return true; }, 0.05);
  EXPECT_GE(timer.seconds(), 0.05);
  EXPECT_GT(launches, 1);
}

TEST(Timing, SamplesAreTheLaunchDurations) {
  const auto t = time_launches([] {},
                               [] {
                                 const Kokkos::Timer start;
                                 while (start.seconds() < 2e-3) {
                                 }
                               },
                               1, 3, [] { return true; }, 0);
  ASSERT_EQ(t.size(), 3u);
  for (double s : t) {
    EXPECT_GE(s, 2e-3);
    EXPECT_LT(s, 0.5);
  }
}

// A kernel's sample chains launches until it covers the sample time (per launch: the fastest
// warm-up launch's), back to back between two fences, and its time is per launch: the fence's
// cost, 25% of a 59 us launch on an H100, is paid once per sample, as the copy ceiling pays it
// once per 1 GiB. (Bounds that hold on a loaded host: a launch can only take longer there.)
TEST(Timing, ShortLaunchesAreChainedBetweenTwoFences) {
  std::string events;
  const Kokkos::Timer wall;
  const Samples s = time_samples([&] { events += 'F'; },
                                 [&] {
                                   events += 'L';
                                   const Kokkos::Timer start;
                                   while (start.seconds() < 1e-3) {
                                   }
                                 },
                                 20, 2, Sampling{3.5e-3}, [] { return true; }, 0);
  const double elapsed = wall.seconds();
  EXPECT_EQ(s.launches_per_sample, 4); // ceil(3.5 / (a little over 1))
  ASSERT_EQ(s.seconds.size(), 2u);
  std::string warmup = "F";
  for (int w = 0; w < 20; ++w)
    warmup += "LF";
  EXPECT_EQ(events, warmup + "FLLLLFFLLLLF"); // F, warm-up LF x 20, then FLLLLF twice
  double timed = 0;
  for (double t : s.seconds) {
    EXPECT_GE(t, 1e-3); // per launch...
    timed += t * s.launches_per_sample;
  }
  EXPECT_GE(timed, 8e-3);
  EXPECT_LE(timed, elapsed - 20e-3); // ...not per sample: the samples fit in what the call took
}

// A warm-up launch that another process delayed does not set the chain: the fastest one does.
TEST(Timing, TheFastestWarmupLaunchSetsTheChain) {
  int launch = 0;
  const Samples s = time_samples([] {},
                                 [&] {
                                   const double busy = ++launch == 10 ? 8e-3 : 1e-3; // the last
                                   const Kokkos::Timer start;
                                   while (start.seconds() < busy) {
                                   }
                                 },
                                 10, 1, Sampling{3.5e-3}, [] { return true; }, 0);
  EXPECT_EQ(s.launches_per_sample, 4);
}

TEST(Timing, LaunchesPerSampleCoverTheSampleWithinBounds) {
  EXPECT_EQ(launches_per_sample(1e-3, 0), 1);      // transfers: one launch
  EXPECT_EQ(launches_per_sample(5e-3, 2e-3), 1);   // longer than a sample
  EXPECT_EQ(launches_per_sample(59e-6, 2e-3), 34); // the float32 transpose at 4096
  EXPECT_EQ(launches_per_sample(0, 2e-3), max_launches_per_sample);
  EXPECT_EQ(launches_per_sample(1e-9, 2e-3), max_launches_per_sample);
}

// A stop asked for between samples ends the timing with the samples taken, whole.
TEST(Timing, ChainedSamplesStopBetweenSamples) {
  int asked = 0, launches = 0;
  const Samples s = time_samples([] {}, [&] { ++launches; }, 1, 10, Sampling{1.0},
                                 [&] { return ++asked <= 3; }, 0);
  EXPECT_EQ(s.seconds.size(), 2u); // the first check is the warm-up's
  EXPECT_EQ(launches, 1 + 2 * s.launches_per_sample);
}

// On a GPU the samples go on after their count until they have lasted the span: a power-capped
// clock boosts for the first 0.8 s of a load, and 20 samples of a 5.7 ms launch saw only that.
TEST(Timing, SamplesGoOnUntilTheyLastTheSpan) {
  int launches = 0;
  const auto ms = [&] {
    ++launches;
    const Kokkos::Timer start;
    while (start.seconds() < 1e-3) {
    }
  };
  const Samples s = time_samples([] {}, ms, 1, 3, Sampling{0, 0.05}, [] { return true; }, 0);
  // 50 ms of samples of at least 1 ms, at least the 3 asked for, and none after the span is
  // covered. Where the 3 fall short of the span (3 ms on a quiet host) the span's bound makes
  // more follow; no count is asserted: on a loaded host a sample of 1 ms of work lasts up to
  // 20 ms, 3 can cover the span, and `more than 3` failed 68 of 100 repeats under a load of 17
  // on 2 CPUs.
  ASSERT_GE(s.seconds.size(), 3u);
  double timed = 0;
  for (double t : s.seconds)
    timed += t;
  EXPECT_GE(timed, 0.05);
  EXPECT_LT(timed - s.seconds.back(), 0.05);
  EXPECT_LE(s.seconds.size(), 50u);
  EXPECT_EQ(launches, 1 + int(s.seconds.size()));
  // Without a span, the count; with no count (miniapp-bench's warm-up), nothing is timed.
  EXPECT_EQ(time_samples([] {}, ms, 1, 3, Sampling{}, [] { return true; }, 0).seconds.size(), 3u);
  EXPECT_TRUE(
      time_samples([] {}, ms, 1, 0, Sampling{0, 0.05}, [] { return true; }, 0).seconds.empty());
}

// The span applies on a GPU only, and not where the run adds no launches (energy: false, the
// sanitizer and profiler configs): there the samples are the count asked for.
TEST(Timing, TheSpanOnlyOnAGpuRunThatMayAddLaunches) {
  EXPECT_EQ(kernel_span_seconds(true, true), gpu_span_seconds);
  EXPECT_EQ(kernel_span_seconds(true, false), 0.0);
  EXPECT_EQ(kernel_span_seconds(false, true), 0.0);
  EXPECT_EQ(kernel_span_seconds(false, false), 0.0);
}

TEST(Timing, CeilingRepetitionsFollowTheBudgetWithinBounds) {
  EXPECT_EQ(reps_for(0.25, 5.0, 10, 2000), 20);
  EXPECT_EQ(reps_for(0.125, 0.25, 10, 2000), 10); // at least the minimum
  EXPECT_EQ(reps_for(1e-6, 0.2, 10, 2000), 2000); // at most the maximum
  EXPECT_EQ(reps_for(0, 0.2, 10, 2000), 2000);    // a launch too short to measure
}

} // namespace
} // namespace miniapp
