// Energy per case (issue 26): the counters of core/energy.hpp, their characterisation, the window
// of run/energy_window.hpp, and where it sits among the timed launches.
#include "config/config.hpp"
#include "core/energy.hpp"
#include "core/timing.hpp"
#include "run/driver.hpp"
#include "run/energy_window.hpp"
#include "test_case.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace miniapp {
namespace {

namespace fs = std::filesystem;

// A powercap tree under /tmp: package zones with energy_uj and max_energy_range_uj.
struct FakePowercap {
  std::string root;
  FakePowercap() {
    char tmpl[] = "/tmp/miniapp-powercap-XXXXXX";
    root = ::mkdtemp(tmpl);
  }
  ~FakePowercap() { fs::remove_all(root); }
  void zone(const std::string& name, unsigned long long uj, unsigned long long range) {
    fs::create_directories(root + "/" + name);
    std::ofstream(root + "/" + name + "/energy_uj") << uj << "\n";
    std::ofstream(root + "/" + name + "/max_energy_range_uj") << range << "\n";
  }
};

TEST(Energy, PowercapSumsThePackagesAndUnfoldsTheirWrap) {
  FakePowercap p;
  p.zone("intel-rapl:0", 900'000, 1'000'000);
  p.zone("intel-rapl:1", 5'000'000, 10'000'000);
  p.zone("intel-rapl:0:0", 1, 1'000'000); // a subzone (cores): inside package 0, not added again
  std::string why;
  auto c = powercap_counter(p.root, &why);
  ASSERT_TRUE(c) << why;
  double j0 = -1;
  ASSERT_TRUE(c->read(j0));
  // Package 0 wraps: 900000 -> 1000000 (= 0) -> 200000 is 0.3 J; package 1 gains 1.5 J.
  p.zone("intel-rapl:0", 200'000, 1'000'000);
  p.zone("intel-rapl:1", 6'500'000, 10'000'000);
  p.zone("intel-rapl:0:0", 999'999, 1'000'000);
  double j1 = -1;
  ASSERT_TRUE(c->read(j1));
  EXPECT_NEAR(j1 - j0, 1.8, 1e-9);
}

// Issue 42: a counter that stepped back was unfolded as a wrap: with max_energy_range_uj 0 it read
// 9.8e13 W, and a reset in the middle of the range 1.7 MW for a serial axpby.
TEST(Energy, APowercapCounterSteppingBackIsAFaultNotAWrap) {
  for (const std::uint64_t range : {std::uint64_t(0), std::uint64_t(10'000'000)}) {
    FakePowercap p;
    p.zone("intel-rapl:0", 6'000'000, range);
    std::string why;
    auto c = powercap_counter(p.root, &why);
    ASSERT_TRUE(c) << why;
    double j = -1;
    ASSERT_TRUE(c->read(j));
    p.zone("intel-rapl:0", 5'000'000, range); // back by 1 J: no wrap ends there
    EXPECT_FALSE(c->read(j)) << range;
    EXPECT_NE(c->fault().find("stepped back from 6000000 to 5000000 uJ"), std::string::npos)
        << c->fault();
    p.zone("intel-rapl:0", 5'500'000, range); // counted on from the new value
    double after = -1;
    ASSERT_TRUE(c->read(after));
    EXPECT_NEAR(after - j, 0.5, 1e-9);
  }
}

// A VM (this project's CI machine, the GPU machine's host) has no powercap zones, and a host
// that has them usually lets only root read them: either way the reason is kept, not a zero.
TEST(Energy, PowercapWithoutZonesOrUnreadableSaysWhy) {
  FakePowercap p;
  std::string why;
  EXPECT_FALSE(powercap_counter(p.root, &why));
  EXPECT_NE(why.find("no powercap package zones"), std::string::npos) << why;
  fs::create_directories(p.root + "/intel-rapl:0"); // a zone without its files
  why.clear();
  EXPECT_FALSE(powercap_counter(p.root, &why));
  EXPECT_NE(why.find("not readable"), std::string::npos) << why;
}

// Without the GPU driver's library (this project's CI machine) the readers say which library is
// missing; with it, the counter reads.
TEST(Energy, GpuReadersNameTheMissingLibrary) {
  std::string why;
  if (auto c = nvml_counter("", &why)) {
    double j = -1;
    EXPECT_TRUE(c->read(j));
    EXPECT_GE(j, 0);
  } else {
    // "libnvidia-ml.so.1 could not be loaded: ..." without the driver; with it, what NVML said.
    EXPECT_TRUE(why.find("libnvidia-ml.so.1") != std::string::npos ||
                why.find("NVML") != std::string::npos || why.find("nvml") != std::string::npos)
        << why;
  }
  why.clear();
  if (!rocm_smi_counter("", &why))
    EXPECT_FALSE(why.empty());
}

// A counter that steps by 0.5 J every third read.
struct SteppingCounter final : EnergyCounter {
  int reads = 0;
  bool read(double& j) override {
    j = 0.5 * (++reads / 3);
    return true;
  }
};
struct FrozenCounter final : EnergyCounter {
  bool read(double& j) override {
    j = 42;
    return true;
  }
};

TEST(Energy, CharacteriseMeasuresStepAndInterval) {
  EnergySource s;
  s.name = "stepping";
  s.counter = std::make_unique<SteppingCounter>();
  characterise(s, 8, 1.0);
  ASSERT_TRUE(s.counter) << s.why_none;
  EXPECT_DOUBLE_EQ(s.resolution_j, 0.5);
  EXPECT_GT(s.update_interval_s, 0);
  EXPECT_NE(s.description().find("steps of 0.5 J"), std::string::npos) << s.description();
}

TEST(Energy, ACounterThatNeverChangesIsDropped) {
  EnergySource s;
  s.name = "frozen";
  s.counter = std::make_unique<FrozenCounter>();
  characterise(s, 8, 0.05);
  EXPECT_FALSE(s.counter);
  EXPECT_NE(s.why_none.find("changed 0 time(s)"), std::string::npos) << s.why_none;
  EXPECT_EQ(s.description().rfind("none: ", 0), 0u);
}

EnergySource source_with_interval(double interval_s) {
  EnergySource s;
  s.name = "test counter";
  s.counter = std::make_unique<FrozenCounter>();
  s.resolution_j = 0.001;
  s.update_interval_s = interval_s;
  return s;
}

// Issue 42: whatever the counter, a window whose joules imply more power than any hardware draws
// is noted, never given as watts.
TEST(Energy, ImpossiblePowerIsNotedNotGivenAsWatts) {
  const EnergySource s = source_with_interval(0.02);
  EnergyReadings w;
  w.read = true;
  w.begin_j = 0;
  w.end_j = 1.7e6; // 1.7 MJ in 1 s
  w.window_s = 1.0;
  w.launches = 100;
  EnergyUse e = energy_use(s, w, 10, "GB/s");
  EXPECT_LT(e.watts, 0);
  EXPECT_LT(e.joules, 0);
  EXPECT_LT(e.per_watt, 0);
  EXPECT_NE(e.note.find("more than any device or host draws"), std::string::npos) << e.note;
  w.end_j = 350; // 350 W: given
  EXPECT_DOUBLE_EQ(energy_use(s, w, 10, "GB/s").watts, 350);
  w.read = false; // a read that failed for a reason the counter gave: the reason is the note
  w.fault = "energy_uj stepped back";
  EXPECT_EQ(energy_use(s, w, 10, "GB/s").note, "energy_uj stepped back");
}

TEST(Energy, UseGivesJoulesPerLaunchWattsAndRatePerWatt) {
  const EnergySource s = source_with_interval(0.02);
  EnergyReadings w;
  w.read = true;
  w.begin_j = 1000;
  w.end_j = 1350; // 350 J over 1 s: 350 W
  w.window_s = 1.0;
  w.launches = 700;
  const EnergyUse e = energy_use(s, w, 2800, "GB/s");
  EXPECT_DOUBLE_EQ(e.joules, 0.5);
  EXPECT_DOUBLE_EQ(e.watts, 350);
  EXPECT_DOUBLE_EQ(e.per_watt, 8);
  EXPECT_EQ(e.per_watt_unit, "GB/s/W");
  EXPECT_EQ(e.note, "");
  EXPECT_EQ(e.launches, 700);
}

// A window of a few update intervals is the counter's quantisation, not the case: no number.
TEST(Energy, AWindowOfFewUpdateIntervalsIsTooShort) {
  const EnergySource s = source_with_interval(0.02);
  EnergyReadings w;
  w.read = true;
  w.begin_j = 0;
  w.end_j = 3;
  w.window_s = 0.1; // 5 intervals, under kEnergyMinIntervals
  w.launches = 10;
  const EnergyUse e = energy_use(s, w, 100, "GFLOP/s");
  EXPECT_LT(e.joules, 0);
  EXPECT_LT(e.watts, 0);
  EXPECT_LT(e.per_watt, 0);
  EXPECT_NE(e.note.find("too short to measure"), std::string::npos) << e.note;
  // The window the driver aims at covers kEnergyIntervals intervals, capped.
  EXPECT_DOUBLE_EQ(energy_target_s(s), kEnergyIntervals * 0.02);
  EXPECT_DOUBLE_EQ(energy_target_s(source_with_interval(1.0)), kEnergyMaxWindowS);
}

// The window opens after the warm-up's last fence and, where the timed launches were too short,
// more launches (each fenced) follow them before it closes.
TEST(Energy, WindowOpensAfterWarmupAndExtendsTheTimedLaunches) {
  EnergySource s = source_with_interval(0.005); // target 0.2 s
  std::string events;
  EnergyWindow w(&s);
  ASSERT_TRUE(w.active());
  const auto t =
      time_launches([&] { events += 'F'; }, [&] { events += 'L'; }, 1, 2, [] { return true; }, 0,
                    [&] {
                      events += 'B';
                      w.begin();
                    });
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(events, "FLFBFLFFLF"); // F, warm-up LF, the window's begin, timed FLF x 2
  int extra = 0;
  w.finish(
      2, 1,
      [&] {
        ++extra;
        ::usleep(1000);
      },
      [] {}, [] { return true; });
  EXPECT_GT(extra, 10); // about 0.2 s of 1 ms launches
  const EnergyUse e = w.result(1, "GB/s");
  EXPECT_EQ(e.launches, 2 + extra);
  EXPECT_GE(e.window_s, energy_target_s(s));
  // The frozen counter did not advance: no joules, and the note says so.
  EXPECT_LT(e.joules, 0);
  EXPECT_NE(e.note.find("did not advance"), std::string::npos) << e.note;
}

// What held the clock down: NVML's limiting reasons mapped, the others left out, and named.
TEST(Energy, ClockLimitsFromNvmlReasonsAndTheirNames) {
  EXPECT_EQ(clock_limits_from_nvml(0), 0u);
  EXPECT_EQ(clock_limits_from_nvml(0x1 | 0x2 | 0x10 | 0x100),
            0u); // idle, app clocks, sync, display
  EXPECT_EQ(clock_limits_from_nvml(0x4), unsigned(clock_power_cap));
  EXPECT_EQ(clock_limits_from_nvml(0x20), unsigned(clock_thermal));
  EXPECT_EQ(clock_limits_from_nvml(0x40), unsigned(clock_thermal));
  EXPECT_EQ(clock_limits_from_nvml(0x8), unsigned(clock_hw_slowdown));
  EXPECT_EQ(clock_limits_from_nvml(0x80), unsigned(clock_hw_slowdown));
  EXPECT_EQ(clock_limits_from_nvml(0x4 | 0x40 | 0x1), unsigned(clock_power_cap | clock_thermal));
  EXPECT_EQ(clock_limit_names(0), "none");
  EXPECT_EQ(clock_limit_names(clock_power_cap), "power cap");
  EXPECT_EQ(clock_limit_names(clock_power_cap | clock_thermal | clock_hw_slowdown),
            "power cap, thermal, hardware slowdown");
  EXPECT_FALSE(clock_was_limited(""));     // unknown
  EXPECT_FALSE(clock_was_limited("none")); // known, not limited
  EXPECT_TRUE(clock_was_limited("power cap, thermal"));
}

// A counter that also says what limits the clock: answers[i] at its i-th query (the last one
// repeated).
struct LimitedCounter final : EnergyCounter {
  std::vector<unsigned> answers;
  int queries = 0;
  double joules = 0;
  bool read(double& j) override {
    j = joules += 1;
    return true;
  }
  bool clock_limits(unsigned& limits) override {
    limits = answers[std::min<std::size_t>(queries++, answers.size() - 1)];
    return true;
  }
};

// The window's extension runs samples as the timed ones ran: chained launches, one fence each.
TEST(Energy, WindowExtendsWithChainedSamples) {
  EnergySource s = source_with_interval(0.0005); // target 0.02 s
  EnergyWindow w(&s);
  w.begin();
  std::string events;
  w.finish(
      6, 3,
      [&] {
        events += 'L';
        ::usleep(500);
      },
      [&] { events += 'F'; }, [] { return true; });
  ASSERT_FALSE(events.empty());
  ASSERT_EQ(events.size() % 4, 0u);
  for (std::size_t i = 0; i < events.size(); i += 4)
    EXPECT_EQ(events.substr(i, 4), "LLLF");
  EXPECT_EQ(w.result(1, "GB/s").launches, 6 + 3 * int(events.size() / 4));
}

// The limits seen over a window of about `seconds` of 1 ms launches, and the queries it made.
std::pair<std::string, int> limits_over(std::vector<unsigned> answers, double seconds) {
  EnergySource s;
  s.name = "limited";
  auto counter = std::make_unique<LimitedCounter>();
  counter->answers = std::move(answers);
  LimitedCounter* c = counter.get();
  s.counter = std::move(counter);
  s.resolution_j = 1;
  s.update_interval_s = seconds / kEnergyIntervals;
  EnergyWindow w(&s);
  w.begin();
  w.finish(
      1, 1, [] { ::usleep(1000); }, [] {}, [] { return true; });
  return {w.result(1, "GB/s").clock_limit, c->queries};
}

// The window samples the clock's limits after the timed launches, while it extends them (at most
// every kClockSampleS) and at its end, and keeps every limit seen; a counter that cannot tell
// leaves the field empty (null in the results), which is not the same as "none".
TEST(Energy, WindowRecordsWhatHeldTheClockDown) {
  // A short window: one query after the timed launches, one at its end; either one counts.
  EXPECT_EQ(limits_over({0, clock_power_cap}, 0.05), std::make_pair(std::string("power cap"), 2));
  EXPECT_EQ(limits_over({clock_thermal, 0}, 0.05), std::make_pair(std::string("thermal"), 2));
  EXPECT_EQ(limits_over({0}, 0.05), std::make_pair(std::string("none"), 2));
  // A longer one: a limit seen only between its ends counts too; the device is queried about
  // every kClockSampleS, not after every launch.
  const auto [limit, queries] = limits_over({0, 0, clock_power_cap, 0}, 1.2);
  EXPECT_EQ(limit, "power cap");
  EXPECT_GE(queries, 3);
  EXPECT_LE(queries, 2 + int(1.3 / kClockSampleS));

  EnergySource frozen = source_with_interval(0.001); // FrozenCounter: cannot tell
  EnergyWindow f(&frozen);
  f.begin();
  f.finish(
      1, 1, [] { ::usleep(1000); }, [] {}, [] { return true; });
  EXPECT_EQ(f.result(1, "GB/s").clock_limit, "");
}

// A run on a host backend records joules from powercap or, without it, why (CI's VM).
TEST(Energy, HostRunRecordsEnergyOrWhyNot) {
  Case c = case_of("axpby", "flat", 64, 64);
  config::Settings s;
  s.warmup = 1;
  s.repetitions = 2;
  const CaseResult r = run_case(c, s, "serial");
  ASSERT_EQ(r.status, Status::ok) << r.message;
  const EnergySource& host = energy_source("serial");
  if (!host.counter) {
    EXPECT_LT(r.energy.joules, 0);
    EXPECT_EQ(r.energy.note, "no energy counter: " + host.why_none);
    EXPECT_FALSE(host.why_none.empty());
  } else {
    EXPECT_GE(r.energy.window_s, energy_target_s(host));
  }
}

// `energy: false` (sanitizer and profiler runs): no counter is read and no launch is added.
TEST(Energy, OffInTheConfigReadsNoCounter) {
  const config::Settings off = config::parse_config("t.yaml",
                                                    "name: t\n"
                                                    "energy: false\n"
                                                    "cases:\n"
                                                    "  - family: axpby\n"
                                                    "    variant: flat\n"
                                                    "    n: 64\n",
                                                    {})
                                   .settings;
  EXPECT_FALSE(off.energy);
  EXPECT_TRUE(config::parse_config("t.yaml", "name: t\ncases:\n  - family: axpby\n    n: 64\n", {})
                  .settings.energy);
  EXPECT_THROW(config::parse_config("t.yaml", "name: t\nenergy: 3\ncases: []\n", {}),
               std::exception);
  const CaseResult r = run_case(case_of("axpby", "flat", 64, 64), off, "serial");
  ASSERT_EQ(r.status, Status::ok) << r.message;
  EXPECT_LT(r.energy.joules, 0);
  EXPECT_EQ(r.energy.note, "not measured (energy: false)");
  EXPECT_EQ(r.energy.window_s, 0);
}

} // namespace
} // namespace miniapp
