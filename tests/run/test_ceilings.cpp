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

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
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

// A cache reported larger than kMostCacheBytesPerCpu for each CPU that shares it is taken as that
// much per CPU: this development VM lists an L3 of 508 MiB for each of its 2 CPUs, and charged
// 192 MB arrays that streamed from memory to a ceiling measured at 4 MiB.
TEST(MemoryLevels, ACacheImplausiblyLargeForItsCpusIsCappedPerCpu) {
  const std::uint64_t reported = 508 * MiB;
  const std::vector<CacheLevel> vm{{1, 48 * KiB, 2, 1}, {2, 1 * MiB, 2, 1}, {3, reported, 2, 1}};
  const auto levels = host_levels(vm, 2);
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[2].bytes, 2 * kMostCacheBytesPerCpu); // two L3s of 32 MiB for two threads
  EXPECT_EQ(levels[2].reported_bytes, 2 * reported);
  EXPECT_EQ(levels[1].reported_bytes, 0u); // plausible: as reported
  EXPECT_EQ(levels[level_for(levels, 192 * MiB)].name, "memory");
  EXPECT_EQ(measuring_working_set(levels, 3), 128 * MiB); // memory past the capped L3
  // Shared by 16 CPUs, 260 MiB is plausible (16 MiB a CPU); without the CPUs known, as reported.
  EXPECT_EQ(host_levels({{3, 260 * MiB, 1, 16}}, 16)[0].bytes, 260 * MiB);
  EXPECT_EQ(host_levels({{3, 260 * MiB, 1, 0}}, 2)[0].bytes, 260 * MiB);
}

TEST(MemoryLevels, ALevelThatHoldsNothingIsPassedOver) {
  auto levels = host_levels(epyc_vm(), 1); // L1 32 KiB, L2 1 MiB, L3 32 MiB
  levels[2].holds = false;
  EXPECT_EQ(levels[level_for(levels, 3 * MiB)].name, "memory");
  EXPECT_EQ(levels[level_for(levels, 768 * KiB)].name, "L2");
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

// Stand-in measurements: a level's bandwidth is 1e6 / its working set in KiB unless `rates` gives
// the sequence of estimates for that working set (one per call, the last repeated), and every call
// is counted.
struct Fake {
  std::vector<std::uint64_t> measured;
  std::map<std::uint64_t, std::vector<double>> rates;
  std::vector<StableEstimate> vendor{{200, 190, 200, 2, true}};
  int vendor_calls = 0;
  CeilingMeasures measures() {
    CeilingMeasures m;
    m.levels = [] { return host_levels(epyc_vm(), 1); };
    m.bandwidth_gbs = [this](std::uint64_t ws) {
      const auto seq = rates.find(ws);
      const std::size_t calls = std::size_t(std::count(measured.begin(), measured.end(), ws));
      measured.push_back(ws);
      if (seq == rates.end())
        return 1e6 / double(ws / KiB);
      return seq->second.at(std::min(calls, seq->second.size() - 1));
    };
    m.vendor_gflops = [this](const Case& c) {
      if (c.precision == Precision::float64)
        throw std::runtime_error("no vendor GEMM");
      return vendor.at(std::size_t(vendor_calls++) % vendor.size());
    };
    return m;
  }
  std::size_t calls_at(std::uint64_t ws) const {
    return std::size_t(std::count(measured.begin(), measured.end(), ws));
  }
};

CaseResult streaming_row(double working_set, double gbs) {
  CaseResult r;
  r.c = case_of("axpby", "flat", 8, 8);
  r.work.bytes = working_set;
  r.gbs = gbs;
  return r;
}

// Every level is measured at the first streaming row (the order of the levels is checked on all of
// them), each estimated until two consecutive estimates agree: two calls each for the stand-in.
TEST(MeasuredCeilings, EveryLevelIsMeasuredOnceAtTheFirstStreamingRow) {
  Fake fake;
  MeasuredCeilings ceilings("serial", fake.measures());
  CaseResult gemm; // a GEMM row measures no level
  gemm.c = case_of("matmul", "tiled", 8, 8, 8);
  ceilings.attach(gemm, "serial");
  EXPECT_TRUE(fake.measured.empty());
  CaseResult small = streaming_row(192 * KiB, 7.8125); // L2, measured on 64 KiB: 15625 GB/s
  ceilings.attach(small, "serial");
  EXPECT_EQ(small.ceiling_name, "copy bandwidth");
  EXPECT_EQ(small.ceiling_level, "L2");
  EXPECT_EQ(small.ceiling_unit, "GB/s");
  EXPECT_DOUBLE_EQ(small.ceiling, 1e6 / 64);
  EXPECT_DOUBLE_EQ(small.pct_of_ceiling, 100.0 * 7.8125 / (1e6 / 64));
  EXPECT_FALSE(small.ceiling_uncertain());
  CaseResult again = streaming_row(768 * KiB, 1);
  ceilings.attach(again, "serial");
  EXPECT_EQ(again.ceiling_level, "L2");
  CaseResult big = streaming_row(192 * MiB, 1);
  ceilings.attach(big, "serial");
  EXPECT_EQ(big.ceiling_level, "memory");
  EXPECT_DOUBLE_EQ(big.ceiling, 1e6 / (64 * 1024));
  EXPECT_EQ(fake.measured, (std::vector<std::uint64_t>{16 * KiB, 16 * KiB, 64 * KiB, 64 * KiB,
                                                       2 * MiB, 2 * MiB, 64 * MiB, 64 * MiB}));

  std::ostringstream os;
  ceilings.print(os);
  EXPECT_NE(os.str().find("ceiling: L2 copy bandwidth 15625.0 GB/s on serial"), std::string::npos)
      << os.str();
  EXPECT_NE(os.str().find("ceiling: memory copy bandwidth 15.3 GB/s"), std::string::npos)
      << os.str();
  EXPECT_EQ(os.str().find("uncertain"), std::string::npos) << os.str();

  CaseResult other = streaming_row(1, 1); // another backend's row: not this one's ceiling
  ceilings.attach(other, "openmp");
  EXPECT_TRUE(other.ceiling_level.empty());
  EXPECT_EQ(other.ceiling, 0);
}

// Working sets of the epyc_vm levels on one thread: where each level is measured.
constexpr std::uint64_t kL1At = 16 * KiB, kL2At = 64 * KiB, kL3At = 2 * MiB, kMemoryAt = 64 * MiB;

// A row that beats its level's ceiling by more than 5% has the level measured again (at most
// twice), the largest kept: a measurement taken while another process had the cores reads low.
TEST(MeasuredCeilings, ALevelBeatenByARowIsMeasuredAgain) {
  Fake fake; // L2: one stable estimate of 10, then 40, then 30
  fake.rates = {{kL1At, {1000}}, {kL2At, {10, 10, 40, 40, 30, 30}}, {kL3At, {5}}, {kMemoryAt, {1}}};
  MeasuredCeilings ceilings("serial", fake.measures());
  CaseResult first = streaming_row(192 * KiB, 38); // 10 is beaten: measured again, 40 holds
  ceilings.attach(first, "serial");
  EXPECT_EQ(fake.calls_at(kL2At), 4u);
  EXPECT_DOUBLE_EQ(first.ceiling, 40);
  CaseResult within = streaming_row(192 * KiB, 41); // within 5%: not measured again
  ceilings.attach(within, "serial");
  EXPECT_EQ(fake.calls_at(kL2At), 4u);
  CaseResult far = streaming_row(192 * KiB, 60); // twice again per level at most: once more (30)
  ceilings.attach(far, "serial");
  EXPECT_EQ(fake.calls_at(kL2At), 6u);
  EXPECT_DOUBLE_EQ(far.ceiling, 40);
  EXPECT_DOUBLE_EQ(far.pct_of_ceiling, 150);
  ceilings.attach(far, "serial");
  EXPECT_EQ(fake.calls_at(kL2At), 6u);
  std::ostringstream os;
  ceilings.print(os);
  EXPECT_NE(os.str().find("the largest of 3 measurements"), std::string::npos) << os.str();

  CeilingMeasures broken = fake.measures(); // nothing measurable: no ceiling, not an endless loop
  broken.bandwidth_gbs = [](std::uint64_t) { return 0.0; };
  MeasuredCeilings none("serial", broken);
  CaseResult r = streaming_row(192 * KiB, 38);
  none.attach(r, "serial");
  EXPECT_EQ(r.ceiling, 0);
  EXPECT_TRUE(r.ceiling_level.empty());
}

// A row still more than 5% above its level after the level's re-measurements: the level is
// uncertain from its lowest estimate up to that row's rate, for that row, the rows after it and
// (revise) the rows given it before; rows of other levels are left alone. An H200 transpose read
// 531.9% of a memory ceiling measured beside a compute-sanitizer teardown, marked only `*`.
TEST(MeasuredCeilings, ALevelStillBeatenWhenMeasuredAgainIsUncertainUpToTheRowsRate) {
  Fake fake; // L2: 10, then 40 twice: stable estimates of 10, 40 and 40
  fake.rates = {{kL1At, {1000}}, {kL2At, {10, 10, 40, 40, 40, 40}}, {kL3At, {5}}, {kMemoryAt, {1}}};
  MeasuredCeilings ceilings("serial", fake.measures());
  CaseResult before = streaming_row(192 * KiB, 38); // 10 beaten, 40 holds: certain
  ceilings.attach(before, "serial");
  CaseResult other = streaming_row(32 * KiB, 500); // L1: never beaten
  ceilings.attach(other, "serial");
  EXPECT_FALSE(before.ceiling_uncertain());
  EXPECT_FALSE(ceilings.revise(before, "serial"));

  CaseResult far = streaming_row(192 * KiB, 60); // measured a third time (40): still beaten
  ceilings.attach(far, "serial");
  EXPECT_EQ(fake.calls_at(kL2At), 6u);
  EXPECT_DOUBLE_EQ(far.ceiling, 40);
  EXPECT_DOUBLE_EQ(far.pct_of_ceiling, 150);
  ASSERT_TRUE(far.ceiling_uncertain());
  EXPECT_DOUBLE_EQ(far.ceiling_low, 10);
  EXPECT_DOUBLE_EQ(far.ceiling_high, 60);
  CaseResult after = streaming_row(192 * KiB, 20);
  ceilings.attach(after, "serial");
  EXPECT_DOUBLE_EQ(after.ceiling_high, 60);

  EXPECT_TRUE(ceilings.revise(before, "serial")); // given the level before it was beaten
  EXPECT_DOUBLE_EQ(before.ceiling_low, 10);
  EXPECT_DOUBLE_EQ(before.ceiling_high, 60);
  EXPECT_FALSE(ceilings.revise(before, "serial")); // once
  EXPECT_FALSE(ceilings.revise(other, "serial"));
  EXPECT_FALSE(other.ceiling_uncertain());
  EXPECT_FALSE(ceilings.revise(before, "openmp")); // another backend's row

  std::ostringstream os;
  ceilings.print(os);
  EXPECT_NE(os.str().find("the largest of 3 measurements) uncertain 10.0-60.0: a case moved 60.0 "
                          "GB/s, more than 5% above it, also when it was measured again"),
            std::string::npos)
      << os.str();
}

// The rows of every level, smallest working set first, attached to `ceilings`.
std::vector<CaseResult> one_row_per_level(MeasuredCeilings& ceilings) {
  std::vector<CaseResult> rows;
  for (const double ws : {32.0 * KiB, 192.0 * KiB, 16.0 * MiB, 192.0 * MiB}) {
    rows.push_back(streaming_row(ws, 1));
    ceilings.attach(rows.back(), "serial");
  }
  return rows;
}

// Issue 41: one run measured L1 4.2 GB/s, L2 6.2 and L3 62.6, and printed them. Levels read
// slower than farther ones are measured again; still so, every level of such a pair is uncertain
// with the pair's range, and no row gets a closer level's ceiling below a farther level's.
TEST(MeasuredCeilings, LevelsStillInvertedWhenMeasuredAgainAreUncertainAndNeverPresentedSo) {
  Fake fake;
  fake.rates = {{kL1At, {4.2, 4.2, 4.3, 4.3}},
                {kL2At, {6.2, 6.2, 6.1, 6.1}},
                {kL3At, {62.6, 62.6, 62, 62}},
                {kMemoryAt, {10}}};
  MeasuredCeilings ceilings("serial", fake.measures());
  const std::vector<CaseResult> rows = one_row_per_level(ceilings);
  ASSERT_EQ(rows.size(), 4u);
  // Each level is in an inverted pair (L1 and L2 are below memory too): each measured twice.
  for (const std::uint64_t ws : {kL1At, kL2At, kL3At, kMemoryAt})
    EXPECT_EQ(fake.calls_at(ws), 4u) << ws;
  EXPECT_EQ(rows[0].ceiling_level, "L1");
  EXPECT_EQ(rows[2].ceiling_level, "L3");
  EXPECT_EQ(rows[3].ceiling_level, "memory");
  for (std::size_t i = 0; i + 1 < rows.size(); ++i)
    EXPECT_GE(rows[i].ceiling, rows[i + 1].ceiling) << rows[i].ceiling_level;
  for (const CaseResult& r : rows) {
    EXPECT_TRUE(r.ceiling_uncertain()) << r.ceiling_level;
    EXPECT_LE(r.ceiling_low, r.ceiling);
    EXPECT_GE(r.ceiling_high, r.ceiling);
  }
  EXPECT_DOUBLE_EQ(rows[0].ceiling, 62.6); // L1 delivers at least what L3 did
  EXPECT_DOUBLE_EQ(rows[0].ceiling_low, 4.2);
  EXPECT_DOUBLE_EQ(rows[0].ceiling_high, 62.6);
  EXPECT_DOUBLE_EQ(rows[3].ceiling, 10);
  std::ostringstream os;
  ceilings.print(os);
  EXPECT_NE(os.str().find("ceiling: L1 copy bandwidth 62.6 GB/s"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("uncertain 4.2-62.6: slower than a farther level, also when measured "
                          "again"),
            std::string::npos)
      << os.str();
}

// On a GPU the L2 is measured as chained launches, bounded by launch throughput: an H200's read
// 3.5 TB/s against 4.3 of memory in every run. Still slower when measured again, the L2 alone is
// uncertain and takes no working set; memory, whose own estimates agree, is not marked, so a
// quiet run's memory-bound rows carry no mark.
TEST(MeasuredCeilings, AGpuCacheLevelSlowerThanMemoryIsTheOnlyOneUncertain) {
  CeilingMeasures m;
  m.levels = [] { return gpu_levels(60 * MiB); };
  int calls = 0;
  m.bandwidth_gbs = [&](std::uint64_t ws) {
    ++calls;
    return ws <= 120 * MiB ? 3500.0 : 4300.0;
  };
  MeasuredCeilings ceilings("cuda", m);
  CaseResult small = streaming_row(100 * MiB, 3000); // the L2's size: charged to memory
  ceilings.attach(small, "cuda");
  CaseResult big = streaming_row(800 * MiB, 4000);
  ceilings.attach(big, "cuda");
  for (const CaseResult* r : {&small, &big}) {
    EXPECT_EQ(r->ceiling_level, "memory");
    EXPECT_DOUBLE_EQ(r->ceiling, 4300);
    EXPECT_FALSE(r->ceiling_uncertain()) << r->ceiling_low << "-" << r->ceiling_high;
  }
  std::ostringstream os;
  ceilings.print(os);
  EXPECT_NE(os.str().find("no faster than memory, so its working sets are charged to memory"),
            std::string::npos)
      << os.str();
  EXPECT_EQ(os.str().find("memory copy bandwidth 4300 GB/s on cuda (bytes read + written) "
                          "uncertain"),
            std::string::npos)
      << os.str();
}

// The other run of issue 41: L1 8.5, L2 200, L3 58.7. Measured again, L1 reads 300: in order, so
// nothing is uncertain and the figures of the second measurement stand.
TEST(MeasuredCeilings, AnInversionGoneWhenMeasuredAgainLeavesTheLevelsCertain) {
  Fake fake;
  fake.rates = {{kL1At, {8.5, 8.5, 300, 300}}, {kL2At, {200}}, {kL3At, {58.7}}, {kMemoryAt, {20}}};
  MeasuredCeilings ceilings("serial", fake.measures());
  const std::vector<CaseResult> rows = one_row_per_level(ceilings);
  EXPECT_EQ(fake.calls_at(kL1At), 4u);
  EXPECT_DOUBLE_EQ(rows[0].ceiling, 300);
  EXPECT_DOUBLE_EQ(rows[1].ceiling, 200);
  EXPECT_DOUBLE_EQ(rows[2].ceiling, 58.7);
  for (const CaseResult& r : rows)
    EXPECT_FALSE(r.ceiling_uncertain()) << r.ceiling_level;
}

// Estimates that never agree within 10% end after kLevelTries of them (or, once two are taken,
// after level_seconds), and the level is uncertain over their range, its ceiling the largest.
TEST(MeasuredCeilings, ALevelWhoseEstimatesNeverSettleEndsUncertainWithinItsBound) {
  Fake fake;
  fake.rates = {
      {kL1At, {1000}}, {kL2At, {10, 40, 10, 40, 10, 40, 10, 40}}, {kL3At, {5}}, {kMemoryAt, {1}}};
  MeasuredCeilings ceilings("serial", fake.measures());
  CaseResult r = streaming_row(192 * KiB, 8);
  ceilings.attach(r, "serial");
  EXPECT_EQ(fake.calls_at(kL2At), std::size_t(kLevelTries));
  EXPECT_EQ(r.ceiling_level, "L2");
  EXPECT_DOUBLE_EQ(r.ceiling, 40);
  EXPECT_DOUBLE_EQ(r.pct_of_ceiling, 20);
  EXPECT_TRUE(r.ceiling_uncertain());
  EXPECT_DOUBLE_EQ(r.ceiling_low, 10);
  EXPECT_DOUBLE_EQ(r.ceiling_high, 40);
  std::ostringstream os;
  ceilings.print(os);
  EXPECT_NE(os.str().find("ceiling: L2 copy bandwidth 40.0 GB/s on serial"), std::string::npos)
      << os.str();
  EXPECT_NE(os.str().find("uncertain 10.0-40.0: its estimates did not agree within 10%"),
            std::string::npos)
      << os.str();

  Fake quick = fake; // no time left once two estimates are taken: two, then uncertain
  quick.measured.clear();
  CeilingMeasures m = quick.measures();
  m.level_seconds = 0;
  MeasuredCeilings bounded("serial", m);
  CaseResult b = streaming_row(192 * KiB, 8);
  bounded.attach(b, "serial");
  EXPECT_EQ(quick.calls_at(kL2At), 2u);
  EXPECT_TRUE(b.ceiling_uncertain());
  EXPECT_DOUBLE_EQ(b.ceiling, 40);
}

// A cache level no faster than memory (here an L3 that read memory's figure twice) takes no
// working set: its rows are charged to memory, and the ceilings say why.
TEST(MeasuredCeilings, ALevelNoFasterThanMemoryTakesNoWorkingSet) {
  Fake fake;
  fake.rates = {{kL1At, {100}}, {kL2At, {50}}, {kL3At, {20}}, {kMemoryAt, {20}}};
  MeasuredCeilings ceilings("serial", fake.measures());
  CaseResult r = streaming_row(16 * MiB, 10); // an L3 working set by capacity
  ceilings.attach(r, "serial");
  EXPECT_EQ(r.ceiling_level, "memory");
  EXPECT_DOUBLE_EQ(r.ceiling, 20);
  CaseResult l2 = streaming_row(192 * KiB, 10);
  ceilings.attach(l2, "serial");
  EXPECT_EQ(l2.ceiling_level, "L2");
  std::ostringstream os;
  ceilings.print(os);
  EXPECT_NE(os.str().find("ceiling: L3 copy bandwidth 20.0 GB/s on serial"), std::string::npos)
      << os.str();
  EXPECT_NE(os.str().find("no faster than memory, so its working sets are charged to memory"),
            std::string::npos)
      << os.str();
}

TEST(MeasuredCeilings, VendorGemmIsMarkedUncertainWhenItsEstimatesDoNotSettle) {
  Fake fake;
  fake.vendor = {{117, 29, 117, 5, false}};
  MeasuredCeilings ceilings("serial", fake.measures());
  CaseResult r;
  r.c = case_of("matmul", "tiled", 256, 256, 256);
  r.gflops = 58.5;
  ceilings.attach(r, "serial");
  EXPECT_EQ(r.ceiling_name, "vendor GEMM");
  EXPECT_TRUE(r.ceiling_uncertain());
  EXPECT_DOUBLE_EQ(r.ceiling_low, 29);
  EXPECT_DOUBLE_EQ(r.ceiling_high, 117);
  EXPECT_DOUBLE_EQ(r.ceiling, 117);
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
  EXPECT_NE(os.str().find("uncertain 29.0-117.0: 5 estimates never agreed within 5%"),
            std::string::npos)
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
  EXPECT_FALSE(s.ceiling_uncertain());
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
  EXPECT_EQ(first.measured.size(), 8u); // four levels, two estimates each
  EXPECT_EQ(first.vendor_calls, 1);
  EXPECT_EQ(row.ceiling_source, "measured");
  EXPECT_EQ(gemm.ceiling_source, "measured");
  EXPECT_NE(out.find(" s measuring L1 copy bandwidth, L2 copy bandwidth, L3 copy bandwidth, "
                     "memory copy bandwidth, vendor GEMM float32 8x8x8\n"),
            std::string::npos)
      << out;

  Fake second; // same machine: both figures come from the cache, each level checked by one
  std::tie(row, gemm) = run_once("hostA|cpu|serial|build=1", second, &out); // quick estimate
  EXPECT_EQ(second.measured.size(), 4u);
  EXPECT_EQ(second.vendor_calls, 0);
  EXPECT_EQ(row.ceiling_source, "reused");
  EXPECT_DOUBLE_EQ(row.ceiling, 1e6 / 64);
  EXPECT_EQ(gemm.ceiling_source, "reused");
  EXPECT_DOUBLE_EQ(gemm.ceiling, 200);
  EXPECT_NE(out.find("(reused from " + path + ")"), std::string::npos) << out;
  EXPECT_NE(out.find(" s checking, reused L1 copy bandwidth, L2 copy bandwidth, L3 "
                     "copy bandwidth, memory copy bandwidth, vendor GEMM float32 8x8x8"),
            std::string::npos)
      << out;

  Fake other; // another machine (or build) key: measured again
  std::tie(row, gemm) = run_once("hostB|cpu|serial|build=1", other, &out);
  EXPECT_EQ(other.measured.size(), 8u);
  EXPECT_EQ(other.vendor_calls, 1);
  EXPECT_EQ(row.ceiling_source, "measured");

  Fake beaten; // a reused figure a row beats is measured again and then counts as measured
  MeasuredCeilings ceilings("serial", beaten.measures());
  ceilings.reuse_from(CeilingCache(path, "hostA|cpu|serial|build=1"));
  CaseResult fast = streaming_row(192 * KiB, 2e6 / 64);
  ceilings.attach(fast, "serial");
  // the quick check of the reused figure, then the first measurement and the two again, 2 each
  EXPECT_EQ(beaten.calls_at(kL2At), 7u);
  EXPECT_EQ(fast.ceiling_source, "measured");

  Fake slower; // a reused figure below a farther level measured now takes that level's figure,
  // and then counts as measured: it is no longer the figure the cache holds
  std::filesystem::remove_all(dir);
  {
    Fake seed; // the cache: L2 at 100 GB/s; L3 and memory give nothing to store
    seed.rates[kL2At] = {100};
    seed.rates[kL3At] = {0};
    seed.rates[kMemoryAt] = {0};
    MeasuredCeilings ceilings("serial", seed.measures());
    ceilings.reuse_from(CeilingCache(path, "hostA|cpu|serial|build=1"));
    CaseResult r = streaming_row(192 * KiB, 1);
    ceilings.attach(r, "serial");
    ASSERT_DOUBLE_EQ(r.ceiling, 100);
  }
  slower.rates[kL2At] = {100}; // the quick check agrees: L2 reused at 100
  slower.rates[kL3At] = {105}; // L3 measured now at 105: faster than the reused L2, but within
  // the 10% two estimates may differ by, so neither is measured again
  slower.rates[kMemoryAt] = {10};
  {
    MeasuredCeilings ceilings("serial", slower.measures());
    ceilings.reuse_from(CeilingCache(path, "hostA|cpu|serial|build=1"));
    CaseResult r = streaming_row(192 * KiB, 1);
    ceilings.attach(r, "serial");
    EXPECT_EQ(r.ceiling_level, "L2");
    EXPECT_DOUBLE_EQ(r.ceiling, 105);
    EXPECT_EQ(r.ceiling_source, "measured");
  }
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace miniapp

namespace miniapp {
namespace {

// Issue 41: a re-check moves a ceiling when it differs from it by more than the spread of the
// estimates the ceiling came from, and by more than sqrt(2) times the tolerance two agreeing
// estimates may differ by (a re-check is one noisy estimate against another: quiet runs of this
// machine read L2 and L3 re-checks up to 10.8% off).
TEST(CeilingMoved, ByMoreThanItsSpreadAndItsTolerance) {
  EXPECT_FALSE(ceiling_moved(100, 95, 100, 0.10, 91));
  EXPECT_FALSE(ceiling_moved(100, 95, 100, 0.10, 89.2)); // 10.8%: within sqrt(2) x 10%
  EXPECT_TRUE(ceiling_moved(100, 95, 100, 0.10, 85));
  EXPECT_TRUE(ceiling_moved(100, 95, 100, 0.10, 115)); // above: the ceiling was measured low
  EXPECT_FALSE(ceiling_moved(100, 60, 100, 0.10, 65)); // within a wide spread
  EXPECT_FALSE(ceiling_moved(100, 95, 100, 0.10, 0));  // nothing re-checked
  EXPECT_FALSE(ceiling_moved(0, 0, 0, 0.10, 50));      // no ceiling
}

// Issue 41: a ceiling measured before a case is re-checked after it with one quick estimate; one
// that moved by more than its spread (another process took the cores meanwhile) marks the row
// disturbed. The case at which the ceiling was measured, just after it, is not re-checked.
TEST(MeasuredCeilings, ACeilingThatMovedWhenRecheckedAfterTheCaseMarksTheRowDisturbed) {
  Fake fake; // L2: 100 and 95 agree within 10%: 100, spread 95-100
  fake.rates = {{kL1At, {1000}}, {kL2At, {100, 95}}, {kL3At, {50}}, {kMemoryAt, {10}}};
  std::vector<std::uint64_t> rechecked;
  const std::vector<double> rechecks = {97, 40, 130, 0};
  CeilingMeasures m = fake.measures();
  m.recheck_gbs = [&](std::uint64_t ws) {
    rechecked.push_back(ws);
    return rechecks.at(rechecked.size() - 1);
  };
  MeasuredCeilings ceilings("serial", m);
  CaseResult first = streaming_row(192 * KiB, 50);
  ceilings.attach(first, "serial");
  EXPECT_TRUE(rechecked.empty());
  EXPECT_EQ(first.ceiling_recheck, 0);
  EXPECT_FALSE(first.ceiling_disturbed);

  std::vector<CaseResult> rows;
  for (int i = 0; i < 4; ++i) {
    rows.push_back(streaming_row(192 * KiB, 50));
    ceilings.attach(rows.back(), "serial");
  }
  EXPECT_EQ(rechecked, std::vector<std::uint64_t>(4, kL2At)); // on the level's own working set
  EXPECT_FALSE(rows[0].ceiling_disturbed);                    // 97: within its spread
  EXPECT_DOUBLE_EQ(rows[0].ceiling_recheck, 97);
  EXPECT_TRUE(rows[1].ceiling_disturbed); // 40: the machine was busy after the case
  EXPECT_DOUBLE_EQ(rows[1].ceiling_recheck, 40);
  EXPECT_DOUBLE_EQ(rows[1].ceiling, 100); // the ceiling itself stands; the row is marked
  EXPECT_DOUBLE_EQ(rows[1].pct_of_ceiling, 50);
  EXPECT_TRUE(rows[2].ceiling_disturbed);  // 130: the ceiling had been measured low
  EXPECT_FALSE(rows[3].ceiling_disturbed); // nothing measured: no re-check, no mark
  EXPECT_EQ(rows[3].ceiling_recheck, 0);
  EXPECT_EQ(fake.calls_at(kL2At), 2u); // a re-check is no full measurement
  std::ostringstream os;
  ceilings.print(os);
  EXPECT_NE(os.str().find(" s of it re-checking them after 4 cases, 2 moved (rows marked "
                          "disturbed)"),
            std::string::npos)
      << os.str();

  // The vendor GEMM alike: measured at its first case, re-checked after the next.
  Fake gemm_fake; // 200, spread 190-200
  CeilingMeasures g = gemm_fake.measures();
  int vendor_rechecks = 0;
  g.recheck_vendor_gflops = [&](const Case&) { return ++vendor_rechecks == 1 ? 196.0 : 120.0; };
  MeasuredCeilings gemm_ceilings("serial", g);
  std::vector<CaseResult> gemms(3);
  for (CaseResult& r : gemms) {
    r.c = case_of("matmul", "tiled", 256, 256, 256);
    r.gflops = 100;
    gemm_ceilings.attach(r, "serial");
  }
  EXPECT_EQ(gemm_fake.vendor_calls, 1);
  EXPECT_EQ(vendor_rechecks, 2);
  EXPECT_FALSE(gemms[0].ceiling_disturbed);
  EXPECT_FALSE(gemms[1].ceiling_disturbed); // 196: within 5% of 200
  EXPECT_TRUE(gemms[2].ceiling_disturbed);  // 120
  EXPECT_DOUBLE_EQ(gemms[2].ceiling_recheck, 120);
}

} // namespace
} // namespace miniapp
