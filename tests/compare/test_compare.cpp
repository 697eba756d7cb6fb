// `miniapp compare` logic on synthetic runs whose ratios are known: the numbers, the noise marks,
// the warnings (config hash, case parameters, validation, missing cases), loading from run
// directories, results.json and results.csv, and the paper's Table 1 layout.
#include "config/limits.hpp"
#include "compare/tables.hpp"
#include "core/files.hpp"

#include "compare/has_warning.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace miniapp {
namespace compare {
namespace {

// A results row as results_writer writes it (typed JSON).
nlohmann::json row(const std::string& family, const std::string& variant, int n, double tmin,
                   double tmed, double tmax, double total = 0) {
  const double mn = double(n) * n;
  const bool mm = family == "matmul";
  const double flops = mm ? 2.0 * mn * n : 3.0 * mn;
  const double bytes = mm ? 3.0 * 4 * mn : 3.0 * 4 * mn;
  return {{"experiment", "t"},
          {"family", family},
          {"variant", variant},
          {"precision", "float32"},
          {"m", n},
          {"n", n},
          {"k", mm ? n : 0},
          {"tile", 0},
          {"tile_cols", 0},
          {"team_size", 0},
          {"alpha", 2.0},
          {"beta", 0.5},
          {"in_place", false},
          {"pinned", false},
          {"seed", 42},
          {"status", "ok"},
          {"valid", true},
          {"warmup", 2},
          {"repetitions", 10},
          {"time_min_s", tmin},
          {"time_median_s", tmed},
          {"time_max_s", tmax},
          {"total_median_s", total > 0 ? total : tmed},
          {"flops", flops},
          {"bytes", bytes},
          {"gflops", flops / tmed / 1e9},
          {"gbs", bytes / tmed / 1e9},
          {"ceiling", "copy bandwidth"},
          {"ceiling_value", 10.0},
          {"ceiling_unit", "GB/s"}};
}

nlohmann::json doc(const std::string& backend, const std::string& device, const std::string& hash,
                   nlohmann::json rows) {
  return {{"schema_version", 1},
          {"complete", true},
          {"status", "complete"},
          {"config", {{"name", "t"}}},
          {"metadata",
           {{"backend", backend},
            {"device_name", device},
            {"host_name", "h-" + backend},
            {"config_hash", hash}}},
          {"results", rows}};
}

// Run A (the baseline) and run B: B's median times are exactly 4x shorter for axpby and matmul
// with disjoint ranges; tile_average's ranges overlap (a difference within the noise).
std::vector<Run> two_runs(const std::string& hash_b = "abc") {
  const auto a = doc("openmp", "CPU X", "abc",
                     {row("axpby", "flat", 1024, 0.9e-3, 1.0e-3, 1.1e-3),
                      row("matmul", "tiled", 256, 8e-3, 10e-3, 12e-3),
                      row("tile_average", "leader", 512, 1.0e-3, 1.2e-3, 1.6e-3)});
  const auto b = doc("cuda", "GPU Y", hash_b,
                     {row("axpby", "flat", 1024, 0.2e-3, 0.25e-3, 0.3e-3),
                      row("matmul", "tiled", 256, 2e-3, 2.5e-3, 3e-3),
                      row("tile_average", "leader", 512, 0.9e-3, 1.0e-3, 1.1e-3)});
  return {run_from_json(a, "A"), run_from_json(b, "B")};
}

const Line& line_of(const Comparison& c, const std::string& family) {
  for (const auto& l : c.lines)
    if (l.family == family)
      return l;
  throw std::runtime_error("no line for " + family);
}

TEST(Compare, RatiosAndPrimaryRates) {
  const Comparison c = compare_runs(two_runs(), {});
  ASSERT_EQ(c.lines.size(), 3u);
  const Line& ax = line_of(c, "axpby");
  EXPECT_EQ(ax.unit, "GB/s");
  EXPECT_NEAR(ax.cells[0].rate, 3.0 * 4 * 1024 * 1024 / 1.0e-3 / 1e9, 1e-9);
  EXPECT_NEAR(ax.cells[1].ratio, 4.0, 1e-12);
  EXPECT_FALSE(ax.cells[1].within_noise);
  const Line& mm = line_of(c, "matmul");
  EXPECT_EQ(mm.unit, "GFLOP/s");
  EXPECT_EQ(mm.size, "256x256x256");
  EXPECT_NEAR(mm.cells[0].rate, 2.0 * 256 * 256 * 256 / 10e-3 / 1e9, 1e-9);
  EXPECT_NEAR(mm.cells[1].ratio, 4.0, 1e-12);
  const Line& ta = line_of(c, "tile_average");
  EXPECT_NEAR(ta.cells[1].ratio, 1.2, 1e-12);
  EXPECT_TRUE(ta.cells[1].within_noise); // [0.9, 1.1] ms overlaps [1.0, 1.6] ms
  // One round a side: nothing but the run-to-run spread is left to say (one line).
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("run-to-run spread unknown (1 round in run 1"), std::string::npos)
      << c.warnings[0];
  EXPECT_EQ(c.runs[1].label(), "cuda on GPU Y (h-cuda)");
}

TEST(Compare, BaselineSecondInvertsRatios) {
  Options opt;
  opt.baseline = 1;
  const Comparison c = compare_runs(two_runs(), opt);
  EXPECT_NEAR(line_of(c, "axpby").cells[0].ratio, 0.25, 1e-12);
  EXPECT_EQ(line_of(c, "axpby").cells[1].ratio, 0); // the baseline has no ratio to itself
  opt.baseline = 2;
  EXPECT_THROW(compare_runs(two_runs(), opt), std::runtime_error);
}

TEST(Compare, RateKindOverridesTheFamilyDefault) {
  Options opt;
  opt.rate = RateKind::Gflops;
  const Comparison c = compare_runs(two_runs(), opt);
  EXPECT_EQ(line_of(c, "axpby").unit, "GFLOP/s");
  EXPECT_NEAR(line_of(c, "axpby").cells[0].rate, 3.0 * 1024 * 1024 / 1.0e-3 / 1e9, 1e-9);
}

TEST(Compare, WithTransfersUsesTotalTime) {
  auto a = doc("openmp", "CPU", "h", {row("axpby", "flat", 128, 1e-3, 2e-3, 3e-3)});
  auto b = doc("cuda", "GPU", "h", {row("axpby", "flat", 128, 1e-5, 2e-5, 3e-5, 1e-4)});
  Options opt;
  opt.with_transfers = true;
  opt.rate = RateKind::Gflops;
  const Comparison c = compare_runs({run_from_json(a, "a"), run_from_json(b, "b")}, opt);
  const Cell& g = c.lines.at(0).cells[1];
  EXPECT_NEAR(g.rate, 3.0 * 128 * 128 / 1e-4 / 1e9, 1e-9);
  EXPECT_NEAR(g.t_median, 1e-4, 1e-15);
  EXPECT_NEAR(g.t_min, 1e-5 + 8e-5, 1e-15); // the compute range shifted by the transfers
  EXPECT_NEAR(g.ratio, 2e-3 / 1e-4, 1e-9);
}

TEST(Compare, WarnsOnConfigHashAndCaseParameters) {
  auto runs = two_runs("zzz");
  runs[1].rows[0].fields["alpha"] = 1.0;
  runs[1].rows[1].repetitions = 3;
  const Comparison c = compare_runs(runs, {});
  EXPECT_TRUE(has_warning(c, "config differs"));
  EXPECT_TRUE(has_warning(c, "config hash zzz"));
  EXPECT_TRUE(has_warning(c, "alpha differs: 2 in run 1"));
  EXPECT_TRUE(has_warning(c, "repetitions differs: 10 in run 1"));
  EXPECT_EQ(line_of(c, "axpby").notes.size(), 2u); // alpha; the run-to-run spread unknown
  const std::string md = to_markdown(c);
  EXPECT_NE(md.find("## Warnings"), std::string::npos);
  EXPECT_NE(md.find("alpha differs"), std::string::npos);
  EXPECT_NE(to_csv(c).find("alpha differs"), std::string::npos);
}

// A run whose samples chained launches against one written before samples were chained (no
// count: each sample one launch): the fence is in one side's time only, and the note says so.
// Two runs that chain follow one rule, whatever their counts (a faster GPU chains more; a launch
// near the 2 ms of a sample is chained once in one run and twice in another): no note.
TEST(Compare, NotesWhereOneSideTimedOneLaunchPerSample) {
  auto runs = two_runs("");
  runs[1].rows[0].fields["launches_per_sample"] = 34;
  Comparison c = compare_runs(runs, {});
  EXPECT_TRUE(has_warning(c, "timing differs: one launch per sample in run 1"));
  EXPECT_TRUE(has_warning(c, ", launches chained per sample in run 2")) << to_markdown(c);
  // Chains of different lengths in one run are one note, with its cases counted.
  auto two = runs;
  two[1].rows[1].fields["launches_per_sample"] = 3;
  EXPECT_TRUE(has_warning(compare_runs(two, {}), "launches chained per sample in run 2 (cuda on "
                                                 "GPU Y (h-cuda)) in 2 cases"))
      << to_markdown(compare_runs(two, {}));
  runs[0].rows[0].fields["launches_per_sample"] = 20;
  c = compare_runs(runs, {});
  EXPECT_FALSE(has_warning(c, "timing differs")) << to_markdown(c);
  runs[1].rows[0].fields["launches_per_sample"] = 1; // a launch longer than a sample
  c = compare_runs(runs, {});
  EXPECT_FALSE(has_warning(c, "timing differs")) << to_markdown(c);
  runs[1].rows[0].fields.erase("launches_per_sample"); // an older file
  c = compare_runs(runs, {});
  EXPECT_TRUE(has_warning(c, "timing differs: launches chained per sample in run 1"));
  EXPECT_TRUE(has_warning(c, "one launch per sample in run 2"));
}

// Schema 2 runs are joined on case_id less pinned, which tells apart cases the schema 1 key
// (family, variant, precision, size, tile) does not: here a seed; pinned transfers join the
// pageable row of the case, with a warning (compare::join_key).
TEST(Compare, JoinsSchema2RunsOnCaseId) {
  const auto with_id = [](nlohmann::json r, const std::string& id) {
    r["case_id"] = id;
    return r;
  };
  const std::string id = "axpby/flat/float32/64x64/a=2,b=0.5";
  const auto a =
      doc("cuda", "GPU", "h",
          {with_id(row("axpby", "flat", 64, 1e-3, 1e-3, 1e-3), id),
           with_id(row("matmul", "tiled", 32, 1e-3, 1e-3, 1e-3), "matmul/tiled/float32/32x32x32")});
  auto b = a;
  b["results"][0]["seed"] = 7;
  b["results"][0]["case_id"] = id + "/seed=7";
  b["results"][1]["pinned"] = true;
  b["results"][1]["case_id"] = "matmul/tiled/float32/32x32x32/pinned";
  Options apart; // two runs of one config, label and host, compared against each other
  apart.pool = false;
  const Comparison c = compare_runs({run_from_json(a, "a"), run_from_json(b, "b")}, apart);
  ASSERT_EQ(c.lines.size(), 3u) << to_markdown(c);
  EXPECT_EQ(c.lines[0].case_id, id);
  EXPECT_EQ(c.lines[1].case_id, "matmul/tiled/float32/32x32x32");
  EXPECT_TRUE(c.lines[1].cells[0].present && c.lines[1].cells[1].present);
  EXPECT_TRUE(has_warning(c, "pinned differs: false in run 1"));
  EXPECT_EQ(c.lines[2].case_id, id + "/seed=7");
  EXPECT_TRUE(c.lines[2].cells[1].present && !c.lines[2].cells[0].present);
  EXPECT_TRUE(has_warning(c, "missing from run 1"));
  EXPECT_FALSE(has_warning(c, "seed differs"));
  EXPECT_NE(to_markdown(c).find("| " + id + "/seed=7 | 64x64 |"), std::string::npos)
      << to_markdown(c);
  EXPECT_NE(to_csv(c).find(",\"" + id + "/seed=7\","), std::string::npos) << to_csv(c);

  // Without case_id in one run (schema 1), the old key joins them, with a note on each difference.
  b["results"][0].erase("case_id");
  const Comparison old = compare_runs({run_from_json(a, "a"), run_from_json(b, "b")}, apart);
  ASSERT_EQ(old.lines.size(), 2u) << to_markdown(old);
  EXPECT_TRUE(old.lines[0].case_id.empty());
  EXPECT_TRUE(has_warning(old, "seed differs: 42 in run 1"));
  EXPECT_TRUE(has_warning(old, "pinned differs: false in run 1"));
  EXPECT_NE(to_markdown(old).find("| axpby/flat/float32 | 64x64 |"), std::string::npos)
      << to_markdown(old);

  // The paper's Table 1 pairs the CPU row and the pinned GPU row of one N, schema 2 or not.
  auto gpu = a;
  gpu["results"][0]["pinned"] = true;
  gpu["results"][0]["case_id"] = id + "/pinned";
  const std::string table =
      paper_table1_markdown({run_from_json(a, "cpu"), run_from_json(gpu, "gpu")});
  EXPECT_NE(table.find("| 64 x 64 | 1 | 0.0123 | 1 | 0.0123 | 1.0 |"), std::string::npos) << table;
}

TEST(Compare, WarnsOnABusyHost) {
  auto a = doc("openmp", "CPU", "h", {row("axpby", "flat", 64, 1, 1, 1)});
  auto b = a;
  a["metadata"]["host_cpus"] = 2;
  a["metadata"]["load_average"] = {0.4, 0.5, 0.6};
  b["metadata"]["host_cpus"] = 2;
  b["metadata"]["load_average"] = {5.9, 5.0, 4.0};
  Options apart; // one config, label and host: compared against each other
  apart.pool = false;
  const Comparison c = compare_runs({run_from_json(a, "a"), run_from_json(b, "b")}, apart);
  ASSERT_EQ(c.warnings.size(), 2u); // and the run-to-run spread unknown
  EXPECT_NE(c.warnings[0].find("busy host when the run started"), std::string::npos);
  EXPECT_NE(c.warnings[0].find("run 2 (load average 5.90 on 2 CPUs)"), std::string::npos)
      << c.warnings[0];
  EXPECT_EQ(c.warnings[0].find("run 1"), std::string::npos) << c.warnings[0];
  // Once in the CSV too: on run 2's first row, not on every row of it.
  const std::string csv = to_csv(c);
  std::size_t count = 0;
  for (std::size_t at = csv.find("busy host"); at != std::string::npos;
       at = csv.find("busy host", at + 1))
    ++count;
  EXPECT_EQ(count, 1u) << csv;
}

// A host run whose binary was built for less than its CPU offers (the generic x86-64 build on an
// AVX-512 CPU) is flagged: its host figures understate the CPU. A GPU run is not (its host code
// only prepares data), nor is a host run built for its CPU.
TEST(Compare, FlagsAHostRunWhoseBinaryUnderUsesItsCpu) {
  auto generic = doc("openmp", "CPU", "h", {row("axpby", "flat", 64, 1, 1, 1)});
  auto native = generic, gpu = doc("cuda", "GPU", "h", {row("axpby", "flat", 64, 1, 1, 1)});
  generic["metadata"]["host_isa"] = {{"built_for", "x86-64"}, {"offered", "x86-64-v4"}};
  native["metadata"]["host_isa"] = {{"built_for", "x86-64-v4"}, {"offered", "x86-64-v4"}};
  gpu["metadata"]["host_isa"] = generic["metadata"]["host_isa"];
  Options apart; // native and generic share config, label and host: compared apart
  apart.pool = false;
  const Comparison c = compare_runs(
      {run_from_json(native, "a"), run_from_json(generic, "b"), run_from_json(gpu, "c")}, apart);
  std::size_t flagged = 0;
  for (const auto& w : c.warnings)
    if (w.find("host code built for x86-64 on a CPU offering x86-64-v4") != std::string::npos) {
      ++flagged;
      EXPECT_NE(w.find("run 2"), std::string::npos) << w;
    }
  EXPECT_EQ(flagged, 1u);
}

// A host run whose OpenBLAS ran kernels older than its CPU (Prescott on an AVX-512 guest) is
// flagged with the core to ask for: its vendor rows and the GEMM ceiling understate the CPU. A
// GPU run's host BLAS decides nothing it measures, nor does an axpby-only host run's.
TEST(Compare, FlagsAHostRunWhoseBlasRanOlderKernels) {
  const std::string prescott = "OpenBLAS 0.3.21 DYNAMIC_ARCH Prescott MAX_THREADS=64";
  auto slow = doc("openmp", "CPU", "h", {row("matmul", "vendor", 64, 1, 1, 1)});
  auto fast = slow, gpu = doc("cuda", "GPU", "h", {row("matmul", "vendor", 64, 1, 1, 1)});
  auto axpby = doc("openmp", "CPU", "h", {row("axpby", "flat", 64, 1, 1, 1)});
  for (auto* d : {&slow, &fast, &gpu, &axpby})
    (*d)["metadata"]["host_isa"] = {{"built_for", "x86-64-v4"}, {"offered", "x86-64-v4"}};
  slow["metadata"]["host_blas"] = prescott;
  fast["metadata"]["host_blas"] = "OpenBLAS 0.3.21 DYNAMIC_ARCH SkylakeX MAX_THREADS=64";
  gpu["metadata"]["host_blas"] = prescott;
  axpby["metadata"]["host_blas"] = prescott;
  Options apart;
  apart.pool = false;
  const Comparison c = compare_runs({run_from_json(fast, "a"), run_from_json(slow, "b"),
                                     run_from_json(gpu, "c"), run_from_json(axpby, "d")},
                                    apart);
  std::size_t flagged = 0;
  for (const auto& w : c.warnings)
    if (w.find("OpenBLAS runs its Prescott kernels") != std::string::npos) {
      ++flagged;
      EXPECT_NE(w.find("run 2"), std::string::npos) << w;
      EXPECT_NE(w.find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos) << w;
    }
  EXPECT_EQ(flagged, 1u);
}

// One config run on OpenMP and on CUDA: the same experiment on two backends. Its config hashes
// differ (the backend is in them) but its experiment hashes agree, so nothing warns "config
// differs"; host threads and bindings are not compared against a GPU run. Another experiment
// still warns.
TEST(Compare, OneConfigOnTwoBackendsIsNotAConfigDifference) {
  auto cpu = doc("openmp", "CPU", "h", {row("axpby", "flat", 64, 1, 1, 1)});
  auto gpu = doc("cuda", "GPU", "h", {row("axpby", "flat", 64, 1, 1, 1)});
  cpu["metadata"]["config_hash"] = "1111111111111111";
  gpu["metadata"]["config_hash"] = "2222222222222222";
  cpu["metadata"]["experiment_hash"] = gpu["metadata"]["experiment_hash"] = "abcdabcdabcdabcd";
  cpu["metadata"]["threads_per_rank"] = 16;
  gpu["metadata"]["threads_per_rank"] = 1;
  cpu["metadata"]["environment"] = {{"OMP_PROC_BIND", "spread"}};
  const Comparison same = compare_runs({run_from_json(cpu, "a"), run_from_json(gpu, "b")}, {});
  for (const auto& w : same.warnings) {
    EXPECT_EQ(w.find("config differs"), std::string::npos) << w;
    EXPECT_EQ(w.find("threads per rank differ"), std::string::npos) << w;
    EXPECT_EQ(w.find("thread bindings differ"), std::string::npos) << w;
  }
  gpu["metadata"]["experiment_hash"] = "0000000000000000";
  const Comparison other = compare_runs({run_from_json(cpu, "a"), run_from_json(gpu, "b")}, {});
  EXPECT_TRUE(has_warning(other, "config differs"));
}

TEST(Compare, WarnsOnInvalidAndMissingRows) {
  auto runs = two_runs();
  runs[1].rows[0].valid = "false";
  runs[1].rows[0].status = "invalid";
  runs[1].rows.pop_back(); // tile_average only in run 1
  const Comparison c = compare_runs(runs, {});
  EXPECT_TRUE(has_warning(c, "valid=false (status invalid)"));
  EXPECT_TRUE(has_warning(c, "missing from run 2 (cuda on GPU Y (h-cuda)) in 1 case: "
                             "tile_average/leader/float32/512x512"));
  EXPECT_FALSE(line_of(c, "tile_average").cells[1].present);
  EXPECT_NE(to_markdown(c).find("(!)"), std::string::npos);
}

TEST(Compare, RepeatedCasesPairInOrder) {
  auto a = doc("openmp", "CPU", "h",
               {row("axpby", "flat", 64, 1, 1, 1), row("axpby", "flat", 64, 2, 2, 2)});
  auto b = doc("serial", "CPU", "h",
               {row("axpby", "flat", 64, 2, 2, 2), row("axpby", "flat", 64, 8, 8, 8)});
  const Comparison c = compare_runs({run_from_json(a, "a"), run_from_json(b, "b")}, {});
  ASSERT_EQ(c.lines.size(), 2u);
  EXPECT_NEAR(c.lines[0].cells[1].ratio, 0.5, 1e-12);
  EXPECT_NEAR(c.lines[1].cells[1].ratio, 0.25, 1e-12);
}

TEST(Compare, MarkdownAndCsvCarryTheNumbers) {
  const Comparison c = compare_runs(two_runs(), {});
  const std::string md = to_markdown(c);
  EXPECT_NE(md.find("| 4.00x |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1.20x ~ |"), std::string::npos) << md;
  EXPECT_NE(md.find("| cuda | GPU Y | h-cuda |"), std::string::npos) << md;
  const std::string csv = to_csv(c);
  EXPECT_NE(csv.find(",2,cuda on GPU Y (h-cuda),cuda,GPU Y,h-cuda,,,false,false,kernel,GB/s,"),
            std::string::npos)
      << csv;
  // ratio 4, not noise, no p (no repetition times), valid
  EXPECT_NE(csv.find(",4,false,,true,"), std::string::npos) << csv;
}

// Issue 26: runs that recorded their energy get an Energy table beside the rates: each run's
// watts and rate per watt, "-" and the run's reason where it has none; runs from before energy
// was recorded get none.
TEST(Compare, EnergyBesideTheRates) {
  auto a = doc("openmp", "CPU X", "abc", {row("axpby", "flat", 1024, 0.9e-3, 1.0e-3, 1.1e-3)});
  auto b = doc("cuda", "GPU Y", "abc", {row("axpby", "flat", 1024, 0.2e-3, 0.25e-3, 0.3e-3)});
  EXPECT_EQ(to_markdown(compare_runs({run_from_json(a, "A"), run_from_json(b, "B")}, {}))
                .find("## Energy"),
            std::string::npos);
  a["results"][0]["energy_note"] = "no energy counter: no powercap package zones";
  b["results"][0]["power_w"] = 412.0;
  b["results"][0]["rate_per_watt"] = 0.123;
  b["results"][0]["rate_per_watt_unit"] = "GB/s/W";
  const Comparison c = compare_runs({run_from_json(a, "A"), run_from_json(b, "B")}, {});
  EXPECT_TRUE(energy_recorded(c));
  const Cell& gpu = c.lines.at(0).cells.at(1);
  EXPECT_EQ(gpu.watts, 412.0);
  EXPECT_EQ(energy_text(gpu), "412 W, 0.123 GB/s/W");
  EXPECT_EQ(energy_text(c.lines.at(0).cells.at(0)), "-");
  const std::string md = to_markdown(c);
  EXPECT_NE(md.find("## Energy"), std::string::npos) << md;
  EXPECT_NE(md.find("| - | 412 W, 0.123 GB/s/W |"), std::string::npos) << md;
  EXPECT_NE(md.find("Run 1, not measured: no energy counter: no powercap package zones"),
            std::string::npos)
      << md;
  // A run whose file predates energy says so rather than leaving its "-" unexplained.
  nlohmann::json old = doc("cuda", "GPU Z", "abc", {row("axpby", "flat", 1024, 2e-4, 2e-4, 2e-4)});
  const std::string with_old = to_markdown(
      compare_runs({run_from_json(a, "A"), run_from_json(b, "B"), run_from_json(old, "C")}, {}));
  EXPECT_NE(with_old.find("Run 3, not measured: no energy fields (a results file written before "
                          "miniapp recorded energy)"),
            std::string::npos)
      << with_old;
  EXPECT_EQ(with_old.find("Run 2, not measured"), std::string::npos) << with_old;
  // A clock held down by its power limit is named beside the watts; "none" is not.
  b["results"][0]["clock_limit"] = "power cap";
  const Comparison capped = compare_runs({run_from_json(a, "A"), run_from_json(b, "B")}, {});
  EXPECT_EQ(energy_text(capped.lines.at(0).cells.at(1)), "412 W, 0.123 GB/s/W (clock: power cap)");
  b["results"][0]["clock_limit"] = "none";
  const Comparison free = compare_runs({run_from_json(a, "A"), run_from_json(b, "B")}, {});
  EXPECT_EQ(energy_text(free.lines.at(0).cells.at(1)), "412 W, 0.123 GB/s/W");
}

std::string temp_dir() {
  char tmpl[] = "/tmp/miniapp-compare-XXXXXX";
  const char* d = ::mkdtemp(tmpl);
  if (!d)
    throw std::runtime_error("mkdtemp failed");
  return d;
}

TEST(Compare, LoadsRunDirectoriesJsonAndCsv) {
  const std::string dir = temp_dir();
  const auto d = doc("openmp", "CPU X", "abc", {row("axpby", "flat", 1024, 1e-3, 1e-3, 1e-3)});
  write_file_atomically(dir + "/results.json", d.dump(2));
  write_file_atomically(
      dir + "/results.csv",
      "family,variant,precision,m,n,k,tile,backend,valid,gbs,message\n"
      "axpby,flat,float32,1024,1024,0,0,openmp,true,12.5,\"a, \"\"quoted\"\" note\"\n");
  const compare::Run from_dir = load_run(dir);
  EXPECT_EQ(from_dir.device, "CPU X");
  ASSERT_EQ(from_dir.rows.size(), 1u);
  EXPECT_EQ(from_dir.rows[0].integer("n"), 1024);
  const compare::Run from_csv = load_run(dir + "/results.csv");
  EXPECT_EQ(from_csv.device, "CPU X"); // metadata from the results.json beside it
  EXPECT_EQ(from_csv.config_hash, "abc");
  ASSERT_EQ(from_csv.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(from_csv.rows[0].gbs, 12.5);
  EXPECT_EQ(from_csv.rows[0].valid, "true");
  EXPECT_THROW(load_run(dir + "/nope"), std::runtime_error);
  std::remove((dir + "/results.json").c_str());
  std::remove((dir + "/results.csv").c_str());
  ::rmdir(dir.c_str());
}

// Reference p-values from scipy.stats.mannwhitneyu(a, b, alternative='two-sided',
// method='asymptotic') (scipy 1.10), which Google Benchmark's compare.py calls.
TEST(Compare, MannWhitneyMatchesScipy) {
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 0.012185780355344813, 1e-12);
  EXPECT_NEAR(mann_whitney_p({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 0.012185780355344813, 1e-12);
  EXPECT_NEAR(mann_whitney_p({1, 1, 2, 2, 3}, {2, 3, 3, 4, 4}), 0.05241162867102868, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_p({2, 2, 2}, {2, 2, 2}), 1.0);
  EXPECT_EQ(mann_whitney_p({1}, {2, 3, 4}), -1); // too few to test
  EXPECT_EQ(mann_whitney_p({}, {}), -1);
}

// Two runs with every repetition recorded: axpby's times are disjoint (significant), matmul's
// interleave (not significant although the medians differ).
std::vector<Run> runs_with_times(const std::string& backend_b) {
  auto ra = row("axpby", "flat", 256, 1e-3, 1.2e-3, 1.4e-3);
  auto rb = row("axpby", "flat", 256, 0.5e-3, 0.6e-3, 0.7e-3);
  ra["compute_times_s"] = {1.0e-3, 1.1e-3, 1.2e-3, 1.3e-3, 1.4e-3};
  rb["compute_times_s"] = {0.5e-3, 0.55e-3, 0.6e-3, 0.65e-3, 0.7e-3};
  auto ma = row("matmul", "tiled", 64, 1e-3, 1.3e-3, 2e-3);
  auto mb = row("matmul", "tiled", 64, 1.1e-3, 1.4e-3, 2.1e-3);
  ma["compute_times_s"] = {1.0e-3, 1.3e-3, 1.5e-3, 1.8e-3, 2.0e-3};
  mb["compute_times_s"] = {1.1e-3, 1.2e-3, 1.4e-3, 1.9e-3, 2.1e-3};
  for (auto* r : {&ra, &rb, &ma, &mb}) {
    (*r)["h2d_times_s"] = std::vector<double>(5, 1e-4);
    (*r)["d2h_times_s"] = std::vector<double>(5, 1e-4);
  }
  auto b = doc(backend_b, "B", "abc", {rb, mb});
  b["metadata"]["mpi_ranks"] = 1;
  b["metadata"]["threads_per_rank"] = 4;
  auto a = doc("openmp", "A", "abc", {ra, ma});
  a["metadata"]["mpi_ranks"] = 1;
  a["metadata"]["threads_per_rank"] = 4;
  return {run_from_json(a, "a"), run_from_json(b, "b")};
}

TEST(Compare, SignificanceFromRepetitionTimes) {
  const Comparison c = compare_runs(runs_with_times("serial"), {});
  const Cell& ax = line_of(c, "axpby").cells[1];
  EXPECT_NEAR(ax.p_value, 0.012185780355344813, 1e-12);
  EXPECT_FALSE(ax.within_noise); // disjoint: significant
  const Cell& mm = line_of(c, "matmul").cells[1];
  EXPECT_GT(mm.p_value, kAlpha);
  EXPECT_TRUE(mm.within_noise);
  const std::string md = to_markdown(c);
  // One round a side: the repetitions differ, the run-to-run spread is unknown, so `?`, not `*`.
  EXPECT_NE(md.find("| 2.00x ? (p 0.012) |"), std::string::npos) << md;
  EXPECT_TRUE(has_warning(c, "run-to-run spread unknown"));
  EXPECT_NE(md.find("x ~ (p "), std::string::npos) << md;
  EXPECT_NE(md.find("Mann-Whitney U"), std::string::npos);
  EXPECT_NE(md.find("alpha = 0.05"), std::string::npos);
  // Columns named by the runs' labels (ranks x threads in the default label), not "run 1 (1x4)".
  EXPECT_NE(md.find("| openmp 1x4 on A (h-openmp) kernel rate |"), std::string::npos) << md;
  EXPECT_NE(to_csv(c).find(",2,false,0.0121858,true,"), std::string::npos) << to_csv(c);
  // With transfers the test runs on h2d + compute + d2h per repetition: still disjoint.
  Options opt;
  opt.with_transfers = true;
  EXPECT_NEAR(line_of(compare_runs(runs_with_times("serial"), opt), "axpby").cells[1].p_value,
              0.012185780355344813, 1e-12);
}

TEST(Compare, TooFewRepetitionsForTheTestAreNamedOnce) {
  auto runs = runs_with_times("serial");
  for (auto& run : runs)
    for (auto& r : run.rows)
      r.compute_times.resize(3);
  const Comparison c = compare_runs(runs, {});
  EXPECT_TRUE(has_warning(c, "too few repetitions for the significance test"));
  EXPECT_TRUE(has_warning(c, "in 2 cases:"));
}

TEST(Compare, WarningsAggregatedPerKindAndOnlyWhereRelevant) {
  nlohmann::json ra = nlohmann::json::array(), rb = nlohmann::json::array();
  for (int n : {64, 128, 256, 512, 1024, 2048, 4096, 8192}) {
    ra.push_back(row("axpby", "flat", n, 1, 1, 1));
    auto r = row("axpby", "flat", n, 1, 1, 1);
    r["pinned"] = true;
    r["alpha"] = 3.0;
    rb.push_back(r);
  }
  // openmp vs serial: pinning means nothing on host backends; alpha does, once for 8 cases.
  auto host = compare_runs({run_from_json(doc("openmp", "C", "h", ra), "a"),
                            run_from_json(doc("serial", "C", "h", rb), "b")},
                           {});
  EXPECT_FALSE(has_warning(host, "pinned"));
  ASSERT_EQ(host.warnings.size(), 2u); // and, last, the run-to-run spread unknown
  EXPECT_NE(host.warnings[0].find("alpha differs: 2 in run 1 (openmp on C (h-openmp)), 3 in run 2 "
                                  "(serial on C (h-serial)) in 8 cases: "
                                  "axpby/flat/float32/64x64, "),
            std::string::npos)
      << host.warnings[0];
  EXPECT_NE(host.warnings[0].find(" and 2 more"), std::string::npos) << host.warnings[0];
  // openmp vs cuda: pinned host buffers change the transfers, so it is reported (once).
  auto dev = compare_runs({run_from_json(doc("openmp", "C", "h", ra), "a"),
                           run_from_json(doc("cuda", "G", "h", rb), "b")},
                          {});
  EXPECT_EQ(dev.warnings.size(), 3u);
  EXPECT_TRUE(has_warning(dev, "pinned differs: false in run 1"));
}

TEST(Compare, WarnsWhenRanksThreadsOrBindingDiffer) {
  auto a = doc("openmp", "C", "h", {row("axpby", "flat", 64, 1, 1, 1)});
  auto b = a;
  a["metadata"]["mpi_ranks"] = 1;
  a["metadata"]["threads_per_rank"] = 2;
  a["metadata"]["environment"] = {{"OMP_PROC_BIND", "spread"}, {"OMP_PLACES", "threads"}};
  b["metadata"]["mpi_ranks"] = 4;
  b["metadata"]["threads_per_rank"] = 16;
  b["metadata"]["environment"] = {{"OMP_PROC_BIND", "close"}, {"OMP_PLACES", "cores"}};
  const Comparison c = compare_runs({run_from_json(a, "a"), run_from_json(b, "b")}, {});
  EXPECT_TRUE(has_warning(c, "MPI ranks differ: 1 in run 1 (openmp 1x2 on C (h-openmp)), 4 in"));
  EXPECT_TRUE(has_warning(c, "threads per rank differ: 2 in run 1"));
  EXPECT_TRUE(has_warning(c, "thread bindings differ: OMP_PROC_BIND=spread, OMP_PLACES=threads"));
  EXPECT_EQ(c.runs[1].label(), "openmp 4x16 on C (h-openmp)");
  // A label given at run time (miniapp run --label) names the run.
  b["metadata"]["label"] = "my tuned run";
  EXPECT_EQ(run_from_json(b, "b").label(), "my tuned run");
}

TEST(Compare, MetadataCannotInjectMarkdownOrCsv) {
  auto a = doc("openmp", "CPU | x\n# Injected\n<img src=x onerror=alert(1)>", "h",
               {row("axpby", "flat", 64, 1, 1, 1)});
  auto b =
      doc("serial", "dev,with \"quotes\"\nand a line", "h", {row("axpby", "flat", 64, 1, 1, 1)});
  a["results"][0]["family"] = "ax,py|by";
  b["results"][0]["family"] = "ax,py|by";
  const Comparison c = compare_runs({run_from_json(a, "a"), run_from_json(b, "b")}, {});
  const std::string md = to_markdown(c);
  EXPECT_EQ(md.find("\n# Injected"), std::string::npos) << md;
  EXPECT_EQ(md.find("<img"), std::string::npos) << md;
  EXPECT_NE(md.find("CPU \\| x # Injected &lt;img src=x onerror=alert(1)&gt;"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| ax,py\\|by/flat/float32 |"), std::string::npos) << md;
  EXPECT_EQ(markdown_cell("a|b\r\nc`d&"), "a\\|b  c\\`d&amp;");
  const std::string csv = to_csv(c);
  EXPECT_NE(csv.find(",\"ax,py|by\",flat,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",\"dev,with \"\"quotes\"\"\nand a line\","), std::string::npos) << csv;
}

TEST(Compare, DeeplyNestedJsonIsRefusedNotACrash) {
  const std::string dir = temp_dir();
  std::string deep = "{\"results\": [], \"metadata\": {\"x\": ";
  deep += std::string(100000, '[') + std::string(100000, ']') + "}}";
  write_file_atomically(dir + "/results.json", deep);
  try {
    load_run(dir);
    ADD_FAILURE() << "a 100,000-deep results.json was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper than 64 levels"), std::string::npos)
        << e.what();
  }
  // Brackets inside strings are text, not nesting.
  write_file_atomically(dir + "/results.json", "{\"results\": [], \"metadata\": {\"x\": \"" +
                                                   std::string(1000, '[') + "\\\"\"}}");
  EXPECT_NO_THROW(load_run(dir));
  std::remove((dir + "/results.json").c_str());
  ::rmdir(dir.c_str());
}

TEST(Compare, ResultsFilesOverTheSizeLimitAreRefusedUnread) {
  const std::string dir = temp_dir();
  for (const char* name : {"/results.json", "/results.csv"}) {
    const std::string path = dir + name;
    // Sparse: one byte over the limit, costing no disk.
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
    ASSERT_EQ(::truncate(path.c_str(), off_t(config::limits::kMaxResultsFileBytes + 1)), 0);
    try {
      load_run(path);
      ADD_FAILURE() << path << " over the limit was read";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(path + ": larger than 256 MiB"), std::string::npos)
          << e.what();
    }
    std::remove(path.c_str());
  }
  // The same limits for JSON text kept elsewhere (the history database).
  EXPECT_THROW(parse_results_text(std::string(65, '[') + std::string(65, ']'), "db"),
               std::runtime_error);
  EXPECT_NO_THROW(parse_results_text(std::string(64, '[') + std::string(64, ']'), "db"));
  // Maps and lists are counted before parsing: each costs about 80 bytes parsed for 3 of text.
  std::string many = "[";
  for (std::uint64_t i = 1; i < config::limits::kMaxResultsJsonContainers; ++i)
    many += i == 1 ? "{}" : ",{}";
  EXPECT_NO_THROW(parse_results_text(many + "]", "db"));
  try {
    parse_results_text(many + ",[]]", "db");
    ADD_FAILURE() << "one more map or list than the limit was parsed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("db: more than 2000000 JSON maps and lists"),
              std::string::npos)
        << e.what();
  }
  ::rmdir(dir.c_str());
}

// A results file's rows and cells are bounded as it is read, and a row holds only the values its
// file has: a results.csv of 7588 two-cell rows once took 380 MB and 1.6 s to compare with itself
// (every row held all 84 columns), and a 256 MiB one of short rows would have exhausted memory.
TEST(Compare, ResultsRowsAndCellsAreBoundedAndRowsHoldOnlyTheirValues) {
  const std::string header = "family,variant\n";
  std::string rows;
  for (std::uint64_t i = 0; i < config::limits::kMaxResultsRows; ++i)
    rows += "a,b\n";
  const compare::Run at_limit = run_from_csv(header + rows, "r.csv");
  ASSERT_EQ(at_limit.rows.size(), config::limits::kMaxResultsRows);
  EXPECT_EQ(at_limit.rows.back().family, "a");
  EXPECT_EQ(at_limit.rows.back().fields.size(), 2u) << at_limit.rows.back().fields.dump();
  EXPECT_TRUE(at_limit.rows.back().number("time_median_s") == 0.0);
  const auto refused = [](const std::string& text, const std::string& what) {
    try {
      run_from_csv(text, "r.csv");
      ADD_FAILURE() << "read: " << what;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("r.csv: " + what), std::string::npos) << e.what();
    }
  };
  refused(header + rows + "a,b\n", "more than 100000 rows, the most one config runs");
  refused(header + rows + "a,b", "more than 100000 rows"); // no final newline
  const std::string wide(config::limits::kMaxResultsColumns, ',');
  refused(header + "a" + wide + "\n", "a row of more than 1024 cells");
  refused("family" + wide + "\n", "a row of more than 1024 cells");             // the header too
  EXPECT_NO_THROW(run_from_csv(header + "a" + wide.substr(1) + "\n", "r.csv")); // 1024 cells

  nlohmann::json doc = {{"results", nlohmann::json::array()}};
  for (std::uint64_t i = 0; i <= config::limits::kMaxResultsRows; ++i)
    doc["results"].push_back(nlohmann::json::object());
  EXPECT_THROW(run_from_json(doc, "r.json"), std::runtime_error);
  doc["results"].erase(0);
  EXPECT_EQ(run_from_json(doc, "r.json").rows.size(), config::limits::kMaxResultsRows);
}

TEST(Compare, AValueOfTheWrongTypeNamesTheFile) {
  nlohmann::json d = doc("openmp", "CPU X", "abc", {row("axpby", "flat", 64, 1e-3, 1e-3, 1e-3)});
  d["complete"] = "yes";
  try {
    run_from_json(d, "run/results.json");
    ADD_FAILURE() << "\"complete\": \"yes\" was read";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("run/results.json: \"complete\" is a string", 0), 0u)
        << e.what();
  }
}

TEST(Compare, PaperTable1) {
  nlohmann::json cpu_rows = nlohmann::json::array(), gpu_rows = nlohmann::json::array();
  for (int n : {256, 128}) {
    cpu_rows.push_back(row("axpby", "flat", n, 1e-3, 2e-3, 3e-3));
    gpu_rows.push_back(row("axpby", "flat", n, 1e-5, 1e-5, 1e-5, 1e-4));
  }
  cpu_rows.push_back(row("axpby", "team", 128, 1e-3, 2e-3, 3e-3)); // not the paper's variant
  const compare::Run cpu = run_from_json(doc("openmp", "EPYC", "h", cpu_rows), "cpu");
  const compare::Run gpu = run_from_json(doc("cuda", "H100", "h", gpu_rows), "gpu");

  const std::string pending = paper_table1_markdown({cpu});
  EXPECT_NE(pending.find("GPU: pending"), std::string::npos);
  EXPECT_NE(pending.find("| 128 x 128 | 2 | 0.0246 | pending | pending | pending |"),
            std::string::npos)
      << pending;
  EXPECT_LT(pending.find("| 128 x 128"), pending.find("| 256 x 256")); // sorted by N
  EXPECT_EQ(pending.find("team"), std::string::npos);

  const std::string full = paper_table1_markdown({cpu, gpu});
  // GPU: 3*128^2 / 0.1 ms = 0.49 GFLOPS; speedup 2 ms / 0.1 ms = 20.
  EXPECT_NE(full.find("| 128 x 128 | 2 | 0.0246 | 0.1 | 0.492 | 20.0 |"), std::string::npos)
      << full;
  EXPECT_NE(full.find("GPU: cuda on H100"), std::string::npos);
  EXPECT_NE(full.find("| end-to-end speedup |"), std::string::npos) << full;
  EXPECT_NE(full.find("seed paper's definition of time"), std::string::npos) << full;
}

// One meaning per number: every rate, time and ratio header of compare's markdown and CSV names
// its measure, kernel by default and end-to-end with transfers, and the legend defines it.
TEST(Compare, EveryRatioNamesItsMeasure) {
  const auto runs = runs_with_times("serial");
  for (const bool with_transfers : {false, true}) {
    Options opt;
    opt.with_transfers = with_transfers;
    const Comparison c = compare_runs(runs, opt);
    const std::string name = with_transfers ? "end-to-end" : "kernel";
    const std::string md = to_markdown(c);
    const std::string a = "openmp 1x4 on A (h-openmp)", b = "serial 1x4 on B (h-serial)";
    EXPECT_NE(md.find("| " + name + " ratio " + b + " / " + a + " |"), std::string::npos) << md;
    EXPECT_NE(md.find("| " + a + " " + name + " rate | " + a + " " + name + " time ms |"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("Measure: " + name + ", from the median "), std::string::npos) << md;
    EXPECT_EQ(md.find(with_transfers ? " kernel " : " end-to-end "), std::string::npos) << md;
    const std::string csv = to_csv(c);
    EXPECT_NE(csv.find(std::string(",") + (with_transfers ? "true" : "false") + "," + name + ","),
              std::string::npos)
        << csv;
  }
}

} // namespace
} // namespace compare
} // namespace miniapp

namespace miniapp {
namespace compare {
namespace {

// Runs are named for tables and legends: --name RUN=LABEL by path or number; runs that would
// still share a label get their directory's name; a GPU run's label gives ranks, not host threads.
TEST(CompareNames, NameRunsByPathOrNumberAndTellEqualLabelsApart) {
  compare::Run a, b, c;
  a.backend = b.backend = c.backend = "cuda";
  a.device = b.device = c.device = "H100";
  a.ranks = b.ranks = c.ranks = 1;
  a.threads = b.threads = c.threads = 16;
  a.source = "runs/pageable/";
  b.source = "runs/pinned/results.json";
  c.source = "runs/third";
  EXPECT_EQ(a.label(), "cuda 1 rank on H100"); // host threads idle on a device backend
  std::vector<compare::Run> runs = {a, b};
  name_runs(runs, {"runs/pageable/", "runs/pinned/results.json"}, {}, true);
  EXPECT_EQ(runs[0].label(), "cuda 1 rank on H100 [pageable]");
  EXPECT_EQ(runs[1].label(), "cuda 1 rank on H100 [pinned]");
  runs = {a, b, c};
  name_runs(runs, {"runs/pageable/", "x", "runs/third"}, {"2=pinned", "runs/third=third"}, true);
  EXPECT_EQ(runs[0].label(), "cuda 1 rank on H100"); // no longer shared
  EXPECT_EQ(runs[1].label(), "pinned");
  EXPECT_EQ(runs[2].label(), "third");
  EXPECT_THROW(name_runs(runs, {}, {"4=x"}, true), std::invalid_argument);
  EXPECT_THROW(name_runs(runs, {}, {"label-without-run"}, true), std::invalid_argument);
  EXPECT_THROW(name_runs(runs, {}, {"1="}, true), std::invalid_argument);
  // Repeats of one experiment on one machine (config hash, label, host) are one side where runs
  // are pooled: they keep their name; kept apart (--no-pool), they are told apart.
  compare::Run again = a;
  a.config_hash = again.config_hash = "h1";
  a.host = again.host = "gpu01";
  again.source = "runs/pageable-2";
  runs = {a, again};
  name_runs(runs, {}, {}, true);
  EXPECT_EQ(runs[0].label(), runs[1].label());
  runs = {a, again};
  name_runs(runs, {}, {}, false);
  EXPECT_EQ(runs[1].label(), "cuda 1 rank on H100 (gpu01) [pageable-2]");
  compare::Run host = a;
  host.backend = "openmp";
  EXPECT_EQ(host.label(), "openmp 1x16 on H100 (gpu01)");
}

} // namespace
} // namespace compare
} // namespace miniapp
