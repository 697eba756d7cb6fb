// Each case's kernel time as this host's earlier runs measured it (run/calibration_store.hpp):
// stored by case id per machine key, read back as hostile input, and taken by the time estimate
// (app/time_estimate.hpp) in place of the model's rate for that case. Every time is given, none
// measured: no test depends on the machine's speed.
#include "app/time_estimate.hpp"
#include "config/config.hpp"
#include "plan/estimate.hpp"
#include "plan/plan.hpp"
#include "run/calibration_store.hpp"

#include "plan_of.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>

namespace miniapp {
namespace {

namespace fs = std::filesystem;

using Medians = std::map<std::string, double>;

class CaseMedians : public ::testing::Test {
protected:
  void SetUp() override {
    dir = (fs::temp_directory_path() / ("miniapp-case-medians-" + std::to_string(::getpid())))
              .string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    path = dir + "/estimates.json";
    if (const char* old = std::getenv("MINIAPP_CACHE_DIR"))
      old_cache = old;
    setenv("MINIAPP_CACHE_DIR", dir.c_str(), 1); // calibration_path() for estimate_time
  }
  void TearDown() override {
    if (old_cache)
      setenv("MINIAPP_CACHE_DIR", old_cache->c_str(), 1);
    else
      unsetenv("MINIAPP_CACHE_DIR");
    fs::remove_all(dir);
  }
  bool store(const std::string& key, const std::vector<CaseMedian>& cases) {
    return store_calibration(path, key, RunRecord{}, cases);
  }
  std::string dir, path;
  std::optional<std::string> old_cache;
};

TEST_F(CaseMedians, StoredTimesReadBackNewestWinsAndAQuietOneOutlivesBusyOnes) {
  ASSERT_TRUE(store("h|openmp|cpus=2",
                    {{"a/flat/float32/64", 0.5, false}, {"b/flat/float32/64", 2e-3, true}}));
  ASSERT_TRUE(store("other|openmp|cpus=64", {{"a/flat/float32/64", 7.0, false}}));
  EXPECT_EQ(load_case_medians(path, "h|openmp|cpus=2"),
            (Medians{{"a/flat/float32/64", 0.5}, {"b/flat/float32/64", 2e-3}}));
  // a later quiet time replaces a quiet one, a busy one replaces a busy one; a busy host's time
  // does not replace a quiet one
  ASSERT_TRUE(store("h|openmp|cpus=2",
                    {{"a/flat/float32/64", 0.7, false}, {"b/flat/float32/64", 3e-3, true}}));
  ASSERT_TRUE(store("h|openmp|cpus=2", {{"a/flat/float32/64", 9.0, true}}));
  EXPECT_EQ(load_case_medians(path, "h|openmp|cpus=2"),
            (Medians{{"a/flat/float32/64", 0.7}, {"b/flat/float32/64", 3e-3}}));
  ASSERT_TRUE(store("h|openmp|cpus=2", {{"b/flat/float32/64", 4e-3, false}}));
  EXPECT_EQ(load_case_medians(path, "h|openmp|cpus=2").at("b/flat/float32/64"), 4e-3);
  // the other machine's times and every run's record are kept
  EXPECT_EQ(load_case_medians(path, "other|openmp|cpus=64"), (Medians{{"a/flat/float32/64", 7.0}}));
  EXPECT_EQ(load_calibration(path, "h|openmp|cpus=2").size(), 4u);
  EXPECT_TRUE(load_case_medians(path, "absent|openmp|cpus=2").empty());
  EXPECT_TRUE(load_case_medians(dir + "/absent.json", "h|openmp|cpus=2").empty());
}

TEST_F(CaseMedians, EntriesThatAreNotATimeOfACaseAreLeftOut) {
  const std::string bad[] = {
      R"(["neg", -1, false])",                                        // negative
      R"(["zero", 0, false])",                                        // no time
      R"(["tiny", 1e-12, false])",                                    // below a nanosecond
      R"(["huge", 1e300, false])",                                    // beyond any run
      R"(["string", "0.5", false])",                                  // a string for a number
      R"(["busy", 0.5, 1])",                                          // busy not a boolean
      R"([5, 0.5, false])",                                           // the id not a string
      R"(["short", 0.5])",                                            // an element missing
      R"({"id": "object", "s": 0.5})",                                // not an array
      R"(["", 0.5, false])",                                          // no id
      R"(["quote\"d", 0.5, false])",                                  // not an id's characters
      R"(["ctl\u0001", 0.5, false])",                                 // a control character
      "[\"" + std::string(kCaseIdChars + 1, 'x') + "\", 0.5, false]", // an overlong id
  };
  std::string list = R"([["first", 0.25, false])";
  for (const auto& b : bad)
    list += ", " + b;
  list += R"(, ["last", 1e5, true]])";
  std::ofstream(path) << R"({"case medians": {"k": )" << list << R"(, "j": 3}, "k": 1})";
  EXPECT_EQ(load_case_medians(path, "k"), (Medians{{"first", 0.25}, {"last", 1e5}}));
  EXPECT_TRUE(load_case_medians(path, "j").empty());
  // Storing rewrites the file with the well-formed ones, and writes no time it would not read:
  // not a number, infinite, negative, or of an id that is not one.
  ASSERT_TRUE(store("k", {{"nan", std::nan(""), false},
                          {"inf", HUGE_VAL, false},
                          {"neg", -2, false},
                          {std::string(kCaseIdChars + 1, 'y'), 1, false},
                          {"new", 2, false}}));
  EXPECT_EQ(load_case_medians(path, "k"), (Medians{{"first", 0.25}, {"last", 1e5}, {"new", 2}}));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  for (const char* gone : {"\"neg\"", "\"nan\"", "\"inf\"", "yyyy", "\"0.5\"", "quote"})
    EXPECT_EQ(text.str().find(gone), std::string::npos) << gone << " in " << text.str();
}

TEST_F(CaseMedians, TheNewestIdsAreKeptUpToTheBound) {
  std::string list = "[";
  for (std::size_t i = 0; i < kCaseMedians + 100; ++i)
    list += (i ? ", [\"c" : "[\"c") + std::to_string(i) + "\", 1, false]";
  std::ofstream(path) << R"({"case medians": {"k": )" << list << "]}}";
  Medians got = load_case_medians(path, "k");
  EXPECT_EQ(got.size(), kCaseMedians);
  EXPECT_EQ(got.count("c99"), 0u); // the oldest are left out
  EXPECT_EQ(got.count("c100"), 1u);
  ASSERT_TRUE(store("k", {{"newest", 3, false}}));
  got = load_case_medians(path, "k");
  EXPECT_EQ(got.size(), kCaseMedians);
  EXPECT_EQ(got.count("c100"), 0u);
  EXPECT_EQ(got.at("newest"), 3);
}

// The file at its worst stays under the bound it is read with (or the next read would lose it
// all): the most machine keys, each of the longest length in escaped characters, each holding
// the most records, and the most keys with the most times of the longest ids.
TEST_F(CaseMedians, TheFullestFileStaysUnderItsSizeBound) {
  const auto key = [](std::size_t i) { return std::string(1000, '\x01') + std::to_string(i); };
  for (std::size_t run = 0; run < kCalibrationRuns; ++run)
    for (std::size_t m = 0; m < kCalibrationMachines; ++m)
      ASSERT_TRUE(store_calibration(path, key(m), RunRecord{}));
  for (std::size_t m = 0; m < kCaseMedianMachines; ++m) {
    std::vector<CaseMedian> cases;
    for (std::size_t i = 0; i < kCaseMedians; ++i) {
      std::string id = std::to_string(i) + "/";
      cases.push_back(
          {id + std::string(kCaseIdChars - id.size(), 'x'), 1.2345678901234567e-05, false});
    }
    ASSERT_TRUE(store(key(m), cases));
  }
  EXPECT_LE(fs::file_size(path), kCalibrationFileBytes);
  for (std::size_t m = 0; m < kCaseMedianMachines; ++m)
    EXPECT_EQ(load_case_medians(path, key(m)).size(), kCaseMedians) << m;
  EXPECT_EQ(load_calibration(path, key(kCaseMedianMachines - 1)).size(), kCalibrationRuns);
}

const std::string two_matmuls = "name: est\nbackend: serial\nwarmup: 1\nrepetitions: 10\n"
                                "validation: {enabled: false}\ncases:\n"
                                "  - family: matmul\n    variant: [flat, tiled]\n    n: 512\n";

TEST_F(CaseMedians, TheEstimateTakesAStoredTimeForTheSameCaseOnOneRank) {
  const Plan p = plan_of(two_matmuls);
  Rates rates = default_rates("openmp"); // 20 GFLOP/s: 13 ms for 512^3
  rates.barrier_s = 0; // the flops alone (Estimate.AHostTiledProductCountsItsTeamBarriers)
  const std::string key = calibration_machine_key(p.backend);
  ASSERT_TRUE(store(key, {{p.cases[1].id(), 0.5, false}, {"other/case", 0.5, false}}));
  const PlanEstimate e = estimate_time(p, rates, p.backend, "", "");
  ASSERT_EQ(e.cases.size(), 2u);
  EXPECT_FALSE(e.cases[0].measured);
  EXPECT_TRUE(e.cases[1].measured);
  EXPECT_EQ(e.from_host_runs, 1);
  EXPECT_EQ(e.from_database, 0);
  const PlanEstimate model = estimate_time(p, rates, p.backend, "", "", 1, false);
  EXPECT_FALSE(model.cases[1].measured);
  EXPECT_EQ(model.from_host_runs, 0);
  const double flops = 2.0 * 512 * 512 * 512;
  EXPECT_NEAR(e.cases[1].seconds - model.cases[1].seconds,
              launches_seconds(p, 0.5, 1) - launches_seconds(p, flops / (rates.gflops * 1e9), 1),
              1e-9);
  EXPECT_DOUBLE_EQ(e.cases[0].seconds, model.cases[0].seconds);
  std::ostringstream os;
  print_estimate(os, p, e, rates);
  EXPECT_NE(os.str().find("  [2] estimated " + format_seconds(e.cases[1].seconds) +
                          " (measured kernel time)\n"),
            std::string::npos)
      << os.str();
  EXPECT_NE(os.str().find(", kernel times of 1 of 2 case(s) from this host's earlier runs: "),
            std::string::npos)
      << os.str();
  // Every case measured: no rates of the model, the source still ends at its colon.
  ASSERT_TRUE(store(key, {{p.cases[0].id(), 0.25, false}}));
  os.str("");
  print_estimate(os, p, estimate_time(p, rates, p.backend, "", ""), rates);
  EXPECT_NE(
      os.str().find(", kernel times of 2 of 2 case(s) from this host's earlier runs: set-up "),
      std::string::npos)
      << os.str();
  // Runs of one rank stored them: a plan of two ranks is modelled.
  const PlanEstimate two_ranks = estimate_time(plan_of(two_matmuls, 2), rates, p.backend, "", "");
  EXPECT_EQ(two_ranks.from_host_runs, 0);
  EXPECT_FALSE(two_ranks.cases[1].measured);
}

// A run keeps the time all its ceilings took under its plan's ceilings id (each key and the cases
// it judges), and the next estimate of a plan with the same takes it before the times kept per
// key: those came from whichever run had the key last, and a level measured at a run's first
// streaming case carried every level's measurement (paper_table1: 3.0 s for 1.0-1.1 s).
TEST_F(CaseMedians, APlanWithTheSameCeilingsTakesTheirTimeTogether) {
  const Plan p = plan_of(two_matmuls);
  const std::string id = plan_ceilings_time_id(p);
  EXPECT_EQ(id, "ceilings:float32 gemm 512x512x512x2");
  const Rates rates = default_rates("openmp");
  const std::string key = calibration_machine_key(p.backend);
  ASSERT_TRUE(store(key, {{ceiling_time_id("float32 gemm 512x512x512"), 9.0, false}}));
  EXPECT_DOUBLE_EQ(estimate_time(p, rates, p.backend, "", "").ceilings_s, 9.0);
  ASSERT_TRUE(store(key, {{id, 1.5, false}}));
  EXPECT_DOUBLE_EQ(estimate_time(p, rates, p.backend, "", "").ceilings_s, 1.5);
  // A plan judged by the same ceiling in another number of cases: the time kept per key.
  const Plan one = plan_of("name: est\nbackend: serial\nvalidation: {enabled: false}\ncases:\n"
                           "  - family: matmul\n    variant: flat\n    n: 512\n");
  EXPECT_EQ(plan_ceilings_time_id(one), "ceilings:float32 gemm 512x512x512x1");
  EXPECT_DOUBLE_EQ(estimate_time(one, rates, one.backend, "", "").ceilings_s, 9.0);
}

} // namespace
} // namespace miniapp
