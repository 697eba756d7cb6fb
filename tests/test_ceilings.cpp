// Issue 22: a bandwidth ceiling for each memory level. The levels from hwloc-like cache lists, the
// level a working set is charged to, the working set each level is measured on, attach() with
// stand-in measurements, and the vendor GEMM estimate repeated until it settles.
#include "core/backends.hpp"
#include "run/ceilings.hpp"
#include "run/level_bandwidth.hpp"
#include "run/memory_levels.hpp"
#include "run/stable_estimate.hpp"
#include "test_case.hpp"
#include "under_sanitizer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

namespace miniapp {
namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * KiB;

// Two cores with private L1 and L2 and one shared L3, as hwloc lists them (any order).
std::vector<CacheLevel> epyc_vm() {
  return {{3, 32 * MiB, 1}, {1, 32 * KiB, 2}, {2, 1 * MiB, 2}};
}

TEST(MemoryLevels, HostLevelsScalePrivateCachesByTheThreadsThatUseThem) {
  const auto one = host_levels(epyc_vm(), 1);
  ASSERT_EQ(one.size(), 4u);
  EXPECT_EQ(one[0].name, "L1");
  EXPECT_EQ(one[0].bytes, 32 * KiB);
  EXPECT_EQ(one[1].name, "L2");
  EXPECT_EQ(one[1].bytes, 1 * MiB);
  EXPECT_EQ(one[2].name, "L3");
  EXPECT_EQ(one[2].bytes, 32 * MiB);
  EXPECT_EQ(one[3].name, "memory");
  EXPECT_EQ(one[3].bytes, 0u);

  const auto two = host_levels(epyc_vm(), 2);
  EXPECT_EQ(two[0].bytes, 64 * KiB);
  EXPECT_EQ(two[1].bytes, 2 * MiB);
  EXPECT_EQ(two[2].bytes, 32 * MiB);            // one L3 for both
  const auto many = host_levels(epyc_vm(), 16); // more threads than caches: the caches there are
  EXPECT_EQ(many[0].bytes, 64 * KiB);

  const auto none = host_levels({}, 4); // hwloc could not tell: memory only
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].name, "memory");
  const auto zero_size = host_levels({{1, 0, 2}}, 1);
  EXPECT_EQ(zero_size.size(), 1u);
}

TEST(MemoryLevels, GpuLevelsAreL2AndMemory) {
  const auto h100 = gpu_levels(50 * MiB);
  ASSERT_EQ(h100.size(), 2u);
  EXPECT_EQ(h100[0].name, "L2");
  EXPECT_EQ(h100[0].bytes, 50 * MiB);
  EXPECT_EQ(h100[1].name, "memory");
  EXPECT_EQ(gpu_levels(0).size(), 1u); // no L2 size known
  // GPU memory is measured at 1 GiB (launch gaps weigh on shorter chains of launches), L2 by the
  // rule: half of it.
  EXPECT_EQ(measuring_working_set(h100, 1), 1024 * MiB);
  EXPECT_EQ(measuring_working_set(h100, 0), 25 * MiB);
}

TEST(MemoryLevels, LevelForIsTheSmallestThatHoldsTheWorkingSet) {
  const auto levels = host_levels(epyc_vm(), 1); // L1 32 KiB, L2 1 MiB, L3 32 MiB
  EXPECT_EQ(level_for(levels, 1), 0u);
  EXPECT_EQ(level_for(levels, 64 * KiB), 0u); // within kLevelHoldsFactor = 2 of L1
  EXPECT_EQ(level_for(levels, 64 * KiB + 1), 1u);
  // paper_table1 on one thread: axpby n = 128 (192 KiB) and 256 (768 KiB) in L2, 512 (3 MiB) and
  // 2048 (48 MiB) in L3, 4096 (192 MiB) in memory.
  EXPECT_EQ(levels[level_for(levels, 192 * KiB)].name, "L2");
  EXPECT_EQ(levels[level_for(levels, 768 * KiB)].name, "L2");
  EXPECT_EQ(levels[level_for(levels, 3 * MiB)].name, "L3");
  EXPECT_EQ(levels[level_for(levels, 48 * MiB)].name, "L3");
  EXPECT_EQ(levels[level_for(levels, 192 * MiB)].name, "memory");
  EXPECT_EQ(level_for(host_levels({}, 1), 1e12), 0u); // memory only
}

TEST(MemoryLevels, EachLevelIsMeasuredOnTheSmallestWorkingSetItIsChargedWith) {
  const auto levels = host_levels(epyc_vm(), 1);
  EXPECT_EQ(measuring_working_set(levels, 0), 16 * KiB); // half of L1
  EXPECT_EQ(measuring_working_set(levels, 1), 64 * KiB); // just past what L1 is charged with
  EXPECT_EQ(measuring_working_set(levels, 2), 2 * MiB);
  EXPECT_EQ(measuring_working_set(levels, 3), 64 * MiB);
  for (std::size_t i = 1; i < levels.size(); ++i) // and level_for charges it to that very level
    EXPECT_EQ(level_for(levels, double(measuring_working_set(levels, i)) + 1), i);
  EXPECT_EQ(measuring_working_set(host_levels({}, 1), 0), 256 * MiB);
  // A topology that reports absurd caches does not make the measurement fill the memory.
  const auto huge =
      host_levels({{1, std::uint64_t(1) << 40, 1}, {2, std::uint64_t(1) << 50, 1}}, 1);
  EXPECT_EQ(measuring_working_set(huge, 0), 1024 * MiB);
  EXPECT_EQ(measuring_working_set(huge, 1), 1024 * MiB);
  EXPECT_EQ(measuring_working_set(huge, 2), 1024 * MiB);
}

// Stand-in measurements: a level's bandwidth is 1e6 / its working set in KiB, and every call is
// counted.
struct Fake {
  std::vector<std::uint64_t> measured;
  std::vector<StableEstimate> vendor{{200, 190, 200, 2, true}};
  int vendor_calls = 0;
  CeilingMeasures measures() {
    CeilingMeasures m;
    m.levels = [] { return host_levels(epyc_vm(), 1); };
    m.bandwidth_gbs = [this](std::uint64_t ws) {
      measured.push_back(ws);
      return 1e6 / double(ws / KiB);
    };
    m.vendor_gflops = [this](const Case& c) {
      if (c.precision == Precision::float64)
        throw std::runtime_error("no vendor GEMM");
      return vendor.at(std::size_t(vendor_calls++) % vendor.size());
    };
    return m;
  }
};

CaseResult streaming_row(double working_set, double gbs) {
  CaseResult r;
  r.c = case_of("axpby", "flat", 8, 8);
  r.work.bytes = working_set;
  r.gbs = gbs;
  return r;
}

TEST(MeasuredCeilings, EachRowGetsItsLevelsCeilingMeasuredOnceAndOnlyWhenUsed) {
  Fake fake;
  MeasuredCeilings ceilings("serial", fake.measures());
  CaseResult small = streaming_row(192 * KiB, 7.8125); // L2, measured on 64 KiB: 15625 GB/s
  ceilings.attach(small, "serial");
  EXPECT_EQ(small.ceiling_name, "copy bandwidth");
  EXPECT_EQ(small.ceiling_level, "L2");
  EXPECT_EQ(small.ceiling_unit, "GB/s");
  EXPECT_DOUBLE_EQ(small.ceiling, 1e6 / 64);
  EXPECT_DOUBLE_EQ(small.pct_of_ceiling, 100.0 * 7.8125 / (1e6 / 64));
  CaseResult again = streaming_row(768 * KiB, 1);
  ceilings.attach(again, "serial");
  EXPECT_EQ(again.ceiling_level, "L2");
  CaseResult big = streaming_row(192 * MiB, 1);
  ceilings.attach(big, "serial");
  EXPECT_EQ(big.ceiling_level, "memory");
  EXPECT_DOUBLE_EQ(big.ceiling, 1e6 / (64 * 1024));
  // L2 once, memory once; L1 and L3 never (no case lives there).
  EXPECT_EQ(fake.measured, (std::vector<std::uint64_t>{64 * KiB, 64 * MiB}));

  std::ostringstream os;
  ceilings.print(os);
  EXPECT_NE(os.str().find("ceiling: L2 copy bandwidth 15625.0 GB/s on serial"), std::string::npos)
      << os.str();
  EXPECT_NE(os.str().find("ceiling: memory copy bandwidth 15.3 GB/s"), std::string::npos)
      << os.str();
  EXPECT_EQ(os.str().find("L1"), std::string::npos) << os.str();

  CaseResult other = streaming_row(1, 1); // another backend's row: not this one's ceiling
  ceilings.attach(other, "openmp");
  EXPECT_TRUE(other.ceiling_level.empty());
  EXPECT_EQ(other.ceiling, 0);
}

// A row that beats its level's ceiling by more than 5% has the level measured again (at most
// twice), the largest kept: a measurement taken while another process had the cores reads low.
TEST(MeasuredCeilings, ALevelBeatenByARowIsMeasuredAgain) {
  std::vector<double> rates{10, 40, 30, 99};
  std::size_t calls = 0;
  CeilingMeasures m;
  m.levels = [] { return host_levels(epyc_vm(), 1); };
  m.bandwidth_gbs = [&](std::uint64_t) { return rates.at(calls++); };
  MeasuredCeilings ceilings("serial", m);
  CaseResult first = streaming_row(192 * KiB, 38); // 10 is beaten: measured again, 40 holds
  ceilings.attach(first, "serial");
  EXPECT_EQ(calls, 2u);
  EXPECT_DOUBLE_EQ(first.ceiling, 40);
  CaseResult within = streaming_row(192 * KiB, 41); // within 5%: not measured again
  ceilings.attach(within, "serial");
  EXPECT_EQ(calls, 2u);
  CaseResult far = streaming_row(192 * KiB, 60); // twice again per level at most: once more (30)
  ceilings.attach(far, "serial");
  EXPECT_EQ(calls, 3u);
  EXPECT_DOUBLE_EQ(far.ceiling, 40);
  EXPECT_DOUBLE_EQ(far.pct_of_ceiling, 150);
  ceilings.attach(far, "serial");
  EXPECT_EQ(calls, 3u);
  std::ostringstream os;
  ceilings.print(os);
  EXPECT_NE(os.str().find("the largest of 3 measurements"), std::string::npos) << os.str();

  CeilingMeasures broken = m; // a measurement of nothing gives no ceiling, not an endless loop
  broken.bandwidth_gbs = [](std::uint64_t) { return 0.0; };
  MeasuredCeilings none("serial", broken);
  CaseResult r = streaming_row(192 * KiB, 38);
  none.attach(r, "serial");
  EXPECT_EQ(r.ceiling, 0);
  EXPECT_TRUE(r.ceiling_level.empty());
}

TEST(MeasuredCeilings, VendorGemmIsMarkedUncertainWhenItsEstimatesDoNotSettle) {
  Fake fake;
  fake.vendor = {{117, 29, 117, 5, false}};
  MeasuredCeilings ceilings("serial", fake.measures());
  CaseResult r;
  r.c = case_of("matmul", "tiled", 256, 256, 256);
  r.gflops = 58.5;
  ceilings.attach(r, "serial");
  EXPECT_EQ(r.ceiling_name, "vendor GEMM (uncertain: 29.0 to 117.0)");
  EXPECT_TRUE(r.ceiling_level.empty()); // a GEMM ceiling is no memory level's
  EXPECT_EQ(r.ceiling_unit, "GFLOP/s");
  EXPECT_DOUBLE_EQ(r.pct_of_ceiling, 50);
  CaseResult same = r; // one estimate per shape and precision
  ceilings.attach(same, "serial");
  EXPECT_EQ(fake.vendor_calls, 1);
  CaseResult f64 = r; // no vendor GEMM: no ceiling
  f64.c.precision = Precision::float64;
  f64.ceiling_name.clear();
  f64.ceiling = 0;
  ceilings.attach(f64, "serial");
  EXPECT_EQ(f64.ceiling, 0);
  std::ostringstream os;
  ceilings.print(os);
  EXPECT_NE(os.str().find("uncertain: 5 estimates from 29.0 to 117.0"), std::string::npos)
      << os.str();

  Fake beaten; // a row more than 5% above: estimated again, the larger kept
  beaten.vendor = {{4, 4, 4.1, 3, true}, {180, 175, 180, 2, true}};
  MeasuredCeilings again("serial", beaten.measures());
  CaseResult fast = r;
  fast.gflops = 183.6;
  again.attach(fast, "serial");
  EXPECT_EQ(beaten.vendor_calls, 2);
  EXPECT_DOUBLE_EQ(fast.ceiling, 180);
  EXPECT_DOUBLE_EQ(fast.pct_of_ceiling, 102);

  Fake settled;
  MeasuredCeilings stable("serial", settled.measures());
  CaseResult s = r;
  s.ceiling_name.clear();
  stable.attach(s, "serial");
  EXPECT_EQ(s.ceiling_name, "vendor GEMM");
  EXPECT_DOUBLE_EQ(s.ceiling, 200);
}

// A sequence of estimates, one per call.
std::function<double()> estimates(std::vector<double> values, int* calls) {
  return [values, calls] { return values.at(std::size_t((*calls)++)); };
}

TEST(StableEstimate, StopsWhenTwoConsecutiveEstimatesAgree) {
  int calls = 0;
  const StableEstimate e = estimate_until_stable(estimates({29, 110, 117, 50}, &calls), 0.1);
  EXPECT_TRUE(e.stable);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(e.tries, 3);
  EXPECT_DOUBLE_EQ(e.value, 117); // the larger of the two that agreed
  EXPECT_DOUBLE_EQ(e.low, 29);
  EXPECT_DOUBLE_EQ(e.high, 117);
}

TEST(StableEstimate, GivesTheSpreadWhenNoTwoAgreeWithinTheTries) {
  int calls = 0;
  const StableEstimate e =
      estimate_until_stable(estimates({29, 117, 60, 100, 80, 81}, &calls), 0.05, 5);
  EXPECT_FALSE(e.stable);
  EXPECT_EQ(calls, 5); // never a sixth
  EXPECT_DOUBLE_EQ(e.value, 117);
  EXPECT_DOUBLE_EQ(e.low, 29);
  EXPECT_DOUBLE_EQ(e.high, 117);
}

TEST(StableEstimate, StopsAfterItsTimeOnceTwoAreTaken) {
  int calls = 0;
  const StableEstimate e =
      estimate_until_stable(estimates({10, 20, 40, 80, 160}, &calls), 0.05, 5, 0.0);
  EXPECT_FALSE(e.stable);
  EXPECT_EQ(calls, 2);
  EXPECT_DOUBLE_EQ(e.value, 20);
}

TEST(StableEstimate, NothingMeasurableEndsAtOnce) {
  int calls = 0;
  const StableEstimate e = estimate_until_stable(estimates({-1, 5, 5}, &calls));
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(e.stable);
  EXPECT_EQ(e.value, -1);
}

// The real measurement on the serial backend: the L1-sized working set is timed over many passes
// inside one launch, so it reads faster than memory (a single pass of 16 KiB would be all launch
// overhead and read slower). Not under a sanitizer: its checks on every access bound both rates
// (asan build in CI on 2 busy cores, 2026-11-27: L1 1.78 GB/s against memory 2.36), so the order
// of the two says nothing there.
TEST(LevelBandwidth, SmallWorkingSetReadsFasterThanMemory) {
  const double l1 = measure_level_bandwidth("serial", 16 * KiB, 16 * MiB);
  const double memory = measure_level_bandwidth("serial", 256 * MiB, 256 * MiB);
  EXPECT_GT(l1, 0);
  EXPECT_GT(memory, 0);
  if (MINIAPP_UNDER_SANITIZER)
    GTEST_SKIP() << "rates under a sanitizer: L1 " << l1 << " GB/s, memory " << memory;
  EXPECT_GT(l1, memory);
}

// Every backend compiled in (the GPU's too, in a CUDA or HIP build) measures a level: a finite
// rate above zero, in a working set of 4 MiB (an L2 on a GPU, an L3 on most hosts).
TEST(LevelBandwidth, EveryCompiledBackendMeasuresALevel) {
  for (const std::string& backend : compiled_backends()) {
    const double gbs = measure_level_bandwidth(backend, 4 * MiB, 16 * MiB);
    EXPECT_GT(gbs, 0) << backend;
    EXPECT_TRUE(std::isfinite(gbs)) << backend;
  }
}

// reuse_ceilings (issue 28): a ceiling stored by one run is reused by the next on the same
// machine key, never on another; the row says which, and print() says what was measured and for
// how long.
TEST(MeasuredCeilings, ReusesTheCacheOfTheSameMachineOnlyAndSaysSo) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("miniapp-ceilings-" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(dir);
  const std::string path = dir + "/ceilings.json";
  const auto run_once = [&](const std::string& machine, Fake& fake, std::string* printed) {
    MeasuredCeilings ceilings("serial", fake.measures());
    ceilings.reuse_from(CeilingCache(path, machine));
    CaseResult row = streaming_row(192 * KiB, 1);
    ceilings.attach(row, "serial");
    CaseResult gemm;
    gemm.c = case_of("matmul", "tiled", 8, 8, 8);
    gemm.gflops = 1;
    ceilings.attach(gemm, "serial");
    std::ostringstream os;
    ceilings.print(os);
    *printed = os.str();
    return std::make_pair(row, gemm);
  };
  Fake first;
  std::string out;
  auto [row, gemm] = run_once("hostA|cpu|serial|build=1", first, &out);
  EXPECT_EQ(first.measured.size(), 1u);
  EXPECT_EQ(first.vendor_calls, 1);
  EXPECT_EQ(row.ceiling_source, "measured");
  EXPECT_EQ(gemm.ceiling_source, "measured");
  EXPECT_NE(out.find(" s measuring L2 copy bandwidth, vendor GEMM float32 8x8x8\n"),
            std::string::npos)
      << out;

  Fake second; // same machine: both figures come from the cache, nothing is measured
  std::tie(row, gemm) = run_once("hostA|cpu|serial|build=1", second, &out);
  EXPECT_TRUE(second.measured.empty());
  EXPECT_EQ(second.vendor_calls, 0);
  EXPECT_EQ(row.ceiling_source, "reused");
  EXPECT_DOUBLE_EQ(row.ceiling, 1e6 / 64);
  EXPECT_EQ(gemm.ceiling_source, "reused");
  EXPECT_DOUBLE_EQ(gemm.ceiling, 200);
  EXPECT_NE(out.find("(reused from " + path + ")"), std::string::npos) << out;
  EXPECT_NE(
      out.find("ceilings: 0 s measuring, reused L2 copy bandwidth, vendor GEMM float32 8x8x8"),
      std::string::npos)
      << out;

  Fake other; // another machine (or build) key: measured again
  std::tie(row, gemm) = run_once("hostB|cpu|serial|build=1", other, &out);
  EXPECT_EQ(other.measured.size(), 1u);
  EXPECT_EQ(other.vendor_calls, 1);
  EXPECT_EQ(row.ceiling_source, "measured");

  Fake beaten; // a reused figure a row beats is measured again and then counts as measured
  MeasuredCeilings ceilings("serial", beaten.measures());
  ceilings.reuse_from(CeilingCache(path, "hostA|cpu|serial|build=1"));
  CaseResult fast = streaming_row(192 * KiB, 2e6 / 64);
  ceilings.attach(fast, "serial");
  EXPECT_EQ(beaten.measured.size(), 3u); // the first measurement and the two again
  EXPECT_EQ(fast.ceiling_source, "measured");
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace miniapp
