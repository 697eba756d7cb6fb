// Noise across runs: `miniapp run --rounds N` pooling a case's rounds (run/rounds.hpp, the
// driver), and `miniapp compare` pooling runs of one experiment and testing with the round as
// the unit (compare/pooling.hpp): the t distribution against closed forms, Welch's test on
// log times, which runs pool, the `*` / `~` / `?` marks, the spread and busy rows.
#include "core/backend_names.hpp"
#include "core/communicator.hpp"
#include "compare/tables.hpp"
#include "compare/pooling.hpp"
#include "run/driver.hpp"
#include "run/rounds.hpp"
#include "timed_samples.hpp"

#include "compare/has_warning.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace miniapp {
namespace compare {
namespace {

// Two-sided p of Student's t, closed forms for 1, 2 and 4 degrees of freedom.
double p_df1(double t) {
  return 1 - 2 / M_PI * std::atan(std::fabs(t));
}
double p_df2(double t) {
  return 1 - std::fabs(t) / std::sqrt(t * t + 2);
}
double p_df4(double t) {
  t = std::fabs(t);
  return 1 - t * (t * t + 6) / std::pow(t * t + 4, 1.5);
}

TEST(RunPooling, StudentTMatchesClosedForms) {
  for (const double t : {0.0, 0.3, 1.0, 2.5, 7.0, 40.0, -3.0}) {
    EXPECT_NEAR(student_t_p(t, 1), p_df1(t), 1e-12) << t;
    EXPECT_NEAR(student_t_p(t, 2), p_df2(t), 1e-12) << t;
    EXPECT_NEAR(student_t_p(t, 4), p_df4(t), 1e-12) << t;
  }
  EXPECT_EQ(student_t_p(1, 0), -1);
}

std::vector<double> exp_of(std::vector<double> v) {
  for (auto& x : v)
    x = std::exp(x);
  return v;
}

TEST(RunPooling, WelchOnLogTimes) {
  // Logs 0, 0.1, 0.2 against 1, 1.1, 1.2: equal variances (0.01) and sizes, so df = 4 and
  // t = -1 / sqrt(2 * 0.01 / 3).
  const double t = -1 / std::sqrt(2 * 0.01 / 3);
  EXPECT_NEAR(welch_log_p(exp_of({0, 0.1, 0.2}), exp_of({1, 1.1, 1.2})), p_df4(t), 1e-12);
  // Only the ratio matters: the same times in other units give the same p.
  EXPECT_NEAR(welch_log_p(exp_of({-7, -6.9, -6.8}), exp_of({-6, -5.9, -5.8})), p_df4(t), 1e-9);
  EXPECT_NEAR(welch_log_p({1, 2, 4}, {1, 2, 4}), 1.0, 1e-12);
  // A side whose rounds all took the same time (copies of one run) has no known noise: no p,
  // never p = 0 (issue 42: "0.98x * (p 0)").
  EXPECT_EQ(welch_log_p({1, 1, 1}, {2, 2, 2}), -1);
  EXPECT_EQ(welch_log_p({1, 1, 1}, {1.9, 2, 2.1}), -1);
  EXPECT_EQ(welch_log_p({1, 1, 1}, {1, 1, 1}), -1);
  EXPECT_EQ(welch_log_p({1}, {2, 3}), -1);    // too few
  EXPECT_EQ(welch_log_p({0, 1}, {2, 3}), -1); // not a time
  // Three rounds against three are enough for p < 0.05 (the exact U test's best is 0.1).
  EXPECT_LT(welch_log_p({1.0, 1.1, 0.95}, {0.25, 0.27, 0.26}), kAlpha);
  EXPECT_GT(smallest_p(3, 3), kAlpha);
}

TEST(RunPooling, CoefficientOfVariation) {
  EXPECT_NEAR(coefficient_of_variation({1, 2, 3}), 0.5, 1e-12); // sd 1, mean 2
  EXPECT_EQ(coefficient_of_variation({1}), -1);
}

// A results row of axpby 256x256 with its repetitions and rounds (as `miniapp run` writes it).
nlohmann::json pooled_row(const std::vector<double>& reps, const std::vector<double>& rounds,
                          double host_load = 0.5) {
  std::vector<double> sorted = reps;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  return {{"case_id", "axpby/flat/float32/256x256"},
          {"family", "axpby"},
          {"variant", "flat"},
          {"precision", "float32"},
          {"m", 256},
          {"n", 256},
          {"status", "ok"},
          {"valid", true},
          {"repetitions", int(reps.size())},
          {"time_min_s", sorted.front()},
          {"time_median_s", median},
          {"time_max_s", sorted.back()},
          {"total_median_s", median},
          {"flops", 3.0 * 65536},
          {"bytes", 12.0 * 65536},
          {"gflops", 3.0 * 65536 / median / 1e9},
          {"gbs", 12.0 * 65536 / median / 1e9},
          {"compute_times_s", reps},
          {"h2d_times_s", std::vector<double>(reps.size(), 0.0)},
          {"d2h_times_s", std::vector<double>(reps.size(), 0.0)},
          {"rounds", rounds.size()},
          {"round_medians_s", rounds},
          {"round_total_medians_s", rounds},
          {"host_load", host_load}};
}

Run run_of(const std::string& source, const std::string& hash, const std::string& label,
           nlohmann::json r) {
  const nlohmann::json doc = {{"schema_version", 2},
                              {"complete", true},
                              {"metadata",
                               {{"backend", "openmp"},
                                {"device_name", "CPU"},
                                {"host_name", "vm"},
                                {"host_cpus", 2},
                                {"config_hash", hash},
                                {"label", label}}},
                              {"results", {r}}};
  return run_from_json(doc, source);
}

// A round's five repetitions around each round's median.
std::vector<double> reps_of(const std::vector<double>& rounds) {
  std::vector<double> out;
  for (const double r : rounds)
    for (const double f : {0.96, 0.98, 1.0, 1.02, 1.04})
      out.push_back(r * f);
  return out;
}

Run pooled_run(const std::string& source, const std::string& hash, const std::string& label,
               const std::vector<double>& rounds, double load = 0.5) {
  return run_of(source, hash, label, pooled_row(reps_of(rounds), rounds, load));
}

TEST(RunPooling, RunsOfOneExperimentOnOneMachinePool) {
  const std::vector<compare::Run> given = {
      pooled_run("a1", "h16", "tile 16", {1e-3}), pooled_run("b", "h2", "tile 2", {4e-3, 4.1e-3}),
      pooled_run("a2", "h16", "tile 16", {1.1e-3, 0.9e-3}),
      run_of("c", "", "no hash", pooled_row({1e-3, 1e-3}, {})), // a lone CSV: never pooled
  };
  const Pooling p = pool_runs(given, 2);
  ASSERT_EQ(p.runs.size(), 3u);
  EXPECT_EQ(p.baseline, 0u); // a2 is in the first pool
  EXPECT_EQ(p.members[0], (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(p.members[1], (std::vector<std::size_t>{1}));
  EXPECT_EQ(p.runs[0].source, "a1 + a2");
  ASSERT_EQ(p.runs[0].rows.size(), 1u);
  const Row& pooled = p.runs[0].rows[0];
  EXPECT_EQ(round_units(pooled, false), (std::vector<double>{1e-3, 1.1e-3, 0.9e-3}));
  EXPECT_EQ(pooled.compute_times.size(), 15u);
  EXPECT_DOUBLE_EQ(pooled.time_median, 1e-3); // of all fifteen repetitions
  EXPECT_DOUBLE_EQ(pooled.time_min, 0.9e-3 * 0.96);
  EXPECT_DOUBLE_EQ(pooled.time_max, 1.1e-3 * 1.04);
  EXPECT_DOUBLE_EQ(pooled.gbs, 12.0 * 65536 / 1e-3 / 1e9);
  // Another host or label is another side.
  compare::Run other_host = given[0];
  other_host.host = "gpu01";
  EXPECT_EQ(pool_runs({given[0], other_host}, 0).runs.size(), 2u);
  // So is a run whose samples chained launches against one written before (no count): two ways
  // of timing, not repeats of one experiment.
  compare::Run chained = given[0];
  chained.rows[0].fields["launches_per_sample"] = 34;
  EXPECT_EQ(pool_runs({given[0], chained}, 0).runs.size(), 2u);
  compare::Run chained_too = given[2];
  chained_too.rows[0].fields["launches_per_sample"] = 30;
  EXPECT_EQ(pool_runs({chained, chained_too}, 0).runs.size(), 1u);
}

const Cell& cell(const Comparison& c, std::size_t run) {
  return c.lines.at(0).cells.at(run);
}

// Three rounds each: a 4x difference is `*`; rounds that scatter around the same time are `~`.
TEST(RunPooling, RoundsAreTheUnitWithThreeOrMoreOnEachSide) {
  const compare::Run fast = pooled_run("t16", "h16", "tile 16", {1.0e-3, 1.1e-3, 0.95e-3});
  const compare::Run slow = pooled_run("t2", "h2", "tile 2", {4.0e-3, 4.3e-3, 3.9e-3});
  const compare::Run again = pooled_run("t16b", "h16", "tile 16 again", {0.9e-3, 1.15e-3, 1.0e-3});
  const Comparison c = compare_runs({fast, slow, again}, {});
  ASSERT_EQ(c.runs.size(), 3u);
  EXPECT_EQ(cell(c, 1).test, compare::Test::rounds);
  EXPECT_LT(cell(c, 1).p_value, kAlpha);
  EXPECT_STREQ(mark(cell(c, 1)), "*");
  EXPECT_EQ(cell(c, 2).test, compare::Test::rounds);
  EXPECT_GE(cell(c, 2).p_value, kAlpha);
  EXPECT_STREQ(mark(cell(c, 2)), "~");
  EXPECT_FALSE(has_warning(c, "run-to-run spread unknown"));
  const std::string md = to_markdown(c);
  EXPECT_NE(md.find("0.25x * (p "), std::string::npos) << md;
  EXPECT_NE(md.find("Welch's t test"), std::string::npos) << md;
  EXPECT_NE(md.find(" tile 16 spread |"), std::string::npos) << md; // named by its label
  EXPECT_NE(md.find("| 7.5% (3 rounds) |"), std::string::npos)
      << md; // CV of 1.0, 1.1, 0.95: 0.0764 / 1.0167
  EXPECT_NE(to_csv(c).find(",*,rounds,3,"), std::string::npos) << to_csv(c);
}

// Two runs of one round each, repetitions disjoint: the runs differ, the configs may not. `?`
// and one warning that the run-to-run spread is unknown; never `*`.
TEST(RunPooling, FewerRoundsLeaveTheSpreadUnknown) {
  const compare::Run a = pooled_run("a", "h16", "tile 16", {1.0e-3});
  const compare::Run b = pooled_run("b", "h2", "tile 2", {2.0e-3});
  const Comparison c = compare_runs({a, b}, {});
  EXPECT_EQ(cell(c, 1).test, compare::Test::repetitions);
  EXPECT_LT(cell(c, 1).p_value, kAlpha);
  EXPECT_STREQ(mark(cell(c, 1)), "?");
  EXPECT_TRUE(has_warning(c, "run-to-run spread unknown (1 round in run 1 (tile 16), 1 round in "
                             "run 2 (tile 2);"))
      << c.warnings.front();
  EXPECT_NE(to_markdown(c).find("0.50x ? (p "), std::string::npos) << to_markdown(c);
  EXPECT_EQ(to_markdown(c).find("x *"), std::string::npos);
  // Runs that agree within their repetitions stay `~`.
  const Comparison same = compare_runs({a, pooled_run("a2", "h2", "other", {1.0e-3})}, {});
  EXPECT_STREQ(mark(cell(same, 1)), "~");
  // Three plain runs of each config pooled: three rounds a side, the test across runs.
  const Comparison pooled = compare_runs({a, pooled_run("a2", "h16", "tile 16", {1.1e-3}), b,
                                          pooled_run("a3", "h16", "tile 16", {0.95e-3}),
                                          pooled_run("b2", "h2", "tile 2", {2.1e-3}),
                                          pooled_run("b3", "h2", "tile 2", {1.9e-3})},
                                         {});
  ASSERT_EQ(pooled.runs.size(), 2u);
  EXPECT_EQ(cell(pooled, 1).test, compare::Test::rounds);
  EXPECT_STREQ(mark(cell(pooled, 1)), "*");
}

Run with_id(Run r, const std::string& id) {
  r.metadata["run_id"] = id;
  return r;
}

// issue 42: `compare A A A B B B` pooled one run into "3 runs" a side, whose identical rounds
// gave variance 0 and p = 0: `*`. A run given again (its directory twice, a copy, or the same run
// through --db) is one run, counted once, with a warning that says so.
TEST(RunPooling, ARunGivenAgainIsCountedOnce) {
  const compare::Run a = with_id(pooled_run("a", "h16", "tile 16", {1.0e-3}), "vm-1");
  const compare::Run b = with_id(pooled_run("b", "h2", "tile 2", {0.98e-3}), "vm-2");
  compare::Run a_copy = a;
  a_copy.source = "copy-of-a";
  const Pooling p = pool_runs({a, a_copy, a, b, b, b}, 4);
  ASSERT_EQ(p.runs.size(), 2u);
  EXPECT_EQ(p.members[0], (std::vector<std::size_t>{0}));
  EXPECT_EQ(p.members[1], (std::vector<std::size_t>{3}));
  EXPECT_EQ(p.baseline, 1u); // the given baseline was a repeat of b
  EXPECT_EQ(p.runs[0].source, "a");
  ASSERT_EQ(p.repeats.size(), 4u);
  EXPECT_EQ(p.repeats[0], "run 2 (copy-of-a) is run 1 (a) again (run id vm-1): counted once");
  const Comparison c = compare_runs({a, a_copy, a, b, b, b}, {});
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(cell(c, 1).rounds.size(), 1u);
  EXPECT_NE(cell(c, 1).test, compare::Test::rounds);
  EXPECT_STRNE(mark(cell(c, 1)), "*");
  EXPECT_TRUE(has_warning(c, "run 6 (b) is run 4 (b) again (run id vm-2): counted once"));
  // Runs of one experiment with ids of their own still pool; runs made before ids are told
  // apart by their start time.
  EXPECT_EQ(pool_runs({a, with_id(a, "vm-3"), with_id(a, "vm-4")}, 0).members[0].size(), 3u);
  compare::Run old = a;
  old.metadata.erase("run_id");
  old.metadata["start_time"] = "2026-11-01T10:00:00Z";
  compare::Run later = old;
  later.metadata["start_time"] = "2026-11-01T11:00:00Z";
  EXPECT_EQ(pool_runs({old, old, later}, 0).members[0].size(), 2u);
  // Without an id or a start time (a results.csv alone) nothing tells two runs apart: both count.
  compare::Run plain = a;
  plain.metadata.erase("run_id");
  EXPECT_EQ(pool_runs({plain, plain}, 0).members[0].size(), 2u);
}

// Issue 42: 1-thread, 2-thread and 2-rank runs sharing a --label pooled into one side shown as
// "1x1", without a word. Each setup is a side of its own, and a warning names them.
TEST(RunPooling, RunsOfOtherRanksThreadsOrDeviceAreNotPooled) {
  compare::Run one = pooled_run("t1", "h", "mine", {1e-3}), one_again = one;
  compare::Run two_threads = one, two_ranks = one, other_device = one;
  one.threads = one_again.threads = 1;
  one.ranks = one_again.ranks = two_threads.ranks = other_device.ranks = 1;
  one_again.source = "t1b";
  two_threads.threads = two_ranks.threads = other_device.threads = 2;
  two_threads.source = "t2";
  two_ranks.ranks = 2;
  two_ranks.source = "r2";
  other_device.device = "another CPU";
  other_device.source = "d";
  const Pooling p = pool_runs({one, two_threads, one_again, two_ranks, other_device}, 0);
  ASSERT_EQ(p.runs.size(), 4u);
  EXPECT_EQ(p.members[0], (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(p.runs[1].shape(), "1x2");
  EXPECT_EQ(p.runs[2].shape(), "2x2");
  ASSERT_EQ(p.splits.size(), 1u);
  EXPECT_EQ(p.splits[0], "runs labelled 'mine' differ in ranks x threads or device (1x1 on CPU: "
                         "runs 1, 3; 1x2 on CPU: run 2; 2x2 on CPU: run 4; 1x2 on another CPU: "
                         "run 5): not pooled, one side each");
  const Comparison c = compare_runs({one, two_threads, one_again}, {});
  EXPECT_EQ(c.runs.size(), 2u);
  EXPECT_TRUE(has_warning(c, "differ in ranks x threads or device"));
  EXPECT_TRUE(pool_runs({one, one_again}, 0).splits.empty());
}

// Three rounds a side, but one side's rounds all alike: its noise is unknown, so the rounds
// decide nothing and the warning says why.
TEST(RunPooling, RoundsThatNeverVaryDecideNothing) {
  const Comparison c = compare_runs({pooled_run("a", "h16", "tile 16", {1.0e-3, 1.0e-3, 1.0e-3}),
                                     pooled_run("b", "h2", "tile 2", {0.98e-3, 0.98e-3, 0.98e-3})},
                                    {});
  EXPECT_NE(cell(c, 1).test, compare::Test::rounds);
  EXPECT_NE(cell(c, 1).p_value, 0);
  EXPECT_STRNE(mark(cell(c, 1)), "*");
  EXPECT_TRUE(has_warning(c, "the rounds of one side all took the same time")) << c.warnings[0];
}

TEST(RunPooling, BusyRowsAreFlagged) {
  const compare::Run a = pooled_run("a", "h16", "tile 16", {1.0e-3}, 0.4);
  const compare::Run b = pooled_run("b", "h2", "tile 2", {2.0e-3}, 3.5); // 2 CPUs
  const Comparison c = compare_runs({a, b}, {});
  EXPECT_FALSE(cell(c, 0).marks.busy);
  EXPECT_TRUE(cell(c, 1).marks.busy);
  EXPECT_TRUE(has_warning(c, "busy host around the case"));
  EXPECT_NE(to_markdown(c).find(" (busy) |"), std::string::npos) << to_markdown(c);
}

// Issue 41: a row whose ceiling is uncertain (results' ceiling_low and ceiling_high) is marked in
// the markdown, the CSV, the warnings and the portability table, with its range; a comparison
// whose rows are all certain shows no mark and no legend.
TEST(RunPooling, RowsOfUncertainCeilingsAreMarked) {
  nlohmann::json r = pooled_row(reps_of({1.0e-3}), {1.0e-3});
  r["ceiling"] = "copy bandwidth";
  r["ceiling_value"] = 200.0;
  r["ceiling_unit"] = "GB/s";
  r["ceiling_level"] = "L1";
  const compare::Run certain = run_of("a", "h16", "certain", r);
  r["ceiling_low"] = 4.2;
  r["ceiling_high"] = 200.0;
  const compare::Run uncertain = run_of("b", "h2", "uncertain", r);
  const Comparison c = compare_runs({certain, uncertain}, {});
  EXPECT_EQ(cell(c, 0).ceiling_uncertain, "");
  EXPECT_EQ(cell(c, 1).ceiling_uncertain, "uncertain 4.2-200.0 GB/s");
  EXPECT_TRUE(has_warning(c, "ceiling uncertain 4.2-200.0 GB/s (its estimates did not agree"));
  const std::string md = to_markdown(c);
  // One row: its rate and its ratio (computed from it) on one line.
  const std::size_t first = md.find(" (uncertain ceiling)"),
                    last = md.rfind(" (uncertain ceiling)");
  ASSERT_NE(first, std::string::npos) << md;
  EXPECT_EQ(md.substr(first, last - first).find('\n'), std::string::npos) << md;
  EXPECT_NE(md.find(" (uncertain ceiling) |"), std::string::npos) << md;
  EXPECT_NE(md.find("(uncertain ceiling): the row's ceiling did not settle"), std::string::npos)
      << md;
  const std::string csv = to_csv(c);
  EXPECT_NE(csv.find(",busy,ceiling_uncertain,marks,ratio_marks\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",false,uncertain 4.2-200.0 GB/s,uncertain ceiling,uncertain ceiling\n"),
            std::string::npos)
      << csv;

  const Comparison none =
      compare_runs({certain, run_of("c", "h2", "other", pooled_row(reps_of({2e-3}), {2e-3}))}, {});
  EXPECT_EQ(to_markdown(none).find("uncertain"), std::string::npos) << to_markdown(none);
}

} // namespace
} // namespace compare

namespace {

CaseResult measured(std::vector<double> compute, Status s = Status::ok) {
  CaseResult r;
  r.status = s;
  r.work = {1e9, 2e9};
  r.compute = summarize(compute);
  r.h2d = summarize(std::vector<double>(compute.size(), 0.5));
  r.d2h = summarize(std::vector<double>(compute.size(), 0.5));
  std::vector<double> total;
  for (const double t : compute)
    total.push_back(t + 1);
  r.total = summarize(total);
  set_rates(r);
  return r;
}

TEST(Rounds, ARowPoolsItsRounds) {
  CaseResult row = measured({1, 2, 3});
  row.host_load = 0.5;
  start_rounds(row);
  EXPECT_EQ(row.round_medians, (std::vector<double>{2}));
  CaseResult second = measured({4, 5, 6});
  second.host_load = 3;
  add_round(row, second);
  EXPECT_EQ(row.round_medians, (std::vector<double>{2, 5}));
  EXPECT_EQ(row.round_total_medians, (std::vector<double>{3, 6}));
  EXPECT_EQ(row.compute.samples.size(), 6u);
  EXPECT_DOUBLE_EQ(row.compute.median, 3.5);
  EXPECT_DOUBLE_EQ(row.gflops, 1.0 / 3.5);
  EXPECT_DOUBLE_EQ(row.host_load, 3);
  // A round that failed marks the row and adds no times.
  CaseResult bad = measured({1}, Status::invalid);
  bad.message = "3 element(s) out of tolerance";
  add_round(row, bad);
  EXPECT_EQ(row.status, Status::invalid);
  EXPECT_EQ(row.message, "round 3: 3 element(s) out of tolerance");
  EXPECT_EQ(row.round_medians.size(), 2u);
}

struct Rows final : ResultSink {
  std::vector<CaseResult> rows;
  int updates = 0;
  void open(const RunSetup&) override {}
  void add(const CaseResult& r) override { rows.push_back(r); }
  void update(std::size_t i, const CaseResult& r) override {
    rows.at(i) = r;
    ++updates;
  }
  void revise(std::size_t i, const CaseResult& r) override { rows.at(i) = r; }
  void finish(bool) override {}
  void failed() noexcept override {}
};
struct NoCeiling final : CeilingProvider {
  void attach(CaseResult&, const std::string&) override {}
};

TEST(Rounds, TheDriverRunsTheListRoundAfterRound) {
  Plan plan;
  plan.settings.warmup = 1;
  plan.settings.repetitions = 2;
  plan.backend = default_backend();
  for (const int n : {8, 16}) {
    Case c;
    c.family = "axpby";
    c.variant = "flat";
    c.precision = Precision::float32;
    c.m = c.n = n;
    c.index = int(plan.cases.size());
    plan.cases.push_back(c);
  }
  Rows sink;
  NoCeiling ceilings;
  DriverOptions opt;
  opt.rounds = 3;
  const RunOutcome out = run_experiment(plan, SingleRank(), sink, ceilings, opt);
  ASSERT_EQ(out.results.size(), 2u);
  EXPECT_EQ(sink.updates, 4); // rounds 2 and 3 of both cases
  for (const auto& r : sink.rows) {
    EXPECT_EQ(r.status, Status::ok) << r.message;
    EXPECT_EQ(r.round_medians.size(), 3u);
    expect_timed_samples(r, 2, plan.backend, 3);
    EXPECT_GE(r.host_load, 0); // sampled (Linux)
  }
}

} // namespace
} // namespace miniapp
