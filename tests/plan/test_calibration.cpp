// The time estimate's calibration of a host (plan/calibration.hpp) and its store
// (run/calibration_store.hpp): a run's measured parts fitted back to the rates that predict them,
// quiet runs preferred over busy ones, and the store reading hostile files as nothing or as the
// records that are well-formed. Every figure is given, none measured: no test depends on the
// machine's speed.
#include "config/config.hpp"
#include "kernels/families.hpp"
#include "plan/calibration.hpp"
#include "plan/estimate.hpp"
#include "plan/plan.hpp"
#include "run/calibration_store.hpp"

#include "plan_of.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace miniapp {
namespace {

namespace fs = std::filesystem;

// Two axpby cases (4096^2 and 2048^2 float32), a tiny one, and a validated matmul.
const std::string mixed = "name: cal\nbackend: serial\nwarmup: 2\nrepetitions: 10\ncases:\n"
                          "  - family: axpby\n    variant: flat\n    n: [4096, 2048, 16]\n"
                          "  - family: matmul\n    variant: flat\n    n: 512\n";

// What a run of `plan` measures when the host runs exactly at `r`: each case's wall time as the
// estimate's parts, its kernel time as the model's.
std::vector<CaseTiming> run_at(const Plan& plan, const Rates& r, int ceilings) {
  const PlanEstimate e = estimate_plan(plan, r, {}, 1, {});
  std::vector<CaseTiming> out;
  for (std::size_t i = 0; i < plan.cases.size(); ++i) {
    const Case& c = plan.cases[i];
    const bool mm = c.family == "matmul";
    CaseTiming t;
    t.kernel_s = mm ? 2.0 * double(c.m) * double(c.n) * double(c.k) / (r.gflops * 1e9)
                    : double(case_bytes(c)) / (r.gbs * 1e9);
    t.ceiling_s = i < std::size_t(ceilings) ? r.ceiling_s : 0;
    t.wall_s = e.cases[i].seconds + t.ceiling_s;
    out.push_back(t);
  }
  return out;
}

Rates host(double setup_gbs, double start_s) {
  Rates r = default_rates("openmp");
  r.gflops = 3;
  r.gbs = 5;
  r.setup_gbs = setup_gbs;
  r.reference_gflops = 0.7;
  r.start_s = start_s;
  r.case_s = 0.3;
  r.ceiling_s = 1.25;
  return r;
}

TEST(Calibration, ARunIsFittedBackToTheRatesThatPredictIt) {
  const Plan p = plan_of(mixed);
  const Rates truth = host(0.03, 0.8);
  const RunRecord rec = fit_run(p, run_at(p, truth, 2), truth.start_s, 2, 1);
  // (the tiny case's fixed part includes its 3 KiB of set-up: 0.1 ms of 0.3 s)
  EXPECT_NEAR(rec.case_s, truth.case_s, 1e-3 * truth.case_s);
  EXPECT_NEAR(rec.setup_gbs, truth.setup_gbs, 1e-3 * truth.setup_gbs);
  EXPECT_NEAR(rec.reference_gflops, truth.reference_gflops, 1e-3 * truth.reference_gflops);
  EXPECT_NEAR(rec.gbs, truth.gbs, 1e-9);
  EXPECT_NEAR(rec.gflops, truth.gflops, 1e-9);
  EXPECT_NEAR(rec.ceiling_s, truth.ceiling_s, 1e-12);
  EXPECT_DOUBLE_EQ(rec.start_s, truth.start_s);
  // ... and the calibrated estimate is the run's time: start, cases, ceilings.
  const Rates cal = calibrated_rates(default_rates("openmp"), {rec});
  double measured = truth.start_s;
  for (const CaseTiming& t : run_at(p, truth, 2))
    measured += t.wall_s;
  EXPECT_NEAR(estimate_plan(p, cal, {}, 1, {0, 0}).seconds, measured, 1e-3 * measured);
  EXPECT_EQ(cal.source, "calibrated on this host from 1 earlier run(s)");
}

TEST(Calibration, QuietRunsWinOverBusyOnesAndTheMedianIgnoresOneOutlier) {
  RunRecord quiet, slow, busy;
  quiet.setup_gbs = 0.2;
  quiet.error = 1.1;
  slow.setup_gbs = 0.02; // one disturbed run among quiet ones
  slow.error = 0.5;
  busy.setup_gbs = 0.01;
  busy.busy = true;
  const Rates model = default_rates("openmp");
  const Rates r = calibrated_rates(model, {quiet, quiet, slow, busy});
  EXPECT_DOUBLE_EQ(r.setup_gbs, 0.2);
  EXPECT_EQ(r.source, "calibrated on this host from 3 earlier run(s)");
  EXPECT_EQ(r.errors, (std::vector<double>{1.1, 1.1, 0.5})); // every record's error, in order
  EXPECT_DOUBLE_EQ(r.gbs, model.gbs);                        // measured by none: the model's
  const Rates all_busy = calibrated_rates(model, {busy});
  EXPECT_DOUBLE_EQ(all_busy.setup_gbs, 0.01);
  EXPECT_EQ(all_busy.source, "calibrated on this host from 1 earlier run(s) (all on a busy host)");
  EXPECT_EQ(calibrated_rates(model, {}).source, model.source);
}

// A tiny case's time is its fixed cost: no rate is fitted from it (a 3x2 product's rate made a
// 1024^3 product's estimate two years).
TEST(Calibration, TinyCasesGiveTheFixedCostNotARate) {
  const Plan p = plan_of("name: cal\nbackend: serial\nwarmup: 0\nrepetitions: 1\ncases:\n"
                         "  - family: matmul\n    variant: flat\n    n: 4\n");
  // (a launch of 2 ms: on a loaded host a tiny kernel's launch is slow too)
  const RunRecord rec = fit_run(p, {{0.4, 0.0, 2e-3}}, 0.5, 0, 1);
  EXPECT_EQ(rec.gflops, 0);
  EXPECT_EQ(rec.reference_gflops, 0);
  EXPECT_EQ(rec.setup_gbs, 0);
  EXPECT_NEAR(rec.case_s, 0.4 - launches_seconds(p, 2e-3, 1), 1e-12);
}

// A tiled product's rate is fitted net of its team barriers, and one that is mostly barriers
// gives none: probe runs at tiles 2-8 had calibrated 1.8 GFLOP/s, which the estimate's barrier
// term then counted a second time.
TEST(Calibration, TeamBarriersAreNotTakenForTheRate) {
  const Plan p = plan_of("name: cal\nbackend: serial\nwarmup: 1\nrepetitions: 10\n"
                         "validation: {enabled: false}\ncases:\n  - family: matmul\n"
                         "    variant: tiled\n    n: 512\n    tile: [2, 32]\n");
  const double flops = 2.0 * 512 * 512 * 512, barrier_s = default_rates("openmp").barrier_s;
  const double at2 = 2.0 * 256 * 256 * 256 * barrier_s, at32 = 2.0 * 16 * 16 * 16 * barrier_s;
  const double rate = 3e9; // the flops at 3 GFLOP/s, then the barriers
  const RunRecord rec =
      fit_run(p, {{1.0, 0.0, flops / rate + at2}, {1.0, 0.0, flops / rate + at32}}, 0.5, 0, 1);
  EXPECT_NEAR(rec.gflops, rate * 1e-9, 1e-9); // from tile 32 alone, net of its barriers
  const RunRecord only2 = fit_run(p, {{1.0, 0.0, flops / rate + at2}}, 0.5, 0, 1);
  EXPECT_EQ(only2.gflops, 0); // 4.7 s of barriers against 0.09 s of flops: no rate
}

TEST(Calibration, CeilingsAreCountedOncePerLevelOrShape) {
  const Plan p = plan_of(mixed);
  EXPECT_EQ(ceiling_keys(p, [](const Case& c) { return c.family; }),
            (std::vector<std::string>{"axpby", "matmul"}));
  EXPECT_TRUE(ceiling_keys(p, [](const Case&) { return std::string(); }).empty());
  const Rates r = host(0.03, 0.8);
  EXPECT_NEAR(estimate_plan(p, r, {}, 1, {0, 0, 0}).seconds -
                  estimate_plan(p, r, {}, 1, {}).seconds,
              3 * r.ceiling_s, 1e-9);
}

class Store : public ::testing::Test {
protected:
  void SetUp() override {
    dir = (fs::temp_directory_path() / ("miniapp-calibration-" + std::to_string(::getpid())))
              .string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    path = dir + "/estimates.json";
  }
  void TearDown() override { fs::remove_all(dir); }
  void write(const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
  static std::string record(const std::string& setup = "0.5", const std::string& busy = "false") {
    return R"({"start_s": 0.4, "case_s": 0.05, "setup_gbs": )" + setup +
           R"(, "reference_gflops": 1, "gbs": 3, "gflops": 0, "ceiling_s": 0.6, "error": 1.2, "busy": )" +
           busy + "}";
  }
  std::string dir, path;
};

// A sanitized build's records must not calibrate the README build: they ran 4.4x slower
// (run/calibration_store.hpp). This test is compiled with the same flags as the library, so the
// asan preset checks the sanitized key and the README build the plain one.
TEST(CalibrationKey, SanitizedAndUnoptimisedBuildsKeepRecordsOfTheirOwn) {
  const std::string key = calibration_machine_key("openmp");
  const std::string plain = "|openmp|cpus=" + std::to_string(std::thread::hardware_concurrency());
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const std::string suffix = "|build=sanitized";
#elif !defined(__OPTIMIZE__)
  const std::string suffix = "|build=unoptimized";
#else
  const std::string suffix;
#endif
  EXPECT_EQ(build_flavour_suffix(), suffix);
  ASSERT_GE(key.size(), plain.size() + suffix.size()) << key;
  EXPECT_EQ(key.substr(key.size() - plain.size() - suffix.size()), plain + suffix) << key;
}

TEST_F(Store, StoredRecordsReadBackNewestLastAtMostEight) {
  for (int i = 1; i <= 10; ++i) {
    RunRecord r;
    r.start_s = i;
    ASSERT_TRUE(store_calibration(path, "h|openmp|cpus=2", r));
  }
  RunRecord other;
  other.busy = true;
  ASSERT_TRUE(store_calibration(path, "other|openmp|cpus=64", other));
  const auto got = load_calibration(path, "h|openmp|cpus=2");
  ASSERT_EQ(got.size(), kCalibrationRuns);
  EXPECT_EQ(got.front().start_s, 3);
  EXPECT_EQ(got.back().start_s, 10);
  ASSERT_EQ(load_calibration(path, "other|openmp|cpus=64").size(), 1u);
  EXPECT_TRUE(load_calibration(path, "other|openmp|cpus=64")[0].busy);
  EXPECT_TRUE(load_calibration(dir + "/absent.json", "h|openmp|cpus=2").empty());
}

TEST_F(Store, FieldsOfTheWrongTypeOrOutOfRangeLeaveTheirRecordOut) {
  const std::string bad[] = {
      R"({"start_s": 0.4})", // fields missing
      record("\"0.5\""),     // a string for a number
      record("-1"),          // negative
      record("1e300"),       // beyond any machine
      record("0.5", "1"),    // busy not a boolean
      R"([1, 2])",           // not an object
  };
  std::string runs = "[" + record("0.25");
  for (const auto& b : bad)
    runs += ", " + b;
  runs += ", " + record("0.75") + "]";
  write(R"({"k": )" + runs + "}");
  const auto got = load_calibration(path, "k");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].setup_gbs, 0.25);
  EXPECT_EQ(got[1].setup_gbs, 0.75);
  // The next record rewrites the file with the well-formed records only.
  ASSERT_TRUE(store_calibration(path, "k", RunRecord{}));
  EXPECT_EQ(load_calibration(path, "k").size(), 3u);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("\"0.5\""), std::string::npos) << text;
}

TEST_F(Store, FilesThatAreNotARegularJsonFileOfBoundedSizeReadAsEmpty) {
  const std::string good = R"({"k": [)" + record() + "]}";
  write(good);
  ASSERT_EQ(load_calibration(path, "k").size(), 1u);
  // a symbolic link to a good file
  const std::string link = dir + "/link.json";
  fs::create_symlink(path, link);
  EXPECT_TRUE(load_calibration(link, "k").empty());
  // a FIFO (reading one would wait for a writer forever)
  const std::string fifo = dir + "/fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(load_calibration(fifo, "k").empty());
  // a directory
  EXPECT_TRUE(load_calibration(dir, "k").empty());
  // not JSON, JSON that is not an object, the key not an array
  for (const std::string text : {"{\"k\": [", "[]", "{\"k\": {}}", "\xff\xfe", ""}) {
    write(text);
    EXPECT_TRUE(load_calibration(path, "k").empty()) << text;
  }
  // deeply nested (a recursive parser's stack), and a file over the size bound
  write(R"({"k": [)" + record() + ", " + std::string(5000, '[') + std::string(5000, ']') + "]}");
  EXPECT_TRUE(load_calibration(path, "k").empty());
  write(R"({"k": [)" + record() + "], \"pad\": \"" + std::string(kCalibrationFileBytes, 'x') +
        "\"}");
  EXPECT_TRUE(load_calibration(path, "k").empty());
  // storing replaces the oversized file with one that holds the new record
  ASSERT_TRUE(store_calibration(path, "k", RunRecord{}));
  EXPECT_EQ(load_calibration(path, "k").size(), 1u);
  EXPECT_LT(fs::file_size(path), 4096u);
  // storing through the symbolic link replaces the link, not the file it names
  ASSERT_TRUE(store_calibration(link, "k", RunRecord{}));
  EXPECT_FALSE(fs::is_symlink(link));
  EXPECT_EQ(load_calibration(path, "k").size(), 1u);
}

// A key given twice reads as empty, as any damaged file, but not silently: the estimates then come
// from the model, and the user is told why, once a file, however many estimates read it.
TEST_F(Store, AKeyGivenTwiceReadsAsEmptyAndIsSaidOnce) {
  const std::string twice = dir + "/twice.json";
  std::ofstream(twice, std::ios::binary)
      << R"({"k": [)" + record("0.25") + R"(], "k": [)" + record("0.75") + "]}";
  testing::internal::CaptureStderr();
  EXPECT_TRUE(load_calibration(twice, "k").empty());
  EXPECT_TRUE(load_case_medians(twice, "k").empty());
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find(twice + ": the top-level map has the key 'k' twice"), std::string::npos)
      << said;
  EXPECT_NE(said.find("read as empty (estimates from the model)"), std::string::npos) << said;
  EXPECT_EQ(said.find("warning", said.find("warning") + 1), std::string::npos) << said;
  // A file that is simply absent is no news.
  testing::internal::CaptureStderr();
  EXPECT_TRUE(load_calibration(dir + "/absent.json", "k").empty());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  // The next record rewrites the file with that record alone.
  ASSERT_TRUE(store_calibration(twice, "k", RunRecord{}));
  EXPECT_EQ(load_calibration(twice, "k").size(), 1u);
}

} // namespace
} // namespace miniapp
