// The ceiling cache read back as hostile input (run/ceiling_cache.hpp, core/state_file.hpp): only
// machines of plausible figures are kept, so a rewrite cannot grow what it does not use; a FIFO or
// an oversized file reads as empty; and a reused figure far from a quick estimate is measured.
#include "run/ceiling_cache.hpp"
#include "run/ceilings.hpp"
#include "test_case.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

namespace miniapp {
namespace {

namespace fs = std::filesystem;

class CeilingCacheFile : public ::testing::Test {
protected:
  void SetUp() override {
    dir = (fs::temp_directory_path() / ("miniapp-ceiling-cache-" + std::to_string(::getpid())))
              .string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    path = dir + "/ceilings.json";
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
  // Row r with its ceiling attached from a cache holding `cached` as figure `key` of this
  // machine, and what the ceilings print.
  std::pair<CaseResult, std::string> attached(const CeilingMeasures& m, const std::string& key,
                                              double cached, CaseResult r) {
    write("{\"" + machine + "\": {\"" + key + "\": " + std::to_string(cached) + "}}");
    MeasuredCeilings ceilings("serial", m);
    ceilings.reuse_from(CeilingCache(path, machine));
    ceilings.attach(r, "serial");
    std::ostringstream os;
    ceilings.print(os);
    return {r, os.str()};
  }
  std::string dir, path;
  const std::string machine = "hostA|cpu|serial|build=1";
};

// Issue 42: a list nested 5000 deep beside the figures was kept and re-indented at every level on
// each rewrite (10 KB grew to 50 MB in one run); at 400000 deep the store failed without a word.
TEST_F(CeilingCacheFile, WhatItCannotUseIsDroppedSoARewriteStaysSmall) {
  const std::string figures = "{\"" + machine + "\": {\"L1 copy bandwidth [GB/s]\": 100}";
  write(figures + ", \"junk\": " + std::string(5000, '[') + std::string(5000, ']') + "}");
  CeilingCache cache(path, machine);
  EXPECT_FALSE(cache.get("L1 copy bandwidth [GB/s]")); // nested past the bound: read as empty
  ASSERT_TRUE(cache.put("L2 copy bandwidth [GB/s]", 50));
  EXPECT_LT(fs::file_size(path), 1024u);
  write(figures + ", \"junk\": {\"x\": [1], \"y\": \"text\"}, \"other\": {\"a\": 1e300, "
                  "\"b\": -1, \"c\": \"12\", \"d\": {}}}");
  EXPECT_EQ(cache.get("L1 copy bandwidth [GB/s]"), 100.0);
  ASSERT_TRUE(cache.put("L2 copy bandwidth [GB/s]", 50));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().find("junk"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("other"), std::string::npos) << text.str(); // no usable figure
  EXPECT_EQ(cache.get("L2 copy bandwidth [GB/s]"), 50.0);
  write(std::string(400000, '[') + std::string(400000, ']'));
  EXPECT_TRUE(cache.put("L2 copy bandwidth [GB/s]", 50)); // replaced, not failed
  EXPECT_EQ(cache.get("L2 copy bandwidth [GB/s]"), 50.0);
  EXPECT_FALSE(cache.put("L3 copy bandwidth [GB/s]", 1e300)); // no measurement gives it
}

TEST_F(CeilingCacheFile, AFifoOrAnOversizedFileReadsAsEmptyWithoutBlocking) {
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0); // opening it to read would wait for a writer
  CeilingCache cache(path, machine);
  EXPECT_FALSE(cache.get("L1 copy bandwidth [GB/s]"));
  fs::remove(path);
  write("{\"" + machine + "\": {\"L1 copy bandwidth [GB/s]\": 100}, \"pad\": \"" +
        std::string(kCeilingCacheBytes, 'x') + "\"}");
  EXPECT_FALSE(cache.get("L1 copy bandwidth [GB/s]"));
}

// A machine's key given twice was read last-wins, its figures reused as if written so. No write
// gives a key twice: the file reads as empty, once said, and a put() rewrites it whole.
TEST_F(CeilingCacheFile, AKeyGivenTwiceReadsAsEmptyAndIsSaidOnce) {
  write("{\"" + machine + "\": {\"L1 copy bandwidth [GB/s]\": 100}, \"" + machine +
        "\": {\"L1 copy bandwidth [GB/s]\": 120}}");
  CeilingCache cache(path, machine);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache.get("L1 copy bandwidth [GB/s]"));
  EXPECT_FALSE(cache.get("L2 copy bandwidth [GB/s]"));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "miniapp: warning: " + path + ": the top-level map has the key '" + machine +
                     "' twice; the program writes each key once, so the file was edited or "
                     "damaged and which value was meant is unknown; the ceiling cache is read as "
                     "empty and its ceilings measured again\n");
  ASSERT_TRUE(cache.put("L2 copy bandwidth [GB/s]", 50));
  EXPECT_EQ(cache.get("L2 copy bandwidth [GB/s]"), 50.0);
  EXPECT_FALSE(cache.get("L1 copy bandwidth [GB/s]"));
  // A figure's name twice under one machine is the same damage.
  write("{\"" + machine +
        "\": {\"L1 copy bandwidth [GB/s]\": 100, \"L1 copy bandwidth [GB/s]\": 5}}");
  testing::internal::CaptureStderr();
  EXPECT_FALSE(CeilingCache(path, machine).get("L1 copy bandwidth [GB/s]"));
  EXPECT_NE(
      testing::internal::GetCapturedStderr().find("has the key 'L1 copy bandwidth [GB/s]' twice"),
      std::string::npos);
}

// Issue 42: a cached figure 1000x the level's bandwidth (or 1e300) was reused as it was: rows at
// 0.013% (or 4e-297%) of their ceiling, valid, no warning. One quick estimate now checks it.
TEST_F(CeilingCacheFile, AReusedFigureFarFromAQuickEstimateIsMeasuredAgain) {
  int calls = 0;
  CeilingMeasures m;
  m.levels = [] { return std::vector<MemoryLevel>{{"memory", 0}}; };
  m.bandwidth_gbs = [&](std::uint64_t) {
    ++calls;
    return 10.0;
  };
  m.vendor_gflops = [](const Case&) -> StableEstimate { throw std::runtime_error("none"); };
  CaseResult streaming;
  streaming.c = case_of("axpby", "flat", 8, 8);
  streaming.work.bytes = 1 << 30;
  streaming.gbs = 5;
  const auto attach = [&](double cached) {
    calls = 0;
    return attached(m, "memory copy bandwidth [GB/s]", cached, streaming);
  };
  auto [row, out] = attach(12); // near the quick estimate: reused
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(row.ceiling_source, "reused");
  EXPECT_DOUBLE_EQ(row.ceiling, 12);
  std::tie(row, out) = attach(10000); // 1000x: measured, and said so
  EXPECT_EQ(calls, 3);                // the quick estimate, then two that agree
  EXPECT_EQ(row.ceiling_source, "measured");
  EXPECT_DOUBLE_EQ(row.ceiling, 10);
  EXPECT_DOUBLE_EQ(row.pct_of_ceiling, 50);
  EXPECT_NE(out.find("not reused, measured: memory copy bandwidth [GB/s] 1e+04 in the cache, 10 "
                     "in a quick estimate now"),
            std::string::npos)
      << out;
  std::tie(row, out) = attach(0.001); // 1/10000 of it: measured too
  EXPECT_EQ(row.ceiling_source, "measured");
}

// The vendor GEMM figure was reused without a check: a cached 1000x its rate gave a row valid at
// 0.002% of its ceiling (the hostile corpus, tests/hostile/ceilings/gemm_thousandfold.json).
TEST_F(CeilingCacheFile, AReusedGemmFigureFarFromAQuickEstimateIsMeasuredAgain) {
  int quick_calls = 0, stable_calls = 0;
  CeilingMeasures m;
  m.levels = [] { return std::vector<MemoryLevel>{{"memory", 0}}; };
  m.bandwidth_gbs = [](std::uint64_t) { return 10.0; };
  m.vendor_gflops = [&](const Case&) {
    ++stable_calls;
    return StableEstimate{60, 60, 60, 2, true};
  };
  m.recheck_vendor_gflops = [&](const Case&) {
    ++quick_calls;
    return 60.0;
  };
  const std::string key = "vendor GEMM float32 8x8x8 [GFLOP/s]";
  CaseResult gemm;
  gemm.c = case_of("matmul", "tiled", 8, 8, 8);
  gemm.gflops = 1.5;
  const auto attach = [&](double cached) {
    quick_calls = stable_calls = 0;
    return attached(m, key, cached, gemm);
  };
  auto [row, out] = attach(70); // near the quick estimate: reused
  EXPECT_GE(quick_calls, 1);
  EXPECT_EQ(stable_calls, 0);
  EXPECT_EQ(row.ceiling_source, "reused");
  EXPECT_DOUBLE_EQ(row.ceiling, 70);
  for (const double cached : {60000.0, 0.5}) { // 1000x above, 120x below
    std::tie(row, out) = attach(cached);
    EXPECT_EQ(stable_calls, 1) << cached;
    EXPECT_EQ(row.ceiling_source, "measured") << cached;
    EXPECT_DOUBLE_EQ(row.ceiling, 60) << cached;
    EXPECT_DOUBLE_EQ(row.pct_of_ceiling, 2.5) << cached;
    EXPECT_NE(out.find("not reused, measured: " + key), std::string::npos) << out;
  }
}

} // namespace
} // namespace miniapp
