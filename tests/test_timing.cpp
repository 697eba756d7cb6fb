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

TEST(Timing, CeilingRepetitionsFollowTheBudgetWithinBounds) {
  EXPECT_EQ(reps_for(0.25, 5.0, 10, 2000), 20);
  EXPECT_EQ(reps_for(0.125, 0.25, 10, 2000), 10); // at least the minimum
  EXPECT_EQ(reps_for(1e-6, 0.2, 10, 2000), 2000); // at most the maximum
  EXPECT_EQ(reps_for(0, 0.2, 10, 2000), 2000);    // a launch too short to measure
}

} // namespace
} // namespace miniapp
