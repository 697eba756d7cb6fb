// The plot table (compare/plot_rows.hpp): one row per run and case, every results column carried,
// and the numbers the plot script draws computed from the join `miniapp compare` makes: rates in
// the family's unit, spreads, speedups over the baseline, ceiling ratios, sizes and roofs. And the
// benchmark reader's copy ceiling and older benchmark names, which the plots read.
#include "compare/compare.hpp"
#include "compare/plot_rows.hpp"
#include "compare/tables.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace miniapp {
namespace compare {
namespace {

// A results row: tmed the median, the range +-10%; matmul's ceiling a vendor GEMM in GFLOP/s.
nlohmann::json result(const std::string& family, int n, double tmed) {
  const bool mm = family == "matmul";
  const double flops = mm ? 2.0 * n * n * n : 3.0 * n * n, bytes = 12.0 * n * n;
  return {{"family", family},
          {"variant", "flat"},
          {"precision", "float32"},
          {"m", n},
          {"n", n},
          {"k", mm ? n : 0},
          {"tile", mm ? 16 : 0},
          {"seed", 42},
          {"valid", true},
          {"time_min_s", 0.9 * tmed},
          {"time_median_s", tmed},
          {"time_max_s", 1.1 * tmed},
          {"total_median_s", tmed},
          {"flops", flops},
          {"bytes", bytes},
          {"gflops", flops / tmed / 1e9},
          {"gbs", bytes / tmed / 1e9},
          {"ceiling", mm ? "vendor GEMM" : "copy bandwidth"},
          {"ceiling_value", mm ? 200.0 : 50.0},
          {"ceiling_unit", mm ? "GFLOP/s" : "GB/s"}};
}

Run run_of(const std::string& backend, const std::vector<nlohmann::json>& rows) {
  return run_from_json(
      {{"metadata", {{"backend", backend}, {"device_name", "D"}}}, {"results", rows}}, backend);
}

// Run A the baseline; B 4x faster on both shared cases and alone in a third.
std::vector<Run> baseline_and_faster() {
  return {run_of("openmp", {result("axpby", 1024, 1e-3), result("matmul", 256, 10e-3)}),
          run_of("cuda", {result("axpby", 1024, 0.25e-3), result("matmul", 256, 2.5e-3),
                          result("axpby", 2048, 1e-3)})};
}

const nlohmann::json& row_of(const nlohmann::json& table, int run, const std::string& family,
                             int n) {
  for (const auto& r : table["rows"])
    if (r["run"] == run && r["family"] == family && r["n"] == n)
      return r;
  throw std::runtime_error("no row " + family + " " + std::to_string(n));
}

TEST(PlotTable, OneRowPerRunAndCaseWithTheJoinsNumbers) {
  const nlohmann::json t = plot_table(baseline_and_faster(), 0, false);
  EXPECT_EQ(t["measure"], "kernel");
  ASSERT_EQ(t["runs"].size(), 2u);
  EXPECT_EQ(t["runs"][1]["label"], "cuda on D");
  EXPECT_EQ(t["runs"][1]["backend"], "cuda");
  ASSERT_EQ(t["rows"].size(), 5u);

  const auto& axpby = row_of(t, 1, "axpby", 1024);
  EXPECT_EQ(axpby["rate_unit"], "GB/s");
  EXPECT_DOUBLE_EQ(axpby["rate"].get<double>(), 12.0 * 1024 * 1024 / 0.25e-3 / 1e9);
  EXPECT_NEAR(axpby["speedup"].get<double>(), 4.0, 1e-12);
  EXPECT_NEAR(axpby["rate_low"].get<double>(), axpby["rate"].get<double>() / 1.1, 1e-9);
  EXPECT_NEAR(axpby["rate_high"].get<double>(), axpby["rate"].get<double>() / 0.9, 1e-9);
  EXPECT_NEAR(axpby["ceiling_ratio"].get<double>(), axpby["gbs"].get<double>() / 50.0, 1e-12);
  EXPECT_EQ(axpby["size"], 1024);
  EXPECT_EQ(axpby["size_label"], "N=1024");
  EXPECT_EQ(axpby["tile_label"], "");
  EXPECT_DOUBLE_EQ(axpby["intensity"].get<double>(), 0.25);
  EXPECT_EQ(axpby["roof"]["name"], "copy bandwidth");
  EXPECT_TRUE(axpby["roof"]["sloped"].get<bool>());
  EXPECT_EQ(axpby["seed"], 42); // a column the table computes nothing from is carried as read

  const auto& matmul = row_of(t, 1, "matmul", 256);
  EXPECT_EQ(matmul["rate_unit"], "GFLOP/s");
  EXPECT_DOUBLE_EQ(matmul["rate"].get<double>(), matmul["gflops"].get<double>());
  EXPECT_NEAR(matmul["speedup"].get<double>(), 4.0, 1e-12);
  EXPECT_EQ(matmul["size_label"], "N=256");
  EXPECT_EQ(matmul["tile_label"], "tile 16");
  EXPECT_EQ(matmul["roof"]["name"], "vendor GEMM float32 N=256");
  EXPECT_FALSE(matmul["roof"]["sloped"].get<bool>());

  EXPECT_TRUE(row_of(t, 0, "axpby", 1024)["speedup"].is_null()); // the baseline's own rows
  EXPECT_TRUE(row_of(t, 1, "axpby", 2048)["speedup"].is_null()); // no baseline row to join

  const nlohmann::json flipped = plot_table(baseline_and_faster(), 1, false);
  EXPECT_NEAR(row_of(flipped, 0, "axpby", 1024)["speedup"].get<double>(), 0.25, 1e-12);
}

// One join rule (compare::join_key) for compare, its paper1 table, plot and report: the CPU row
// and the pinned GPU row of one N pair in the plot as in --table paper1 (the plot once joined on
// the whole case id and refused the pair: "no axpby cases shared with the baseline").
TEST(PlotTable, JoinsTheCpuRowAndThePinnedGpuRowAsThePaperTableDoes) {
  nlohmann::json cpu = result("axpby", 1024, 1e-3), gpu = result("axpby", 1024, 0.25e-3);
  cpu["case_id"] = "axpby/flat/float32/1024x1024/a=2,b=0.5";
  gpu["case_id"] = "axpby/flat/float32/1024x1024/a=2,b=0.5/pinned";
  gpu["pinned"] = true;
  const std::vector<compare::Run> runs = {run_of("openmp", {cpu}), run_of("cuda", {gpu})};
  const nlohmann::json t = plot_table(runs, 0, false);
  ASSERT_EQ(t["rows"].size(), 2u) << t.dump();
  EXPECT_NEAR(row_of(t, 1, "axpby", 1024)["speedup"].get<double>(), 4.0, 1e-12);
  EXPECT_NE(paper_table1_markdown(runs).find("| 1024 x 1024 |"), std::string::npos);
  const Comparison c = compare_runs(runs, {});
  ASSERT_EQ(c.lines.size(), 1u);
  EXPECT_EQ(c.lines[0].case_id, "axpby/flat/float32/1024x1024/a=2,b=0.5");
  EXPECT_NEAR(c.lines[0].cells[1].ratio, 4.0, 1e-12);
}

TEST(PlotTable, EndToEndRatesAndTheTransferRoof) {
  nlohmann::json copies = result("axpby", 1024, 1e-3);
  copies.update({{"total_median_s", 2e-3},
                 {"transfers", "copies"},
                 {"h2d_median_s", 0.6e-3},
                 {"d2h_median_s", 0.4e-3}});
  const nlohmann::json t = plot_table({run_of("cuda", {copies})}, 0, true);
  EXPECT_EQ(t["measure"], "end-to-end");
  const auto& r = t["rows"][0];
  EXPECT_DOUBLE_EQ(r["rate"].get<double>(), 12.0 * 1024 * 1024 / 2e-3 / 1e9);
  EXPECT_DOUBLE_EQ(r["achieved_gflops"].get<double>(), 3.0 * 1024 * 1024 / 2e-3 / 1e9);
  EXPECT_DOUBLE_EQ(r["transfer_gbs"].get<double>(), 12.0 * 1024 * 1024 / 1e-3 / 1e9);
  EXPECT_TRUE(r["roof"].is_null()); // the copies' roof replaces the memory's
}

TEST(BenchJson, CopyCeilingAndTheNamesOfOlderBuilds) {
  const nlohmann::json bench = {
      {"context", {{"miniapp_backend", "openmp"}}},
      {"benchmarks",
       {{{"name", "matmul/tiled16/float32/64/manual_time"},
         {"real_time", 1.0},
         {"time_unit", "ms"},
         {"FLOP/s", 1e9}},
        {{"name", "tile_average/leader/float32/S8/128/manual_time"},
         {"real_time", 2.0},
         {"time_unit", "ms"},
         {"bytes/s", 1e9}},
        {{"name", "ceiling/copy/manual_time"}, {"real_time", 1.0}, {"bytes/s", 4e10}},
        {{"name", "ceiling/copy/manual_time"}, {"real_time", 1.0}, {"bytes/s", 5e10}}}}};
  const compare::Run run = run_from_json(bench_as_results(bench, "b.json"), "b.json");
  ASSERT_EQ(run.rows.size(), 2u);
  const Row& mm = run.rows[0];
  EXPECT_EQ(mm.variant, "tiled");
  EXPECT_EQ(mm.integer("tile"), 16);
  EXPECT_EQ(mm.integer("m"), 64);
  EXPECT_EQ(mm.integer("k"), 64); // the family's cases read k
  EXPECT_TRUE(mm.case_id.empty());
  const Row& ta = run.rows[1];
  EXPECT_EQ(ta.variant, "leader");
  EXPECT_EQ(ta.integer("tile"), 8);
  EXPECT_EQ(ta.integer("k"), 0);
  for (const Row& r : run.rows) { // the largest copy bandwidth measured, every row's ceiling
    EXPECT_EQ(r.ceiling, "copy bandwidth");
    EXPECT_DOUBLE_EQ(r.ceiling_value, 50.0);
    EXPECT_EQ(r.ceiling_unit, "GB/s");
  }
}

// miniapp-bench --miniapp-config: each row carries the ceiling `miniapp run` attaches to the case
// (a counter in FLOP/s or bytes/s, named with its unit in the label), which wins over the copy
// ceiling of the file.
TEST(BenchJson, ARowsOwnCeilingFromTheConfigMode) {
  const nlohmann::json bench = {
      {"context", {{"miniapp_backend", "openmp"}, {"miniapp_warmup", "3"}}},
      {"benchmarks",
       {{{"name", "matmul/tiled/float32/64x64x64/tile=16/manual_time"},
         {"real_time", 1.0},
         {"time_unit", "ms"},
         {"FLOP/s", 2e9},
         {"ceiling", 8e9},
         {"pct_of_ceiling", 25.0},
         {"label", "unvalidated (validate: false); ceiling: vendor GEMM, GFLOP/s"}},
        {{"name", "axpby/flat/float32/64x64/a=2,b=-1/manual_time"},
         {"real_time", 1.0},
         {"time_unit", "us"},
         {"bytes/s", 1e10},
         {"ceiling", 4e11},
         {"label", "ceiling: L1 copy bandwidth, GB/s"}},
        {{"name", "ceiling/copy/manual_time"}, {"real_time", 1.0}, {"bytes/s", 5e10}}}}};
  const compare::Run run = run_from_json(bench_as_results(bench, "b.json"), "b.json");
  ASSERT_EQ(run.rows.size(), 2u);
  EXPECT_EQ(run.rows[0].ceiling, "vendor GEMM");
  EXPECT_DOUBLE_EQ(run.rows[0].ceiling_value, 8.0);
  EXPECT_EQ(run.rows[0].ceiling_unit, "GFLOP/s");
  EXPECT_EQ(run.rows[0].valid, "not_checked");
  EXPECT_EQ(run.rows[0].warmup, 3); // the config's, from the context
  EXPECT_EQ(run.rows[1].ceiling, "L1 copy bandwidth");
  EXPECT_DOUBLE_EQ(run.rows[1].ceiling_value, 400.0);
  EXPECT_EQ(run.rows[1].ceiling_unit, "GB/s");
}

} // namespace
} // namespace compare
} // namespace miniapp
