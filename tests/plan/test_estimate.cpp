// The time estimate (plan/estimate.hpp): the model's parts, measured kernel times replacing the
// model's, and Slurm's time formats in seconds.
#include "app/time_estimate.hpp"
#include "config/config.hpp"
#include "core/timing_rule.hpp"
#include "plan/estimate.hpp"
#include "plan/plan.hpp"

#include "plan_of.hpp"

#include <gtest/gtest.h>

#include <string>

namespace miniapp {
namespace {

const std::string matmul = "name: est\nbackend: serial\nwarmup: 1\nrepetitions: 10\n"
                           "cases:\n  - family: matmul\n    variant: flat\n    n: 512\n";

Rates unit_rates() {
  Rates r;
  r.gflops = 1; // 1 GFLOP/s: a 512^3 product (0.27 GFLOP) takes 0.27 s
  r.gbs = 1;
  r.host_gbs = 1;
  r.setup_gbs = 1;
  r.reference_gflops = 1;
  r.start_s = 0.5;
  r.ceiling_s = 2;
  return r;
}

TEST(Estimate, MatmulModelIsFlopsOverRatePerLaunchPlusTheReference) {
  const Plan p = plan_of(matmul);
  const double kernel = 2.0 * 512 * 512 * 512 / 1e9;
  const PlanEstimate e = estimate_plan(p, unit_rates());
  ASSERT_EQ(e.cases.size(), 1u);
  EXPECT_FALSE(e.cases[0].measured);
  // 1 warm-up + 10 timed launches, and the validation's checked launch and host reference: 13
  // products.
  EXPECT_GT(e.cases[0].seconds, 13 * kernel);
  EXPECT_LT(e.cases[0].seconds, 13 * kernel + 0.1);
  const PlanEstimate unchecked =
      estimate_plan(plan_of(matmul + "validation: {enabled: false}\n"), unit_rates());
  EXPECT_NEAR(e.cases[0].seconds - unchecked.cases[0].seconds, 2 * kernel, 1e-9);
  EXPECT_DOUBLE_EQ(e.seconds, e.cases[0].seconds + 0.5); // the start-up is counted once
  EXPECT_DOUBLE_EQ(estimate_plan(p, unit_rates(), {}, 1, {0, 0}).seconds, e.seconds + 2 * 2.0);
  // A ceiling an earlier run measured counts its own time, the others the rate's.
  EXPECT_DOUBLE_EQ(estimate_plan(p, unit_rates(), {}, 1, {0.25, 0}).seconds,
                   e.seconds + 0.25 + 2.0);
}

TEST(Estimate, MeasuredMedianReplacesTheModelledKernel) {
  const Plan p = plan_of(matmul + "validation: {enabled: false}\n");
  const std::string id = p.cases[0].id();
  const PlanEstimate model = estimate_plan(p, unit_rates());
  const PlanEstimate measured = estimate_plan(p, unit_rates(), {{id, 0.0}});
  EXPECT_TRUE(measured.cases[0].measured);
  const double kernel = 2.0 * 512 * 512 * 512 / 1e9;
  // warm-up: at least warmup_seconds on one rank, whatever the kernel takes; each timed sample
  // at least kernel_sample_seconds (chained launches)
  EXPECT_NEAR(model.cases[0].seconds - measured.cases[0].seconds,
              11 * kernel - warmup_seconds - 10 * kernel_sample_seconds, 1e-9);
  const PlanEstimate other = estimate_plan(p, unit_rates(), {{"another/case", 0.0}});
  EXPECT_FALSE(other.cases[0].measured);
}

// A case's host work as an earlier run measured it replaces the set-up and validation modelled
// from one rate for every case (paper_table1 was estimated at 19.8 s for 13.0 s).
TEST(Estimate, MeasuredHostWorkReplacesTheModelledSetUp) {
  const Plan p = plan_of(matmul + "validation: {enabled: false}\n");
  const std::string id = p.cases[0].id();
  const PlanEstimate both = estimate_plan(p, unit_rates(), {{id, 0.0}});
  const PlanEstimate host = estimate_plan(p, unit_rates(), {{id, 0.0}, {host_time_id(id), 7.0}});
  const double launches = launches_seconds(p, 0.0, 1);
  EXPECT_DOUBLE_EQ(host.cases[0].seconds, 7.0 + launches);
  EXPECT_LT(both.cases[0].seconds, launches + 1.0); // modelled: 3 MB at 1 GB/s, no fixed cost
  EXPECT_EQ(host_time_id(id).rfind("host:", 0), 0u);
}

// A host's tiled product at a small tile is bound by its team barriers, not its flops: tile 2 at
// 1024 ran for minutes on 2 OpenMP threads where the flops alone gave 27.6 s for the whole config.
TEST(Estimate, AHostTiledProductCountsItsTeamBarriers) {
  const std::string tiled = "name: est\nbackend: serial\nwarmup: 1\nrepetitions: 10\n"
                            "validation: {enabled: false}\ncases:\n  - family: matmul\n"
                            "    variant: tiled\n    n: 512\n    tile: ";
  Rates with = unit_rates();
  with.barrier_s = 1e-7;
  const auto difference = [&](const std::string& tile) {
    const Plan p = plan_of(tiled + tile + "\n");
    return estimate_plan(p, with).cases[0].seconds -
           estimate_plan(p, unit_rates()).cases[0].seconds;
  };
  // 256 x 256 teams, 256 steps along k, two barriers a step; 11 launches.
  EXPECT_NEAR(difference("2"), 11 * 2.0 * 256 * 256 * 256 * 1e-7, 1e-6);
  EXPECT_NEAR(difference("32"), 11 * 2.0 * 16 * 16 * 16 * 1e-7, 1e-9);
  EXPECT_DOUBLE_EQ(difference("auto"), 0.0); // the search never keeps the barrier-bound tile
  const Plan flat = plan_of(matmul);
  EXPECT_DOUBLE_EQ(estimate_plan(flat, with).seconds, estimate_plan(flat, unit_rates()).seconds);
  EXPECT_GT(default_rates("openmp").barrier_s, 0.0);
  EXPECT_EQ(default_rates("cuda").barrier_s, 0.0);
}

TEST(Estimate, RoundsRepeatTheLaunchesAndRanksShareTheWork) {
  const std::string text = matmul + "validation: {enabled: false}\n";
  const Plan p = plan_of(text);
  const double one = estimate_plan(p, unit_rates(), {}, 1).cases[0].seconds;
  const double three = estimate_plan(p, unit_rates(), {}, 3).cases[0].seconds;
  const double kernel = 2.0 * 512 * 512 * 512 / 1e9;
  EXPECT_NEAR(three - one, 2 * 11 * kernel, 1e-6);
  EXPECT_LT(estimate_plan(plan_of(text, 4), unit_rates()).cases[0].seconds, one / 3);
}

// On a GPU a case's samples last gpu_span_seconds, unless the run adds no launches (energy:
// false: sanitizer and profiler runs), where they are the count asked for.
TEST(Estimate, AGpuCaseLastsTheSpanUnlessTheRunAddsNoLaunches) {
  const std::string two = "name: est\nbackend: serial\nwarmup: 1\nrepetitions: 2\n"
                          "validation: {enabled: false}\n"
                          "cases:\n  - family: matmul\n    variant: flat\n    n: 512\n";
  Plan spanned = plan_of(two);
  Plan counted = plan_of(two + "energy: false\n");
  const double host = estimate_plan(spanned, unit_rates()).cases[0].seconds;
  EXPECT_NEAR(estimate_plan(counted, unit_rates()).cases[0].seconds, host, 1e-9);
  spanned.backend = counted.backend = "cuda"; // another build's plan: the estimate reads the name
  const double kernel = 2.0 * 512 * 512 * 512 / 1e9; // 0.27 s a launch: two samples, 0.54 s
  const double a = estimate_plan(spanned, unit_rates()).cases[0].seconds;
  const double b = estimate_plan(counted, unit_rates()).cases[0].seconds;
  EXPECT_NEAR(a - b, gpu_span_seconds - 2 * kernel, 1e-6);
  EXPECT_GT(b, host); // the copies to and from the device
}

// On a GPU the host work an earlier run measured holds the case's timed copies to and from the
// device (its wall time less its launches), so they are not added to it again.
TEST(Estimate, MeasuredHostWorkOnAGpuHoldsItsCopies) {
  Plan p = plan_of(matmul + "validation: {enabled: false}\n");
  p.backend = "cuda"; // another build's plan: the estimate reads the name
  const std::string id = p.cases[0].id();
  const PlanEstimate host = estimate_plan(p, unit_rates(), {{id, 0.0}, {host_time_id(id), 7.0}});
  EXPECT_DOUBLE_EQ(host.cases[0].seconds, 7.0 + launches_seconds(p, 0.0, 1));
  // Modelled, the set-up has no copies in it: 11 launches' uploads and downloads of the case's
  // 3 MB at 1 GB/s are added.
  const PlanEstimate modelled = estimate_plan(p, unit_rates(), {{id, 0.0}});
  const double bytes = 3.0 * 512 * 512 * sizeof(float);
  EXPECT_NEAR(modelled.cases[0].seconds,
              bytes / 1e9 + launches_seconds(p, 0.0, 1) + 11 * 2 * bytes / 1e9, 1e-9);
}

TEST(Estimate, SlurmTimesInSeconds) {
  EXPECT_EQ(slurm_time_seconds("5"), 300);
  EXPECT_EQ(slurm_time_seconds("05:30"), 330);
  EXPECT_EQ(slurm_time_seconds("01:02:03"), 3723);
  EXPECT_EQ(slurm_time_seconds("1-02"), 86400 + 7200);
  EXPECT_EQ(slurm_time_seconds("1-02:03"), 86400 + 7200 + 180);
  EXPECT_EQ(slurm_time_seconds("2-00:00:10"), 2 * 86400 + 10);
  EXPECT_GT(required_limit_seconds(100), 100 * kTimeMarginFactor);
}

TEST(Estimate, Formatting) {
  EXPECT_EQ(format_seconds(12.34), "12.3 s");
  EXPECT_EQ(format_seconds(185), "3 min 05 s");
  EXPECT_EQ(format_seconds(3720), "1 h 02 min");
}

// The time-limit warning of job scripts (#SBATCH --signal=B:USR1@S, docs/jobs.md "Resuming").
TEST(StopSignalMargin, LongestCaseWithItsMarginAtLeastAMinuteAtMostHalfTheLimit) {
  PlanEstimate e;
  e.cases = {{10, false}, {4, false}};
  EXPECT_EQ(stop_signal_margin_s(e, 3600), 60); // 10 s x 1.5 + 30 s is below the least margin
  e.cases.push_back({100, false});
  EXPECT_EQ(stop_signal_margin_s(e, 3600), 180); // the longest case: 100 s x 1.5 + 30 s
  EXPECT_EQ(stop_signal_margin_s(e, 300), 150);  // half of a 5 min limit
  EXPECT_EQ(stop_signal_margin_s(e, 60), 30);    // a one-minute job is warned after 30 s
  EXPECT_EQ(stop_signal_margin_s(e, 0), 0);      // no limit: no warning
  e.cases.push_back({1e6, false});
  EXPECT_EQ(stop_signal_margin_s(e, 1e7), 65535); // the most sbatch takes
}

} // namespace
} // namespace miniapp
